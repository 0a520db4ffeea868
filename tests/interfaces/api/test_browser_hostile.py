"""Hostile third-party and user text in a real browser: nothing runs, every link is http(s), text stays text.

One ``findesk serve`` (``browser_kit.serving``) runs on a copy of the snapshot with planted data, and with a
plug-in workflow (``hostile_links``: ``HOSTILE_LINKS`` in ``plugin_workflows``, loaded through
``FINDESK_WORKFLOWS``) whose section html is NOT sanitized by the server, so the page's own allow-list
is the only fence it meets. Planted, each payload carrying a number so a failure names its place:

- Reddit posts (``social/reddit/``): titles, authors and subreddit names (which also build the post's URL)
  with ``<img onerror>``, ``<script>``, ``"><svg onload>``, attribute breakouts, Markdown links to
  ``javascript:`` / ``data:`` / ``vbscript:`` / mixed-case / whitespace- and entity-obfuscated schemes,
  CSS injection, very long unbroken strings, RTL overrides and zero-width characters;
- news articles (``news/finance_news_*.csv``): headlines, publishers, and URLs of every hostile scheme;
- AAPL's 10-K business overview: the same payloads as text of the filing;
- the client's question, typed into the page and echoed back;
- hash routes naming hostile workflows and run ids (``#/run/<wf>``, ``#/runs/<id>``, ``#/brief/<ticker>``);
- run history planted in ``localStorage`` before the page loads: malformed JSON, wrong types, payload
  strings, a huge array and deep nesting.

Pages are opened with the server's Content-Security-Policy bypassed: the CSP (no inline script) would stop
an ``onerror`` on its own, and these tests hold the page's escaping and URL checks to account without it
(as behind a proxy that drops the header). Each scenario asserts that no payload ran (``window.__pwned``
unset, no dialog), that the DOM holds nothing that runs or loads and only http(s) links
(``browser_kit.assert_inert``), that the hostile text is shown as text, and that the user still gets the
figures. One Chromium serves the module; each test opens one page.
Outside CI the module is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from browser_kit import Watch, assert_inert, chromium, overlay, require_browser, serving

from plugin_workflows import BAD_HREFS, img, plugin_env

require_browser()

from playwright.sync_api import Browser, Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

PLUGIN_NAME = "hostile_links"
TEN_K = "sec/filings/AAPL/10-K_2024-11-01.htm"
ANCHOR = "The Company designs, manufactures and markets smartphones"
SECTIONS = ("snapshot", "business", "events", "risks", "social", "divergences", "audit")
WIDTH = 1280


# Reddit posts (the 2025-07..08 export's schema): id, title (the full text's first line), author, subreddit,
# and the title as the page shows it (a Markdown link to a web page is a link, "…" ends a clipped title).
POSTS = (
    ("hx01", f"AAPL t101 {img(101)}", "planter", "stocks", None),
    ("hx02", "AAPL t102 <script>alert(102)</script>", f"a201{img(201)}", "stocks", None),
    (
        "hx03",
        'AAPL t103 "><svg onload="alert(103)">',
        '"><script>alert(202)</script>',
        "<svg/onload=alert(301)>",
        None,
    ),
    (
        "hx04",
        "AAPL t104 ' onmouseover='alert(104)' x='",
        "' onfocus='alert(203)",
        'x" onfocus="alert(302)',
        None,
    ),
    (
        "hx05",
        "AAPL t105 [js](javascript:alert(105)) [JS](JaVaScRiPt:alert(106)) [ok](https://example.com/ok-105)",
        "p5",
        "stocks",
        "AAPL t105 [js](javascript:alert(105)) [JS](JaVaScRiPt:alert(106)) ok",
    ),
    (
        "hx06",
        "AAPL t107 [d](data:text/html,<script>alert(107)</script>) [vb](vbscript:msgbox(108))",
        "p6",
        "x",
        None,
    ),
    (
        "hx07",
        "AAPL t109 [ws]( javascript:alert(109)) [ent](jav&#x09;ascript:alert(110))",
        "p7",
        "stocks",
        "AAPL t109 [ws]( javascript:alert(109)) ent",
    ),
    (
        "hx08",
        'AAPL t111 <style>body{display:none}</style><b style="position:fixed;inset:0">x</b>',
        "p8",
        "x",
        None,
    ),
    ("hx09", "AAPL t112 " + "W" * 400, "L" * 2000, "S" * 300, "AAPL t112 …"),
    # an override left open would reverse the rest of the line (the date, the URL): the page drops it
    (
        "hx10",
        "AAPL t113 \u202eevil zero\u200bwidth end",
        "\u202erotua",
        "\u200bzw",
        "AAPL t113 evil zero\u200bwidth end",
    ),
)

# News (finance_news schema): headline, URL, publisher. A headline is shown clipped to 160 characters at a
# word ("Apple n508 …"); a URL that is not http(s) is shown as text, never as a link.
NEWS = (
    (f"Apple n501 {img(501)}", "javascript:alert(511)", "<script>alert(521)</script>"),
    ("Apple n502 <svg onload=alert(502)>", "JaVaScRiPt:alert(512)", f'"><b>{img(522)}'),
    ("Apple n503 [md](javascript:alert(503))", "data:text/html,<script>alert(513)</script>", "p503"),
    ("Apple n504 ' onclick='alert(504)", "vbscript:msgbox(514)", "p504"),
    ("Apple n505", "jav&#x09;ascript:alert(515)", "p505"),
    ("Apple n506", 'https://news.example.com/a"><svg onload=alert(516)>', "p506"),
    ("Apple n507", "//evil.example/517", "p507"),
    ("Apple n508 " + "N" * 400, "https://news.example.com/" + "n" * 2000, "P" * 2000),
    ("Apple n509 a plain article", "https://news.example.com/apple-ok-509", "Example News"),
)

# Text of the filing as an attacker would file it (the 10-K's HTML escapes it: it is text, not markup).
FILING_TEXT = f"PLANTEDFILING {img(601)} <script>alert(602)</script> '><svg onload=alert(603)> " + (
    "[f](javascript:alert(604)) "
)

QUESTION = f'How does {img(701)} "><svg onload=alert(702)> [q](javascript:alert(703)) affect revenue?'

REDDIT_COLUMNS = [
    *("id", "date", "full_text", "score", "upvote_ratio", "num_comments", "total_awards_received"),
    *("author", "subreddit", "tickers", "cleaned_text"),
]
NEWS_COLUMNS = [
    "title",
    "url",
    "description",
    "source",
    "tickers",
    "tags",
    "published_at",
    "date",
    "cleaned_text",
]


def _csv(header: list[str], rows: list[list[str]]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(header)
    writer.writerows(rows)
    return out.getvalue()


@pytest.fixture(scope="module")
def planted_snapshot(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ten_k = (snapshot_dir / TEN_K).read_text(encoding="utf-8", errors="replace")
    assert ANCHOR in ten_k
    reddit = _csv(
        REDDIT_COLUMNS,
        [
            [
                pid,
                "2025-08-28",
                f"{title}\nApple body text.",
                "5",
                "0.9",
                "3",
                "0",
                author,
                sub,
                "['AAPL']",
                "x",
            ]
            for pid, title, author, sub, _shown in POSTS
        ],
    )
    news = _csv(
        NEWS_COLUMNS,
        [
            [
                title,
                url,
                "",
                publisher,
                "['aapl']",
                "[]",
                f"2025-08-28 {10 + i:02d}:00:00+00:00",
                "2025-08-28",
                "",
            ]
            for i, (title, url, publisher) in enumerate(NEWS)
        ],
    )
    root = tmp_path_factory.mktemp("snapshot")
    overlay(
        snapshot_dir,
        root,
        {
            TEN_K: ten_k.replace(ANCHOR, html.escape(FILING_TEXT) + ANCHOR, 1),
            "social/reddit/planted_2025-08-28.csv": reddit,
            "news/finance_news_planted.csv": news,
        },
    )
    return root


@pytest.fixture(scope="module")
def server(planted_snapshot: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    env = plugin_env("HOSTILE_LINKS")
    with serving(planted_snapshot, tmp_path_factory.mktemp("serve"), env=env) as (url, _log):
        yield url


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    with chromium() as b:
        yield b


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    # bypass_csp: the page's own escaping is the fence under test (see the module docstring)
    with browser.new_page(viewport={"width": WIDTH, "height": 1000}, bypass_csp=True) as p:
        yield p


def _overflow(page: Page) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def _text(page: Page, selector: str) -> str:
    return page.locator(selector).text_content() or ""


def test_hostile_posts_news_filing_and_question_show_as_text_and_the_briefing_still_renders(
    server: str, page: Page
) -> None:
    watch = Watch(page, server)
    page.goto(server)
    page.fill("#ticker", "AAPL")
    page.fill("#question", QUESTION)
    page.click("#run")
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=90_000)
    page.wait_for_selector("#run:enabled", timeout=10_000)

    # the user still gets the briefing and its figures
    assert _text(page, "#error") == ""
    for name in SECTIONS:
        assert page.get_attribute(f"#section-{name}", "data-state") == "ready", name
    assert "232.14" in page.inner_text("#section-snapshot")
    assert "AAPL" in page.inner_text("#headline")

    social = _text(page, "#section-social")
    # titles, authors and subreddits (long ones clipped): as text
    for _pid, title, author, sub, shown in POSTS:
        assert (shown or title) in social, title
        assert "@" + author[:60].replace("\u202e", "") in social, author
        assert "r/" + sub[:60].replace("\u200b", "") in social, sub  # zero-width characters are dropped
    assert "\u202e" not in page.locator("body").inner_text()
    for title, url, publisher in NEWS:
        assert (title if len(title) < 160 else "Apple n508 …") in social, title
        assert publisher[:60] in social, publisher
        if not url.startswith("https://"):
            assert url in social, url  # a URL that is not a web link is shown, as text
    # Markdown links to a web page still work; every other scheme stays text
    assert page.locator("#section-social a[href='https://example.com/ok-105']").count() >= 1
    assert page.locator("#section-social a[href='https://news.example.com/apple-ok-509']").count() >= 1
    assert "[js](javascript:alert(105))" in social

    business = _text(page, "#section-business")
    assert f"PLANTEDFILING {img(601)} <script>alert(602)</script>" in business
    assert "[f](javascript:alert(604))" in business

    assert page.is_visible("#client-question")
    assert _text(page, "#client-question-text") == f"“{QUESTION}”"
    history = page.locator("#history button").first.inner_text()
    assert "AAPL" in history and QUESTION[:60] in history

    assert _overflow(page) == 0, "hostile long strings push the page wider than the window"
    assert_inert(page)
    watch.clean()


def test_a_plugins_unsanitized_markup_keeps_only_web_links_and_replays_the_same(
    server: str, page: Page
) -> None:
    watch = Watch(page, server)
    page.goto(f"{server}/#/run/{PLUGIN_NAME}")
    page.wait_for_selector("#run-form:not([hidden])", timeout=30_000)
    typed = f'{img(901)}"><svg onload=alert(902)>'
    page.fill("#wf-field-0", typed)
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=60_000)

    assert _text(page, "#error") == ""
    raw = page.locator("#run-sections .section-body").first
    text = raw.text_content() or ""
    assert text.startswith("raw start") and text.rstrip().endswith("raw end")
    for i in range(len(BAD_HREFS)):
        assert f"bad link {i}" in text  # the link's text stays, as text
    hrefs = raw.evaluate("b => [...b.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))")
    assert hrefs == ["https://ok.example/good", "https://ok.example/UP", "#source-1", "https://ok.example/"]
    assert page.inner_text("#run-headline") == typed
    assert page.inner_text("#run-summary") == "Summary " + typed
    assert json.loads(page.inner_text("#run-result"))["links"] == list(BAD_HREFS)
    assert "Warned " + typed in page.inner_text("#warnings")
    assert_inert(page)

    # replayed by id: the same sections, still inert
    run_id = page.evaluate("JSON.parse(localStorage.getItem('findesk.history'))[0].run_id")
    assert re.fullmatch(r"[0-9a-f]{8,64}", run_id), run_id
    page.goto(f"{server}/#/runs/{run_id}")
    page.wait_for_selector("#status:has-text('replayed run')", timeout=30_000)
    replayed = page.locator("#run-sections .section-body").first
    assert (
        replayed.evaluate("b => [...b.querySelectorAll('a[href]')].map(a => a.getAttribute('href'))") == hrefs
    )
    assert page.inner_text("#run-headline") == typed
    assert_inert(page)
    watch.clean()


NOT_A_WORKFLOW = "” is not a workflow name"
NOT_A_RUN = "” is not a run id."
# (the hash, the error the page shows, as text); a bad name or id is echoed, cut to 80 characters
HOSTILE_ROUTES = (
    (f"#/run/{img(1001)}", f"not_found: “{img(1001)}{NOT_A_WORKFLOW}"),
    (
        "#/run/x%22%3E%3Csvg%20onload%3Dalert(1002)%3E",
        f'not_found: “x"><svg onload=alert(1002)>{NOT_A_WORKFLOW}',
    ),
    (f"#/runs/{img(1003)}", f"not_found: “{img(1003)}{NOT_A_RUN}"),
    ("#/runs/..%2F..%2Fv1%2Fkeys", f"not_found: “../../v1/keys{NOT_A_RUN}"),
    (f"#/{img(1005)}/x", f"not_found: “{img(1005)}{NOT_A_WORKFLOW}"),
    ("#/run/javascript:alert(1006)", f"not_found: “javascript:alert(1006){NOT_A_WORKFLOW}"),
    ("#/runs/" + "f" * 5000, f"not_found: “{'f' * 79}…{NOT_A_RUN}"),
    ("#/run/" + "w" * 5000, f"not_found: “{'w' * 79}…{NOT_A_WORKFLOW}"),
)


def test_hostile_routes_say_what_is_wrong_as_text_and_leave_the_page_usable(server: str, page: Page) -> None:
    watch = Watch(page, server)
    page.goto(server)
    page.wait_for_selector("#workflow option[value='agents.quote_filings']", state="attached", timeout=30_000)
    for route, error in HOSTILE_ROUTES:
        page.evaluate("h => { location.hash = h; }", route)
        page.wait_for_function("!document.body.classList.contains('busy')")
        page.wait_for_selector("#error:not([hidden])")
        assert _text(page, "#error").startswith(error), route[:40]
        assert page.is_visible("#brief-form") and page.is_enabled("#run"), route[:40]
        assert_inert(page)
        assert _overflow(page) == 0, route[:40]
    # a hostile ticker in the route only fills the field (a route never runs anything), cut to 15 characters
    page.evaluate("h => { location.hash = h; }", "#/brief/%3Cimg%20src%3Dx%20onerror%3Dalert(1004)%3E")
    page.wait_for_function("document.getElementById('ticker').value !== ''")
    assert page.input_value("#ticker") == "<IMG SRC=X ONER"
    assert_inert(page)
    # after all of them, the page still routes
    page.evaluate("h => { location.hash = h; }", "#/brief/msft")
    page.wait_for_selector("#brief-form:not([hidden])")
    assert page.input_value("#ticker") == "MSFT"
    watch.clean()


def _entry(**fields: Any) -> dict[str, Any]:
    base = {"workflow": "brief", "ticker": "AAPL", "run_id": "abcd1234", "headline": "h", "at": "2025-08-29"}
    return base | fields


PAYLOAD_ENTRIES = [
    _entry(ticker=img(1101), headline='"><svg onload=alert(1102)>', question="<script>alert(1103)</script>"),
    _entry(workflow="hostile_links", label=img(1104), inputs={"text": img(1105)}, run_id="abcd1235"),
    _entry(at="<img src=x onerror=alert(1106)>", as_of="' onfocus='alert(1107)", run_id="abcd1236"),
    _entry(headline="H" * 20000, question="Q" * 20000, run_id="abcd1237"),
    _entry(ticker="\u202eLPAA", headline="zero\u200bwidth", run_id="abcd1238"),
]

HISTORIES = {
    "malformed_json": '[{"run_id": "abcd", "ticker": "AAPL"',
    "not_an_array": json.dumps({"run_id": "abcd", "ticker": "AAPL"}),
    "wrong_types": json.dumps(
        [
            None,
            1,
            "abcd",
            [],
            [_entry()],
            {"run_id": 12345, "ticker": ["A"], "headline": {"x": 1}, "at": 7},
            {"run_id": {"toString": "x"}, "ticker": True},
            _entry(
                ticker={"a": 1}, headline=["b", "c"], question=42, at={"y": 2}, as_of=[1], run_id="abcd1239"
            ),
            _entry(workflow=123, inputs="not an object", run_id="abcd1240"),
            _entry(workflow="__proto__", inputs=[1, 2], run_id="abcd1241"),
        ]
    ),
    "payload_strings": json.dumps(PAYLOAD_ENTRIES),
    "hostile_run_ids": json.dumps(
        [_entry(run_id="../../v1/keys"), _entry(run_id="abcd?x=1#y"), _entry(run_id=img(1108))]
    ),
    "huge_array": json.dumps([_entry(run_id=f"{i:08x}") for i in range(20000)]),
    "deep_nesting": "[" * 100000 + "]" * 100000,
}


@pytest.mark.parametrize("stored", list(HISTORIES), ids=list(HISTORIES))
def test_hostile_history_in_local_storage_never_breaks_the_page(server: str, page: Page, stored: str) -> None:
    watch = Watch(page, server)
    page.add_init_script("localStorage.setItem('findesk.history', " + json.dumps(HISTORIES[stored]) + ");")
    page.goto(server)
    page.wait_for_selector("#workflow option[value='agents.quote_filings']", state="attached", timeout=30_000)
    items = page.locator("#history li")
    assert 1 <= items.count() <= 50
    texts = items.all_inner_texts()
    assert not any("[object Object]" in t for t in texts), texts
    assert_inert(page)
    assert _overflow(page) == 0
    if stored == "payload_strings":
        shown = "\n".join(texts)
        assert img(1101) in shown and '"><svg onload=alert(1102)>' in shown and img(1104) in shown
    # every entry shown can be clicked: its run is unknown to this server, which the page says as text
    for button in page.locator("#history button").all()[:3]:
        with page.expect_response(lambda r: "/v1/runs/" in r.url):
            button.click()
        page.wait_for_function("!document.body.classList.contains('busy')")
        assert page.is_visible("#error"), "an unknown run must say so"
        assert_inert(page)
    # and the page still runs: a fast plug-in run is stored on top of whatever was there
    page.evaluate("h => { location.hash = h; }", f"#/run/{PLUGIN_NAME}")
    page.wait_for_selector("#run-form:not([hidden])", timeout=30_000)
    page.fill("#wf-field-0", "after hostile history")
    page.click("#run-start")
    page.wait_for_selector("#run-start:enabled", timeout=60_000)
    assert page.inner_text("#run-headline") == "after hostile history"
    first = page.locator("#history button").first.inner_text()
    assert first.startswith("Hostile links · after hostile history"), first
    stored_now = page.evaluate("JSON.parse(localStorage.getItem('findesk.history'))")
    assert isinstance(stored_now, list) and 1 <= len(stored_now) <= 50
    assert_inert(page)
    watch.clean()
