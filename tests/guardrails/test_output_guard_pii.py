"""The output guard removes personal data from what the desk writes and says so in its report, the
same way it reports removed advice; the desk's figures pass through untouched."""

from __future__ import annotations

from pydantic import BaseModel

from findesk.guardrails.number_trace import collect_numbers
from findesk.guardrails.output_guard import OutputGuard

FALLBACK = ["AAPL closed at $232.14 on 2025-08-29."]
FIGURES = (
    "Total net sales were $391,035 million in 2024, up 2% from $383,285 million; 15,115,823,000 shares "
    "were outstanding as of October 18, 2024 (CIK 0000320193, accession 0000320193-24-000123)."
)


class Answer(BaseModel):
    summary: str
    points: list[str]
    url: str


def test_an_email_and_a_card_in_model_prose_are_removed_and_a_warning_says_so() -> None:
    guard = OutputGuard(collect_numbers({"price": 232.14}))
    shown, caught = guard.prose(
        ["AAPL closed at $232.14. As you asked, jane.doe@example.com was charged on 4111 1111 1111 1111."],
        FALLBACK,
        replaceable=True,
    )
    assert shown == [
        "AAPL closed at $232.14. As you asked, [email removed] was charged on [card number removed]."
    ]
    assert caught == []  # the card's digits are gone before the numbers are traced, so nothing is "untraced"
    report = guard.report()
    assert report.pii_removed == ["email", "card_number"] and not report.clean
    assert report.warnings() == [
        "pii_removed: removed 1 email address from the output",
        "pii_removed: removed 1 card number from the output",
    ]


def test_output_with_10k_figures_is_unchanged_and_reports_no_pii() -> None:
    guard = OutputGuard(collect_numbers({"sales": [391_035, 383_285], "shares": 15_115_823_000, "growth": 2}))
    assert guard.text(FIGURES) == FIGURES
    assert guard.report().pii_removed == [] and not any(
        w.startswith("pii_removed") for w in guard.report().warnings()
    )


def test_an_advice_finding_never_quotes_the_removed_value() -> None:
    guard = OutputGuard(collect_numbers({}))
    shown = guard.text("You should buy AAPL now and text me at 212-555-0187.")
    finding = guard.report().advice_removed[0]
    assert "555" not in finding.sentence and "[phone removed]" in finding.sentence
    assert "555" not in shown and guard.report().pii_removed == ["phone"]


def test_every_prose_string_of_a_typed_output_is_scrubbed_and_links_are_left_alone() -> None:
    guard = OutputGuard(collect_numbers({}))
    out = guard.model(
        Answer(
            summary="Reach the analyst at analyst@example.com.",
            points=["SSN 123-45-6789 was in the notes.", "Revenue rose."],
            url="https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0000320193",
        )
    )
    assert out.summary == "Reach the analyst at [email removed]."
    assert out.points == ["SSN [SSN removed] was in the notes.", "Revenue rose."]
    assert out.url.endswith("CIK=0000320193")
    assert guard.report().pii_removed == ["email", "ssn"]
