"""The MCP tool list, generated: the data tools of the tool catalog, every workflow of the registry
(its aliases too: ``ask`` is ``research``) and the backtester.

Rules:
- Schemas and descriptions are reused, never re-declared: a data tool's is its ``Tool.spec()``, a
  workflow's is its spec's input model (for a remote caller ``remote_schema()``: fields naming local
  files left out), the backtester's is ``BacktestRequest``. The interface only adds its run options,
  ``as_of`` (every tool) and ``mode`` (workflows), and only where the input has no field of that name.
- A description tells a model what the tool does (the tool's or spec's own text), when to use it, what
  it returns (JSON with ``as_of``, ``data_mode`` and ``sources``, plus a readable text) and, for
  workflows, that findesk never gives buy/sell advice.
- A remote caller (HTTP) is never offered a ``local_only`` tool (``send_report_email``: it would be a
  mail relay and a file writer on the server for any key holder); calling one is an unknown tool.
- A workflow that cannot be loaded (a broken plug-in) is left out of the list; calling it says why.
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any, Literal

import mcp_types as types

from findesk.core.result import Err
from findesk.tools.base import ToolRegistry
from findesk.workflows import registry

log = logging.getLogger("findesk.mcp")

Kind = Literal["data", "workflow", "backtest"]
BACKTEST = "backtest"
AS_OF = "as_of"
MODE = "mode"
MODES = ("auto", "deterministic", "model")

AS_OF_SCHEMA: dict[str, Any] = {
    "type": "string",
    "format": "date",
    "description": "Point-in-time date YYYY-MM-DD: nothing published after it is visible. Default: the "
    "snapshot's default date offline, today live.",
}
MODE_SCHEMA: dict[str, Any] = {
    "type": "string",
    "enum": list(MODES),
    "default": "auto",
    "description": "auto: a model writes the prose when one is configured, else the deterministic composer; "
    "every figure comes from the tools either way.",
}

DATA_RETURNS = (
    "Returns JSON (structured content: `result` is the tool's full result with its own sources, plus "
    "`as_of`, `data_mode` and `sources`) and the compact text summary. Optional `as_of` (YYYY-MM-DD) "
    "sets the point-in-time date."
)
WORKFLOW_RETURNS = (
    "Returns the typed {report} report as JSON (structured content: `report`, plus `run_id`, `as_of`, "
    "`data_mode` and `sources`, every citation once) and a Markdown rendering. The run is recorded in the "
    "audit log (`findesk runs show RUN_ID`). It can take from seconds to minutes: send a progressToken to "
    "receive its agent, tool-call and section events as progress notifications. Research only: findesk "
    "never gives buy/sell advice, recommendations, price targets or allocations."
)
USE_WHEN = {
    "brief": "Use it for a one-screen, cited overview of one US-listed company as of a date.",
    "research": "Use it for a free-form research question that may span equities, macro, crypto and "
    "sanctions compliance.",
    "etf-weekly": "Use it for a weekly review of the US ETF universe against a strategy.",
    "trade": "Use it to see how a structured desk debate rates one company on one date (a simulation).",
    "scan": "Use it to find which market themes, sectors and stocks deserve research on a date.",
    "pipeline": "Use it to run the market scan and then the trading desk on its top picks in one go.",
    "movers": "Use it to explain the day's top NASDAQ gainer with computed, checked metrics.",
}
BACKTEST_DESCRIPTION = (
    "Point-in-time backtest of rule strategies (buy_hold, macd, kdj_rsi, zmr, sma; `all` = those five) or "
    "the trading desk (`desk`) on US tickers over a window of sessions (`start` … `end`, both on or before "
    "the as-of date), each next to buy & hold under the same fills and costs. Orders at a close fill at the "
    "next open and every data read is checked against the session's date. `config` sets cash, costs (bps) "
    "and shorting, `params` per-strategy parameters, `grid` with `walk_forward` a parameter search with "
    "its probability of overfitting, `windows` more windows run the same way. Use it to compare how "
    "strategies would have done in the past. Returns the BacktestReport as JSON (metrics, equity curves, "
    "the risk-free source and warnings; structured content also states `as_of` and `data_mode`) and a "
    "Markdown table. A simulation of the past, never advice."
)


@dataclass(frozen=True)
class Entry:
    """One MCP tool and what runs it: a data tool, a registry workflow (``target``) or the backtester."""

    tool: types.Tool
    kind: Kind
    target: str  # the data tool's name, or the workflow's registry name (an alias's canonical name)


def with_options(schema: dict[str, Any], options: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """``schema`` with the interface's run options added as optional properties (never over a field)."""
    out = copy.deepcopy(schema)
    out.pop("title", None)
    props: dict[str, Any] = out.setdefault("properties", {})
    for name, option in options.items():
        if name not in props:
            props[name] = option
    out["type"] = "object"
    return out


def data_entries(tools: ToolRegistry, *, remote: bool) -> list[Entry]:
    out = []
    for name in tools.names():
        tool = tools.get(name)
        assert tool is not None
        if remote and tool.local_only:  # e.g. send_report_email: a mail relay for any key holder
            continue
        spec = tool.spec()
        described = f"{spec.description}\n\n{DATA_RETURNS}"
        schema = with_options(dict(spec.parameters), {AS_OF: AS_OF_SCHEMA})
        out.append(Entry(types.Tool(name=name, description=described, input_schema=schema), "data", name))
    return out


def workflow_entries(*, remote: bool) -> list[Entry]:
    found = registry.entries()
    if isinstance(found, Err):
        log.warning("workflows not listed: %s", found.message())
        return []
    out = []
    for name, entry in found.value.items():
        spec = registry.load(name)
        if isinstance(spec, Err):
            log.warning("workflow %s not listed: %s", name, spec.message())
            continue
        s = spec.value
        schema = s.remote_schema() if remote else s.input_model.model_json_schema()
        schema = with_options(schema, {AS_OF: AS_OF_SCHEMA, MODE: MODE_SCHEMA})
        when = USE_WHEN.get(name, "")
        returns = WORKFLOW_RETURNS.format(report=s.report_model.__name__)
        for tool_name in (name, *entry.aliases):
            alias = f" (`{tool_name}` is another name of `{name}`.)" if tool_name != name else ""
            text = f"{s.title}: {s.description}{alias} {when}\n\n{returns}".replace("  ", " ")
            tool = types.Tool(name=tool_name, title=s.title, description=text, input_schema=schema)
            out.append(Entry(tool, "workflow", name))
    return out


def backtest_entry() -> Entry:
    from findesk.workflows.backtest.models import BacktestRequest

    schema = with_options(BacktestRequest.model_json_schema(), {AS_OF: AS_OF_SCHEMA})
    tool = types.Tool(
        name=BACKTEST, title="Backtester", description=BACKTEST_DESCRIPTION, input_schema=schema
    )
    return Entry(tool, "backtest", BACKTEST)


def build(tools: ToolRegistry, *, remote: bool) -> dict[str, Entry]:
    """Every MCP tool by name; a name taken twice keeps its first entry (data tools come first)."""
    out: dict[str, Entry] = {}
    for entry in [*data_entries(tools, remote=remote), *workflow_entries(remote=remote), backtest_entry()]:
        if entry.tool.name in out:
            log.warning("MCP tool %s is listed once; a later entry of that name is left out", entry.tool.name)
            continue
        out[entry.tool.name] = entry
    return out
