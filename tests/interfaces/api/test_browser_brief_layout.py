"""The HTML export and the web page as an advisor sees them in Chromium at 1280 px: one warnings count,
one tool list, nothing wider than the page, every ``[n]`` a link to its source entry, the data mode and
date first, and a refused request that leaves no section "waiting…".

The server runs on the real snapshot (``browser_kit.serving``); the export is written by the CLI.
"""

from __future__ import annotations

import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import browser_page, require_browser, serving

from snapshot_kit import env_without_settings

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

SECTIONS = ("snapshot", "business", "events", "risks", "social", "divergences", "audit")
DATA_LINE = "offline snapshot as of 2025-08-29 · AAPL briefing"
WIDTH = 1280


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve")) as (url, _log):
        yield url


@pytest.fixture
def page() -> Iterator[Page]:
    with browser_page(viewport={"width": WIDTH, "height": 1000}) as p:
        yield p


def _overflow(page: Page) -> int:
    """How many pixels the page is wider than the window (0: no sideways scrolling)."""
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def _follow_first_cite(page: Page, within: str) -> str:
    """Click the first ``[n]`` in ``within``; the id it jumped to, which must be a source entry in view."""
    cite = page.locator(f"{within} a.cite").first
    target = cite.get_attribute("href") or ""
    assert re.fullmatch(r"#source-\d+", target), target
    cite.click()
    page.wait_for_function("location.hash !== ''")
    assert page.evaluate("location.hash") == target
    entry = page.locator(target)
    assert entry.is_visible()
    top = entry.evaluate("e => e.getBoundingClientRect().top")
    assert -1 <= top < page.viewport_size["height"], top  # type: ignore[index]  (sub-pixel scroll)
    assert re.fullmatch(r"\[\d+\]", cite.inner_text())
    assert entry.inner_text().startswith(cite.inner_text())
    return target


def test_html_export_fits_1280_px_and_its_markers_jump_to_linked_sources(
    snapshot_dir: Path, tmp_path: Path, page: Page
) -> None:
    out = tmp_path / "aapl.html"
    env = env_without_settings()
    env |= {"FINDESK_SNAPSHOT_DIR": str(snapshot_dir), "FINDESK_STATE_DIR": str(tmp_path / "state")}
    subprocess.run(
        [sys.executable, "-m", "findesk", "brief", "AAPL", "--format", "html", "--quiet", "-o", str(out)],
        env=env | {"FINDESK_CACHE_DIR": str(tmp_path / "cache")},
        check=True,
        capture_output=True,
        timeout=120,
    )
    page.goto(out.as_uri())
    assert page.title() == DATA_LINE
    assert page.inner_text("main").split("\n", 1)[0] == DATA_LINE
    assert _overflow(page) == 0, "the page scrolls sideways (the tool table is wider than 1280 px)"
    table = page.locator("#section-7 table")
    assert table.count() == 1
    assert table.evaluate("t => t.closest('.table-wrap').getBoundingClientRect().right") <= WIDTH
    target = _follow_first_cite(page, "#section-2")
    assert page.locator(f"{target} a[href^='https://www.sec.gov/']").count() == 1
    # every marker resolves, and every entry links out
    for href in set(page.eval_on_selector_all("a.cite", "xs => xs.map(x => x.getAttribute('href'))")):
        assert page.locator(href).count() == 1, href
    entries = page.locator("ul.sources > li")
    assert entries.count() > 5
    assert page.locator("ul.sources > li a[href^='http']").count() == entries.count()


def test_page_shows_one_warning_count_one_tool_list_and_linked_markers(server: str, page: Page) -> None:
    page.goto(server)
    page.fill("#ticker", "AAPL")
    page.click("#run")
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=90_000)
    page.wait_for_selector("#run:enabled", timeout=10_000)

    assert page.inner_text("#data-line") == DATA_LINE
    shown = page.locator("#warnings li").count()
    assert page.inner_text("#warning-count") == f"({shown})"
    audit = page.inner_text("#section-audit")
    assert f"Warnings ({shown})" in audit, audit  # the audit and the panel agree
    assert re.search(rf"\b{shown} warnings?\b|Warnings \({shown}\)", audit)
    # one tool list: the trace panel; the audit section counts the calls and points there
    assert page.locator("#section-audit table").count() == 0
    assert page.locator("table").count() == 1
    calls = int(re.search(r"tool calls \((\d+),", audit).group(1))  # type: ignore[union-attr]
    assert page.inner_text("#trace-count").startswith(f"{calls} tool calls")
    assert _overflow(page) == 0

    hrefs = page.eval_on_selector_all("#sections a.cite", "xs => xs.map(x => x.getAttribute('href'))")
    assert len(hrefs) > 5
    for href in set(hrefs):
        entry = page.locator(f"#section-audit {href}")
        assert entry.count() == 1, href
        assert entry.locator("a[href^='http']").count() == 1, href
    _follow_first_cite(page, "#section-events")


def test_a_refused_question_leaves_no_section_waiting(server: str, page: Page) -> None:
    page.goto(server)
    page.fill("#ticker", "AAPL")
    page.fill("#question", "Should I buy Apple before earnings?")
    page.click("#run")
    page.wait_for_selector("#error:not([hidden])", timeout=30_000)
    page.wait_for_selector("#run:enabled", timeout=10_000)
    assert page.inner_text("#error").startswith("refused")
    for name in SECTIONS:
        box = page.locator(f"#section-{name}")
        assert box.get_attribute("data-state") == "missing", name
        text = box.inner_text()
        assert "waiting" not in text, name
        assert "not produced: the server refused the request (refused)" in text, name
    assert page.inner_text("#data-line") == ""


def test_the_page_answers_the_client_question_with_linked_sources(server: str, page: Page) -> None:
    page.goto(server)
    assert page.locator("#client-question").is_hidden()
    page.fill("#ticker", "AAPL")
    page.fill("#question", "What are the main risks?")
    page.click("#run")
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=90_000)
    page.wait_for_selector("#client-question:not([hidden])", timeout=10_000)
    assert page.inner_text("#client-question-text") == "“What are the main risks?”"
    points = page.locator("#client-question-points li")
    assert points.count() == 3
    assert all(t.startswith("Top risks: ") for t in points.all_inner_texts())
    assert "Top risks" in page.inner_text("#client-question-note")
    _follow_first_cite(page, "#client-question")
