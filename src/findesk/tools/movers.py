"""Movers analyzer tools: the day's NASDAQ gainers, a symbol's history against SPY, and
``python_analyzer``, which runs a Python program on the validated payload inside the sandbox.

Rules:
- Thin: reads go through ``ctx.router`` with ``ctx.as_of``; the maths is ``analytics.movers``. The
  gainers come from ``router.day_gainers`` (the snapshot's all-listed-stocks table, or a live screener
  with the same shape), re-filtered by ``analytics.movers.gainers`` whatever the vendor.
- ``get_history_vs_spy``: the last ``sessions`` sessions ending at the session asked (default 21, about
  a month), from ``router.bars``; a name it does not cover reads ``router.listed_bars`` (the
  all-listed-stocks table's as-traded closes and volumes, no high/low).
  When the symbol has fewer, it retries with a shorter window (``FALLBACK_WINDOWS``) and says
  so; below ``MIN_SESSIONS`` it is ``no_data``. SPY's closes are aligned on the symbol's sessions; when
  SPY cannot be read or misses a session, ``spy_close`` is None and ``spy_note`` says why (the relative
  figures are omitted, never estimated). In as-traded (unadjusted) closes, a one-session move beyond
  ``SPLIT_LIKE_UP_PCT`` / ``SPLIT_LIKE_DOWN_PCT`` is named as a possible split in the warnings.
- ``python_analyzer`` refuses a payload with unknown keys or misaligned series before anything runs
  (the arguments model), runs the program with ``core.sandbox`` (no network, read-only system, private
  work dir, no secrets, CPU / memory / process / wall-time / output limits), and parses the last line of
  its output as a JSON object of figures. When the sandbox cannot be used (bubblewrap missing) it is
  ``not_configured`` and no program runs: generated code never runs outside the sandbox. A program the
  sandbox stopped, or whose output is not a JSON object of numbers, is an ``Ok`` run with that status
  and reason, so the audit log keeps what happened.
"""

from __future__ import annotations

import asyncio
import datetime as dt
import itertools
import json
from importlib import resources
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.movers.gainers import nasdaq_gainers
from findesk.analytics.movers.models import METRIC_NAMES, GainerFilters, GainersBoard, MoverPayload, Origin
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.sandbox import SandboxLimits, run_python
from findesk.data.models import PriceBars
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, Ticker, ToolArgs, session_day
from findesk.tools.base import Tool, ToolContext
from findesk.tools.scan import reader_reason
from findesk.tools.summaries import compact

DEFAULT_SESSIONS = 21
FALLBACK_WINDOWS = (10, 5)
MIN_SESSIONS = 5
MAX_SESSIONS = 252
MAX_PROGRAM_CHARS = 20_000
BENCHMARK = "SPY"
SPLIT_LIKE_UP_PCT = 80.0  # a one-session move at least this large in unadjusted closes is named
SPLIT_LIKE_DOWN_PCT = -45.0


def reviewed_program() -> str:
    """The project's reviewed analysis program (``tools/sandboxed/mover_metrics.py``), as text."""
    return resources.files("findesk.tools.sandboxed").joinpath("mover_metrics.py").read_text(encoding="utf-8")


# --- get_nasdaq_gainers ------------------------------------------------------------------------------


class GainersArgs(GainerFilters):
    date: dt.date | None = Field(
        None, description="A session on or before the run's as-of date; omitted: the as-of date."
    )


async def _gainers(args: GainersArgs, ctx: ToolContext) -> Result[GainersBoard]:
    day = session_day(args.date, ctx.as_of)
    if isinstance(day, Err):
        return day
    got = await ctx.router.day_gainers(day.value, ctx.as_of)
    if isinstance(got, Err):
        return got
    table = got.value
    filters = GainerFilters.model_validate(args.model_dump(exclude={"date"}))
    board = nasdaq_gainers(table, filters, sources=[table.source.cite()], notes=table.notes)
    if table.session != day.value:
        moved = (
            f"no session {day.value.isoformat()} in the table: the list is of its last session before it, "
            f"{table.session.isoformat()}"
        )
        board = board.model_copy(update={"warnings": [moved, *board.warnings]})
    return Ok(board)


def summarize_gainers(b: GainersBoard) -> str:
    lines = [
        f"NASDAQ gainers on {b.session.isoformat()}: {b.kept:,} of {b.universe:,} listings pass the screen "
        f"(NASDAQ tiers by {b.tier_basis}; common stock only; price >= ${b.filters.min_price:g}, volume >= "
        f"{b.filters.min_volume:,}"
        + (
            f", market cap >= ${compact(b.filters.min_market_cap_usd)}"
            if b.filters.min_market_cap_usd
            else ""
        )
        + ")."
    ]
    for r in b.gainers:
        cap = f", cap ${compact(r.market_cap_usd)}" if r.market_cap_usd is not None else ""
        lines.append(
            f"{r.rank}. {r.symbol} ({r.exchange_code or r.exchange}) {r.name or ''} ${r.close:,.2f} "
            f"{r.pct_change:+g}%, volume {r.volume:,}{cap}"
        )
    if not b.gainers:
        lines.append("No NASDAQ listing rose that session after the screen.")
    lines += [f"Warning: {w}" for w in b.warnings[:4]]
    return "\n".join(lines) + f"\nSource: {'; '.join(b.sources)}"


get_nasdaq_gainers = Tool(
    name="get_nasdaq_gainers",
    description=(
        "The session's top NASDAQ gainers (Nasdaq tiers NMS, NGM, NCM; common stock only: no ETFs, warrants, "
        "units, rights, preferreds or notes) after price, volume and market-cap floors, ranked by the day's "
        f"percent change as published. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=GainersArgs,
    fn=_gainers,
    summarize=summarize_gainers,
)


# --- get_history_vs_spy ------------------------------------------------------------------------------


class HistoryArgs(ToolArgs):
    symbol: Ticker
    date: dt.date | None = Field(None, description="The last session; omitted: the run's as-of date.")
    sessions: Annotated[
        int, Field(ge=MIN_SESSIONS, le=MAX_SESSIONS, description="Sessions in the window (default 21).")
    ] = DEFAULT_SESSIONS


class MoverHistory(BaseModel):
    model_config = ConfigDict(extra="forbid")

    payload: MoverPayload
    sessions_asked: int
    sessions_used: int
    adjusted: bool  # the symbol's closes are split/dividend-adjusted (False: as traded)
    spy_note: str | None = None  # why SPY's figures are missing, when they are
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


def _window(bars: PriceBars, day: dt.date, sessions: int) -> list[Any]:
    upto = [b for b in bars.bars if b.date <= day]
    return upto[-sessions:]


def _jumps(window: list[Any], symbol: str) -> list[str]:
    """Close-to-close moves in as-traded closes large enough to be a split or a reverse split: named,
    because the window's figures include them (such a table is not split-adjusted)."""
    found = []
    for before, after in itertools.pairwise(window):
        change = (after.close / before.close - 1) * 100
        if change >= SPLIT_LIKE_UP_PCT or change <= SPLIT_LIKE_DOWN_PCT:
            found.append(
                f"{symbol} closed {change:+.0f}% from {before.date.isoformat()} to {after.date.isoformat()} "
                "in as-traded (unadjusted) closes: check for a split or reverse split before reading the "
                "window's return and volatility, which include that move"
            )
    return found


async def _history(args: HistoryArgs, ctx: ToolContext) -> Result[MoverHistory]:
    day = session_day(args.date, ctx.as_of)
    if isinstance(day, Err):
        return day
    start = day.value - dt.timedelta(days=int(args.sessions * 1.6) + 10)
    own, spy = await asyncio.gather(
        ctx.router.bars(args.symbol, start, day.value, ctx.as_of),
        ctx.router.bars(BENCHMARK, start, day.value, ctx.as_of),
    )
    if isinstance(own, Err) and own.code in (ErrorCode.NOT_FOUND, ErrorCode.NO_DATA):
        # a name the price files do not cover (most NASDAQ small caps offline): the as-traded table
        listed = await ctx.router.listed_bars(args.symbol, start, day.value, ctx.as_of)
        own = listed if isinstance(listed, Ok) else own
    if isinstance(own, Err):
        return own
    warnings: list[str] = []
    window = _window(own.value, day.value, args.sessions)
    available = len(window)
    used = args.sessions
    if available < args.sessions:
        used = next((w for w in FALLBACK_WINDOWS if w < args.sessions and available >= w), available)
        if used < MIN_SESSIONS:
            return Err(
                ErrorCode.NO_DATA,
                f"{args.symbol} has {available} session(s) up to {day.value.isoformat()}; at least "
                f"{MIN_SESSIONS} are needed for its history",
            )
        window = window[-used:]
        warnings.append(
            f"{args.symbol} has only {available} session(s) in the {args.sessions}-session window: "
            f"the analysis uses the last {used}"
        )
    if window[-1].date != day.value:
        warnings.append(
            f"{args.symbol}'s last session in the data is {window[-1].date.isoformat()}, "
            f"not {day.value.isoformat()}"
        )
    if not own.value.adjusted:
        warnings += _jumps(window, args.symbol)
    dates = [b.date for b in window]
    spy_close: list[float] | None = None
    spy_note: str | None = None
    sources = [own.value.source.cite()]
    if isinstance(spy, Err):
        spy_note = f"SPY could not be read ({reader_reason(spy)}): the comparison with SPY is omitted"
    else:
        by_day = {b.date: b.close for b in spy.value.bars}
        missing = [d for d in dates if d not in by_day]
        if missing:
            spy_note = (
                f"SPY has no close on {len(missing)} of the window's sessions "
                f"(first {missing[0].isoformat()}): "
                "the comparison with SPY is omitted"
            )
        else:
            spy_close = [by_day[d] for d in dates]
            sources.append(spy.value.source.cite())
    if spy_note:
        warnings.append(spy_note)
    payload = MoverPayload(
        symbol=own.value.symbol,
        session=dates[-1],
        dates=dates,
        close=[b.close for b in window],
        volume=[None if b.volume is None else float(b.volume) for b in window],
        open=[b.open for b in window],
        high=[b.high for b in window],
        low=[b.low for b in window],
        spy_close=spy_close,
    )
    return Ok(
        MoverHistory(
            payload=payload,
            sessions_asked=args.sessions,
            sessions_used=used,
            adjusted=own.value.adjusted,
            spy_note=spy_note,
            sources=sources,
            warnings=warnings,
        )
    )


def summarize_history(h: MoverHistory) -> str:
    p = h.payload
    basis = "adjusted" if h.adjusted else "as traded"
    first, last = p.close[0], p.close[-1]
    lines = [
        f"{p.symbol}: {len(p.dates)} sessions {p.dates[0].isoformat()}..{p.session.isoformat()} "
        f"({basis} closes), "
        f"first close ${first:,.4g}, last close ${last:,.4g}.",
        "SPY aligned on the same sessions." if p.spy_close is not None else (h.spy_note or "No SPY."),
    ]
    lines += [f"Warning: {w}" for w in h.warnings if w != h.spy_note]
    return "\n".join(lines) + f"\nSources: {'; '.join(h.sources)}"


get_history_vs_spy = Tool(
    name="get_history_vs_spy",
    description=(
        "A symbol's daily closes, volumes (and high/low when the source has them) over a window of sessions "
        "ending at a date, with SPY's closes on the same sessions: the payload python_analyzer runs on. "
        f"A short history gives a shorter window, said in the warnings. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=HistoryArgs,
    fn=_history,
    summarize=summarize_history,
)


# --- python_analyzer ---------------------------------------------------------------------------------


class AnalyzerArgs(ToolArgs):
    payload: MoverPayload = Field(description="The validated payload (get_history_vs_spy's payload).")
    program: Annotated[
        str | None,
        Field(
            max_length=MAX_PROGRAM_CHARS,
            description=(
                "Python 3 source that reads payload.json from its working directory and prints ONE JSON "
                "object "
                f"with the keys {', '.join(METRIC_NAMES)} (numbers or null). numpy and pandas are installed; "
                "there is no network, no other file and no environment. Omitted: the reviewed program."
            ),
        ),
    ] = None


RunStatus = Literal[
    "ok",
    "invalid_output",
    "error",
    "timeout",
    "cpu_limit",
    "memory_limit",
    "output_limit",
    "process_limit",
    "killed",
]


class AnalyzerRun(BaseModel):
    model_config = ConfigDict(extra="forbid")

    origin: Origin
    status: RunStatus
    figures: dict[str, float | None] | None = None  # the program's output, parsed (None unless "ok")
    reason: str = ""
    duration_ms: float
    stdout_preview: str = ""
    stderr_tail: str = ""


def parse_figures(stdout: str) -> Result[dict[str, float | None]]:
    """The program's figures: the last non-empty line of its output as a JSON object of numbers/null."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    if not lines:
        return Err(ErrorCode.INVALID_INPUT, "the program printed nothing")
    try:
        value = json.loads(lines[-1])
    except json.JSONDecodeError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"the program's last line is not JSON ({exc.msg})")
    if not isinstance(value, dict):
        return Err(ErrorCode.INVALID_INPUT, "the program's last line is not a JSON object")
    figures: dict[str, float | None] = {}
    for key, item in list(value.items())[:50]:
        if item is not None and (isinstance(item, bool) or not isinstance(item, int | float)):
            return Err(ErrorCode.INVALID_INPUT, f"the program's figure {str(key)[:40]!r} is not a number")
        figures[str(key)[:60]] = None if item is None else float(item)
    return Ok(figures)


async def _analyze(args: AnalyzerArgs, ctx: ToolContext) -> Result[AnalyzerRun]:
    origin: Origin = "reviewed" if args.program is None else "model"
    program = reviewed_program() if args.program is None else args.program
    limits = ctx.service(SandboxLimits) or SandboxLimits()
    data = args.payload.model_dump_json().encode("utf-8")
    ran = await run_python(program, inputs={"payload.json": data}, limits=limits)
    if isinstance(ran, Err):
        return ran
    run = ran.value
    base: dict[str, Any] = {
        "origin": origin,
        "duration_ms": round(run.duration_ms, 1),
        "stdout_preview": run.stdout[:1000],
        "stderr_tail": run.stderr[-1000:],
    }
    if run.status != "ok":
        return Ok(AnalyzerRun(status=run.status, reason=run.reason, **base))
    figures = parse_figures(run.stdout)
    if isinstance(figures, Err):
        return Ok(AnalyzerRun(status="invalid_output", reason=figures.reason, **base))
    return Ok(AnalyzerRun(status="ok", figures=figures.value, reason=run.reason, **base))


def summarize_analyzer(r: AnalyzerRun) -> str:
    head = f"{r.origin} program in the sandbox: {r.status} in {r.duration_ms:,.0f} ms"
    if r.figures is not None:
        shown = ", ".join(f"{k} {v:g}" if v is not None else f"{k} null" for k, v in r.figures.items())
        return f"{head}. Figures: {shown}"
    return f"{head}. {r.reason}"


python_analyzer = Tool(
    name="python_analyzer",
    description=(
        "Run a Python program on the validated movers payload inside a sandbox (no network, read-only "
        "system, private work dir, no secrets; limits on CPU, memory, processes, 15 s wall time and 20,000 "
        "bytes of output) and return the JSON figures it printed, or why it was stopped. Quote the figures "
        "as printed; never estimate one the program did not print."
    ),
    args=AnalyzerArgs,
    fn=_analyze,
    summarize=summarize_analyzer,
    timeout_s=60.0,
)

TOOLS: tuple[Tool, ...] = (get_nasdaq_gainers, get_history_vs_spy, python_analyzer)
