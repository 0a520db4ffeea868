"""``findesk backtest TICKERS… --start A --end B --strategy S [S …|all]``: point-in-time backtests.

Rules:
- No business logic here: options become a ``BacktestRequest``, ``workflows.backtest.run`` runs it,
  a renderer prints it (terminal, json, markdown, html), ``--out`` writes it whole.
- ``--strategy`` takes one or more names: repeated (``-s macd -s sma``), comma-separated
  (``macd,sma``), or as lowercase words right after it (``--strategy macd sma``: a lowercase known
  strategy name among the positional words is a strategy, tickers are written in capitals).
- Bad input (an unknown strategy, the end before the start, a date after the as-of, an unknown ticker,
  malformed ``--costs`` / ``--params`` / ``--grid``) is one line on stderr and exit code 2, before any
  backtest runs. ``--executor ray`` without Ray installed, or a cluster that cannot be reached, is one
  line too. A look-ahead read fails the run: one line naming the method, the session and the date
  read, exit code 1.
"""

from __future__ import annotations

import json
from datetime import date
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.interfaces.cli import session as ses

LOOK_AHEAD_EXIT = 1
STRATEGY_WORDS = ("buy_hold", "macd", "kdj_rsi", "zmr", "sma", "desk", "all")


class Fmt(StrEnum):
    terminal = "terminal"
    json = "json"
    markdown = "markdown"
    html = "html"


class DeskMode(StrEnum):
    deterministic = "deterministic"
    auto = "auto"
    model = "model"


class Executor(StrEnum):
    local = "local"
    ray = "ray"


class DeskSizing(StrEnum):
    full = "full"
    desk = "desk"


def parse_costs(text: str | None) -> Result[dict[str, float]]:
    if not text:
        return Ok({})
    out: dict[str, float] = {}
    for part in text.split(","):
        key, eq, value = part.partition("=")
        key = key.strip()
        if not eq or key not in ("commission_bps", "slippage_bps"):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"--costs {text!r}: write commission_bps=N,slippage_bps=N (got {part.strip()!r})",
            )
        try:
            out[key] = float(value)
        except ValueError:
            return Err(ErrorCode.INVALID_INPUT, f"--costs {key}={value!r} is not a number")
    return Ok(out)


def _json_object(text: str | None, flag: str) -> Result[dict[str, Any]]:
    if not text:
        return Ok({})
    try:
        value = json.loads(text)
    except ValueError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{flag} is not JSON: {exc}")
    if not isinstance(value, dict):
        return Err(ErrorCode.INVALID_INPUT, f"{flag} must be a JSON object")
    return Ok(value)


def parse_params(text: str | None, strategies: list[str]) -> Result[dict[str, dict[str, float]]]:
    """``{"macd": {"fast": 8}}``, or ``{"fast": 8}`` when one strategy runs."""
    raw = _json_object(text, "--params")
    if isinstance(raw, Err):
        return raw
    value = raw.value
    if value and all(not isinstance(v, dict) for v in value.values()):
        if len(strategies) != 1:
            return Err(ErrorCode.INVALID_INPUT, '--params: with several strategies write {"macd": {...}}')
        value = {strategies[0]: value}
    out: dict[str, dict[str, float]] = {}
    for name, params in value.items():
        if not isinstance(params, dict) or not all(isinstance(v, int | float) for v in params.values()):
            return Err(ErrorCode.INVALID_INPUT, f"--params {name}: give numbers by name")
        out[name.lower()] = {k: float(v) for k, v in params.items()}
    return Ok(out)


def parse_windows(texts: list[str] | None) -> Result[list[dict[str, date]]]:
    """``--window 2022-01-03:2022-12-30`` (repeatable) → the request's extra windows."""
    from findesk.core.dates import parse_date

    out: list[dict[str, date]] = []
    for text in texts or []:
        first, sep, last = text.partition(":")
        if not sep:
            return Err(
                ErrorCode.INVALID_INPUT, f"--window {text!r}: write START:END, e.g. 2023-01-03:2023-12-29"
            )
        a = parse_date(first.strip(), what="--window start")
        if isinstance(a, Err):
            return a
        b = parse_date(last.strip(), what="--window end")
        if isinstance(b, Err):
            return b
        out.append({"start": a.value, "end": b.value})
    return Ok(out)


def parse_grid(text: str | None) -> Result[dict[str, list[float]] | None]:
    raw = _json_object(text, "--grid")
    if isinstance(raw, Err):
        return raw
    if not raw.value:
        return Ok(None)
    out: dict[str, list[float]] = {}
    for k, v in raw.value.items():
        if not isinstance(v, list) or not v or not all(isinstance(x, int | float) for x in v):
            return Err(ErrorCode.INVALID_INPUT, f"--grid {k}: give a list of numbers")
        out[k] = [float(x) for x in v]
    return Ok(out)


def split_words(words: list[str], strategies: list[str]) -> tuple[list[str], list[str]]:
    """Positional words → (tickers, extra strategies): lowercase strategy names count as strategies."""
    tickers, extra = [], []
    for word in words:
        if strategies and word in STRATEGY_WORDS:
            extra.append(word)
        else:
            tickers.append(word)
    names = [n.strip() for s in [*strategies, *extra] for n in s.split(",") if n.strip()]
    return tickers, names


def backtest(
    tickers: list[str] = typer.Argument(..., help="Tickers, e.g. AAPL GOOGL AMZN.", show_default=False),
    start: str = typer.Option(..., "--start", help="First session (YYYY-MM-DD)."),
    end: str = typer.Option(..., "--end", help="Last session (YYYY-MM-DD), on or before the as-of date."),
    strategy: list[str] = typer.Option(
        ..., "--strategy", "-s", help="buy_hold, macd, kdj_rsi, zmr, sma, desk, or all (the five baselines)."
    ),
    costs: str | None = typer.Option(None, "--costs", help="commission_bps=1,slippage_bps=5"),
    allow_short: bool = typer.Option(False, "--allow-short", help="Let a sell signal go short."),
    cash: float = typer.Option(100_000.0, "--cash", help="Starting cash, USD."),
    params: str | None = typer.Option(None, "--params", help='JSON: {"macd": {"fast": 8}} or {"fast": 8}.'),
    fast: bool = typer.Option(False, "--fast", help="Vectorized path for the rule strategies."),
    grid: str | None = typer.Option(
        None, "--grid", help='JSON parameter grid: {"fast": [8, 12], "slow": [26]}.'
    ),
    walk_forward: bool = typer.Option(False, "--walk-forward", help="With --grid: walk-forward and PBO."),
    workers: int = typer.Option(1, "--workers", min=1, max=64, help="Worker processes (--executor local)."),
    executor: Executor | None = typer.Option(
        None, "--executor", help="local (process pool) | ray (a Ray cluster); default: [executor] kind."
    ),
    address: str | None = typer.Option(
        None, "--address", help="With --executor ray: HOST:PORT of a running Ray head, or 'local'."
    ),
    no_cache: bool = typer.Option(False, "--no-cache", help="Neither read nor write cached results."),
    mode: DeskMode = typer.Option(DeskMode.deterministic, "--mode", help="The desk strategy's mode."),
    budget: float | None = typer.Option(None, "--budget", help="The desk's model budget, USD, whole run."),
    window: list[str] | None = typer.Option(
        None, "--window", help="Another window START:END, run the same way (repeatable)."
    ),
    desk_sizing: DeskSizing = typer.Option(
        DeskSizing.full, "--desk-sizing", help="desk strategy: full (whole account) or desk (its own size %)."
    ),
    fmt: Fmt = typer.Option(Fmt.terminal, "--format", "-f", help="terminal | json | markdown | html."),
    out: Path | None = typer.Option(None, "--out", "-o", help="Write the report to this file."),
    as_of: str | None = typer.Option(None, "--as-of", help="The run's as-of date (default: the snapshot's)."),
    snapshot: bool | None = typer.Option(None, "--snapshot/--live", help="Offline snapshot or live sources."),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No progress on stderr."),
) -> None:
    """Backtest rule strategies or the trading desk point in time: orders at a close fill at the next
    open, every data read is checked against the session's date."""
    from findesk.core.dates import parse_date

    as_json = fmt is Fmt.json
    words, names = split_words(tickers, strategy)
    first = ses.unwrap(parse_date(start, what="--start"), as_json)
    last = ses.unwrap(parse_date(end, what="--end"), as_json)
    cost = ses.unwrap(parse_costs(costs), as_json)
    per = ses.unwrap(parse_params(params, [n.lower() for n in names]), as_json)
    points = ses.unwrap(parse_grid(grid), as_json)
    written = None
    if out is not None:
        from findesk.interfaces.cli.outputs import ReportFile

        written = ses.unwrap(ReportFile.prepare(out, "--out"), as_json)
    request = ses.unwrap(
        _request(
            words,
            first,
            last,
            names,
            cost,
            allow_short,
            cash,
            per,
            fast,
            points,
            walk_forward,
            workers,
            no_cache,
            mode,
            budget,
            desk_sizing,
            ses.unwrap(parse_windows(window), as_json),
        ),
        as_json,
    )
    session = ses.open_session(as_of, snapshot, as_json)
    session = _on_executor(session, executor, address)
    report = _run(session, request, quiet or as_json)
    if isinstance(report, Err):
        if written is not None:
            written.discard()
        ses.fail(report, as_json)
    text = _render(report.value, fmt)
    if written is not None:
        ses.unwrap(written.write(text), as_json)
        if not quiet:
            ses.stderr.print(f"report written to {out}", markup=False, highlight=False)
        return
    print(text)


def _request(
    tickers: list[str],
    start: date,
    end: date,
    names: list[str],
    costs: dict[str, float],
    allow_short: bool,
    cash: float,
    params: dict[str, dict[str, float]],
    fast: bool,
    grid: dict[str, list[float]] | None,
    walk_forward: bool,
    workers: int,
    no_cache: bool,
    mode: DeskMode,
    budget: float | None,
    desk_sizing: DeskSizing,
    windows: list[dict[str, date]],
) -> Result[Any]:
    from pydantic import ValidationError

    from findesk.analytics.backtest.models import BacktestConfig, Costs
    from findesk.core.result import validation_reason
    from findesk.workflows.backtest.models import BacktestRequest

    try:
        config = BacktestConfig(initial_cash=cash, costs=Costs(**costs), allow_short=allow_short)
        return Ok(
            BacktestRequest(
                tickers=tickers,
                start=start,
                end=end,
                strategies=names,
                config=config,
                params=params,
                fast=fast,
                grid=grid,
                walk_forward=walk_forward,
                workers=workers,
                use_cache=not no_cache,
                mode=mode.value,
                budget_usd=budget,
                desk_sizing=desk_sizing.value,
                windows=windows,
            )
        )
    except ValidationError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"backtest: {validation_reason(exc, limit=1)}")


def _on_executor(session: ses.Session, kind: Executor | None, address: str | None) -> ses.Session:
    """The session with ``--executor`` / ``--address`` over the configured ``[executor]``."""
    import dataclasses

    from findesk.core.executor import choose

    chosen = choose(session.settings.executor, kind.value if kind is not None else None, address)
    if chosen is session.settings.executor:
        return session
    return dataclasses.replace(session, settings=session.settings.model_copy(update={"executor": chosen}))


def _run(session: ses.Session, request: Any, quiet: bool) -> Result[Any]:
    import asyncio

    from findesk.analytics.backtest.history import LookAheadError
    from findesk.tools.catalog import close_tool_context, open_tool_context
    from findesk.workflows.backtest.desk_strategy import backtest_factories
    from findesk.workflows.backtest.run import run_backtest

    def say(message: str) -> None:
        if not quiet:
            ses.stderr.print(message, markup=False, highlight=False)

    async def go() -> Result[Any]:
        await session.router.aclose()  # the tool context opens its own router
        opened = await open_tool_context(session.settings, session.context, backtest_factories())
        if isinstance(opened, Err):
            return opened
        try:
            return await run_backtest(request, settings=session.settings, tools=opened.value, progress=say)
        finally:
            await close_tool_context(opened.value, backtest_factories())

    try:
        return asyncio.run(go())
    except LookAheadError as exc:
        ses.stderr.print(f"findesk: {exc}", markup=False, highlight=False)
        raise typer.Exit(LOOK_AHEAD_EXIT) from exc


def _render(report: Any, fmt: Fmt) -> str:
    if fmt is Fmt.json:
        return str(report.model_dump_json(indent=2))
    if fmt is Fmt.markdown:
        from findesk.workflows.backtest.render_markdown import to_markdown

        return to_markdown(report)
    if fmt is Fmt.html:
        from findesk.workflows.backtest.render_html import to_html

        return to_html(report)
    from findesk.workflows.backtest.render_markdown import to_terminal

    return to_terminal(report)
