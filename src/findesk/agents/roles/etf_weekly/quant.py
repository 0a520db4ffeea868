"""The quant analyst: the week's screen, the market context and a profile per candidate. Code only.

Rules:
- One playbook stage: the ETF screen (``screen_etf_week``), VIX (FRED ``VIXCLS``) and the yield-curve
  proxy (FRED ``T10Y2Y``, 10-year minus 2-year Treasury), all concurrent.
- No model ever writes here: the workflow runs this role deterministically; every note is a template
  over the fund's own figures (``analytics.etf.quant``), so the number trace finds every number.
- A failed source is a warning in the report (VIX unavailable, curve unavailable); a failed screen
  leaves no candidates and says why, and the run still finishes.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date, timedelta

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import (
    Caps,
    DeterministicPolicy,
    Outcomes,
    PlannedCall,
    Role,
    outcome_error,
    outcome_value,
)
from findesk.agents.roles.etf_weekly.models import MarketContext, QuantReport, SectorGroup, SymbolProfile
from findesk.analytics.etf import quant
from findesk.analytics.etf.models import EtfFeatures, EtfScreen
from findesk.analytics.etf.params import CandidateRules, PrepParams, SignalParams
from findesk.analytics.etf.sector_taxonomy import UNCLASSIFIED
from findesk.data.models import MacroSeries

MACRO_DAYS = 45  # a month of daily FRED observations before the week's end, with holidays


class QuantInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    week_ending: date
    prep: PrepParams = Field(default_factory=PrepParams)
    candidates: CandidateRules = Field(default_factory=CandidateRules)
    signals: SignalParams = Field(default_factory=SignalParams)
    beta_alpha_pct: float = 0.5
    watch: list[str] = Field(default_factory=list)  # funds whose weekly return is wanted anyway (history)


def _stage(inputs: QuantInput, _outcomes: Outcomes) -> list[PlannedCall]:
    start = (inputs.week_ending - timedelta(days=MACRO_DAYS)).isoformat()
    return [
        PlannedCall(
            "screen",
            "screen_etf_week",
            {
                "week_ending": inputs.week_ending.isoformat(),
                "prep": inputs.prep.model_dump(mode="json"),
                "candidates": inputs.candidates.model_dump(mode="json"),
                "watch": inputs.watch[:50],
            },
        ),
        PlannedCall("vix", "get_macro_series", {"series_id": "VIXCLS", "start": start}),
        PlannedCall("curve", "get_macro_series", {"series_id": "T10Y2Y", "start": start}),
    ]


def _latest(series: MacroSeries | None, until: date) -> tuple[float | None, date | None]:
    if series is None:
        return None, None
    known = [o for o in series.observations if o.value is not None and o.date <= until]
    return (known[-1].value, known[-1].date) if known else (None, None)


def profile(f: EtfFeatures, inputs: QuantInput) -> SymbolProfile:
    """The fund's figures under the design's names (the features' own, none recomputed), its signal and
    the note written from them."""
    sig = quant.signal(f, inputs.signals, inputs.beta_alpha_pct)
    figures = f.model_dump(include=set(SymbolProfile.model_fields))
    figures["pct_return"] = round(f.pct_return, 4)
    figures["spy_weekly_return"] = round(f.spy_weekly_return, 4)
    return SymbolProfile.model_validate(
        {
            **figures,
            "sector": f.sector or UNCLASSIFIED,
            "signal": sig,
            "note": quant.note(f, sig, inputs.prep),
        }
    )


def groups(candidates: list[EtfFeatures], spy: float, beta_alpha_pct: float) -> dict[str, SectorGroup]:
    by_sector: dict[str, list[EtfFeatures]] = defaultdict(list)
    for c in candidates:
        by_sector[c.sector or UNCLASSIFIED].append(c)
    out: dict[str, SectorGroup] = {}
    for sector, members in by_sector.items():
        ret, alpha, beta = quant.group_averages(members)
        out[sector] = SectorGroup(
            sector=sector,
            members=[m.symbol for m in members],
            avg_return=round(ret, 4),
            avg_alpha_residual=round(alpha, 4),
            avg_beta=None if beta is None else round(beta, 4),
            interpretation=quant.interpretation(sector, len(members), ret, alpha, spy, beta_alpha_pct),
        )
    # largest |average alpha| first: the sectors the desk must explain lead
    return dict(sorted(out.items(), key=lambda kv: -abs(kv[1].avg_alpha_residual)))


def compose(inputs: QuantInput, outcomes: Outcomes) -> QuantReport:
    screen: EtfScreen | None = outcome_value(outcomes, "screen")
    vix, vix_day = _latest(outcome_value(outcomes, "vix"), inputs.week_ending)
    curve, curve_day = _latest(outcome_value(outcomes, "curve"), inputs.week_ending)
    warnings: list[str] = []
    for key, what in (("vix", "VIX (FRED VIXCLS)"), ("curve", "yield curve (FRED T10Y2Y)")):
        error = outcome_error(outcomes, key)
        if error:
            warnings.append(f"{what} unavailable: {error}")
    if screen is None:
        error = outcome_error(outcomes, "screen") or "no result"
        return QuantReport(
            market_context=MarketContext(
                week_start=inputs.week_ending,
                week_end=inputs.week_ending,
                spy_weekly_return=None,
                spy_close=None,
                regime="unknown (the ETF screen failed)",
                vix_level=vix,
                vix_date=vix_day,
                yield_curve_10y2y=curve,
                yield_curve_date=curve_day,
                yield_curve_state=quant.curve_state(curve),
                universe=0,
                warnings=[f"ETF screen unavailable: {error}", *warnings],
            ),
            warnings=[f"ETF screen unavailable: {error}", *warnings],
        )
    spy = screen.spy
    warnings += screen.warnings
    context = MarketContext(
        week_start=screen.week_start,
        week_end=screen.week_end,
        spy_weekly_return=round(spy.pct_return, 4),
        spy_close=spy.close,
        spy_vs_sma50_pct=spy.price_vs_sma50_pct,
        regime=quant.regime(spy.price_vs_sma50_pct),
        vix_level=vix,
        vix_date=vix_day,
        yield_curve_10y2y=curve,
        yield_curve_date=curve_day,
        yield_curve_state=quant.curve_state(curve),
        universe=screen.universe,
        sources=[screen.source, "fred:VIXCLS", "fred:T10Y2Y"],
        warnings=warnings,
    )
    return QuantReport(
        market_context=context,
        sector_groups=groups(screen.candidates, spy.pct_return, inputs.beta_alpha_pct),
        symbol_profiles={c.symbol: profile(c, inputs) for c in screen.candidates},
        excluded=screen.excluded,
        data_flags=screen.data_flags,
        price_source=screen.source,
        series=screen.series,
        watched=screen.watched,
        warnings=warnings,
    )


def _task(inputs: QuantInput) -> str:  # never sent: the role runs deterministically
    return f"Screen the ETF universe for the week ending {inputs.week_ending.isoformat()}."


ROLE: Role[QuantInput, QuantReport] = Role(
    name="etf_quant",
    description=(
        "Quant analyst (code only): the week's ETF screen, market context and a profile per candidate."
    ),
    system_prompt="The quant analyst runs without a model.",
    tools=("screen_etf_week", "get_macro_series"),
    input_schema=QuantInput,
    output_schema=QuantReport,
    policy=DeterministicPolicy(stages=(_stage,), compose=compose),
    task=_task,
    tier="quick",
    caps=Caps(max_iterations=1, max_tool_calls_per_turn=3),
)
