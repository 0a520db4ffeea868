"""The 10-K splitter against the EDGAR-CORPUS reference segmentation (62 filings, 1994-2023).

As the bench README suggests: concatenate each file's non-empty items in form order, split, and
check every recovered item (same heading start, same text up to whitespace, length within 5 %).
The bench includes a trailing "PART II" line in the item before a new Part; our splitter drops that
line, so it is removed from both sides before comparing.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from findesk.data.formats.sec_forms import TEN_K_ITEMS
from findesk.knowledge.filings.items import split_items

BENCH = Path(__file__).resolve().parents[4] / "shared/bench/edgar_items/10-K"
_TRAILING_PART = re.compile(r"(\s*\bPART\s+(IV|I{1,3})\.?\s*)+$", re.IGNORECASE)

# Accepted disagreements, by file prefix and item:
# - Nuance 2021 Item 8: the reference text starts with a doubled "Item 8.\nItem 8.Financial…" heading;
#   we start at the second (titled) line, 8 characters later, so Item 7A also ends with that line.
ACCEPTED = {("1002517_10K_2021", "8"), ("1002517_10K_2021", "7A")}


def _norm(text: str) -> str:
    flat = " ".join(text.split())
    return (flat[:-60] + _TRAILING_PART.sub("", flat[-60:])).strip()


def _same(expected: str, got: str) -> bool:
    e, g = _norm(expected), _norm(got)
    if not g or e[:40] != g[:40] or e[-40:] != g[-40:]:
        return False
    return min(len(e), len(g)) / max(len(e), len(g)) >= 0.95


def test_bench_items_recovered() -> None:
    files = sorted(BENCH.glob("*.json"))
    if not files:
        pytest.skip(f"the EDGAR-CORPUS bench is not available at {BENCH}")
    assert len(files) == 62
    total, failures = 0, []
    for path in files:
        data = json.loads(path.read_text(encoding="utf-8"))
        items = [(k, data[f"item_{k}"]) for k in TEN_K_ITEMS if data.get(f"item_{k}", "").strip()]
        got = {it.item: it.text for it in split_items("\n".join(v for _, v in items), "10-K")}
        for key, expected in items:
            total += 1
            if not _same(expected, got.get(key, "")):
                failures.append((path.name[:16], key))
    rate = 1 - len(failures) / total
    assert total == 1133
    assert rate >= 0.98, f"pass rate {rate:.3%}; failures: {failures}"
    assert set(failures) <= ACCEPTED, f"new failures: {sorted(set(failures) - ACCEPTED)}"
