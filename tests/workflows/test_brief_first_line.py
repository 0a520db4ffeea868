"""Every rendering of a briefing opens by stating its data mode and date (the README's promise), and
every ``[n]`` an advisor sees resolves to a numbered source, clickable where the format allows.

Briefings are real (AAPL on the recorded snapshot at two dates); a live one is the same briefing with
its audit saying "live".
"""

from __future__ import annotations

import io
import json
import re
from datetime import date
from html.parser import HTMLParser

import pytest
from brief_kit import BriefRun
from rich.console import Console

from findesk.interfaces.cli.brief_view import draw
from findesk.workflows.brief.models import Briefing
from findesk.workflows.brief.render_html import section_html, to_html
from findesk.workflows.brief.render_markdown import to_markdown

DATES = (date(2025, 8, 29), date(2025, 3, 3))
_CITE = re.compile(r"\[(\d+)\]")


def terminal(b: Briefing, *, details: bool = False, width: int = 120) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    draw(console, b, details=details)
    return console.export_text()


def first_lines(b: Briefing) -> dict[str, str]:
    """The first line a reader meets in each format (for HTML: the title and the first text)."""
    page = to_html(b)
    title = re.search(r"<title>(.*?)</title>", page)
    body = re.search(r"<main>\s*<header><p class=\"meta\">(.*?)</p>", page)
    assert title and body
    return {
        "markdown": to_markdown(b).split("\n", 1)[0],
        "html title": title.group(1),
        "html first line": body.group(1),
        "terminal": terminal(b).split("\n", 1)[0],
        "terminal details": terminal(b, details=True).split("\n", 1)[0],
        "json": next(iter(json.loads(b.model_dump_json()).items())),  # type: ignore[dict-item]
    }


@pytest.mark.parametrize("day", DATES, ids=str)
def test_every_format_opens_with_the_data_mode_and_date(brief_run: BriefRun, day: date) -> None:
    b = brief_run("AAPL", at=day).briefing
    line = f"offline snapshot as of {day.isoformat()} · AAPL briefing"
    assert b.data_line == line
    got = first_lines(b)
    assert got.pop("json") == ("data_line", line)
    assert got.pop("markdown") == f"# {line}"
    for name, text in got.items():
        assert text.strip() == line, name


def test_a_live_briefing_says_live_and_its_date(brief_run: BriefRun) -> None:
    real = brief_run("AAPL").briefing
    raw = real.model_dump(mode="json") | {"data_line": ""}
    raw["audit"]["data_mode"] = "live"
    live = Briefing.model_validate(raw)
    assert live.data_line == "live, as of 2025-08-29 · AAPL briefing"
    for name, text in first_lines(live).items():
        assert "live, as of 2025-08-29" in str(text), name
    # the JSON reads back as the same briefing
    assert Briefing.model_validate_json(live.model_dump_json()) == live


# ---- the numbered sources ----


def test_one_screen_lists_the_source_of_every_marker_it_shows(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    out = terminal(b)
    lines = out.rstrip("\n").split("\n")  # (the line budget is test_brief_render's)
    listed = {int(m[1]): line for line in lines if (m := re.match(r"\[(\d+)\] ", line))}
    body = "\n".join(line for line in lines if not re.match(r"\[\d+\] ", line))
    shown = {int(n) for n in _CITE.findall(body)}
    assert shown, "no footnote on the one screen: the test proves nothing"
    assert shown <= set(listed), f"markers without their source: {sorted(shown - set(listed))}"
    for n, line in listed.items():
        key = b.sources[n - 1].key
        assert key in line, f"[{n}]'s URL is clipped or missing: {line!r}"
        assert len(line) <= 120


def test_one_screen_sources_keep_their_url_whole_at_any_width(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    for width in (120, 160, 220):
        lines = terminal(b, width=width).split("\n")
        for line in (x for x in lines if re.match(r"\[\d+\] ", x)):
            n = int(line[1 : line.index("]")])
            assert line.rstrip().endswith(b.sources[n - 1].key), (width, line)
    # narrower than a URL: it folds onto the next line, whole, instead of being cut
    out = terminal(b, width=80)
    tail = out[out.index("mode deterministic") :]
    for n in sorted({int(x) for x in re.findall(r"^\[(\d+)\] ", tail, re.M)}):
        assert b.sources[n - 1].key in tail.replace("\n", ""), n


class _Anchors(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.ids: dict[str, list[str]] = {}  # id -> hrefs of the links inside that element
        self.cite_targets: list[str] = []
        self._open: list[tuple[str, str | None]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if a.get("id"):
            self.ids[str(a["id"])] = []
        if tag == "a" and a.get("class") == "cite":
            self.cite_targets.append(str(a.get("href")))
        if tag == "a":
            for _, open_id in self._open:
                if open_id:
                    self.ids[open_id].append(str(a.get("href")))
        if tag not in ("br", "meta", "link", "input"):
            self._open.append((tag, a.get("id")))

    def handle_endtag(self, tag: str) -> None:
        while self._open:
            if self._open.pop()[0] == tag:
                break


def test_html_markers_link_to_source_entries_that_link_to_the_source(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    page = _Anchors()
    page.feed(to_html(b))
    assert page.cite_targets, "no [n] link in the HTML"
    for target in page.cite_targets:
        assert target.startswith("#source-"), target
        entry = target[1:]
        assert entry in page.ids, f"{target} points nowhere"
        n = int(entry.removeprefix("source-"))
        assert b.sources[n - 1].key in page.ids[entry], f"entry {n} does not link to its source"
    # every [n] printed in the HTML is one of those links
    text_markers = re.findall(r">\[(\d+)\]</a>", to_html(b))
    assert len(text_markers) == len(page.cite_targets)


def test_no_source_prints_its_url_twice(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    for s in b.sources:
        assert s.key not in s.label, s
    md_lines = [x for x in to_markdown(b).split("\n") if x.startswith("- [")]
    wide = terminal(b, details=True, width=400)
    term_lines = [x for x in wide.split("\n") if re.match(r"\[\d+\] ", x)]
    for line in md_lines + term_lines:
        url = re.search(r"https?://\S+?(?=>|\s|$)", line)
        assert url and line.count(url.group(0)) == 1, line


def test_html_tool_table_scrolls_in_its_box_and_the_page_audit_lists_nothing_twice(
    brief_run: BriefRun,
) -> None:
    b = brief_run("AAPL").briefing
    page = to_html(b)
    assert re.search(r'<div class="table-wrap"><table>', page)
    assert ".table-wrap{max-width:100%;overflow-x:auto}" in page
    # the page has its own Warnings and Tool trace panels: its audit section counts, never lists
    audit = section_html(b, "audit")
    assert "<table" not in audit
    assert f"Warnings ({len(b.audit.warnings)})" in audit
    errors = sum(1 for t in b.audit.tool_calls if t.status != "ok")
    assert f"tool calls ({len(b.audit.tool_calls)}, {errors} error" in audit
    assert 'id="source-1"' in audit
