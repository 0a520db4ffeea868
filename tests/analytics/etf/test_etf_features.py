"""One week's features on the real ETF panel, each checked against an independent computation.

The week ending Friday 2025-05-16 (the week after the US-China tariff truce): XLK, XLE and TLT have
their indicators recomputed here with TA-Lib on their own closes up to 2025-05-16, their beta with a
least-squares fit with intercept, their return from the two closes. A bar planted after the week must
never change anything (point in time).
"""

from __future__ import annotations

import dataclasses
import time
from datetime import date

import numpy as np
import pytest
import talib

from findesk.analytics.etf.features import WeekFeatures, week_bounds, week_features
from findesk.analytics.etf.models import EtfFeatures
from findesk.analytics.etf.params import PrepParams
from findesk.data.models.funds import PricePanel

WEEK = date(2025, 5, 16)
PARAMS = PrepParams()


def _col(panel: PricePanel, day: str) -> int:
    return int(np.searchsorted(panel.dates, np.datetime64(day)))


def _by_symbol(result: WeekFeatures) -> dict[str, EtfFeatures]:
    return {fund.symbol: fund for fund in (*result.features, *result.flagged)}


@pytest.fixture(scope="module")
def week(etf_panel: PricePanel) -> WeekFeatures:
    return week_features(etf_panel, WEEK, PARAMS, names={"XLK": "Technology Select Sector SPDR Fund"})


def test_week_runs_from_the_previous_fridays_close(etf_panel: PricePanel, week: WeekFeatures) -> None:
    assert (week.week_start, week.week_end) == (date(2025, 5, 9), date(2025, 5, 16))
    # Good Friday 2025-04-18 closed the market: that week has 4 sessions, ending on Thursday
    start, end = week_bounds(etf_panel.dates, date(2025, 4, 18))
    assert (str(etf_panel.dates[start]), str(etf_panel.dates[end])) == ("2025-04-11", "2025-04-17")
    # a Sunday asks for the week that ended on the Friday before it
    start, end = week_bounds(etf_panel.dates, date(2025, 5, 18))
    assert (str(etf_panel.dates[start]), str(etf_panel.dates[end])) == ("2025-05-09", "2025-05-16")


@pytest.mark.parametrize("symbol", ["XLK", "XLE", "TLT"])
def test_features_match_an_independent_computation(
    etf_panel: PricePanel, week: WeekFeatures, symbol: str
) -> None:
    fund = _by_symbol(week)[symbol]
    row = etf_panel.row(symbol)
    assert row is not None
    start, end = _col(etf_panel, "2025-05-09"), _col(etf_panel, "2025-05-16")
    close = etf_panel.close[row, : end + 1]
    high, low, volume = (m[row, : end + 1] for m in (etf_panel.high, etf_panel.low, etf_panel.volume))
    assert np.isfinite(close).all()  # these three funds trade on every session of the panel

    assert fund.close == close[end]
    assert fund.pct_return == pytest.approx((close[end] / close[start] - 1) * 100, rel=1e-12)
    assert fund.sessions == end + 1
    assert fund.rsi_14 == pytest.approx(talib.RSI(close, timeperiod=14)[-1], rel=1e-12)
    assert fund.sma_50 == pytest.approx(talib.SMA(close, timeperiod=50)[-1], rel=1e-12)
    assert fund.sma_200 == pytest.approx(talib.SMA(close, timeperiod=200)[-1], rel=1e-12)
    assert fund.price_vs_sma50_pct == pytest.approx((close[end] / fund.sma_50 - 1) * 100)
    upper, _, lower = talib.BBANDS(close, timeperiod=20, nbdevup=2.0, nbdevdn=2.0)
    assert fund.bollinger_position == pytest.approx((close[end] - lower[-1]) / (upper[-1] - lower[-1]))
    atr = talib.ATR(high, low, close, timeperiod=14)[-1]
    assert fund.atr_pct == pytest.approx(atr / close[end] * 100, rel=1e-12)

    daily = close[1:] / close[:-1] - 1  # daily[k] is the return into session k + 1
    assert fund.sigma == pytest.approx(np.std(daily[end - 60 : end], ddof=1) * 100, rel=1e-9)
    assert fund.move_sigmas == pytest.approx(fund.pct_return / (fund.sigma * np.sqrt(5)))
    week_volume = volume[start + 1 : end + 1].mean()
    assert fund.volume_ratio == pytest.approx(week_volume / volume[start - 19 : start + 1].mean())
    dollars = close[end - 19 : end + 1] * volume[end - 19 : end + 1]
    assert fund.avg_dollar_volume == pytest.approx(dollars.mean())


@pytest.mark.parametrize("symbol", ["XLK", "XLE", "TLT"])
def test_beta_and_alpha_match_a_least_squares_fit_before_the_week(
    etf_panel: PricePanel, week: WeekFeatures, symbol: str
) -> None:
    fund = _by_symbol(week)[symbol]
    row, spy = etf_panel.row(symbol), etf_panel.row("SPY")
    assert row is not None and spy is not None
    start = _col(etf_panel, "2025-05-09")
    window = slice(start - 120, start + 1)  # 121 closes: the 120 returns ending at week_start
    y = np.diff(etf_panel.close[row, window]) / etf_panel.close[row, window][:-1]
    x = np.diff(etf_panel.close[spy, window]) / etf_panel.close[spy, window][:-1]
    (slope, _intercept), residual, *_ = np.linalg.lstsq(np.column_stack([x, np.ones_like(x)]), y, rcond=None)
    r_squared = 1 - residual[0] / ((y - y.mean()) ** 2).sum()

    assert fund.beta == pytest.approx(slope, rel=1e-9)
    assert fund.r_squared == pytest.approx(r_squared, rel=1e-9)
    assert fund.spy_weekly_return == pytest.approx(week.spy.pct_return)
    assert fund.alpha_residual == pytest.approx(fund.pct_return - slope * week.spy.pct_return, rel=1e-9)


def test_spy_is_its_own_benchmark_and_names_are_attached(week: WeekFeatures) -> None:
    assert week.spy.symbol == "SPY"
    assert week.spy.beta == pytest.approx(1.0)
    assert week.spy.alpha_residual == pytest.approx(0.0, abs=1e-9)
    assert 5.0 < week.spy.pct_return < 5.5  # the tariff-truce week: SPY +5.3 %
    funds = _by_symbol(week)
    assert funds["XLK"].name == "Technology Select Sector SPDR Fund"
    assert funds["XLE"].name is None
    # XLK, a high-beta sector, beat SPY in a rally week; TLT (bonds) moved against it
    assert funds["XLK"].beta is not None and funds["XLK"].beta > 1.0
    assert funds["TLT"].beta is not None and funds["TLT"].beta < 0.3


def test_every_fund_is_ranked_flagged_or_counted_as_excluded(etf_panel: PricePanel) -> None:
    early = week_features(etf_panel, date(2024, 6, 7), PARAMS)

    # flagged funds are computed (kept apart for the dashboard) and counted as excluded
    assert len(early.features) + sum(early.excluded.values()) == len(etf_panel.tickers)
    assert early.excluded["bad_tick"] == len(early.flagged) == 1
    assert early.universe == len(etf_panel.tickers) - early.excluded["no_bar"]
    assert early.excluded["short_history"] > 0  # funds listed in the spring of 2024
    assert all(fund.sessions >= PARAMS.min_history for fund in early.features)
    ranked = {fund.symbol for fund in early.features}
    listed_after = _col(etf_panel, "2024-06-08")
    unlisted = np.isnan(etf_panel.close[:, :listed_after]).all(axis=1)
    not_yet_listed = {etf_panel.tickers[row] for row in np.flatnonzero(unlisted)}
    assert not_yet_listed and not not_yet_listed & ranked


def test_a_bar_planted_after_the_week_changes_nothing(etf_panel: PricePanel, week: WeekFeatures) -> None:
    after = _col(etf_panel, "2025-05-19")
    matrices = {}
    for name in ("open", "high", "low", "close", "volume", "splits"):
        planted = getattr(etf_panel, name).copy()
        # every later value changes, and sessions without a bar (funds not yet listed) get one
        planted[:, after:] = np.where(np.isnan(planted[:, after:]), 50.0, planted[:, after:] * 7.0)
        matrices[name] = planted
    # a one-day crash of XLK the next session would look like a reversal of the week if it were seen
    row = etf_panel.row("XLK")
    assert row is not None
    matrices["close"][row, after] = etf_panel.close[row, after] * 0.2
    matrices["splits"][:, after] = 4.0
    future = dataclasses.replace(etf_panel, **matrices)

    assert week_features(future, WEEK, PARAMS, names={"XLK": "Technology Select Sector SPDR Fund"}) == week


def test_the_whole_universe_takes_well_under_a_second(etf_panel: PricePanel) -> None:
    timings = []
    for _ in range(3):
        began = time.perf_counter()
        result = week_features(etf_panel, WEEK, PARAMS)
        timings.append(time.perf_counter() - began)
    assert result.universe == 1670
    assert min(timings) < 0.5, f"week_features over 1,670 funds took {min(timings):.3f} s"
