"""The pieces every workflow's renderers share (``workflows.report_parts``): printable data text, escaped
HTML text and links, the data-mode label and the tool-trace row; and the briefing page that now uses
them, run for real on the snapshot with a hostile post planted in front of the real ones.
"""

from __future__ import annotations

import math
from datetime import date

from brief_kit import BriefRun, planting, post

from findesk.core.formatting import NONE
from findesk.workflows.brief.render_html import to_html
from findesk.workflows.records import ToolCallRecord
from findesk.workflows.report_parts import (
    CSP,
    REL,
    TOOL_COLUMNS,
    arguments_text,
    data_label,
    e,
    html_page,
    link,
    printable,
    tool_row,
)

ESC = "\x1b[2J\x1b]8;;https://evil.example\x07"  # clear the screen, then open a terminal hyperlink
INVISIBLE = "\u200b\u2060\ufeff"  # zero-width space, word joiner, byte-order mark
BIDI = "\u202e"  # right-to-left override: would reverse the rest of the line


def _call(**update: object) -> ToolCallRecord:
    base = ToolCallRecord(
        agent="news",
        name="search_news",
        arguments={"query": "semiconductors", "limit": 5},
        status="ok",
        latency_ms=1234.6,
        summary="5 articles",
    )
    return base.model_copy(update=update)


def test_printable_is_one_line_without_escapes_or_invisible_characters() -> None:
    text = f"Chip{INVISIBLE} rally\n\tcontinues{ESC}{BIDI} today"
    assert printable(text) == "Chip rally continues[2J]8;;https://evil.example today"
    assert printable(None) == NONE
    assert printable(3.5) == "3.5"
    assert printable("Zoë 株式 ✓") == "Zoë 株式 ✓"  # letters of any script stay


def test_e_escapes_markup_quotes_and_drops_escapes() -> None:
    out = e(f'"><script>alert(1)</script>{ESC}')
    assert out == "&quot;&gt;&lt;script&gt;alert(1)&lt;/script&gt;[2J]8;;https://evil.example"
    assert e("O'Neil & Co") == "O&#x27;Neil &amp; Co"


def test_only_whole_http_urls_become_links() -> None:
    url = "https://www.sec.gov/cgi-bin/browse-edgar?action=getcompany&CIK=0000320193"
    assert link(url, "EDGAR") == f'<a href="{e(url)}" rel="{REL}">EDGAR</a>'
    assert "&amp;CIK" in link(url) and REL == "noopener noreferrer nofollow"
    assert (
        link("  https://example.com/a  ")
        == f'<a href="https://example.com/a" rel="{REL}">https://example.com/a</a>'
    )
    for not_http in ("javascript:alert(1)", "data:text/html,x", "https://a.example/x y", 'https://a"b'):
        out = link(not_http)
        assert "<a " not in out and out.startswith('<span class="url">'), not_http
    assert link('"><img src=x>') == '<span class="url">&quot;&gt;&lt;img src=x&gt;</span>'
    assert link(None) == link("  ") == '<span class="muted">no URL</span>'


def test_a_page_is_self_contained_and_its_title_is_data() -> None:
    page = html_page(f"<script>x</script>{ESC}", "main{color:#000}", "<p>body</p>")
    assert page.startswith("<!DOCTYPE html>\n")
    assert page.endswith("<body><main>\n<p>body</p>\n</main></body></html>\n")
    assert f'<meta http-equiv="Content-Security-Policy" content="{CSP}">' in page
    assert "default-src 'none'" in CSP and "script-src" not in CSP  # no script may run, none may load
    assert '<meta name="referrer" content="no-referrer">' in page
    assert "<title>&lt;script&gt;x&lt;/script&gt;[2J]8;;https://evil.example</title>" in page
    assert "<style>main{color:#000}</style>" in page


def test_data_label_states_the_date_once() -> None:
    day = date(2025, 8, 29)
    assert data_label("offline snapshot as of 2025-08-29", day) == "offline snapshot as of 2025-08-29"
    assert data_label("live", day) == "live, as of 2025-08-29"


def test_tool_row_fills_every_column_as_printable_text() -> None:
    row = tool_row(_call())
    assert len(row) == len(TOOL_COLUMNS) == 7
    assert row == [
        "news",
        "search_news",
        "ok",
        "1,235",
        "no",
        '{"limit": 5, "query": "semiconductors"}',
        "5 articles",
    ]
    odd = tool_row(_call(latency_ms=math.nan, cached=True, status=f"unavailable{ESC}", summary=f"a{ESC}\nb"))
    assert odd[2:5] == ["unavailable[2J]8;;https://evil.example", NONE, "yes"]
    assert odd[6] == "a[2J]8;;https://evil.example b"
    assert not any("\x1b" in cell or "\x07" in cell for cell in odd)


def test_long_or_odd_arguments_are_clipped_to_one_line() -> None:
    long = arguments_text(_call(arguments={"query": "x" * 500}))
    assert len(long) == 160 and long.endswith("…") and long.startswith('{"query": "xxx')
    assert len(arguments_text(_call(arguments={"query": "x" * 500}), limit=40)) == 40
    assert arguments_text(_call(arguments={"day": date(2025, 8, 29)})) == '{"day": "2025-08-29"}'
    # JSON writes a line break inside an argument as "\\n": the cell stays one line
    assert arguments_text(_call(arguments={"query": "a\nb"})) == '{"query": "a\\nb"}'


def test_briefing_page_prints_a_hostile_author_without_its_escapes(brief_run: BriefRun) -> None:
    planted = post("esc1", "AAPL stock split announced today!", author=f"pump{ESC}<b>bot</b>")
    b = brief_run("AAPL", overrides={"get_reddit_posts": planting(planted)}).briefing
    page = to_html(b)
    # the post head is data text through ``e``: escaped, with the terminal escapes dropped
    assert "@pump[2J]8;;https://evil.example&lt;b&gt;bot&lt;/b&gt;" in page
    assert "\x1b" not in page and "\x07" not in page and "<b>bot" not in page
