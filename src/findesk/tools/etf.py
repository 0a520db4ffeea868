"""The weekly ETF screen as a tool: the whole ETF universe prepared for one week, point in time.

Rules:
- Preparation only, no model: the router's ETF panel and fund profiles in, ``analytics.etf`` out
  (features per fund, data-quality flags, sectors, candidates by the strategy's rules, chart series).
- Point in time: the panel holds no session after the run's as-of date, and the week may not end
  after it (``invalid_input``). Fund profiles recorded after the as-of date lend names and categories
  only (stable facts); nothing about size or flows recorded later chooses a candidate.
- The panel is read from a start far enough back for the longest lookback (SMA200, beta), with room
  for holidays.
"""

from __future__ import annotations

import asyncio
from datetime import date, timedelta

from pydantic import Field

from findesk.analytics.etf.candidates import select_candidates
from findesk.analytics.etf.features import week_features
from findesk.analytics.etf.models import EtfScreen
from findesk.analytics.etf.params import CandidateRules, PrepParams
from findesk.analytics.etf.sectors import classify
from findesk.analytics.etf.series import price_series
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models.funds import FundProfile, PricePanel
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, Ticker, ToolArgs
from findesk.tools.base import Tool, ToolContext

# calendar days per session, with margin for holidays: 1.5 covers any US year
_DAYS_PER_SESSION = 1.5
_HISTORY_SESSIONS = 260  # SMA200 plus margin; the beta lookback may ask for more


class ScreenArgs(ToolArgs):
    week_ending: date = Field(description="The week's last day (YYYY-MM-DD), on or before the as-of date.")
    prep: PrepParams = Field(
        default_factory=PrepParams,
        description="Lookbacks and data-quality thresholds (the strategy's prep block).",
    )
    candidates: CandidateRules = Field(
        default_factory=CandidateRules,
        description="Which funds are candidates (the strategy's candidates block).",
    )
    watch: list[Ticker] = Field(
        default_factory=list,
        max_length=50,
        description="Funds whose weekly return to report whatever the rules.",
    )


def _start(week_ending: date, prep: PrepParams) -> date:
    sessions = max(_HISTORY_SESSIONS, prep.beta_lookback + 10, prep.min_history + 10)
    return week_ending - timedelta(days=int(sessions * _DAYS_PER_SESSION) + 10)


def screen(
    panel: PricePanel, profiles: dict[str, FundProfile], args: ScreenArgs, warnings: list[str] | None = None
) -> Result[EtfScreen]:
    """The week's screen from a panel and profiles (synchronous: CPU work, run in a thread)."""
    names = {t: p.name for t, p in profiles.items()}
    try:
        week = week_features(panel, args.week_ending, args.prep, names)
    except ValueError as exc:  # no session in the week, none before it, or no SPY bar
        return Err(ErrorCode.NO_DATA, f"ETF screen for the week ending {args.week_ending}: {exc}")
    sectors = {
        f.symbol: classify(f.symbol, names.get(f.symbol, ""), _category(profiles, f.symbol))
        for f in week.features
    }
    chosen, excluded = select_candidates(week.features, sectors, args.candidates)
    series = {c.symbol: price_series(panel, c.symbol, c.week_end, args.prep) for c in chosen}
    watch = set(args.watch)
    return Ok(
        EtfScreen(
            week_start=week.week_start,
            week_end=week.week_end,
            universe=week.universe,
            spy=week.spy,
            excluded={**week.excluded, **excluded},
            data_flags=week.data_flags,
            candidates=chosen,
            series=series,
            watched={f.symbol: f.pct_return for f in week.features if f.symbol in watch},
            source=panel.source.cite(),
            warnings=list(warnings or []),
        )
    )


def _category(profiles: dict[str, FundProfile], symbol: str) -> str:
    profile = profiles.get(symbol)
    return (profile.category or "") if profile is not None else ""


async def _screen(args: ScreenArgs, ctx: ToolContext) -> Result[EtfScreen]:
    if args.week_ending > ctx.as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"the week ending {args.week_ending} is after the run's as-of date {ctx.as_of}",
        )
    panel, profiles = await asyncio.gather(
        ctx.router.etf_panel(args.week_ending, _start(args.week_ending, args.prep)),
        ctx.router.fund_profiles(args.week_ending),
    )
    if isinstance(panel, Err):
        return panel
    if isinstance(profiles, Err):  # names and categories missing: sectors fall back to ticker overrides
        problem = f"fund profiles unavailable ({profiles.message()}): fund names and sectors are incomplete"
        return await asyncio.to_thread(screen, panel.value, {}, args, [problem])
    return await asyncio.to_thread(screen, panel.value, profiles.value, args)


def summarize_screen(s: EtfScreen) -> str:
    head = (
        f"ETF screen for the week {s.week_start.isoformat()}..{s.week_end.isoformat()}: {s.universe} funds "
        f"priced, SPY {s.spy.pct_return:+.2f}%, {len(s.candidates)} candidate(s)"
    )
    lines = [head]
    if s.excluded:
        lines.append("not ranked: " + ", ".join(f"{k} {v}" for k, v in sorted(s.excluded.items())))
    if s.data_flags:
        lines.append(
            f"data-quality flags ({len(s.data_flags)}): "
            + "; ".join(f"{f.symbol} {f.reason}" for f in s.data_flags[:8])
        )
    for c in s.candidates[:30]:
        alpha = "n/a" if c.alpha_residual is None else f"{c.alpha_residual:+.2f} pp"
        beta = "n/a" if c.beta is None else f"{c.beta:.2f}"
        rsi = "n/a" if c.rsi_14 is None else f"{c.rsi_14:.1f}"
        lines.append(
            f"- {c.symbol} ({c.sector}): {c.pct_return:+.2f}%, beta {beta}, alpha {alpha}, RSI {rsi}"
        )
    lines.append(f"Source: {s.source}")
    return "\n".join(lines)


screen_etf_week = Tool(
    name="screen_etf_week",
    description=(
        "Screens the whole US ETF universe for one week: each fund's weekly return, beta to SPY, alpha "
        "residual, SMA50/200, RSI(14), Bollinger position, volume ratio, ATR and sigma; bad ticks and split "
        f"artefacts caught; candidates chosen by the strategy's rules, grouped by sector. {POINT_IN_TIME} "
        f"{QUOTE_RULE}"
    ),
    args=ScreenArgs,
    fn=_screen,
    summarize=summarize_screen,
)

TOOLS: tuple[Tool, ...] = (screen_etf_week,)
