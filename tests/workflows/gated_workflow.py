"""A workflow that waits until the test lets it finish: plugged in through
``FINDESK_WORKFLOWS=gated_workflow:SPEC`` so crash tests can kill a worker (or the server) while runs are
in flight, and decide which runs are still running at that moment.

One agent, ``waiter``, reads the quote (so the run has streamed real events by then), writes its
process id to ``$GATED_WORKFLOW_DIR/<gate>.pid`` (which worker runs which run: the one to kill) and
waits for the file ``$GATED_WORKFLOW_DIR/<gate>`` to exist before it writes its note (at most
``MAX_WAIT_S``: a forgotten gate fails the run's test, it never hangs it). Without
``GATED_WORKFLOW_DIR`` it does not wait. The module lives beside the workflow tests; spawned worker
processes inherit ``sys.path`` and the environment, and a ``findesk serve`` subprocess gets this folder
on ``PYTHONPATH``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypedDict

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import DeterministicPolicy, Outcomes, PlannedCall, Role, outcome_value
from findesk.data.context import DataContext
from findesk.workflows.nodes import agent_node
from findesk.workflows.spec import AgentNotes, RunScope, StreamHandler, WorkflowSpec

NAME = "gated"
GATE_ENV = "GATED_WORKFLOW_DIR"
MAX_WAIT_S = 60.0


class GateIn(BaseModel):
    model_config = ConfigDict(extra="forbid")

    gate: str = Field(pattern=r"^[a-z0-9_-]{1,40}$", description="the file name that lets the run finish")
    symbol: str = "AAPL"


class GateNote(BaseModel):
    gate: str
    pid: int  # the worker process that ran it
    summary: str


def _wait_and_write(inputs: GateIn, outcomes: Outcomes) -> GateNote:
    folder = os.environ.get(GATE_ENV)
    if folder:
        Path(folder, f"{inputs.gate}.pid").write_text(str(os.getpid()))
        deadline = time.monotonic() + MAX_WAIT_S
        while not (Path(folder) / inputs.gate).exists() and time.monotonic() < deadline:
            time.sleep(0.02)
    quote = outcome_value(outcomes, "quote")
    price = f"${quote.price:.2f}" if quote is not None else "no price"
    return GateNote(gate=inputs.gate, pid=os.getpid(), summary=f"{inputs.symbol} {price} ({inputs.gate})")


WAITER: Role[GateIn, GateNote] = Role(
    name="gated_waiter",
    description="Reads the quote, then waits for its gate.",
    system_prompt="Wait.",
    tools=("get_quote",),
    input_schema=GateIn,
    output_schema=GateNote,
    policy=DeterministicPolicy(
        stages=(lambda i, _o: [PlannedCall("quote", "get_quote", {"symbol": i.symbol})],),
        compose=_wait_and_write,
    ),
    task=lambda i: f"Wait for {i.gate}.",
)


class GateReport(BaseModel):
    gate: str
    pid: int
    summary: str


class GateState(TypedDict, total=False):
    gate: str
    symbol: str
    waiter: GateNote
    agents: AgentNotes


def _graph() -> StateGraph:  # type: ignore[type-arg]
    g = StateGraph(GateState)
    g.add_node(
        "waiter",
        agent_node(
            WAITER,
            lambda s: GateIn(gate=s["gate"], symbol=s["symbol"]),
            lambda _s, _i, out: {"waiter": out.output},
        ),
    )
    g.add_edge(START, "waiter")
    g.add_edge("waiter", END)
    return g


def _initial(inputs: GateIn, _context: DataContext) -> dict[str, Any]:
    return {"gate": inputs.gate, "symbol": inputs.symbol}


def _assemble(state: Mapping[str, Any], _scope: RunScope, _h: StreamHandler | None) -> GateReport:
    note: GateNote = state["waiter"]
    return GateReport(gate=note.gate, pid=note.pid, summary=note.summary)


SPEC: WorkflowSpec[GateIn, GateReport] = WorkflowSpec(
    name=NAME,
    title="Gated test workflow",
    description="One fake agent that waits for a file: the crash tests' run in flight.",
    input_model=GateIn,
    report_model=GateReport,
    graph=_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=lambda r: r.summary,
)
