"""The registry of workflow specs: the one list the CLI, the Python API, the HTTP API, the worker pool
and the web page are generated from.

Rules:
- Entries are named without importing their workflow (``module:attr`` targets), so a CLI that only
  prints help never imports LangGraph; ``load`` imports one spec when it runs.
- Built-in workflows are listed in ``BUILTIN``; every agent role of the catalog is a one-node workflow
  named ``agents.<role>``; more specs plug in through ``FINDESK_WORKFLOWS`` (comma-separated
  ``module:attr`` of ``WorkflowSpec`` objects), loaded in every process that reads the registry (CLI,
  server, workers), so a new workflow is served with no change to the interfaces.
- A name is unique: a plugin that reuses a name is refused with a clear error, never silently shadows.
- Errors are data: ``load`` returns ``Err(not_found)`` for an unknown name and ``Err(not_configured)``
  for a plugin that cannot be imported.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result

PLUGINS_ENV = "FINDESK_WORKFLOWS"
AGENT_PREFIX = "agents."


@dataclass(frozen=True)
class Entry:
    name: str
    target: str  # "module:attr" of a WorkflowSpec
    summary: str  # one line for help texts, known without importing the workflow
    kind: str = "workflow"  # "workflow" | "agent" | "plugin"
    # further CLI command names, known without importing the workflow: a built-in's must equal its
    # spec's ``aliases`` (a test holds them together); a plug-in's are read from its spec
    aliases: tuple[str, ...] = ()


BUILTIN: tuple[Entry, ...] = (
    Entry(
        "brief",
        "findesk.workflows.brief.spec:SPEC",
        "One-screen advisor briefing: quote, business, events, risks (cited), UNVERIFIED social signal, "
        "divergences and the tool trace. Never investment advice.",
    ),
    Entry(
        "research",
        "findesk.workflows.research.spec:SPEC",
        "Research desk (also `findesk ask`): a question routed to the equity, macro, crypto and compliance "
        "desks in parallel, one cited answer with conflicts flagged. Research only, never advice.",
        aliases=("ask",),
    ),
    Entry(
        "etf-weekly",
        "findesk.workflows.etf_weekly.spec:SPEC",
        "Weekly ETF analyst: the US ETF universe screened for one week (alpha vs beta, technicals), news per "
        "sector, senior analyst flags, a managing director's review and an HTML dashboard. Never advice.",
    ),
    Entry(
        "trade",
        "findesk.workflows.trading.spec:SPEC",
        "Trading desk: one company on one date, four analysts in parallel, bull/bear debate, research "
        "manager, trader, risk debate and the risk manager's rating (BUY..SELL) and size. A simulation.",
    ),
    Entry(
        "scan",
        "findesk.workflows.scan.spec:SPEC",
        "Market scanner: geopolitical topics, movers and sector performance in parallel, a deep dive on the "
        "top 3 sectors, and a synthesis with 8-10 stocks to investigate. Ideas to research, not advice.",
    ),
    Entry(
        "pipeline",
        "findesk.workflows.pipeline.spec:SPEC",
        "Scan to trade: the market scan, then the trading desk on its top N picks in parallel under one "
        "model budget, and one summary table naming every run. A simulation, not advice.",
    ),
    Entry(
        "movers",
        "findesk.workflows.movers.spec:SPEC",
        "Movers analyzer: the session's top NASDAQ gainer, its history vs SPY and news, metrics computed by "
        "a "
        "Python program in a sandbox, a chart, and the report by email (or .eml). Facts, never advice.",
    ),
)


def entries() -> Result[dict[str, Entry]]:
    """Every runnable workflow by name: built-ins, then plugins (agents are listed by ``agent_names``)."""
    found = {e.name: e for e in BUILTIN}
    for target in _plugin_targets():
        spec = _import(target)
        if isinstance(spec, Err):
            return spec
        name = spec.value.name
        if name in found or name.startswith(AGENT_PREFIX):
            return Err(ErrorCode.INVALID_INPUT, f"{PLUGINS_ENV}: {target} reuses the workflow name {name!r}")
        summary = spec.value.description.split("\n", 1)[0]
        found[name] = Entry(name, target, summary, "plugin", aliases=tuple(spec.value.aliases))
    return Ok(found)


def agent_names() -> list[str]:
    from findesk.agents.roles.catalog import ROLES

    return sorted(ROLES)


def load(name: str) -> Result[Any]:
    """The ``WorkflowSpec`` called ``name`` (a workflow, or ``agents.<role>``)."""
    if name.startswith(AGENT_PREFIX):
        from findesk.agents.roles.catalog import ROLES
        from findesk.workflows.agent_spec import agent_spec

        role = ROLES.get(name.removeprefix(AGENT_PREFIX))
        if role is None:
            roles = ", ".join(sorted(ROLES))
            return Err(
                ErrorCode.NOT_FOUND, f"unknown role {name.removeprefix(AGENT_PREFIX)!r}; known roles: {roles}"
            )
        return Ok(agent_spec(role))
    known = entries()
    if isinstance(known, Err):
        return known
    entry = known.value.get(name)
    if entry is None:
        names = ", ".join(sorted(known.value))
        return Err(ErrorCode.NOT_FOUND, f"unknown workflow {name!r}; known workflows: {names}")
    return _import(entry.target)


def _plugin_targets() -> list[str]:
    raw = os.environ.get(PLUGINS_ENV, "")
    return [t.strip() for t in raw.split(",") if t.strip()]


def _import(target: str) -> Result[Any]:
    from findesk.workflows.spec import WorkflowSpec

    module_name, _, attr = target.partition(":")
    try:
        spec = getattr(importlib.import_module(module_name), attr or "SPEC")
    except Exception as exc:  # an import error of a plugin must not crash the CLI or the server
        return Err(
            ErrorCode.NOT_CONFIGURED, f"workflow {target!r} cannot be loaded: {type(exc).__name__}: {exc}"
        )
    if not isinstance(spec, WorkflowSpec):
        return Err(ErrorCode.NOT_CONFIGURED, f"workflow {target!r} is not a WorkflowSpec")
    return Ok(spec)
