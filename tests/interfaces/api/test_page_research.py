"""The research view of the page, in a real browser (Playwright drives Debian Chromium; ``findesk serve``
on the snapshot at 2025-08-29).

What a researcher sees: the question box, the plan, the answer right under it with numbered sources,
each routed desk's findings with their citations, the chart as an image, the tool trace; a question
carrying markup comes back as text and nothing runs. The chart is the one image the page may show, and
only as a ``data:image/png;base64`` URL.

Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import Watch, browser_page, require_browser, serving

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

INJECTED = '<img src=x onerror="window.__pwned = 1">'


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve")) as (url, _log):
        yield url


@pytest.fixture
def page(server: str) -> Iterator[Page]:
    with browser_page(viewport={"width": 1280, "height": 1000}) as p:
        yield p


def _ask(page: Page, server: str, question: str) -> None:
    page.goto(server + "#/run/research")
    page.wait_for_selector("#run-form:not([hidden])", timeout=30_000)
    page.fill("#wf-field-0", question)
    page.select_option("#run-mode", "deterministic")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=90_000)


def test_a_question_shows_the_answer_under_the_plan_with_sources_desks_chart_and_trace(
    server: str, page: Page
) -> None:
    watch = Watch(page, server)
    _ask(page, server, "What was NVDA revenue over the last two quarters?")
    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    titles = [t.strip() for t in page.locator("#run-sections h2").all_inner_texts()]
    assert titles[:3] == ["Plan", "Answer", "Equity desk"], titles
    answer = page.locator("#run-sections section").nth(1).inner_text()
    assert "NVDA revenue for the quarter ended 2025-07-27: 46,743,000,000 USD" in answer
    assert "equity · get_xbrl_facts · https://www.sec.gov/Archives/edgar/data/1045810/" in answer
    assert "For research only" in answer  # the disclaimer
    desk = page.locator("#run-sections section").nth(2).inner_text()
    assert "get_xbrl_facts" in desk and "46,743,000,000 USD" in desk
    images = page.locator("#run-sections img")
    assert images.count() == 1
    assert (images.first.get_attribute("src") or "").startswith("data:image/png;base64,")
    assert page.evaluate("document.querySelector('#run-sections img').naturalWidth") > 100  # it decoded
    trace = page.inner_text("#trace")
    assert "get_xbrl_facts" in trace and "get_return_stats" in trace
    watch.clean()


def test_markup_in_the_question_comes_back_as_text(server: str, page: Page) -> None:
    watch = Watch(page, server)
    _ask(page, server, f"NVDA revenue {INJECTED}")
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img:not([src^='data:image/png;base64,'])").count() == 0
    handlers = (
        "[...document.querySelectorAll('*')].some(e => [...e.attributes].some(a => /^on/.test(a.name)))"
    )
    assert page.evaluate(handlers) is False
    watch.clean()
