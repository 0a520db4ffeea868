"""The page opens a finished run's HTML report, in a real browser (Playwright drives Debian Chromium;
``findesk serve`` on the snapshot).

What these tests hold the page to:
- A finished run of a workflow whose listing names an "html" format (the weekly ETF analyst, run from
  its generic form at ``#/run/etf-weekly`` with a small strategy typed as JSON) offers "Open report
  (HTML)"; the button opens the run's dashboard in a new tab (the run's signed, short-lived
  ``report.html?ticket=…`` link on this origin) and never inside the page. A run made through the API,
  replayed by id (``#/runs/<id>``, a fresh tab), offers it too.
- The tab is a navigation of its own, so the dashboard's CSP header holds there, not the page's: its own
  inline stylesheet applies (its background colour), and still no script runs.
- Where keys are required the tab opens without one: its request carries no key (a tab cannot send
  one), the link's ticket stands for it (``test_api_run_report.py`` checks what a ticket refuses).
- A workflow without an HTML report (a single agent) offers no button; a report the server refuses (a
  wrong API key) is a visible error on the page, and no tab opens.

Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from api_kit import parse_sse
from browser_kit import Watch, chromium, require_browser, serving

from findesk.core.access import open_key_store
from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.interfaces.api.report_links import TICKET_TTL_S

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

ETF = "etf-weekly"
AGENT = "agents.quote_filings"
WEEK = "2025-05-23"
STRATEGY = {
    "candidates": {"max_weekly_return_pct": -2.0, "only_sectors": ["Technology"], "max_candidates": 3}
}
RUN_S = 120  # an ETF week on the snapshot takes seconds; a hung run fails here, never hangs the suite
# the dashboard's own stylesheet (body background #f6f7f9), applied inside its tab
DASHBOARD_BACKGROUND = "rgb(246, 247, 249)"


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve")) as (url, _log):
        yield url


@pytest.fixture(scope="module")
def keyed_server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    """A server that requires keys (as one bound beyond loopback does): (its URL, a key's secret)."""
    workdir = tmp_path_factory.mktemp("serve-keyed")
    settings = Settings(snapshot_dir=snapshot_dir, state_dir=workdir / "state", cache_dir=workdir / "cache")
    store = open_key_store(settings)
    assert not isinstance(store, Err), store
    made = store.value.create("desk", "free", tiers=settings.api.tiers)
    store.value.close()
    assert not isinstance(made, Err), made
    with serving(snapshot_dir, workdir, env={"FINDESK_API__REQUIRE_KEYS": "true"}) as (url, _log):
        yield url, made.value[1]


@pytest.fixture(scope="module")
def api_run(server: str) -> tuple[str, list[str]]:
    """A weekly ETF run made through the API (not the page): (run id, its candidate funds)."""
    response = httpx.post(
        f"{server}/v1/etf-weekly", json={"week_ending": WEEK, "strategy": STRATEGY}, timeout=RUN_S
    )
    assert response.status_code == 200, response.text
    done = [f for f in parse_sse(response.text) if f.event == "done"]
    assert len(done) == 1, response.text[-2000:]
    return response.headers["x-run-id"], list(done[0].data["data"]["result"]["symbol_profiles"])


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Any) -> Iterator[Page]:
    with browser.new_page(viewport={"width": 1280, "height": 1000}) as p:
        p.set_default_timeout(30_000)
        yield p


def _open_workflow(page: Page, server: str, workflow: str) -> None:
    page.goto(f"{server}/#/run/{workflow}")
    page.wait_for_selector(f"#workflow option[value='{workflow}']", state="attached")
    page.wait_for_function(f"document.querySelector('#workflow').value === {json.dumps(workflow)}")
    page.wait_for_selector("#run-form:not([hidden])")


def _run_and_wait(page: Page) -> None:
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=RUN_S * 1000)


def _open_report(page: Page) -> Page:
    """Click "Open report (HTML)": the tab it opens, loaded."""
    with page.expect_popup(timeout=30_000) as opened:
        page.get_by_role("button", name="Open report (HTML)").click()
    tab: Page = opened.value
    tab.wait_for_load_state()
    return tab


def _check_dashboard(tab: Page, run_id: str, symbols: list[str]) -> None:
    assert re.fullmatch(rf"http://[^/]+/v1/runs/{run_id}/report\.html\?ticket=[0-9]+\.[\w-]{{43}}", tab.url)
    tab.wait_for_selector("#executive-summary", state="visible")
    assert tab.inner_text("#executive-summary h2") == "Executive summary"
    text = tab.inner_text("body")
    assert run_id in text and WEEK in text and all(symbol in text for symbol in symbols)
    assert tab.evaluate("document.scripts.length") == 0


def _fill_week(page: Page) -> None:
    page.get_by_label("Week Ending").fill(WEEK)
    page.get_by_label("strategy").fill(json.dumps(STRATEGY))  # the form edits an object field as JSON
    page.select_option("#run-mode", "deterministic")


def _replay(page: Page, server: str, run_id: str) -> None:
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector("#status:has-text('replayed run')")
    assert page.input_value("#workflow") == ETF


def test_a_weekly_run_from_the_form_opens_its_dashboard_in_a_new_tab(server: str, page: Page) -> None:
    watch = Watch(page, server)
    _open_workflow(page, server, ETF)
    assert page.is_hidden("#run-report-actions")
    _fill_week(page)
    _run_and_wait(page)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    result = json.loads(page.inner_text("#run-result"))
    run_id, symbols = result["run_id"], list(result["symbol_profiles"])
    assert result["week_end"] == WEEK and 1 <= len(symbols) <= 3, symbols
    assert page.is_visible("#run-report")

    tab = _open_report(page)
    _check_dashboard(tab, run_id, symbols)
    assert page.locator("#executive-summary").count() == 0  # never inserted into the page itself
    assert page.inner_text("#status") == f"opened the report of run {run_id} in a new tab"
    tab.close()
    watch.clean()


def test_a_run_made_through_the_api_replays_and_opens_its_dashboard(
    server: str, api_run: tuple[str, list[str]], page: Page
) -> None:
    run_id, symbols = api_run
    watch = Watch(page, server)  # a fresh tab: no history, the run known only by its id
    _replay(page, server, run_id)
    assert page.is_visible("#run-report")
    tab = _open_report(page)
    _check_dashboard(tab, run_id, symbols)
    tab.close()
    watch.clean()


def test_the_dashboard_keeps_its_own_styles_in_its_tab(
    server: str, api_run: tuple[str, list[str]], page: Page
) -> None:
    _replay(page, server, api_run[0])
    # the page itself keeps its own strict policy: no inline style
    assert page.evaluate("getComputedStyle(document.body).backgroundColor") != DASHBOARD_BACKGROUND
    tab = _open_report(page)
    tab.wait_for_selector("#executive-summary")
    background = tab.evaluate("getComputedStyle(document.body).backgroundColor")
    assert background == DASHBOARD_BACKGROUND, "the dashboard's own styles did not apply in its tab"
    assert tab.evaluate("document.scripts.length") == 0
    tab.close()


def test_no_html_report_no_button_and_a_refused_report_is_a_visible_error(
    server: str, api_run: tuple[str, list[str]], page: Page
) -> None:
    watch = Watch(page, server)
    _open_workflow(page, server, AGENT)
    page.get_by_label("Symbol").fill("AAPL")
    page.select_option("#run-mode", "deterministic")
    _run_and_wait(page)
    assert page.inner_text("#status").startswith("done in ")
    assert page.is_hidden("#run-report-actions")  # a single agent's run has no HTML report

    _replay(page, server, api_run[0])
    assert page.is_visible("#run-report")
    # a key this server does not know: the report is refused (401), said on the page, and no tab opens
    page.fill("#api-key", "fdk_not_a_key")
    popups: list[Any] = []
    page.context.on("page", lambda p: popups.append(p))
    page.get_by_role("button", name="Open report (HTML)").click()
    page.wait_for_selector("#error:not([hidden])")
    error = page.inner_text("#error")
    assert error.startswith("unauthorized: The report could not be opened:"), error
    assert page.inner_text("#status") == "no report: unauthorized"
    assert page.is_enabled("#run-report") and popups == []
    # without the wrong key it opens, and the stale error goes
    page.fill("#api-key", "")
    tab = _open_report(page)
    tab.wait_for_selector("#executive-summary")
    assert page.is_hidden("#error") and len(popups) == 1
    tab.close()
    watch.clean()


def test_where_keys_are_required_the_tab_opens_the_report_without_the_key(
    keyed_server: tuple[str, str], page: Page
) -> None:
    server, secret = keyed_server
    body = {"week_ending": WEEK, "strategy": STRATEGY}
    key = {"Authorization": f"Bearer {secret}"}
    response = httpx.post(f"{server}/v1/etf-weekly", json=body, headers=key, timeout=RUN_S)
    assert response.status_code == 200, response.text
    run_id = response.headers["x-run-id"]
    assert httpx.get(f"{server}/v1/runs/{run_id}/report.html").status_code == 401  # no key, no ticket

    watch = Watch(page, server)
    page.goto(server)
    page.fill("#api-key", secret)
    _replay(page, server, run_id)
    reports: list[dict[str, str]] = []
    page.context.on("request", lambda r: reports.append(r.headers) if "/report.html" in r.url else None)
    tab = _open_report(page)
    tab.wait_for_selector("#executive-summary", state="visible")
    assert run_id in tab.inner_text("body")
    assert tab.evaluate("getComputedStyle(document.body).backgroundColor") == DASHBOARD_BACKGROUND
    assert len(reports) == 1 and "authorization" not in reports[0], reports  # the ticket stood for the key
    # the address bar shows no key, only the ticket, which expires within the minute
    assert secret not in tab.url
    expiry = int(tab.url.partition("?ticket=")[2].partition(".")[0])
    assert 0 < expiry - time.time() <= TICKET_TTL_S + 1
    tab.close()
    watch.clean()
