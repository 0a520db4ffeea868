"""The trading desk in a real browser (Playwright drives Debian Chromium; ``findesk serve`` on the
snapshot): run from its generic form at ``#/run/trade``, the page shows the four analysts' reports, both
debates turn by turn and the decision as they stream, and "Open report (HTML)" opens the whole report in
a tab of its own (no script runs there).

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

RUN_S = 120  # a desk run on the snapshot takes seconds; a hung run fails here, never hangs the suite
TITLES = (
    "Company",
    "Analyst reports",
    "Investment debate — bull vs bear",
    "Research manager",
    "Trader's plan",
    "Risk debate",
    "Final decision — risk manager",
)


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve-trade")) as (url, _log):
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


def test_a_desk_run_shows_reports_debates_turn_by_turn_and_the_decision(server: str, page: Page) -> None:
    watch = Watch(page, server)
    page.goto(f"{server}/#/run/trade")
    page.wait_for_selector("#workflow option[value='trade']", state="attached")
    page.wait_for_selector("#run-form:not([hidden])")
    page.locator("#run-fields").get_by_label("Ticker").fill("NVDA")
    page.locator("#run-fields").get_by_label("Date (optional)").fill("2024-05-10")
    page.select_option("#run-mode", "deterministic")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=RUN_S * 1000)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    boxes = page.locator("#run-sections section")
    assert [boxes.nth(i).locator("h2").inner_text() for i in range(boxes.count())] == list(TITLES)
    assert page.locator("#run-sections section[data-state='ready']").count() == len(TITLES)
    text = page.inner_text("#run-sections")
    assert "NVIDIA CORP" in text and "CIK 1045810" in text
    for analyst in ("Market", "Fundamentals", "News", "Social"):
        assert analyst in text, analyst
    debate = boxes.nth(2).inner_text()
    assert debate.count("Bull") >= 2 and debate.count("Bear") >= 2  # both sides, turn by turn
    result = json.loads(page.inner_text("#run-result"))
    rating = result["final_decision"]["rating"]
    assert rating in {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
    assert rating in boxes.nth(6).inner_text()

    with page.expect_popup(timeout=30_000) as opened:
        page.get_by_role("button", name="Open report (HTML)").click()
    tab: Page = opened.value
    tab.wait_for_load_state()
    tab.wait_for_selector("#final-decision", state="visible")
    assert rating in tab.inner_text("#final-decision")
    assert "NVIDIA CORP" in tab.inner_text("#report-header")
    # the debate reads as a conversation: the bull's turns on the left, the bear's on the right
    bull = tab.locator("#investment-debate li.turn-bull").first.bounding_box()
    bear = tab.locator("#investment-debate li.turn-bear").first.bounding_box()
    assert bull is not None and bear is not None and bear["x"] > bull["x"] + 50
    assert tab.evaluate("document.scripts.length") == 0
    tab.close()
    watch.clean()
