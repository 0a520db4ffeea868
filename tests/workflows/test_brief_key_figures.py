"""Key figures in the briefing's Business section (issue 12: defects 4 and 5, key figures on one screen)."""

from __future__ import annotations

from datetime import date

from brief_kit import BriefRun

from findesk.workflows.brief.render_markdown import to_markdown

AS_OF = date(2025, 8, 29)


def _facts(brief_run: BriefRun, symbol: str, at: date = AS_OF) -> dict[tuple[str, str | None], float]:
    b = brief_run(symbol, at=at).briefing
    return {(f.metric, f.form): f.value for f in b.business.facts}


def test_aapl_annual_revenue_and_eps_are_not_silently_missing(brief_run: BriefRun) -> None:
    # Defect 5: the facts query asked for 8 rows and the annual one was the 11th.
    facts = _facts(brief_run, "AAPL")
    assert facts[("revenue", "10-K")] == 391_035_000_000 and facts[("eps", "10-K")] == 6.08
    assert facts[("revenue", "10-Q")] == 94_036_000_000 and facts[("eps", "10-Q")] == 1.57


def test_googl_annual_figures_at_2024_11_15(brief_run: BriefRun) -> None:
    facts = _facts(brief_run, "GOOGL", date(2024, 11, 15))
    assert facts[("revenue", "10-K")] == 307_394_000_000 and facts[("eps", "10-K")] == 5.80


def test_googl_latest_fiscal_year_is_2024_not_2021(brief_run: BriefRun) -> None:
    # Defect 4: mixing Revenues (last 10-K value FY2021) with RevenueFromContract… (FY2024).
    b = brief_run("GOOGL").briefing
    text = to_markdown(b)
    assert "350,018,000,000 USD (2024-01-01..2024-12-31, 10-K filed 2025-02-05)" in text
    assert "257,637,000,000" not in text


def test_key_figures_are_cited_and_computed_figures_say_so(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    kf = b.business.key_figures
    assert kf is not None and kf.trailing_pe is not None and kf.trailing_pe.value is not None
    keys = {s.key for s in b.sources}
    text = to_markdown(b)
    assert (
        "Revenue, latest fiscal year: 391,035,000,000 USD (2023-10-01..2024-09-28, 10-K filed 2024-11-01)"
        in text
    )
    assert "growth +2.0% (computed)" in text
    assert "Trailing P/E:" in text and "Dividend yield:" in text
    price = b.snapshot.quote.price if b.snapshot.quote else None
    assert price is not None and kf.trailing_pe.value == price / (6.08 + 5.62 - 5.11)
    for c in kf.comparisons:
        assert c.current.citation.startswith("https://www.sec.gov/Archives/edgar/data/320193/")
        assert c.current.citation in keys
    assert kf.earnings_release is not None and "2025-07-31" in kf.earnings_release.text
    assert "not available" in kf.earnings_release.text


def test_tickers_without_companyfacts_say_so_plainly(brief_run: BriefRun) -> None:
    b = brief_run("MSFT").briefing
    kf = b.business.key_figures
    assert kf is not None and kf.comparisons == [] and b.business.facts == []
    said = "XBRL facts (SEC companyfacts) for MSFT are not in the data: no revenue, EPS, P/E"
    assert kf.missing is not None and kf.missing.startswith(said)
    assert kf.trailing_pe is None and kf.dividend_yield is None
    assert said in to_markdown(b) and "Trailing P/E" not in to_markdown(b)


def test_the_stored_earnings_8k_is_excerpted(brief_run: BriefRun) -> None:
    kf = brief_run("AAPL", at=date(2024, 11, 15)).briefing.business.key_figures
    assert kf is not None and kf.earnings_release is not None
    assert kf.earnings_release.text.startswith("8-K filed 2024-10-31, Item 2.02: ")
    assert kf.earnings_release.citation and "sec.gov" in kf.earnings_release.citation


def test_one_screen_key_figures_take_one_line_each_with_the_growth_visible_at_80_columns(
    brief_run: BriefRun,
) -> None:
    import io

    from rich.console import Console

    from findesk.interfaces.cli.brief_view import draw

    b = brief_run("AAPL").briefing
    console = Console(file=io.StringIO(), width=80, color_system=None, emoji=False, highlight=False)
    draw(console, b)
    lines = console.file.getvalue().splitlines()  # type: ignore[attr-defined]
    rows = [line for line in lines if line.startswith(("Revenue, ", "Diluted EPS, "))]
    assert len(rows) == 4 and all(len(r) <= 80 for r in rows)
    assert rows[0].startswith("Revenue, latest reported quarter: 94,036,000,000 USD, +9.6% y/y")
    n = b.source_number(b.business.key_figures.comparisons[0].current.citation)  # type: ignore[union-attr]
    assert rows[0].endswith(f"[{n}]")  # the citation stays visible when the line is clipped
