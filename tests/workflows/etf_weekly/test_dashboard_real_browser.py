"""The dashboard of a real run (the week ending 2025-05-23 on the snapshot, growth sectors: news in
every sector), opened in Chromium from its run folder as the analyst opens it: every section, both
charts kinds and every flag drawn, nothing fetched from elsewhere; a screenshot kept in the test's
folder. Outside CI the module is skipped when Chromium or Playwright is missing; in CI it fails."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from etf_kit import WeeklyRun

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "interfaces" / "api"))
from browser_kit import Watch, chromium, require_browser  # type: ignore[import-not-found, unused-ignore]

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

require_browser()


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    with chromium() as b:
        yield b


def test_the_run_folders_dashboard_renders_in_chromium(
    growth_week: WeeklyRun, browser: Any, tmp_path: Path
) -> None:
    report = growth_week.ok
    file = Path(report.output_dir or "") / "dashboard.html"
    page = browser.new_page(viewport={"width": 1280, "height": 1000})
    watch = Watch(page, file.as_uri())
    page.goto(file.as_uri())
    for section in ("executive-summary", "market-context", "beta-alpha", "sector-themes", "candidates"):
        assert page.locator(f"#{section}").is_visible(), section
    assert page.locator("article.symbol").count() == len(report.symbol_profiles)
    charts = page.locator("svg.chart")
    assert charts.count() >= 1 + len(report.symbol_profiles)  # the beta/alpha chart and one per candidate
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 50
    flags = {report.senior.symbols[s].flag for s in report.symbol_profiles}
    for flag in flags:
        assert page.locator(f".flag-{flag}").count() > 0, flag
    assert "Technology" in page.locator("#sector-themes").inner_text()
    shot = tmp_path / "dashboard.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 50_000
    watch.clean()
    page.close()
