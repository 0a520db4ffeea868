"""Cross-check against a second, independent parser (sec-parsers) on the snapshot's HTML 10-Ks.

For Items 1, 1A and 7 the two parsers must start with the same words, end with the same words and
agree on length within 10 %. WFC is left out: sec-parsers does not find its Items (it returns Item 10
for "Item 1"), while ours are checked directly in ``test_filings_snapshot_items``.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from findesk.knowledge.filings.html_text import html_to_text
from findesk.knowledge.filings.items import split_items

sec_parsers = pytest.importorskip("sec_parsers")

DOCS = {
    "AAPL": "AAPL/10-K_2024-11-01.htm",
    "AMZN": "AMZN/10-K_2025-02-07.htm",
    "GOOGL": "GOOGL/10-K_2025-02-05.htm",
    "META": "META/10-K_2025-01-30.htm",
    "NVDA": "NVDA/10-K_2025-02-26.htm",
    "TSLA": "TSLA/10-K_2025-01-30.htm",
}
_NOT_LETTERS = re.compile(r"[^a-z]+")


def _letters(text: str) -> str:
    # Letters only: the two parsers differ in spacing ("Risk FactorsThe Company" vs a line break).
    return _NOT_LETTERS.sub("", text.lower())


def _their_item(parsed: Any, item: str) -> str:
    pattern = re.compile(rf"^\s*item\s*{item}(?![0-9a-z])", re.IGNORECASE)
    nodes = [n for n in parsed.xml.xpath("//*[@title]") if pattern.match(n.attrib["title"])]
    assert nodes, f"sec-parsers found no Item {item}"
    return str(parsed.get_text_from_section(nodes[0]))


@pytest.mark.parametrize("ticker", sorted(DOCS))
def test_items_agree_with_sec_parsers(snapshot_dir: Path, ticker: str) -> None:
    html = (snapshot_dir / "sec/filings" / DOCS[ticker]).read_text(encoding="utf-8")
    parsed = sec_parsers.Filing(html)
    parsed.parse()
    ours = {it.item: it.text for it in split_items(html_to_text(html), "10-K")}
    for item in ("1", "1A", "7"):
        a, b = _letters(_their_item(parsed, item)), _letters(ours[item])
        assert a[:80] == b[:80], f"{ticker} Item {item} opens differently"
        assert a[-60:] in b[-1500:], f"{ticker} Item {item} ends differently"
        assert 0.9 <= len(b) / len(a) <= 1.1, f"{ticker} Item {item}: {len(b)} vs {len(a)} letters"
