"""The fundamentals analyst's maths: a TTM point needs 4 consecutive quarters, a fiscal Q4 is derived
(and said to be) from the year minus the 9-month year to date, growth compares TTM with TTM a year
earlier, ROE uses the average equity, peers rank best first, and the documented scores follow."""

from __future__ import annotations

import calendar
from datetime import date, timedelta

import pytest

from findesk.analytics.trading.fundamentals import (
    Quarter,
    Trends,
    TtmPoint,
    ValuationGap,
    alpha_signal,
    fundamental_signals,
    rank_peers,
    trend_signals,
    ttm_trends,
    valuation_gap,
    xbrl_quarters,
)
from findesk.analytics.trading.sector_etf import RelativePerf
from findesk.data.models import Fact, Source

SRC = Source(vendor="test", ref="facts")
ENDS = [date(2023, 3, 31), date(2023, 6, 30), date(2023, 9, 30), date(2023, 12, 31)]


def _quarter_ends(first: date, n: int) -> list[date]:
    out = []
    for i in range(n):
        index = first.year * 12 + first.month - 1 + 3 * i
        year, month = divmod(index, 12)
        out.append(date(year, month + 1, calendar.monthrange(year, month + 1)[1]))
    return out


def _quarters(revenues: list[float], first_end: date = date(2022, 3, 31)) -> list[Quarter]:
    return [
        Quarter(
            end=end,
            filed=end + timedelta(days=30),
            revenue=rev,
            operating_income=rev * 0.2,
            net_income=rev * 0.1,
            equity=1000.0 + 10 * i,
            debt=500.0,
        )
        for i, (end, rev) in enumerate(zip(_quarter_ends(first_end, len(revenues)), revenues, strict=True))
    ]


def test_a_ttm_point_sums_four_consecutive_quarters_and_growth_compares_a_year_earlier() -> None:
    qs = _quarters([100, 100, 100, 100, 100, 110, 120, 130, 140], date(2021, 12, 31))  # .. 2023-12-31
    t = ttm_trends(qs, "yfinance")
    assert t is not None
    assert [p.quarter_end for p in t.points] == [
        date(2023, 12, 31),
        date(2023, 9, 30),
        date(2023, 6, 30),
        date(2023, 3, 31),
        date(2022, 12, 31),
        date(2022, 9, 30),
    ]
    latest = t.points[0]
    assert latest.revenue_ttm == 500
    assert latest.revenue_growth_yoy_pct == pytest.approx(25.0)  # 500 vs 400
    assert t.points[1].revenue_growth_yoy_pct == pytest.approx(15.0)  # 460 vs 400
    assert t.growth_change_pp == pytest.approx(10.0)
    assert latest.operating_margin_pct == pytest.approx(20.0) and latest.net_margin_pct == pytest.approx(10.0)
    # ROE: TTM net income 50 over the mean equity at the 4 quarter ends and the one before (1040..1080)
    assert latest.roe_pct == pytest.approx(50 / 1060 * 100)
    assert latest.debt_to_equity == pytest.approx(500 / 1080)
    assert t.points[-1].revenue_growth_yoy_pct is None  # its year-earlier TTM would need 2021 quarters
    assert latest.fcf_ttm is None and any("no cash-flow statement" in m for m in t.missing)


def test_a_gap_in_the_quarters_breaks_the_ttm_and_three_quarters_give_none() -> None:
    qs = _quarters([100, 100, 100, 100, 100])
    gapped = [q for q in qs if q.end != date(2022, 9, 30)]
    t = ttm_trends(gapped, "yfinance")
    assert t is None  # no 4 quarters in a row anywhere
    assert ttm_trends(qs[:3], "yfinance") is None
    one_missing = [q if q.end != date(2022, 6, 30) else q.model_copy(update={"revenue": None}) for q in qs]
    t2 = ttm_trends(one_missing, "xbrl")
    assert t2 is not None and all(p.revenue_ttm is None for p in t2.points)  # never a partial sum


def _fact(concept: str, start: date | None, end: date, value: float, filed: date) -> Fact:
    return Fact(
        ticker="TEST",
        cik=1,
        taxonomy="us-gaap",
        concept=concept,
        unit="USD",
        value=value,
        period_start=start,
        period_end=end,
        filed=filed,
        source=SRC,
    )


def test_xbrl_fiscal_q4_is_derived_from_the_year_minus_nine_months_and_stated() -> None:
    y0 = date(2023, 1, 1)
    facts = [
        _fact("Revenues", y0, date(2023, 3, 31), 10, date(2023, 5, 1)),
        _fact("Revenues", date(2023, 4, 1), date(2023, 6, 30), 11, date(2023, 8, 1)),
        _fact("Revenues", date(2023, 7, 1), date(2023, 9, 30), 12, date(2023, 11, 1)),
        _fact("Revenues", y0, date(2023, 9, 30), 33, date(2023, 11, 1)),
        _fact("Revenues", y0, date(2023, 12, 31), 50, date(2024, 2, 20)),
        _fact("Revenues", date(2024, 1, 1), date(2024, 3, 31), 14, date(2024, 5, 29)),  # filed later
    ]
    before = xbrl_quarters(facts, date(2024, 5, 10))
    assert [q.end for q in before] == [date(2023, 12, 31), *reversed(ENDS[:3])]
    q4 = before[0]
    assert q4.revenue == 17 and q4.filed == date(2024, 2, 20)
    assert q4.notes and "derived" in q4.notes[0] and "50" in q4.notes[0] and "33" in q4.notes[0]
    t = ttm_trends(before, "xbrl")
    assert t is not None and t.points[0].revenue_ttm == 50 and t.notes
    after = xbrl_quarters(facts, date(2024, 5, 29))
    assert after[0].end == date(2024, 3, 31)  # visible once filed


def test_scores_follow_the_documented_rules() -> None:
    point = TtmPoint(
        quarter_end=date(2024, 1, 28),
        revenue_ttm=1000.0,
        revenue_growth_yoy_pct=30.0,
        operating_margin_pct=40.0,
        net_margin_pct=25.0,
        roe_pct=22.0,
        debt_to_equity=2.0,
        fcf_ttm=-5.0,
    )
    t = Trends(
        source="xbrl", points=[point], quarters_used=[], growth_change_pp=-3.0, operating_margin_change_pp=2.5
    )
    by = {s.id: s for s in trend_signals(t)}
    assert by["fundamentals.revenue_growth"].score == 0.5  # ≥ 20% (+1), decelerating (-0.5)
    assert "decelerating" in by["fundamentals.revenue_growth"].text
    assert by["fundamentals.margin_trend"].score == 1.0
    assert by["fundamentals.profitability"].score == 0.5
    assert by["fundamentals.roe"].score == 1.0
    assert by["fundamentals.leverage"].score == -0.5
    assert by["fundamentals.fcf"].score == -1.0 and "negative" in by["fundamentals.fcf"].text
    assert all(s.analyst == "fundamentals" for s in by.values())


def test_alpha_and_valuation_signals() -> None:
    rel = [
        RelativePerf(window="3M", start=date(2024, 2, 9), stock_pct=24.6, etf_pct=-0.9, alpha_pp=25.5),
        RelativePerf(window="6M", start=date(2023, 11, 10), stock_pct=86.0, etf_pct=14.9, alpha_pp=71.1),
    ]
    a = alpha_signal(rel, "XLK")
    assert a is not None and a.score == 1.5 and "XLK" in a.text and "+25.5 pp" in a.text
    lagging = [r.model_copy(update={"alpha_pp": -6.0}) for r in rel[:1]]
    assert alpha_signal(lagging, "XLK").score == -0.5  # type: ignore[union-attr]
    gap = ValuationGap(metric="pe", value=37.15, peer_median=31.38, peers=3, premium_pct=18.4)
    sigs = fundamental_signals(None, gap, rel, "XLK")
    assert [s.id for s in sigs] == ["fundamentals.valuation_vs_peers", "fundamentals.sector_alpha"]
    assert sigs[0].score == 0.0 and "18.4% premium" in sigs[0].text
    assert fundamental_signals(None, None, [], None) == []


def test_peers_rank_best_first_and_losses_are_not_ranked_on_pe() -> None:
    table: dict[str, dict[str, float | None]] = {
        "NVDA": {"return_3m_pct": 24.6, "return_6m_pct": 86.0, "pe": 60.0, "ps": 30.0},
        "AMD": {"return_3m_pct": -11.9, "return_6m_pct": 28.1, "pe": -40.0, "ps": 10.0},
        "MU": {"return_3m_pct": 41.8, "return_6m_pct": 61.2, "pe": 20.0, "ps": 5.0},
        "INTC": {"return_3m_pct": -30.8, "return_6m_pct": None, "pe": 30.0, "ps": 2.0},
    }
    r = rank_peers("NVDA", table)
    assert r.ranks == {"return_3m_pct": 2, "return_6m_pct": 1, "pe": 3, "ps": 4}
    assert r.counts == {"return_3m_pct": 4, "return_6m_pct": 3, "pe": 3, "ps": 4}
    gap = valuation_gap("NVDA", table)
    # only 2 peers with a positive P/E (3 needed): the P/S against its 3 peers' median instead
    assert gap is not None and gap.metric == "ps" and gap.peer_median == 5.0 and gap.premium_pct == 500.0
    table["AMD"]["pe"] = 50.0
    gap = valuation_gap("NVDA", table)
    assert gap is not None and gap.metric == "pe" and gap.peer_median == 30.0 and gap.premium_pct == 100.0
