"""The market analyst's tools on the real snapshot: NVDA's technicals at 2024-05-10 read no later bar,
the regime reads risk-off in March 2020 and October 2022 and risk-on in June 2021, an unknown symbol is
an error (not a crash), and every figure a summary states is a value of its result."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

import pytest

from findesk.guardrails.number_trace import collect_numbers, untraced_numbers
from findesk.tools.base import ToolOutcome
from findesk.tools.trading_market import RegimeResult, TechnicalsResult

Call = Callable[..., ToolOutcome]
DAY = date(2024, 5, 10)


def test_technicals_of_nvda_at_the_run_date(call: Call) -> None:
    out = call("get_technicals", at=DAY, symbol="nvda")
    assert out.ok, out.summary
    result = out.result.unwrap()
    assert isinstance(result, TechnicalsResult) and result.symbol == "NVDA"
    t = result.technicals
    # levels as they traded that day: NVDA closed at 898.78 on 2024-05-10 (its 10-for-1 split of June
    # 2024 makes the adjusted panel's close 89.8322); indicators computed on the adjusted bars, rescaled
    assert t.session == DAY and t.close == 898.78 and t.sessions >= 280
    assert t.levels == "as_traded" and t.level_factor == round(898.78 / 89.8322, 6)
    assert t.sma_50 is not None and t.close_vs_sma50_pct is not None
    assert t.close / t.sma_50 - 1 == pytest.approx(t.close_vs_sma50_pct / 100, abs=1e-5)
    assert t.volume == 33_454_369  # the session's as-traded volume (the adjusted panel says 335,325,000)
    assert "rescaled to what traded on 2024-05-10" in out.summary
    assert t.sma_50 is not None and t.sma_200 is not None and t.rsi_14 is not None and t.atr_14 is not None
    assert out.summary.startswith("NVDA technicals on session 2024-05-10 (as of 2024-05-10;")
    assert f"close {t.close:.2f}" in out.summary and f"RSI(14) {t.rsi_14:.2f}" in out.summary
    assert f"ATR(14) {t.atr_14:.2f}" in out.summary and "sp500_daily_ohlcv_adj" in result.source
    assert out.payload["technicals"]["session"] == "2024-05-10"


def test_technicals_use_no_bar_after_the_run_date(call: Call) -> None:
    friday = call("get_technicals", at=DAY, symbol="NVDA").result.unwrap().technicals
    weekend = call("get_technicals", at=date(2024, 5, 12), symbol="NVDA").result.unwrap().technicals
    monday = call("get_technicals", at=date(2024, 5, 13), symbol="NVDA").result.unwrap().technicals
    # nothing new by Sunday: the Friday session (the window starts two days later, so Wilder-smoothed
    # figures may move in a far decimal, nothing more)
    assert (weekend.session, weekend.close, weekend.sma_50, weekend.sma_200, weekend.volume) == (
        friday.session,
        friday.close,
        friday.sma_50,
        friday.sma_200,
        friday.volume,
    )
    assert weekend.rsi_14 == pytest.approx(friday.rsi_14, abs=0.01)
    assert monday.session == date(2024, 5, 13) and monday.close != friday.close  # the next bar exists


def test_unknown_symbol_is_an_error_not_a_crash(call: Call) -> None:
    out = call("get_technicals", at=DAY, symbol="ZZZZQ")
    assert not out.ok and out.error_code in {"not_found", "no_data"}
    assert "ZZZZQ" in out.summary and "unavailable" not in (out.error_code or "")
    bad = call("get_technicals", at=DAY, symbol="VOD.L")
    assert not bad.ok and bad.error_code == "out_of_scope"


def _regime(call: Call, day: date) -> RegimeResult:
    out = call("get_market_regime", at=day)
    assert out.ok, out.summary
    result = out.result.unwrap()
    assert isinstance(result, RegimeResult)
    return result


def test_regime_reads_stress_and_calm(call: Call) -> None:
    covid, calm, bear = (_regime(call, d) for d in (date(2020, 3, 20), date(2021, 6, 30), date(2022, 10, 12)))
    assert covid.regime.label == "risk-off" and covid.regime.vix == 66.04
    assert covid.regime.hy_spread_pct == 10.09 and covid.regime.spy_vs_sma200_pct is not None
    assert covid.regime.spy_vs_sma200_pct < -20
    # the sector SPDRs' file starts in 2021: breadth and rotation are left out, said so, not invented
    assert covid.regime.breadth_pct is None and covid.regime.rotation_pp is None
    assert set(covid.regime.votes) == {"vix", "credit", "curve", "trend"}
    assert any(w.startswith("breadth left out") and "XLK" in w for w in covid.regime.warnings)
    assert not any("Do not estimate" in w for w in covid.regime.warnings)  # the router's word to a model
    assert calm.regime.label == "risk-on" and calm.regime.vix == 15.83 and len(calm.regime.votes) == 6
    assert calm.regime.breadth_basis == "11 Select Sector SPDRs"
    assert bear.regime.label == "risk-off" and bear.regime.curve_10y2y_pp == -0.37
    assert "snapshot:fred/VIXCLS.csv" in covid.sources and "snapshot:fred/T10Y2Y.csv" in calm.sources


def test_regime_summary_states_each_vote(call: Call) -> None:
    out = call("get_market_regime", at=date(2021, 6, 30))
    assert out.summary.startswith("Market regime as of 2021-06-30: risk-on (score +4")
    assert "- VIX 15.83 on 2021-06-30 below 16: calm (+1)" in out.summary
    assert "sector breadth: 7 of 11 sector SPDRs above their 50-day average (63.64%)" in out.summary
    assert "Sources: snapshot:fred/VIXCLS.csv" in out.summary


def test_every_number_in_the_summaries_is_a_value_of_the_result(call: Call) -> None:
    for out in (
        call("get_technicals", at=DAY, symbol="NVDA"),
        call("get_technicals", at=date(2025, 8, 29), symbol="JPM"),
        call("get_market_regime", at=DAY),
        call("get_market_regime", at=date(2020, 3, 20)),
    ):
        assert out.ok, out.summary
        pool = collect_numbers(out.result.unwrap())
        assert untraced_numbers(out.summary, pool) == [], out.summary
