"""The research desk's use of memory: recall before routing, remember after answering.

Rules:
- Never raises and never fails a run: a memory store that is missing or fails is a warning in the
  report, and the question is answered as asked.
- Per user: the user is the run's bound caller (the API key, or "local"), never a request field.
- Recall (with a session): the session's last turns resolve a follow-up ("and compare it with AMD")
  into a whole question and the subjects it carries over; the subjects the rules find in the
  follow-up itself are given to the resolver, so "same for ETH" replaces BTC instead of adding to it.
- Remember: the turn (with a session), and the facts the user stated in the question as asked
  ("I own 200 shares of AAPL"), extracted by rules that never store text giving instructions.
- A procedural template (``full_equity_analysis``…) is chosen by its trigger phrases.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field

from findesk.agents.roles.research.findings import Subjects
from findesk.agents.roles.research.route import RoutePlan, load_route_tables, route
from findesk.core.result import Err
from findesk.knowledge.memory import templates
from findesk.knowledge.memory.facts import extract_facts
from findesk.knowledge.memory.followup import resolve_followup
from findesk.knowledge.memory.models import Turn
from findesk.knowledge.memory.store import MemoryStore
from findesk.workflows.spec import RunKit

RECALL_TURNS = 10


@dataclass
class Recalled:
    resolved: str
    carried: Subjects | None = None
    followup: bool = False
    template: str | None = None
    warnings: list[str] = field(default_factory=list)


def _store(kit: RunKit) -> MemoryStore | None:
    return kit.runtime.ctx.service(MemoryStore)


async def recall(kit: RunKit, user: str, session: str | None, question: str) -> Recalled:
    recalled = Recalled(resolved=question, template=templates.match(question))
    store = _store(kit)
    if session is None:
        return recalled
    if store is None:
        recalled.warnings.append(
            "memory unavailable: no memory store is configured; the question is read alone"
        )
        return recalled
    turns = await asyncio.to_thread(store.session_turns, user, session, RECALL_TURNS)
    if isinstance(turns, Err):
        recalled.warnings.append(f"memory unavailable: {turns}; the question is read alone")
        return recalled
    if not turns.value:
        return recalled
    tables = await asyncio.to_thread(load_route_tables, kit.context.snapshot_dir)
    found = route(question, tables=tables).subjects.model_dump(mode="json")
    resolution = resolve_followup(question, turns.value, found=found)
    if not resolution.followup:
        return recalled
    recalled.resolved = resolution.resolved
    recalled.followup = True
    recalled.carried = Subjects.model_validate(resolution.subjects)
    return recalled


async def remember(
    kit: RunKit,
    user: str,
    session: str | None,
    *,
    question: str,
    resolved: str,
    plan: RoutePlan,
    answer: str,
) -> list[str]:
    store = _store(kit)
    facts = extract_facts(question)
    if store is None or (session is None and not facts):
        return []
    warnings: list[str] = []
    if session is not None:
        turn = Turn(
            question=question,
            resolved=resolved,
            subjects=plan.subjects.model_dump(mode="json"),
            intents=list(plan.intents),
            answer_line=answer.split("\n", 1)[0],
            run_id=kit.tracer.run_id,
        )
        added = await asyncio.to_thread(store.add_turn, user, session, turn)
        if isinstance(added, Err):
            warnings.append(f"memory: this turn was not saved ({added}); a follow-up will not see it")
    if facts:
        stored = await asyncio.to_thread(store.add_facts, user, facts)
        if isinstance(stored, Err):
            warnings.append(f"memory: the facts you stated were not saved ({stored})")
        else:
            warnings += [f"memory: {w}" for w in stored.value.warnings]
    return warnings
