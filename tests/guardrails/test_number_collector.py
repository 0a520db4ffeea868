"""One walk of each tool result per run: the pools built from a collector trace exactly what a pool
built from scratch traces (issue 12: the pool used to be rebuilt three times per briefing)."""

from __future__ import annotations

from typing import Any

import pytest

from findesk.guardrails import number_trace
from findesk.guardrails.number_trace import NumberCollector, collect_numbers

QUOTE = {"price": 232.14, "summary": "volume 39,387,990 on 2025-08-29, market cap 3.45T"}
FACTS = {"revenue": "94,036,000,000 USD", "eps": 1.57}


def test_pools_from_a_collector_equal_pools_from_scratch() -> None:
    numbers = NumberCollector()
    numbers.add("e1", QUOTE)
    first = numbers.pool({"extra": 5.5})
    assert len(first) == len(collect_numbers(QUOTE, {"extra": 5.5}))
    numbers.add("e2", FACTS)
    second = numbers.pool()
    assert len(second) == len(collect_numbers(QUOTE, FACTS))
    assert second.traces(94_036_000_000, "94.04 billion") and not second.traces(5.5, "5.5")


def test_a_source_added_twice_under_one_key_is_walked_once(monkeypatch: pytest.MonkeyPatch) -> None:
    walked: list[Any] = []
    real = number_trace._walk

    def counting(sources: Any) -> Any:
        walked.append(sources)
        return real(sources)

    monkeypatch.setattr(number_trace, "_walk", counting)
    numbers = NumberCollector()
    for _ in range(3):
        numbers.add("e1", QUOTE)
        numbers.pool()
    assert sum(1 for s in walked if s == [QUOTE]) == 1
