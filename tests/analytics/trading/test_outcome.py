"""How a decision turned out: realised return and alpha from the snapshot's bars (checked against the
raw price files), stop/target touches, and one lesson per role that states the figures and the verdict."""

from __future__ import annotations

import asyncio
import csv
import gzip
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from findesk.analytics.trading.outcome import HOLD_BAND_PP, lessons, realised
from findesk.core.config import Settings
from findesk.data.models.market import PriceBar
from findesk.knowledge.memory.decisions import MAX_LESSON_CHARS, ROLES, LoggedDecision, Outcome
from findesk.tools.base import ToolContext
from snapshot_kit import snapshot_tools

DECIDED = date(2024, 5, 10)
EXIT_20 = date(2024, 6, 10)  # 20 sessions later (Memorial Day 2024-05-27 closed)


@pytest.fixture(scope="module")
def tools(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("outcome-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), "2024-06-30")


def bars(tools: ToolContext, symbol: str, as_of: date) -> list[PriceBar]:
    got = asyncio.run(tools.router.bars(symbol, date(2024, 4, 1), as_of, as_of=as_of))
    return got.unwrap().bars


def closes_from_files(snapshot: Path) -> tuple[dict[date, float], dict[date, float]]:
    """NVDA and SPY closes read straight from the raw CSV files, not through the data layer."""
    nvda: dict[date, float] = {}
    panel = snapshot / "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
    with gzip.open(panel, "rt") as fh:
        for row in csv.DictReader(fh):
            if row["ticker"] == "NVDA" and row["date"].startswith("2024-0"):
                nvda[date.fromisoformat(row["date"])] = float(row["close"])
    spy: dict[date, float] = {}
    with (snapshot / "prices/equities/SPY_daily_ohlcv_adj_2015-01-02_2025-12-30.csv").open() as fh:
        for row in csv.DictReader(fh):
            if row["Date"].startswith("2024-0"):
                spy[date.fromisoformat(row["Date"])] = float(row["Close"])
    return nvda, spy


def test_realised_return_and_alpha_match_the_raw_closes(tools: ToolContext, snapshot_dir: Path) -> None:
    nvda, spy = closes_from_files(snapshot_dir)
    sessions = sorted(d for d in nvda if d >= DECIDED)
    assert sessions[0] == DECIDED and sessions[20] == EXIT_20
    expected = (nvda[EXIT_20] / nvda[DECIDED] - 1) * 100
    expected_spy = (spy[EXIT_20] / spy[DECIDED] - 1) * 100

    at = date(2024, 6, 30)
    got = realised(bars(tools, "NVDA", at), bars(tools, "SPY", at), DECIDED, 20)
    assert got is not None
    assert (got.entry_session, got.exit_date, got.sessions) == (DECIDED, EXIT_20, 20)
    assert got.return_pct == pytest.approx(expected, abs=1e-6)
    assert got.spy_return_pct == pytest.approx(expected_spy, abs=1e-3)
    assert got.alpha_pp == pytest.approx(expected - expected_spy, abs=1e-3)
    assert got.return_pct == pytest.approx(35.5, abs=0.1)  # NVDA ran ahead of SPY after its May results
    assert got.position_return_pct == pytest.approx(expected, abs=1e-6)  # long, no levels: held to the end

    weekend = realised(bars(tools, "NVDA", at), bars(tools, "SPY", at), date(2024, 5, 11), 20)
    assert weekend is not None and weekend.entry_session == DECIDED  # the last session on or before


def test_no_outcome_until_the_exit_session_is_in_the_data(tools: ToolContext) -> None:
    day_before = date(2024, 6, 7)
    assert realised(bars(tools, "NVDA", day_before), bars(tools, "SPY", day_before), DECIDED, 20) is None
    on_exit = realised(bars(tools, "NVDA", EXIT_20), bars(tools, "SPY", EXIT_20), DECIDED, 20)
    assert on_exit is not None and on_exit.exit_date == EXIT_20
    assert realised([], [], DECIDED, 20) is None


def test_plan_levels_priced_as_traded_are_read_against_adjusted_bars(tools: ToolContext) -> None:
    # NVDA traded near 898 on 2024-05-10, before its 10-for-1 split; the bars are split-adjusted (~89.8)
    at = date(2024, 6, 30)
    nvda = bars(tools, "NVDA", at)
    got = realised(
        nvda, bars(tools, "SPY", at), DECIDED, 20, direction="long", entry=898.32, stop=800.0, target=1000.0
    )
    assert got is not None and got.target_hit and not got.stop_hit and got.exit_reason == "target"
    assert got.position_return_pct == pytest.approx((1000.0 / 898.32 - 1) * 100, abs=1e-9)
    short = realised(nvda, [], DECIDED, 20, direction="short", entry=898.32, stop=1000.0, target=800.0)
    assert short is not None and short.stop_hit and short.exit_reason == "stop"
    assert short.position_return_pct == pytest.approx(-(1000.0 / 898.32 - 1) * 100, abs=1e-9)
    assert short.spy_return_pct is None and short.alpha_pp is None  # no SPY: unknown, never 0


def bar(day: int, close: float, low: float | None = None, high: float | None = None) -> PriceBar:
    return PriceBar(date=date(2024, 1, day), open=None, high=high, low=low, close=close, volume=None)


def test_a_session_touching_both_levels_counts_as_the_stop_and_flat_holds_nothing() -> None:
    path = [bar(2, 100.0), bar(3, 101.0, low=94.0, high=111.0), bar(4, 120.0)]
    spy = [bar(2, 400.0), bar(4, 404.0)]
    both = realised(path, spy, date(2024, 1, 2), 2, direction="long", stop=95.0, target=110.0)
    assert both is not None and both.exit_reason == "stop" and both.stop_hit and both.target_hit
    assert both.position_return_pct == pytest.approx(-5.0)
    assert both.return_pct == pytest.approx(20.0) and both.alpha_pp == pytest.approx(19.0)
    told = lessons(decision("BUY", "long", 5.0, entry=None, stop=95.0, target=110.0), both)["trader"]
    assert "stopped out (target touched), trade -5.0%" in told and "the plan was wrong" in told
    flat = realised(path, spy, date(2024, 1, 2), 2, direction="flat", stop=95.0, target=110.0)
    assert flat is not None and flat.exit_reason == "flat" and flat.position_return_pct == 0.0
    assert not flat.stop_hit and not flat.target_hit


def decision(rating: str, direction: str, size: float, **update: object) -> LoggedDecision:
    base = LoggedDecision.model_validate(
        {
            "run_id": "r1",
            "ticker": "NVDA",
            "decided_on": DECIDED,
            "session": DECIDED,
            "rating": rating,
            "position_pct": size,
            "direction": direction,
            "entry": 89.83,
            "stop": 80.0,
            "target": 100.0,
            "horizon_days": 20,
            "roles": {"bull": "data center demand keeps growing " * 20, "bear": "valuation is stretched"},
        }
    )
    return base.model_copy(update=update)


def outcome(return_pct: float, spy: float | None, position: float = 0.0, reason: str = "horizon") -> Outcome:
    return Outcome.model_validate(
        {
            "entry_session": DECIDED,
            "entry_close": 89.83,
            "exit_date": EXIT_20,
            "exit_close": 121.73,
            "sessions": 20,
            "return_pct": return_pct,
            "spy_return_pct": spy,
            "alpha_pp": None if spy is None else return_pct - spy,
            "position_return_pct": position,
            "exit_reason": reason,
            "target_hit": reason == "target",
        }
    )


def test_lessons_state_the_call_the_figures_and_who_was_right() -> None:
    won = lessons(decision("BUY", "long", 5.0), outcome(35.5, 2.8, position=11.3, reason="target"))
    assert set(won) == set(ROLES) and all(len(text) <= MAX_LESSON_CHARS for text in won.values())
    assert all(text.startswith("NVDA 2024-05-10") for text in won.values())
    assert "NVDA +35.5% vs SPY +2.8%, alpha +32.7 pp over 20 sessions to 2024-06-10" in won["bull"]
    assert "the bull was right" in won["bull"] and "the bear was wrong" in won["bear"]
    assert "rated BUY" in won["research_manager"] and "the rating was right" in won["research_manager"]
    assert "target reached" in won["trader"] and "trade +11.3%" in won["trader"]
    assert "stop 80.00" in won["trader"] and "the plan was right" in won["trader"]
    assert "+0.56% of capital" in won["risk_manager"] and "the size was right" in won["risk_manager"]
    assert "Case: data center demand" in won["bull"]  # the role's own argument, cut to fit

    # long-only SELL: flat; the stock beat SPY, so staying out (and the SELL) were wrong
    missed = lessons(decision("SELL", "flat", 0.0, manager_rating="UNDERWEIGHT"), outcome(35.5, 2.8))
    assert "rated UNDERWEIGHT" in missed["research_manager"] and "was wrong" in missed["research_manager"]
    assert "staying out was wrong" in missed["trader"] and "no position" in missed["risk_manager"]
    assert "the bear was wrong" in missed["bear"]

    # a HOLD is right when the stock stayed within the band around SPY; judged on its own return without SPY
    calm = lessons(decision("HOLD", "flat", 0.0), outcome(4.0, 2.0))
    assert HOLD_BAND_PP >= 2.0 and "the rating was right" in calm["research_manager"]
    assert "staying out was right" in calm["trader"]
    no_spy = lessons(decision("HOLD", "flat", 0.0), outcome(-8.0, None))
    assert "SPY n/a" in no_spy["bear"] and "the bear was right" in no_spy["bear"]
    assert "the rating was wrong" in no_spy["research_manager"]

    review = lessons(decision("REVIEW", "flat", 0.0), outcome(-8.0, 1.0))
    assert "not judged" in review["risk_manager"]
    assert lessons(decision("BUY", "long", 5.0), outcome(35.5, 2.8)) == lessons(
        decision("BUY", "long", 5.0), outcome(35.5, 2.8)
    )
