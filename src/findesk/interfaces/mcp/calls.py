"""One MCP tool call: a data tool through ``tools.base.execute``, a workflow through the one runner
(``workflows.runner.run_workflow``), the backtester through ``run_backtest``.

Rules:
- Nothing raises to the client: bad input (an unknown tool, a malformed date, arguments the tool's
  model rejects, an unknown ticker) is an ``is_error`` result with one line; an unexpected exception is
  one line too (the traceback goes to the server log on stderr), and the server goes on.
- The interface's run options (``as_of``, ``mode``) are taken out of the arguments before the tool's or
  workflow's own model validates them, only where the input has no field of that name.
- A keyed caller (HTTP) is admitted once its call is known to be valid, so a refused input costs the key
  nothing: data tools and the backtester against requests per minute, workflows also against the daily
  cost cap (``Desk.admit``). Over HTTP a workflow is bound to its key (``RunCaller.of_key``) and the
  backtester's desk runs deterministic, in one process: a remote caller never spends model money outside
  the run accounting, nor starts worker processes.
- A workflow run is recorded in the audit log like every CLI and API run; its events also go to the
  call's progress (``progress.RunProgress``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, cast

import mcp_types as types
from pydantic import BaseModel, ValidationError

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.access import ApiKey, retry_after_s
from findesk.core.events.trace import new_run_id
from findesk.core.result import Err, ErrorCode, validation_reason
from findesk.data.context import DataContext
from findesk.interfaces.mcp import results
from findesk.interfaces.mcp.catalog import AS_OF, MODE, MODES, Entry
from findesk.interfaces.mcp.desk import Desk
from findesk.interfaces.mcp.progress import Report, RunProgress
from findesk.tools.base import execute
from findesk.workflows import registry
from findesk.workflows.spec import LOCAL_CALLER, RunCaller

log = logging.getLogger("findesk.mcp")
AUDIT_FLUSH_S = 10.0


@dataclass(frozen=True)
class Caller:
    """Who calls: a verified API key over HTTP, or the local user over stdio (no key, no limits)."""

    key: ApiKey | None = None

    def run_caller(self, remote: bool) -> RunCaller:
        return RunCaller.of_key(self.key) if remote else LOCAL_CALLER


async def call(
    desk: Desk, name: str, arguments: Mapping[str, Any] | None, caller: Caller, report: Report | None
) -> types.CallToolResult:
    """The result of calling the MCP tool ``name``; never raises but for cancellation."""
    try:
        entry = desk.catalog().get(name)
        if entry is None:
            return results.failure(
                Err(ErrorCode.NOT_FOUND, f"there is no tool called {name!r}; list the tools to see the names")
            )
        if arguments is not None and not isinstance(arguments, Mapping):
            return results.invalid(f"{name}: the arguments must be a JSON object")
        raw = dict(arguments or {})
        if entry.kind == "data":
            return await _data_tool(desk, entry, raw, caller)
        if entry.kind == "workflow":
            return await _workflow(desk, entry, raw, caller, report)
        return await _backtest(desk, raw, caller, report)
    except Exception as exc:  # the server outlives any bug in one call
        log.exception("MCP tool %s failed", name)
        return results.failure(Err(ErrorCode.UNAVAILABLE, f"{name} failed: {type(exc).__name__}: {exc}"))


def _options(raw: dict[str, Any], model: type[BaseModel], names: tuple[str, ...]) -> dict[str, Any]:
    """The interface's run options taken out of ``raw`` (those the input model has no field for)."""
    return {n: raw.pop(n) for n in names if n in raw and n not in model.model_fields}


def _context(desk: Desk, options: Mapping[str, Any]) -> DataContext | Err:
    as_of = options.get(AS_OF)
    if as_of is not None and not isinstance(as_of, str):
        return Err(ErrorCode.INVALID_INPUT, "as_of must be a date written YYYY-MM-DD")
    found = desk.data_context(as_of)
    return found if isinstance(found, Err) else found.value


def _refused(error: Err, context: DataContext | None) -> types.CallToolResult:
    """A refusal by the key's limits, with when to retry in its message."""
    wait = retry_after_s(error)
    if wait is not None and "retry" not in error.reason.lower():
        error = Err(error.code, f"{error.reason} (retry in {wait} s)", error.source, error.details)
    return results.failure(error, context)


async def _data_tool(desk: Desk, entry: Entry, raw: dict[str, Any], caller: Caller) -> types.CallToolResult:
    tool = desk.tools.get(entry.target)
    assert tool is not None  # the catalog lists the registry's tools
    context = _context(desk, _options(raw, tool.args, (AS_OF,)))
    if isinstance(context, Err):
        return results.failure(context)
    opened = await desk.tool_context(context)
    if isinstance(opened, Err):
        return results.failure(opened, context)
    if caller.key is not None and _valid(tool.args, raw):  # invalid arguments are refused below, free
        admitted = await desk.admit(caller.key, costly=False)
        if isinstance(admitted, Err):
            return _refused(admitted, context)
    outcome = await execute(tool, tool.name, raw, opened.value)
    if isinstance(outcome.result, Err):
        return results.failure(outcome.result, context)
    body = {
        "tool": tool.name,
        **results.envelope(context),
        "sources": results.sources(outcome.payload),
        "truncated": outcome.truncated,
        "result": outcome.payload,
    }
    return results.success(body, f"{outcome.summary}\n\n({context.describe()}; tool {tool.name})")


def _valid(model: type[BaseModel], raw: dict[str, Any]) -> bool:
    try:
        model.model_validate(raw)
    except ValidationError:
        return False
    return True


async def _workflow(
    desk: Desk, entry: Entry, raw: dict[str, Any], caller: Caller, report: Report | None
) -> types.CallToolResult:
    from findesk.workflows.runner import run_workflow

    found = registry.load(entry.target)
    if isinstance(found, Err):
        return results.failure(found)
    spec = found.value
    options = _options(raw, spec.input_model, (AS_OF, MODE))
    mode = options.get(MODE, "auto")
    if mode not in MODES:
        return results.invalid(f"mode must be one of {', '.join(MODES)}, not {mode!r}")
    context = _context(desk, options)
    if isinstance(context, Err):
        return results.failure(context)
    parsed = spec.parse(raw)
    if isinstance(parsed, Err):
        return results.failure(parsed, context)
    bound = spec.bind(parsed.value, caller.run_caller(desk.remote))
    if isinstance(bound, Err):
        return results.failure(bound, context)
    ready = spec.prepared(bound.value, context, desk.settings)  # refused before the key is charged
    if isinstance(ready, Err):
        return results.failure(ready, context)
    run_context = ready.value[1]
    tools = await desk.tool_context(context)
    if isinstance(tools, Err):
        return results.failure(tools, context)
    run_id = new_run_id()
    admission = None
    if caller.key is not None:
        reserve = await desk.reserve_usd(cast(RequestedMode, mode))
        admitted = await desk.admit(caller.key, costly=True, run_id=run_id, reserve_usd=reserve)
        if isinstance(admitted, Err):
            return _refused(admitted, run_context)
        admission = admitted.value
    watch = RunProgress(report, run_id)
    try:
        async with watch:
            ran = await run_workflow(
                spec,
                bound.value,
                settings=desk.budgeted(admission),
                context=context,
                sinks=[desk.audit, watch],
                mode=cast(RequestedMode, mode),
                registry=desk.tools,
                tools=tools.value,
                run_id=run_id,
            )
    finally:
        # `findesk runs show RUN_ID` works as soon as the call returns
        await asyncio.to_thread(desk.audit.flush, AUDIT_FLUSH_S)
        if admission is not None:
            await desk.settle(admission, run_id, watch.cost_usd)
    if isinstance(ran, Err):
        return results.failure(ran, run_context)
    report_json = ran.value.report.model_dump(mode="json")
    body = {
        "workflow": spec.name,
        "run_id": ran.value.run_id,
        **results.envelope(run_context),
        "sources": results.sources(report_json),
        "report": report_json,
    }
    head = f"{spec.title} · {ran.value.context} · run {ran.value.run_id}"
    return results.success(body, f"{head}\n\n{_render(spec, ran.value.report)}")


def _render(spec: Any, report: BaseModel) -> str:
    renderer = spec.renderers.get("markdown")
    if renderer is None:
        return report.model_dump_json(indent=2)
    try:
        return str(renderer(report, False))
    except Exception as exc:  # the JSON still holds the whole report
        log.exception("rendering %s failed", spec.name)
        return f"(the Markdown view failed: {type(exc).__name__}; the structured content holds the report)"


async def _backtest(
    desk: Desk, raw: dict[str, Any], caller: Caller, report: Report | None
) -> types.CallToolResult:
    from findesk.analytics.backtest.history import LookAheadError
    from findesk.tools.catalog import close_tool_context, open_tool_context
    from findesk.workflows.backtest.desk_strategy import backtest_factories
    from findesk.workflows.backtest.models import BacktestRequest
    from findesk.workflows.backtest.render_markdown import to_markdown
    from findesk.workflows.backtest.run import run_backtest

    context = _context(desk, _options(raw, BacktestRequest, (AS_OF,)))
    if isinstance(context, Err):
        return results.failure(context)
    try:
        request = BacktestRequest.model_validate(raw)
    except ValidationError as exc:
        return results.invalid(f"backtest: {validation_reason(exc, limit=1)}", context)
    if desk.remote:
        if request.workers > 1:
            return results.invalid(
                "backtest: over HTTP a backtest runs in one process (workers = 1)", context
            )
        if request.mode != "deterministic" and any(s.lower() == "desk" for s in request.strategies):
            return results.invalid(
                "backtest: over HTTP the desk strategy runs deterministic only (mode = deterministic)",
                context,
            )
    if caller.key is not None:
        admitted = await desk.admit(caller.key, costly=False)
        if isinstance(admitted, Err):
            return _refused(admitted, context)
    factories = backtest_factories()
    opened = await open_tool_context(desk.settings, context, factories)
    if isinstance(opened, Err):
        return results.failure(opened, context)
    watch = RunProgress(report, None)
    try:
        async with watch:
            done = await run_backtest(request, settings=desk.settings, tools=opened.value, progress=watch.say)
    except LookAheadError as exc:  # a bug in a strategy, not data: the whole backtest fails
        return results.failure(Err(ErrorCode.UNAVAILABLE, f"backtest: {exc}"), context)
    finally:
        await close_tool_context(opened.value, factories)
    if isinstance(done, Err):
        return results.failure(done, context)
    report_json = done.value.model_dump(mode="json")
    body = {
        "workflow": "backtest",
        **results.envelope(context),
        "sources": results.sources(report_json),
        "report": report_json,
    }
    return results.success(body, f"Backtest · {context.describe()}\n\n{to_markdown(done.value)}")
