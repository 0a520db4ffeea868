"""The web page in a real browser: Playwright drives Debian Chromium against ``findesk serve``.

The server runs as a subprocess on a copy of the snapshot (symlinks to the real files) with two planted
payloads: a Reddit post and a sentence in AAPL's 10-K business overview, each carrying a script and an
image with an ``onerror`` handler. The test asserts the page shows them as text and nothing executes.
Every other place hostile text reaches the page is covered by ``test_browser_hostile.py``.
Outside CI the test is skipped when Chromium or Playwright is missing; in CI (``CI=true``) it fails.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from browser_kit import assert_inert, browser_page, overlay, require_browser, serving

PAYLOAD = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
PLANTED_POST = f"PLANTEDPOST AAPL buyback chatter {PAYLOAD}"
# in the 10-K's HTML the payload is escaped, so it is text of the filing, as an attacker would file it
PLANTED_FILING = (
    "PLANTEDFILING &lt;script&gt;window.__pwned = 3&lt;/script&gt;"
    "&lt;img src=x onerror=&quot;window.__pwned = 4&quot;&gt; "
)
TEN_K = "sec/filings/AAPL/10-K_2024-11-01.htm"
ANCHOR = "The Company designs, manufactures and markets smartphones"
SECTIONS = ("snapshot", "business", "events", "risks", "social", "divergences", "audit")

require_browser()

from playwright.sync_api import Page  # noqa: E402  (after the skip: Playwright may be missing)

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


@pytest.fixture(scope="module")
def planted_snapshot(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    ten_k = (snapshot_dir / TEN_K).read_text(encoding="utf-8", errors="replace")
    assert ANCHOR in ten_k
    fields = (
        "id,date,full_text,score,upvote_ratio,num_comments,total_awards_received,author,subreddit,"
        "tickers,cleaned_text"
    )
    out = tmp_path_factory.mktemp("planted")
    post_path = out / "post.csv"
    with post_path.open("w", newline="", encoding="utf-8") as fh:
        writer = csv.writer(fh)
        writer.writerow(fields.split(","))
        writer.writerow(
            [
                "plant01",
                "2025-08-28",
                PLANTED_POST,
                "5",
                "0.9",
                "3",
                "0",
                "planter",
                "stocks",
                "['AAPL']",
                "planted",
            ]
        )
    root = tmp_path_factory.mktemp("snapshot")
    overlay(
        snapshot_dir,
        root,
        {
            TEN_K: ten_k.replace(ANCHOR, PLANTED_FILING + ANCHOR, 1),
            "social/reddit/planted_2025-08-28.csv": post_path.read_text(encoding="utf-8"),
        },
    )
    return root


@pytest.fixture(scope="module")
def server(planted_snapshot: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, str]]:
    with serving(planted_snapshot, tmp_path_factory.mktemp("serve")) as started:
        yield started


@pytest.fixture
def page(server: tuple[str, str]) -> Iterator[Page]:
    with browser_page() as p:
        yield p


def test_startup_says_keys_are_not_required_on_loopback(server: tuple[str, str]) -> None:
    _url, log = server
    assert "no API key required: bound to loopback 127.0.0.1" in log
    assert "data: offline snapshot as of 2025-08-29" in log


def test_a_briefing_renders_every_section_and_the_trace_and_planted_scripts_stay_text(
    server: tuple[str, str], page: Page
) -> None:
    url, _ = server
    requests: list[str] = []
    dialogs: list[str] = []
    errors: list[str] = []
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.fill("#ticker", "aapl")
    page.click("#run")
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=90_000)
    page.wait_for_selector("#run:enabled", timeout=10_000)  # the done event was handled

    for name in SECTIONS:
        section = page.locator(f"#section-{name}")
        assert section.get_attribute("data-state") == "ready", name
        assert len(section.inner_text().strip()) > 40, name
    assert "AAPL" in page.inner_text("#headline") + page.inner_text("#summary")
    assert "232.14" in page.inner_text("#section-snapshot")

    rows = page.locator("#trace tbody tr")
    assert rows.count() >= 10
    trace = page.inner_text("#trace")
    for tool in ("get_quote", "get_risk_factors", "get_reddit_posts"):
        assert tool in trace
    assert "running" not in trace  # every call got its result
    # a row per call: agent, tool and arguments, status, latency in ms
    assert re.search(r"official\ttool\tget_quote \{\"symbol\":\"AAPL\"\}\tok\t[\d,.]+\t", trace), trace

    # the planted payloads arrived, as text, and nothing ran
    business = page.locator("#section-business").text_content() or ""
    social = page.locator("#section-social").text_content() or ""
    assert "PLANTEDFILING <script>window.__pwned = 3</script>" in business
    assert "PLANTEDPOST" in social and "<script>window.__pwned = 1</script>" in social
    assert_inert(page)  # nothing ran, nothing that runs or loads is in the page, every link is http(s)
    assert dialogs == [] and errors == []
    assert all(r.startswith(url) for r in requests), [r for r in requests if not r.startswith(url)]


def test_history_stays_in_the_browser_and_replays_a_run(server: tuple[str, str], page: Page) -> None:
    url, _ = server
    posted: list[str] = []
    page.on("request", lambda r: posted.append(r.post_data or "") if r.method == "POST" else None)
    page.goto(url)
    page.fill("#ticker", "MSFT")
    page.click("#run")
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=90_000)
    page.wait_for_selector("#run:enabled", timeout=10_000)
    stored = page.evaluate("JSON.parse(localStorage.getItem('findesk.history'))")
    assert stored and stored[0]["ticker"] == "MSFT" and stored[0]["run_id"]
    assert all("history" not in body for body in posted)  # history is never sent to the server
    page.reload()
    assert page.locator("#section-audit").get_attribute("data-state") != "ready"
    page.locator("#history button", has_text="MSFT").first.click()
    page.wait_for_selector("#section-audit[data-state=ready]", timeout=30_000)
    assert "MSFT" in page.inner_text("#section-snapshot")
    assert page.locator("#trace tbody tr").count() >= 10
