"""The movers analyzer in a real browser (Playwright drives Debian Chromium; ``findesk serve`` on the
snapshot): run from its generic form at ``#/run/movers`` as a dry run, the page streams five sections,
the run appears under "Past reports on this server", and its HTML report shows the chart inline with no
script.

Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import chromium, require_browser, serving

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

# the analysis runs in the sandbox: without bubblewrap, skipped here and failed in CI
pytestmark = [pytest.mark.system, pytest.mark.usefixtures("sandbox_ready")]

RUN_S = 120
TITLES = ("Top NASDAQ gainers", "History vs SPY", "News", "Analysis in the sandbox", "Chart and email")


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve-movers")) as (url, _log):
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


def test_movers_streams_five_sections_and_is_listed_among_past_reports(server: str, page: Page) -> None:
    page.goto(f"{server}/#/run/movers")
    page.wait_for_selector("#workflow option[value='movers']", state="attached")
    page.wait_for_selector("#run-form:not([hidden])")
    assert page.locator("#run-fields").get_by_label("Email", exact=False).count() == 0  # local-only fields
    page.locator("#run-fields").get_by_label("Date (optional)").fill("2025-08-29")
    page.locator("#run-fields").get_by_label("Dry run", exact=False).check()
    page.select_option("#run-mode", "deterministic")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=RUN_S * 1000)

    assert page.inner_text("#error") == ""
    boxes = page.locator("#run-sections section")
    assert [boxes.nth(i).locator("h2").inner_text() for i in range(boxes.count())] == list(TITLES)
    result = json.loads(page.inner_text("#run-result"))
    assert result["symbol"] == "NEO" and result["delivery"]["status"] == "written"
    assert "NEO" in boxes.nth(0).inner_text()

    past = page.locator("#past-runs button")
    past.first.wait_for()
    assert past.count() >= 1 and past.first.inner_text().startswith("movers")

    with page.expect_popup(timeout=30_000) as opened:
        page.get_by_role("button", name="Open report (HTML)").click()
    tab: Page = opened.value
    tab.wait_for_load_state()
    assert tab.locator("img[src^='data:image/png;base64,']").count() == 1
    assert tab.evaluate("document.scripts.length") == 0
