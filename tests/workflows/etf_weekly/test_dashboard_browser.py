"""The weekly ETF dashboard in Chromium, opened from its ``file://`` URL as an analyst opens a run folder's
``dashboard.html``: every section, chart and flag drawn, nothing fetched or run, nothing wider than the
window, and a screenshot of the whole page.

The page is rendered from the hand-made report of ``report_fixture``. Outside CI the module is skipped when
Chromium or Playwright is missing (``browser_kit.require_browser``); in CI it fails.
"""

from __future__ import annotations

import struct
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

# browser_kit sits beside the API's browser tests; pytest puts only this folder and tests/ on sys.path
sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interfaces" / "api"))

# (mypy, checking this file alone, does not search that folder)
from browser_kit import Watch, chromium, require_browser  # type: ignore[import-not-found, unused-ignore]
from report_fixture import FUNDS, SECTION_IDS, SECTORS, hostile_report, weekly_report

from findesk.workflows.etf_weekly.models import EtfWeeklyReport
from findesk.workflows.etf_weekly.render_html import to_html

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

require_browser()

WIDTH = 1280


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def _open(browser: Any, report: EtfWeeklyReport, folder: Path, width: int = WIDTH) -> tuple[Any, Watch]:
    file = folder / "dashboard.html"
    file.write_text(to_html(report), encoding="utf-8")
    page = browser.new_page(viewport={"width": width, "height": 1000})
    watch = Watch(page, file.as_uri())
    page.goto(file.as_uri())
    return page, watch


def _overflow(page: Any) -> int:
    return int(page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth"))


def test_dashboard_draws_every_section_chart_and_flag_offline(browser: Any, tmp_path: Path) -> None:
    page, watch = _open(browser, weekly_report(), tmp_path)
    assert page.title() == "Weekly ETF analyst — week ending 2025-08-29"
    for anchor in SECTION_IDS:
        assert page.locator(f"#{anchor}").is_visible(), anchor
    assert page.locator("article.sector").count() == len(SECTORS)
    assert page.locator("article.symbol").count() == len(FUNDS)
    sizes = page.evaluate(
        "[...document.querySelectorAll('svg.chart')].map(s => {"
        "const r = s.getBoundingClientRect(); return [s.getAttribute('class'), r.width, r.height]; })"
    )
    assert len(sizes) == 1 + len(FUNDS)
    assert all(w > 100 and h > 100 for _, w, h in sizes), sizes
    assert sum(1 for cls, _, _ in sizes if cls == "chart chart-price") == len(FUNDS)
    # two parts per sector, each drawn with a width; every price chart draws its close line
    bars = page.evaluate(
        "[...document.querySelectorAll('g.sector-bar rect')].map(r => r.getBoundingClientRect().width)"
    )
    assert len(bars) == 2 * len(SECTORS) and all(w > 0 for w in bars), bars
    lines = page.evaluate(
        "[...document.querySelectorAll('svg.chart-price path.close')].map(p => p.getTotalLength())"
    )
    assert len(lines) == len(FUNDS) and all(n > 100 for n in lines), lines
    # the inline stylesheet applies offline: each flag has a colour of its own
    colours = {
        flag: page.locator(f"span.flag-{flag}").first.evaluate("e => getComputedStyle(e).backgroundColor")
        for flag in ("GREEN", "YELLOW", "RED")
    }
    assert len(set(colours.values())) == 3 and "rgba(0, 0, 0, 0)" not in colours.values(), colours
    assert page.locator("#symbol-xsd span.flag").first.inner_text() == "YELLOW"
    assert "— director" in page.locator("#symbol-xsd").inner_text()
    assert _overflow(page) == 0, "the dashboard scrolls sideways at 1280 px"
    shot = tmp_path / "dashboard.png"
    page.screenshot(path=str(shot), full_page=True)
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert width == WIDTH and height > 3000, (width, height)
    assert len(data) > 100_000
    watch.clean()
    page.close()


def test_dashboard_fits_a_narrow_window(browser: Any, tmp_path: Path) -> None:
    page, watch = _open(browser, weekly_report(), tmp_path, width=760)
    assert _overflow(page) == 0, "the dashboard scrolls sideways at 760 px"
    chart = page.locator("#symbol-smh svg.chart").bounding_box()
    assert chart is not None and 0 < chart["width"] <= 760
    watch.clean()
    page.close()


def test_hostile_report_runs_nothing_and_links_nothing_but_http(browser: Any, tmp_path: Path) -> None:
    page, watch = _open(browser, hostile_report(weekly_report()), tmp_path)
    assert page.evaluate("typeof window.__pwned") == "undefined"
    found = page.evaluate(
        "({scripts: document.querySelectorAll('script, img, iframe, object, embed').length,"
        " handlers: [...document.querySelectorAll('*')].filter(e => [...e.attributes]"
        ".some(a => a.name.startsWith('on'))).length,"
        " links: [...document.querySelectorAll('[href]')].map(e => e.getAttribute('href'))"
        ".filter(h => !/^https?:\\/\\//.test(h) && !/^#[a-z0-9-]+$/.test(h))})"
    )
    assert found == {"scripts": 0, "handlers": 0, "links": []}, found
    assert "<script>alert(1)</script>" in page.locator("#symbol-smh header").inner_text()
    watch.clean()
    page.close()
