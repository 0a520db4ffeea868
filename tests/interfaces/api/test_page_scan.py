"""The market scanner in a real browser (Playwright drives Debian Chromium; ``findesk serve`` on the
snapshot): run from its generic form at ``#/run/scan``, the page streams the five phases, lists the 8-10
stocks to investigate, and "Open report (HTML)" opens the whole report in a tab of its own (no script
runs there).

Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import Watch, chromium, require_browser, serving

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

RUN_S = 120  # a scan on the snapshot takes seconds; a hung run fails here, never hangs the suite
TITLES = (
    "Geopolitical and macro topics",
    "Market movers",
    "Sector performance",
    "Industry deep dive — top 3 sectors",
    "Synthesis — stocks to investigate",
)


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve-scan")) as (url, _log):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    with browser.new_page(viewport={"width": 1280, "height": 1000}) as p:
        p.set_default_timeout(30_000)
        yield p


def test_a_scan_streams_every_phase_and_lists_the_stocks_to_investigate(server: str, page: Page) -> None:
    watch = Watch(page, server)
    page.goto(f"{server}/#/run/scan")
    page.wait_for_selector("#workflow option[value='scan']", state="attached")
    page.wait_for_selector("#run-form:not([hidden])")
    page.locator("#run-fields").get_by_label("Date (optional)").fill("2025-08-29")
    page.select_option("#run-mode", "deterministic")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=RUN_S * 1000)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    boxes = page.locator("#run-sections section")
    assert [boxes.nth(i).locator("h2").inner_text() for i in range(boxes.count())] == list(TITLES)
    assert page.locator("#run-sections section[data-state='ready']").count() == len(TITLES)
    result = json.loads(page.inner_text("#run-result"))
    picks = [c["ticker"] for c in result["synthesis"]["stocks_to_investigate"]]
    assert 8 <= len(picks) <= 10
    listed = boxes.nth(4).inner_text()
    assert all(t in listed for t in picks)
    assert "NEO" in boxes.nth(1).inner_text()  # the session's top screened gainer

    with page.expect_popup(timeout=30_000) as opened:
        page.get_by_role("button", name="Open report (HTML)").click()
    tab: Page = opened.value
    tab.wait_for_load_state()
    tab.wait_for_selector("#stocks-to-investigate", state="visible")
    assert tab.locator("#stocks-to-investigate li.candidate").count() == len(picks)
    assert tab.evaluate("document.scripts.length") == 0
    tab.close()
    watch.clean()


def test_a_pipeline_streams_the_scan_the_desks_and_a_summary(server: str, page: Page) -> None:
    watch = Watch(page, server)
    page.goto(f"{server}/#/run/pipeline")
    page.wait_for_selector("#workflow option[value='pipeline']", state="attached")
    page.wait_for_selector("#run-form:not([hidden])")
    page.locator("#run-fields").get_by_label("Date (optional)").fill("2025-08-29")
    page.locator("#run-fields").get_by_label("Top").fill("1")
    page.select_option("#run-mode", "deterministic")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=RUN_S * 1000)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    boxes = page.locator("#run-sections section")
    titles = [boxes.nth(i).locator("h2").inner_text() for i in range(boxes.count())]
    assert titles == ["Market scan — candidates", "Trading desk on the top picks", "Summary"]
    result = json.loads(page.inner_text("#run-result"))
    (row,) = result["rows"]
    assert row["status"] == "ok" and row["rating"] in boxes.nth(1).inner_text()
    assert row["run_id"] in boxes.nth(1).inner_text()
    watch.clean()
