"""Single agents as one-node workflows: any role of the catalog runs through the one runner, with the
same envelope, audit and output guard as a workflow.

Rules:
- The input is the role's own input schema (JSON), checked for scope (a ``symbol`` must be a US
  listing) before any tool is called.
- The report is the role's typed output after the output guard (investment advice removed, every number
  traced to the run's tool results), with how it was produced (mode, fallbacks, counts, tokens, cost)
  and what the guard found.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, cast

from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, Field, create_model

from findesk.agents.role import Role
from findesk.agents.run import check_scope
from findesk.data.context import DataContext
from findesk.guardrails.output_guard import GuardReport, OutputGuard
from findesk.workflows.nodes import agent_node
from findesk.workflows.records import AgentRecord
from findesk.workflows.spec import AgentNotes, RunScope, StreamHandler, WorkflowSpec


class AgentReport(AgentRecord):
    """One role's run: its guarded output and how it was produced (the agent's own record, read from
    the run's events like every workflow's audit), with its warnings and what the guard found."""

    role: str
    run_id: str
    data_mode: str
    warnings: list[str] = Field(default_factory=list)
    summary: str = ""
    guard: GuardReport = Field(default_factory=GuardReport)
    output: Any


@cache
def agent_spec(role: Role[Any, Any]) -> WorkflowSpec[Any, Any]:
    report_model: type[AgentReport] = create_model(  # the role's output, typed, in the report's schema
        f"{role.output_schema.__name__}Run", __base__=AgentReport, output=(role.output_schema, ...)
    )

    def graph() -> StateGraph:  # type: ignore[type-arg]
        state: Any = create_model(
            f"{role.name}_state",
            inputs=(Any, None),  # the role's input model, validated by the runner
            output=(Any, None),  # the role's output model
            agents=(AgentNotes, Field(default_factory=dict)),
        )
        g: Any = StateGraph(state)
        node = agent_node(
            role,
            lambda s: _get(s, "inputs"),
            lambda _s, _given, out: {"output": out.output},
        )
        g.add_node("agent", node)
        g.add_edge(START, "agent")
        g.add_edge("agent", END)
        return cast(StateGraph, g)  # type: ignore[type-arg]

    def initial(inputs: BaseModel, _context: DataContext) -> dict[str, Any]:
        return {"inputs": inputs}

    def assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> AgentReport:
        output, facts = _get(state, "output"), scope.facts(_plain(state))
        guard = OutputGuard(scope.pool())
        guarded = guard.model(output)
        found = guard.report()
        summary = getattr(guarded, "summary", "")
        return report_model(
            **facts.agents[-1].model_dump(),  # the one agent of this run
            warnings=[*facts.warnings, *found.warnings()],
            role=role.name,
            run_id=scope.run_id,
            data_mode=scope.context.describe(),
            summary=summary if isinstance(summary, str) else "",
            guard=found,
            output=guarded,
        )

    def check(inputs: BaseModel) -> Any:
        return check_scope(inputs)

    return WorkflowSpec(
        name=f"agents.{role.name}",
        title=role.name,
        description=role.description,
        input_model=role.input_schema,
        report_model=report_model,
        graph=graph,
        initial_state=initial,
        assemble=assemble,
        headline=lambda r: r.summary[:300],
        check=check,
        kind="agent",
        opening_inputs=lambda inputs, _ctx: inputs.model_dump(mode="json"),
    )


def _plain(state: Any) -> Mapping[str, Any]:
    return state if isinstance(state, Mapping) else {"agents": getattr(state, "agents", {})}


def _get(state: Any, key: str) -> Any:
    return state[key] if isinstance(state, Mapping) else getattr(state, key)
