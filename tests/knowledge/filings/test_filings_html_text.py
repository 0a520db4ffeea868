"""HTML/Markdown -> text: block lines, table rows, hidden XBRL header dropped, whitespace normalized."""

from __future__ import annotations

from pathlib import Path

from findesk.knowledge.filings.html_text import html_to_text, markdown_to_text

HTML = """<html><head><title>t</title><style>p{}</style></head><body>
<div style="display:none"><ix:header><ix:hidden>
<ix:nonNumeric name="dei:EntityCentralIndexKey">0000999999</ix:nonNumeric></ix:hidden></ix:header></div>
<div><span style="font-weight:700">Item&#160;1A.</span><span>&#160;&#160;Risk   Factors</span></div>
<p>First   paragraph
 wraps here.</p><p>Second<br>line</p>
<table><tr><td><div>Revenue</div></td><td></td><td>$</td><td>1,234</td></tr>
<tr><td>Cost</td><td>(56)</td></tr></table>
<div>Tail&#8203;text</div></body></html>"""


def test_blocks_tables_hidden_and_whitespace() -> None:
    text = html_to_text(HTML)
    assert text.splitlines() == [
        "Item 1A. Risk Factors",
        "First paragraph wraps here.",
        "Second",
        "line",
        "Revenue | $ | 1,234",
        "Cost | (56)",
        "Tailtext",
    ]
    assert "0000999999" not in text


def test_real_10k_drops_hidden_header_and_keeps_headings(snapshot_dir: Path) -> None:
    html = (snapshot_dir / "sec/filings/AAPL/10-K_2024-11-01.htm").read_text(encoding="utf-8")
    text = html_to_text(html)
    lines = text.splitlines()
    assert "0000320193" not in text  # dei:EntityCentralIndexKey lives only in the hidden ix:header
    assert "Item 1A. Risk Factors" in lines  # body heading on one line
    assert "Item 1A. | Risk Factors | 5" in lines  # table-of-contents row, cells joined
    assert all(line == line.strip() and line for line in lines)
    assert "\xa0" not in text


def test_markdown_light_normalization(snapshot_dir: Path) -> None:
    md = (snapshot_dir / "sec/filings/MSFT/10-K_2025-07-30.md").read_text(encoding="utf-8")
    lines = markdown_to_text(md).splitlines()
    assert "ITEM 1A. RISK FACTORS" in lines  # was "## ITEM 1A. RISK FACTORS"
    assert "Item 1A. | Risk Factors | 16" in lines  # embedded HTML table rendered as rows
    assert not any(line.startswith(("#", "<!--", "<table", "<td")) for line in lines)
