"""``run_backtest``: a ``BacktestRequest`` in, a ``BacktestReport`` out, point in time at the as-of date.

Rules:
- Input is checked before any data is read: a known strategy (the five baselines, ``all`` for them, or
  ``desk``), ``start`` on or before ``end``, ``end`` on or before the as-of date; then every ticker's
  bars are read (an unknown ticker is ``invalid_input`` naming it). Each error is one line.
- Rule strategies run on the event loop (per-session log) or, with ``fast``, on the vectorized path;
  both through ``runner`` (cache; the event loop's jobs on the executor ``settings.executor`` names: the
  local pool of ``workers`` processes, or Ray). ``desk`` is computed session by session in this
  process through the audited router (``desk_strategy``), then fed to the same engine.
- The risk-free rate is read once for the window (``loader.risk_free``) and used by every row; the
  report names its source and carries its warning.
- A look-ahead anywhere (``LookAheadError``) fails the whole backtest: it is never a row's warning.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import date
from typing import Any

from findesk.agents.runtime.outcome import RequestedMode
from findesk.analytics.backtest.history import LookAheadError
from findesk.analytics.backtest.models import BacktestConfig, Bars
from findesk.core.config import Settings
from findesk.core.executor import open_executor
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.tools.base import ToolContext
from findesk.workflows.backtest import desk_strategy
from findesk.workflows.backtest.loader import load_bars, risk_free, sessions_of
from findesk.workflows.backtest.models import (
    BacktestReport,
    BacktestRequest,
    BacktestRow,
    OverfitReport,
    RiskFree,
)
from findesk.workflows.backtest.runner import Job, ResultCache, cache_folder, run_fast, run_job, run_jobs

ALL = "all"
DESK_WARMUP = 0  # the desk reads its own history through the router at each session


def baseline_names() -> tuple[str, ...]:
    from findesk.analytics.backtest.strategies import STRATEGY_NAMES

    return tuple(STRATEGY_NAMES)


def known_strategies() -> tuple[str, ...]:
    return (*baseline_names(), desk_strategy.NAME)


def expand(names: list[str]) -> Result[list[str]]:
    """``all`` → the five baselines; every name known, each once, in the order given."""
    out: list[str] = []
    for name in names:
        for n in baseline_names() if name.lower() == ALL else (name.lower(),):
            if n not in known_strategies():
                known = ", ".join((*known_strategies(), ALL))
                return Err(ErrorCode.INVALID_INPUT, f"unknown strategy {name!r}; known: {known}")
            if n not in out:
                out.append(n)
    return Ok(out)


def windows_of(request: BacktestRequest) -> list[tuple[date, date]]:
    """The request's windows: ``start … end`` first, then ``windows``, each once."""
    return list(dict.fromkeys([(request.start, request.end), *((w.start, w.end) for w in request.windows)]))


def check(request: BacktestRequest, as_of: date) -> Result[BacktestRequest]:
    for start, end in windows_of(request):
        if end < start:
            return Err(
                ErrorCode.INVALID_INPUT, f"--end {end.isoformat()} is before --start {start.isoformat()}"
            )
        if end > as_of:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"--end {end.isoformat()} is after the as-of date {as_of.isoformat()}: nothing later "
                f"is visible; pass --as-of {end.isoformat()} (or later) or an earlier --end",
            )
    names = expand(request.strategies)
    if isinstance(names, Err):
        return names
    if (request.grid or request.walk_forward) and not (request.grid and request.walk_forward):
        return Err(ErrorCode.INVALID_INPUT, "--grid and --walk-forward go together")
    if request.grid and len([n for n in names.value if n != desk_strategy.NAME]) != 1:
        return Err(ErrorCode.INVALID_INPUT, "--grid needs exactly one rule strategy (not desk, not all)")
    unknown = [k for k in request.params if k not in names.value]
    if unknown:
        return Err(
            ErrorCode.INVALID_INPUT, f"--params names {unknown[0]!r}, which is not a strategy run here"
        )
    for name in names.value:
        if name == desk_strategy.NAME:
            continue
        for params in [
            request.params.get(name, {}),
            *(_grid_points(request.grid or {}) if request.grid else []),
        ]:
            problem = _strategy_problem(name, params)
            if problem:
                return Err(ErrorCode.INVALID_INPUT, problem)
    tickers = [t.strip().upper() for t in request.tickers if t.strip()]
    if not tickers:
        return Err(ErrorCode.INVALID_INPUT, "no ticker given")
    return Ok(request.model_copy(update={"strategies": names.value, "tickers": list(dict.fromkeys(tickers))}))


def _strategy_problem(name: str, params: dict[str, float]) -> str | None:
    from findesk.analytics.backtest.strategies import make_strategy

    try:
        make_strategy(name, params or None)
    except ValueError as exc:
        return str(exc)
    return None


def warmup_of(name: str, params: dict[str, float]) -> int:
    if name == desk_strategy.NAME:
        return DESK_WARMUP
    from findesk.analytics.backtest.strategies import make_strategy

    return int(getattr(make_strategy(name, params or None), "warmup", 0))


async def run_backtest(
    request: BacktestRequest,
    *,
    settings: Settings,
    tools: ToolContext,
    progress: Callable[[str], None] | None = None,
    desk_hook: desk_strategy.SessionHook | None = None,
) -> Result[BacktestReport]:
    """Run ``request`` as of ``tools.as_of`` (see the module rules). Raises ``LookAheadError``."""
    began = time.perf_counter()
    as_of = tools.as_of
    checked = check(request, as_of)
    if isinstance(checked, Err):
        return checked
    req = checked.value
    say = progress or (lambda _m: None)
    warmup = max(warmup_of(n, req.params.get(n, {})) for n in req.strategies)
    if req.grid:
        warmup = max(warmup, *(warmup_of(req.strategies[0], p) for p in _grid_points(req.grid)))
    cache = ResultCache(cache_folder(settings.state_dir), enabled=req.use_cache)
    rules = [n for n in req.strategies if n != desk_strategy.NAME]
    rows: list[BacktestRow] = []
    warnings: list[str] = []
    jobs: list[Job] = []
    main: tuple[RiskFree, BacktestConfig] | None = None
    overfit: list[OverfitReport] = []
    for start, end in windows_of(req):
        # each window loads its own bars (its warm-up before its own start), so a window's result is
        # the one a backtest of that window alone gives: EMA seeds depend on the first bar
        bars: dict[str, Bars] = {}
        for ticker in req.tickers:
            got = await load_bars(tools.router, ticker, start, end, as_of, warmup)
            if isinstance(got, Err):
                if got.code in (ErrorCode.NOT_FOUND, ErrorCode.OUT_OF_SCOPE):
                    return Err(ErrorCode.INVALID_INPUT, f"unknown ticker {ticker}: {got.reason}")
                return Err(got.code, f"{ticker}: {got.reason}")
            bars[ticker] = got.value
        first = bars[req.tickers[0]]
        rf = await risk_free(tools.router, sessions_of(first, start, end), end)
        config = req.config.model_copy(update={"risk_free_pct": rf.pct})
        warnings.extend(w for w in rf.warnings if w not in warnings)
        if main is None:
            main = (rf, config)
        if rules and req.fast:
            for name in rules:
                say(f"vectorized {name} over {len(bars)} ticker(s), {start} … {end}")
                rows.extend(
                    run_fast(list(bars.values()), name, req.params.get(name, {}), config, start, end, cache)
                )
        elif rules:
            jobs += [
                Job(t, n, req.params.get(n, {}), start, end, config, b)
                for t, b in bars.items()
                for n in rules
            ]
        if desk_strategy.NAME in req.strategies:
            window = req.model_copy(update={"start": start, "end": end})
            for b in bars.values():
                row = await _desk_row(window, settings, tools, b, config, cache, say, desk_hook)
                if isinstance(row, Err):
                    return row
                rows.append(row.value)
                warnings.extend(w for w in row.value.warnings if w not in warnings)
        if req.grid and req.walk_forward:
            from findesk.workflows.backtest.overfit_run import overfit_report

            for b in bars.values():
                overfit.append(overfit_report(b, rules[0], req.grid, config, start, end))
    if jobs:
        opened = open_executor(settings.executor, workers=req.workers)
        if isinstance(opened, Err):
            return opened
        with opened.value as executor:
            say(f"{len(jobs)} backtest(s) on {executor.description}")
            done, failures = run_jobs(jobs, workers=req.workers, cache=cache, executor=executor)
        rows.extend(done)
        warnings.extend(failures)
    rows.sort(key=lambda r: (r.start, r.end, req.tickers.index(r.ticker), req.strategies.index(r.strategy)))
    assert main is not None  # windows_of always holds the main window
    rf, config = main
    warnings.extend(cache.problems)
    return Ok(
        BacktestReport(
            as_of=as_of,
            data_mode=tools.context.mode,
            start=req.start,
            end=req.end,
            tickers=req.tickers,
            strategies=req.strategies,
            config=config,
            risk_free=rf,
            rows=rows,
            overfit=overfit,
            seconds=round(time.perf_counter() - began, 3),
            cache_hits=cache.hits,
            warnings=warnings,
        )
    )


def _grid_points(grid: dict[str, list[float]]) -> list[dict[str, float]]:
    import itertools

    keys = sorted(grid)
    return [dict(zip(keys, combo, strict=True)) for combo in itertools.product(*(grid[k] for k in keys))]


async def _desk_row(
    req: BacktestRequest,
    settings: Settings,
    tools: ToolContext,
    bars: Bars,
    config: Any,
    cache: ResultCache,
    say: Callable[[str], None],
    hook: desk_strategy.SessionHook | None,
) -> Result[BacktestRow]:
    identity = f"|desk:{req.mode}:{req.budget_usd}:{req.desk_sizing}:{_data_identity(tools)}"
    job = Job(bars.ticker, desk_strategy.NAME, {}, req.start, req.end, config, bars, extra_key=identity)
    key = job.key()
    if hook is None:  # a hooked run (tests, audits) always reads again
        hit = cache.get(key)
        if hit is not None:
            return Ok(hit)
    sessions = sessions_of(bars, req.start, req.end)
    say(f"desk: {bars.ticker}, {len(sessions)} sessions, each a full desk run as of that session")
    mode: RequestedMode = req.mode
    began = time.perf_counter()
    decided = await desk_strategy.desk_decisions(
        settings,
        tools,
        bars.ticker,
        sessions,
        allow_short=config.allow_short,
        sizing=req.desk_sizing,
        mode=mode,
        budget_usd=req.budget_usd,
        hook=hook,
    )
    if isinstance(decided, Err):
        return decided
    run = decided.value
    desk_seconds = time.perf_counter() - began
    try:
        row = run_job(job, desk_strategy.DeskStrategy(run))
    except LookAheadError:
        raise
    per = desk_seconds / max(len(sessions), 1)
    timing = row.timing.model_copy(
        update={"seconds": round(desk_seconds + row.timing.seconds, 3), "seconds_per_session": per}
    )
    warnings = [*row.warnings, *run.warnings]
    if run.cost_usd:
        warnings.append(f"desk: model cost ${run.cost_usd:.4f} over {len(sessions)} sessions")
    row = row.model_copy(update={"timing": timing, "warnings": warnings})
    if hook is None:
        cache.put(key, row)
    return Ok(row)


def _data_identity(tools: ToolContext) -> str:
    """What else the desk reads besides the bars: the snapshot's manifest (or live: no reuse by day)."""
    import hashlib

    folder = tools.context.snapshot_dir
    if tools.context.mode != "snapshot" or folder is None:
        return f"live:{time.strftime('%Y-%m-%d')}"
    try:
        stat = (folder / "MANIFEST.tsv").stat()
        return hashlib.sha256(f"{folder}:{stat.st_size}:{stat.st_mtime_ns}".encode()).hexdigest()[:16]
    except OSError:
        return f"snapshot:{folder}"
