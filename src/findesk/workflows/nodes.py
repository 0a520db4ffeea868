"""Node factories: the graph nodes every workflow builds from, so no workflow writes a node by hand that
runs an agent.

Rules:
- A node reads the state, runs one role through the run's ``RunKit`` (LangGraph runtime context) and
  returns a state update: the role's typed result under the workflow's key, plus its ``AgentNote``
  (mode and warnings) under ``agents``. Nothing is kept outside the state.
- A node with ``progress`` sends ``progress(update)`` through LangGraph's stream writer as soon as its
  update is ready, so a section can stream before the other branches finish.
- Nodes never raise for a tool or model failure: the runtime turns those into warnings and fallbacks.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from langgraph.runtime import Runtime
from pydantic import BaseModel

from findesk.agents.role import Role
from findesk.agents.runtime import AgentOutcome
from findesk.agents.runtime.outcome import RequestedMode
from findesk.workflows.spec import AgentNote, RunKit

State = Mapping[str, Any]
# LangGraph's add_node overloads want the graph's own state type; a node factory serves any graph
Node = Any


def code_basis(role: Role[Any, Any], given: BaseModel, out: AgentOutcome[Any]) -> Any:
    """The role's output as its code composes it from the same tool results: the output itself in
    deterministic mode; for a model-written output, the deterministic composer over the playbook's
    outcomes. It is what the model's output is held to and what replaces it when the model states a
    number no tool gave (``OutputGuard.checked``)."""
    return out.output if out.mode != "model" else role.policy.compose(given, out.outcomes)


def held(
    role: Role[Any, Any], given: BaseModel, out: AgentOutcome[Any], normalize: Callable[[Any, Any, Any], Any]
) -> tuple[Any, Any]:
    """The output a node keeps and its code-built basis: a model's output held to the code's by
    ``normalize(output, inputs, basis)`` (figures and the decisions the rules make stay the code's); in
    deterministic mode both are the output."""
    basis = code_basis(role, given, out)
    return (out.output if out.mode != "model" else normalize(out.output, given, basis)), basis


def agent_node(
    role: Role[Any, Any],
    inputs: Callable[[State], BaseModel],
    build: Callable[[State, Any, AgentOutcome[Any]], dict[str, Any]],
    *,
    progress: Callable[[dict[str, Any]], Any] | None = None,
    mode: RequestedMode | None = None,
) -> Node:
    """A node that runs ``role`` on ``inputs(state)`` and writes ``build(state, inputs, outcome)``.
    ``mode``: the role's own mode whatever the run's (a code-only role such as a quant screen)."""

    async def node(state: State, runtime: Runtime[RunKit]) -> dict[str, Any]:
        kit = runtime.context
        given = inputs(state)
        outcome = await kit.runtime.run(role, given, kit.tracer, mode=mode or kit.mode)
        update = build(state, given, outcome)
        update["agents"] = {role.name: AgentNote(mode=outcome.mode, warnings=list(outcome.warnings))}
        if progress is not None:
            runtime.stream_writer(progress(update))
        await kit.durable()
        return update

    node.__name__ = f"{role.name}_node"
    return node
