"""The page routes by workflow, in a real browser (Playwright drives Debian Chromium; ``findesk serve``).

What these tests hold the page to:
- The picker lists ``GET /v1/workflows``; the URL hash selects the view (``#/brief/<ticker>``,
  ``#/run/<workflow>``, ``#/runs/<run_id>``); a workflow without a view of its own gets the generic view:
  a form built from its input schema, its sections in the listing's order, the tool trace and the done
  result (headline, summary, the report as JSON text).
- A single agent (``agents.quote_filings``, deterministic, on the snapshot) runs from the picker and its
  run replays by id in the same view.
- Nothing the server sends is markup except a section's html, which passes the page's allow-list: a
  plug-in workflow (``page_echo``: ``PAGE_ECHO`` in ``plugin_workflows``, loaded through
  ``FINDESK_WORKFLOWS``) carries ``<img onerror>`` and ``<script>`` payloads in its title, description,
  field description, section titles, section html, headline, report and refusal message, and echoes the
  user's input; the page shows them as text and nothing executes.

Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import Watch, browser_page, require_browser, serving

from plugin_workflows import plugin_env, xss

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

AGENT = "agents.quote_filings"
ECHO = "page_echo"
# What the user types: it comes back in the headline, a section, the report and the history.
TYPED = '<img src=x onerror="window.__pwned = 1"><script>window.__pwned = 2</script>'


@pytest.fixture(scope="module")
def server(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with serving(snapshot_dir, tmp_path_factory.mktemp("serve"), env=plugin_env("PAGE_ECHO")) as (url, _log):
        yield url


@pytest.fixture
def page(server: str) -> Iterator[Page]:
    with browser_page(viewport={"width": 1280, "height": 1000}) as p:
        yield p


def _open(page: Page, url: str) -> None:
    page.goto(url)
    page.wait_for_selector(f"#workflow option[value='{AGENT}']", state="attached", timeout=30_000)


def _run_and_wait(page: Page) -> None:
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=90_000)


def _nothing_ran(page: Page) -> None:
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("img, script:not([src]), iframe, object, embed").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0
    handlers = (
        "[...document.querySelectorAll('*')].some(e => [...e.attributes].some(a => /^on/.test(a.name)))"
    )
    assert page.evaluate(handlers) is False


def _overflow(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_the_picker_lists_the_workflows_and_the_hash_selects_the_view(server: str, page: Page) -> None:
    watch = Watch(page, server)
    _open(page, server)
    assert page.is_visible("#brief-form") and page.is_hidden("#run-form") and page.is_hidden("#run-view")
    values = page.eval_on_selector_all("#workflow option", "xs => xs.map(x => x.value)")
    assert values[0] == "brief" and {AGENT, ECHO, "agents.official"} <= set(values)
    groups = page.eval_on_selector_all("#workflow optgroup", "xs => xs.map(x => x.label)")
    assert groups[0] == "Workflows" and groups[-1] == "Single agents"
    assert set(groups) <= {"Workflows", "Plug-in workflows", "Single agents"}
    # a plug-in is a workflow, listed before the single agents (under its own heading when kind "plugin")
    echo_group = page.locator(f"#workflow option[value='{ECHO}']").evaluate("o => o.parentElement.label")
    assert echo_group in ("Workflows", "Plug-in workflows")
    agent_group = page.locator(f"#workflow option[value='{AGENT}']").evaluate("o => o.parentElement.label")
    assert agent_group == "Single agents"
    assert page.input_value("#workflow") == "brief"
    assert page.evaluate("window.findesk.views") == ["brief"]

    page.select_option("#workflow", AGENT)
    page.wait_for_selector("#run-form:not([hidden])")
    assert page.evaluate("location.hash") == f"#/run/{AGENT}"
    assert page.is_hidden("#brief-form") and page.is_hidden("#brief-view") and page.is_visible("#run-view")
    assert "Latest quote and recent SEC filings" in page.inner_text("#workflow-help")
    symbol = page.get_by_label("Symbol")
    assert symbol.get_attribute("required") is not None
    assert page.inner_text("#run-form label[for='wf-field-0']") == "Symbol *"
    assert "US ticker, e.g. AAPL" in page.inner_text("#" + (symbol.get_attribute("aria-describedby") or ""))
    # an empty required field is refused on the page, with the focus on it
    page.click("#run-start")
    assert page.inner_text("#error") == "invalid_input: Symbol is required."
    assert symbol.get_attribute("aria-invalid") == "true"
    assert page.evaluate("document.activeElement.id") == "wf-field-0"

    page.goto(server + "/#/brief/msft")  # a hash change only: the router, not a reload
    page.wait_for_selector("#brief-form:not([hidden])")
    assert page.input_value("#ticker") == "MSFT" and page.input_value("#workflow") == "brief"
    assert page.is_hidden("#run-view")
    page.go_back()
    page.wait_for_selector("#run-form:not([hidden])")
    assert page.input_value("#workflow") == AGENT

    page.goto(server + "/#/run/no.such_workflow")
    page.wait_for_selector("#brief-form:not([hidden])")
    assert "no workflow “no.such_workflow”" in page.inner_text("#error")
    watch.clean()


def test_a_single_agent_runs_from_the_picker_and_replays_by_run_id(server: str, page: Page) -> None:
    watch = Watch(page, server)
    _open(page, server)
    page.select_option("#workflow", AGENT)
    page.wait_for_selector("#run-form:not([hidden])")
    assert [t.strip() for t in page.locator("#run-sections h2").all_inner_texts()] == []
    page.get_by_label("Symbol").fill("AAPL")
    page.select_option("#run-mode", "deterministic")
    _run_and_wait(page)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#status").startswith("done in ")
    headline = page.inner_text("#run-headline")
    assert headline.startswith("Apple Inc. (AAPL) last closed at $232.14"), headline
    assert page.inner_text("#run-data-line").startswith("offline snapshot as of 2025-08-29 · run ")
    result = json.loads(page.inner_text("#run-result"))
    assert result["role"] == "quote_filings" and result["mode"] == "deterministic"
    assert result["output"]["symbol"] == "AAPL" and result["output"]["price"] == 232.14
    run_id = result["run_id"]
    trace = page.inner_text("#trace")
    for tool in ("get_company", "get_quote", "list_filings"):
        assert tool in trace
    assert "running" not in trace
    assert page.inner_text("#trace-count") == "3 tool calls, 0 errors"
    assert page.evaluate("location.hash") == f"#/run/{AGENT}"
    stored = page.evaluate("JSON.parse(localStorage.getItem('findesk.history'))")
    assert stored[0]["workflow"] == AGENT and stored[0]["run_id"] == run_id
    assert stored[0]["inputs"] == {"symbol": "AAPL"}

    page.set_viewport_size({"width": 375, "height": 800})
    assert _overflow(page) == 0, "the generic view scrolls sideways on a phone"
    page.set_viewport_size({"width": 1280, "height": 1000})
    assert _overflow(page) == 0

    # the run by id, in a fresh tab (a new context: no history): its workflow's view, form and result
    browser = page.context.browser
    assert browser is not None
    with browser.new_page(viewport={"width": 1280, "height": 1000}) as other:
        other_watch = Watch(other, server)
        other.goto(f"{server}/#/runs/{run_id}")
        other.wait_for_selector("#status:has-text('replayed run')", timeout=30_000)
        assert other.is_visible("#run-view") and other.is_hidden("#brief-view")
        assert other.input_value("#workflow") == AGENT
        assert other.input_value("#wf-field-0") == "AAPL"
        assert other.inner_text("#run-headline") == headline
        assert json.loads(other.inner_text("#run-result"))["run_id"] == run_id
        assert other.inner_text("#trace-count") == "3 tool calls, 0 errors"
        other_watch.clean()

    # and from the history, after switching to the briefing
    page.select_option("#workflow", "brief")
    page.wait_for_selector("#brief-form:not([hidden])")
    page.locator("#history button", has_text="quote_filings · AAPL").first.click()
    page.wait_for_selector("#status:has-text('replayed run')", timeout=30_000)
    assert page.evaluate("location.hash") == f"#/runs/{run_id}"
    assert page.is_visible("#run-view") and page.inner_text("#run-headline") == headline
    watch.clean()


def test_a_plugin_gets_the_generic_view_and_everything_it_sends_stays_text(server: str, page: Page) -> None:
    watch = Watch(page, server)
    _open(page, server)
    page.goto(f"{server}/#/run/{ECHO}")
    page.wait_for_selector("#run-form:not([hidden])")
    # the listing's strings are text: the option, the description, a field's description
    option = page.locator(f"#workflow option[value='{ECHO}']").inner_text()
    assert option.startswith("Echo <img src=x onerror=")
    assert "<script>window.__pwned = 18</script>" in page.inner_text("#workflow-help")
    assert "<script>window.__pwned = 10</script>" in page.inner_text("#wf-field-0-help")
    assert page.title().startswith("findesk · Echo <img")
    # one control per schema type
    kinds = page.eval_on_selector_all(
        "#run-fields input, #run-fields select, #run-fields textarea",
        "xs => xs.map(x => x.tagName.toLowerCase() + (x.type ? ':' + x.type : ''))",
    )
    assert kinds == [
        "input:text",
        "input:number",
        "input:checkbox",
        "input:date",
        "select:select-one",
        "textarea:textarea",
    ]
    assert page.inner_text("#run-fields label[for='wf-field-0']") == "Text *"
    assert page.input_value("#wf-field-1") == "1"  # the schema's default
    # the listing's sections wait in its order
    waiting = page.eval_on_selector_all("#run-sections h2", "xs => xs.map(x => x.textContent)")
    assert waiting == ["Echo", "Raw"]

    page.fill("#wf-field-0", TYPED)
    page.fill("#wf-field-1", "2")
    page.fill("#wf-field-3", "2025-08-29")
    page.select_option("#wf-field-4", "loud")
    page.fill("#wf-field-5", '{"note": "<b>not bold</b>"}')
    page.select_option("#run-mode", "deterministic")
    _run_and_wait(page)

    assert page.inner_text("#error") == ""
    assert page.inner_text("#run-headline") == f"{TYPED} {TYPED}"
    assert page.inner_text("#run-summary") == "Summary " + xss(15)
    sections = page.eval_on_selector_all("#run-sections > section", "xs => xs.map(x => x.dataset.state)")
    assert sections == ["ready", "ready"]
    titles = page.eval_on_selector_all("#run-sections h2", "xs => xs.map(x => x.textContent)")
    assert titles == ["Echo " + xss(14), "Raw " + xss(13)]  # still the listing's order
    echo, raw = page.locator("#run-sections .section-body").all()
    assert echo.inner_text() == f"{TYPED} {TYPED}"
    assert raw.inner_text().startswith("kept") and "js link" in raw.inner_text()
    result: dict[str, Any] = json.loads(page.inner_text("#run-result"))
    assert result["inputs"] == {
        "text": TYPED,
        "times": 2,
        "shout": False,
        "day": "2025-08-29",
        "tone": "loud",
        "extra": {"note": "<b>not bold</b>"},
    }
    assert xss(16) in page.inner_text("#warnings")
    history = page.locator("#history button").first.inner_text()
    assert history.startswith(f"Echo {xss(17)} · {TYPED}")
    _nothing_ran(page)

    # a refusal quoting the input: a JSON error, shown as text; no section waits
    page.fill("#wf-field-0", "refuse " + TYPED)
    _run_and_wait(page)
    assert page.inner_text("#error") == f"invalid_input: page_echo refuses refuse {TYPED}"
    for box in page.locator("#run-sections > section").all():
        assert box.get_attribute("data-state") == "missing"
        assert "the server refused the request (invalid_input)" in box.inner_text()
    _nothing_ran(page)

    # the run replayed by id shows the same text, and still nothing runs
    run_id = page.evaluate("JSON.parse(localStorage.getItem('findesk.history'))[0].run_id")
    assert re.fullmatch(r"[0-9a-f]{8,64}", run_id), run_id
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector("#status:has-text('replayed run')", timeout=30_000)
    assert page.inner_text("#run-headline") == f"{TYPED} {TYPED}"
    assert page.input_value("#wf-field-0") == TYPED
    _nothing_ran(page)
    watch.clean()
