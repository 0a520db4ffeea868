"""The trading desk's market analyst on the real snapshot: NVDA at 2024-05-10 gets scored technicals
and a risk-on regime, in March 2020 a risk-off regime weighs on it, every figure it states traces to
its tool results, a failed source is an honest partial / no_data, and a model may only write the
summary."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest

from findesk.agents.role import PlannedCall
from findesk.agents.roles.trading import market
from findesk.agents.roles.trading.inputs import AnalystInput
from findesk.agents.roles.trading.models import Identity, MarketReport, Signal
from findesk.analytics.trading.params import stance_of, weighted_score
from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode
from findesk.guardrails.number_trace import collect_numbers, untraced_numbers
from findesk.tools.base import ToolContext, ToolOutcome, execute
from findesk.tools.catalog import default_registry
from snapshot_kit import snapshot_tools

DAY = date(2024, 5, 10)
NVDA = Identity(ticker="NVDA", cik=1045810, name="NVIDIA CORP", exchange="Nasdaq", source="test")


@pytest.fixture(scope="module")
def ctx(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[ToolContext]:
    cache = tmp_path_factory.mktemp("market-role-cache")
    yield from snapshot_tools(Settings(snapshot_dir=snapshot_dir, cache_dir=cache, chains={}), DAY)


def _at(ctx: ToolContext, day: date) -> ToolContext:
    context = ctx.context.model_copy(update={"as_of": day, "as_of_is_default": False})
    return ToolContext(ctx.router, ctx.sections, context)


async def _playbook(inputs: AnalystInput, ctx: ToolContext) -> dict[str, ToolOutcome]:
    registry = default_registry()
    outcomes: dict[str, ToolOutcome] = {}
    for stage in market.ROLE.policy.stages:
        calls = stage(inputs, outcomes)
        assert {c.tool for c in calls} <= set(market.ROLE.tools)
        done = await asyncio.gather(*(execute(registry.get(c.tool), c.tool, c.args, ctx) for c in calls))
        outcomes.update({c.key: o for c, o in zip(calls, done, strict=True)})
    return outcomes


def _run(
    ctx: ToolContext, day: date, identity: Identity = NVDA
) -> tuple[MarketReport, dict[str, ToolOutcome]]:
    inputs = AnalystInput(identity=identity, date=day)
    outcomes = asyncio.run(_playbook(inputs, _at(ctx, day)))
    return market.ROLE.policy.compose(inputs, outcomes), outcomes


def test_role_is_one_quick_stage_with_both_tools() -> None:
    assert market.ROLE.name == "trade_market" and market.ROLE.tier == "quick"
    assert market.ROLE.tools == ("get_technicals", "get_market_regime")
    assert len(market.ROLE.policy.stages) == 1  # one stage: the two calls run concurrently
    calls = market.ROLE.policy.stages[0](AnalystInput(identity=NVDA, date=DAY), {})
    assert calls == [
        PlannedCall("technicals", "get_technicals", {"symbol": "NVDA"}),
        PlannedCall("regime", "get_market_regime", {}),
    ]


def test_nvda_at_2024_05_10(ctx: ToolContext) -> None:
    report, _ = _run(ctx, DAY)
    assert report.status == "ok" and report.analyst == "market"
    assert report.technicals is not None and report.technicals.session == DAY
    assert report.regime.label == "risk-on"
    ids = [s.id for s in report.signals]
    assert ids == [
        "market.trend",
        "market.macd",
        "market.rsi",
        "market.bollinger",
        "market.obv",
        "market.vwma",
        "market.volatility",
        "market.regime",
    ]
    trend = report.signals[0]
    assert trend.score == 2.0 and "uptrend" in trend.text  # NVDA far above its 200-day average in May 2024
    expected = round(weighted_score([(s.score, s.weight) for s in report.signals]), 4)
    assert report.score == expected and report.stance == stance_of(expected, 0.5) == "bullish"
    assert report.summary.startswith("NVIDIA CORP (NVDA) closed at 898.78 on 2024-05-10.")
    assert "Macro regime: risk-on" in report.summary
    assert any("sp500_daily_ohlcv_adj" in s for s in report.sources)
    assert "snapshot:fred/BAMLH0A0HYM2.csv" in report.sources


def test_every_figure_stated_traces_to_a_tool_result(ctx: ToolContext) -> None:
    for day in (DAY, date(2020, 3, 20)):
        report, outcomes = _run(ctx, day)
        pool = collect_numbers(*(o.result.unwrap() for o in outcomes.values() if o.ok))
        for text in [report.summary, *(s.text for s in report.signals)]:
            assert untraced_numbers(text, pool) == [], text


def test_a_stressed_regime_weighs_on_the_stock(ctx: ToolContext) -> None:
    report, _ = _run(ctx, date(2020, 3, 20))
    assert report.regime.label == "risk-off"
    regime = next(s for s in report.signals if s.id == "market.regime")
    assert regime.score < 0 and regime.weight == 1.0
    assert report.technicals is not None and report.technicals.session == date(2020, 3, 20)
    # the sector funds' history starts in 2021: the regime said so, and the report carries it
    assert report.status == "ok" and any("breadth left out" in w for w in report.warnings)


def _failed(name: str) -> ToolOutcome:
    return ToolOutcome(
        name=name,
        arguments={},
        result=Err(ErrorCode.UNAVAILABLE, f"{name} source down"),
        summary=f"unavailable: {name} source down",
        payload=None,
        truncated=False,
        latency_ms=1.0,
    )


def test_a_failed_source_is_partial_and_both_failed_is_no_data(ctx: ToolContext) -> None:
    inputs = AnalystInput(identity=NVDA, date=DAY)
    outcomes = asyncio.run(_playbook(inputs, _at(ctx, DAY)))
    no_regime = market.compose(inputs, {**outcomes, "regime": _failed("get_market_regime")})
    assert no_regime.status == "partial" and no_regime.regime.label == "unknown"
    assert "market.regime" not in {s.id for s in no_regime.signals}
    assert any(
        w.startswith("market regime unavailable: unavailable: get_market_regime") for w in no_regime.warnings
    )
    nothing = market.compose(
        inputs, {"technicals": _failed("get_technicals"), "regime": _failed("get_market_regime")}
    )
    assert nothing.status == "no_data" and nothing.score == 0.0 and nothing.stance == "neutral"
    assert nothing.signals == [] and nothing.technicals is None
    assert nothing.summary.startswith("No market data for NVIDIA CORP (NVDA) as of 2024-05-10")


def test_unknown_symbol_finishes_with_a_warning(ctx: ToolContext) -> None:
    ghost = NVDA.model_copy(update={"ticker": "ZZZZQ", "name": "Nobody Inc"})
    report, outcomes = _run(ctx, DAY, ghost)
    assert not outcomes["technicals"].ok and report.status == "partial"
    assert report.technicals is None and report.regime.label == "risk-on"
    assert any(w.startswith("technicals unavailable:") and "ZZZZQ" in w for w in report.warnings)
    assert not any("Do not estimate" in w for w in report.warnings)  # the router's word to a model


def test_a_model_may_only_write_the_summary(ctx: ToolContext) -> None:
    basis, _ = _run(ctx, DAY)
    invented = Signal(id="market.rsi", analyst="market", text="RSI(14) 12.00: oversold", score=2.0)
    said = basis.model_copy(
        update={
            "summary": "  NVDA is in an uptrend above its 200-day average; the regime is risk-on.  ",
            "score": -2.0,
            "stance": "bearish",
            "signals": [invented],
            "status": "no_data",
            "regime": basis.regime.model_copy(update={"label": "risk-off", "vix": 99.0}),
            "technicals": None,
        }
    )
    kept = market.normalize(said, AnalystInput(identity=NVDA, date=DAY), basis)
    assert kept.summary == "NVDA is in an uptrend above its 200-day average; the regime is risk-on."
    assert kept.model_dump(exclude={"summary"}) == basis.model_dump(exclude={"summary"})
    blank = market.normalize(
        said.model_copy(update={"summary": " "}), AnalystInput(identity=NVDA, date=DAY), basis
    )
    assert blank.summary == basis.summary


def test_same_data_same_report_byte_for_byte(ctx: ToolContext) -> None:
    first, _ = _run(ctx, DAY)
    second, _ = _run(ctx, DAY)
    assert first.model_dump_json() == second.model_dump_json()
