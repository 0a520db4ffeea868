"""``OutputGuard.prose``: the one rule every workflow applies to a model's summary or answer."""

from __future__ import annotations

from findesk.guardrails.number_trace import collect_numbers
from findesk.guardrails.output_guard import OutputGuard

FALLBACK = ["AAPL closed at $232.14 on 2025-08-29."]


def test_model_prose_with_an_untraced_number_is_replaced_by_the_code_built_text() -> None:
    guard = OutputGuard(collect_numbers({"price": 232.14}))
    shown, caught = guard.prose(["AAPL closed at $232.14 and will reach $300."], FALLBACK, replaceable=True)
    assert shown == FALLBACK and [u.text for u in caught] == ["$300"]
    assert [u.text for u in guard.report().untraced_numbers] == ["$300"]  # the audit keeps what was caught


def test_traced_prose_is_kept_with_its_advice_removed_and_code_built_text_is_never_replaced() -> None:
    guard = OutputGuard(collect_numbers({"price": 232.14}))
    shown, caught = guard.prose(
        ["AAPL closed at $232.14. You should buy AAPL now."], FALLBACK, replaceable=True
    )
    assert (
        shown[0].startswith("AAPL closed at $232.14. [removed: investment advice")
        and not caught
        and guard.report().advice_removed
    )
    kept, caught = guard.prose(["Revenue was $5."], FALLBACK, replaceable=False)
    assert kept == ["Revenue was $5."] and [u.text for u in caught] == ["$5"]
