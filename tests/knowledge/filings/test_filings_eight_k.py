"""8-K Items on the snapshot's NVDA, META, JPM (HTML) and AAPL (Markdown) 8-Ks."""

from __future__ import annotations

from pathlib import Path

import pytest

from findesk.knowledge.filings.eight_k import split_eight_k
from findesk.knowledge.filings.html_text import document_text
from findesk.knowledge.filings.items import ItemText

CASES = {
    "NVDA/8-K_2026-03-06.htm": ["5.02", "9.01"],
    "META/8-K_2025-12-19.htm": ["5.02"],
    "JPM/8-K_2026-06-25.htm": ["5.02", "9.01"],
    "AAPL/8-K_2024-10-31.md": ["2.02", "9.01"],
}


def _items(root: Path, rel: str) -> list[ItemText]:
    raw = (root / "sec/filings" / rel).read_text(encoding="utf-8")
    return split_eight_k(document_text(raw, "markdown" if rel.endswith(".md") else "html"))


@pytest.mark.parametrize("rel", sorted(CASES))
def test_snapshot_8k_items(snapshot_dir: Path, rel: str) -> None:
    items = _items(snapshot_dir, rel)
    assert [it.item for it in items] == CASES[rel]
    for it in items:
        assert it.text.lower().startswith(f"item {it.item}")
        assert "Pursuant to the requirements of the Securities Exchange Act" not in it.text  # signature


def test_aapl_results_item(snapshot_dir: Path) -> None:
    first = _items(snapshot_dir, "AAPL/8-K_2024-10-31.md")[0]
    assert first.title == "Results of Operations and Financial Condition"
    assert "press release" in first.text and "Exhibit 99.1" in first.text


def test_nvda_officer_item_title_is_official(snapshot_dir: Path) -> None:
    first = _items(snapshot_dir, "NVDA/8-K_2026-03-06.htm")[0]
    assert first.title.startswith("Departure of Directors or Certain Officers")
    assert len(first.text) > 1000


def test_cross_references_and_repeats_are_skipped() -> None:
    text = "\n".join(
        [
            "Item 8.01 Other Events.",
            "We announced something.",
            "Item 2.02 of Form 8-K is not covered here.",
            "Item 8.01 Other Events (quoted again).",
            "Item 9.01. Financial Statements and Exhibits.",
            "(d) Exhibits",
            "SIGNATURES",
            "By: someone",
        ]
    )
    items = split_eight_k(text)
    assert [it.item for it in items] == ["8.01", "9.01"]
    assert "quoted again" in items[0].text
    assert items[1].text == "Item 9.01. Financial Statements and Exhibits.\n(d) Exhibits"
