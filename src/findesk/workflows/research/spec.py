"""The research desk as a workflow spec: a question in, ``ResearchReport`` out.

Rules:
- Input guards run before any tool (``guardrails.input_guard``): the question is capped at 2,000
  characters, personal data in it (emails, phone and card numbers, SSNs, account numbers, keys and
  seed phrases) is replaced by tokens before it is recorded, stored or routed, and it is refused when it
  is a prompt injection or jailbreak, asks for investment advice or help with misconduct, or is off
  topic (a poem, a recipe). Over the API the run is bound to the caller's key (a body cannot name a
  user or a tier) and only a ``team``-tier key may turn the disclaimer off; the local user of the CLI
  and the Python API is the operator and may.
- Sections stream as the run goes: the plan when the coordinator has routed, each desk when its
  specialist is done, the answer at the end.
- The assembler applies the output guard: investment advice removed, and every number of the answer
  traced to this run's tool results. A model answer with a number no tool gave is replaced by the
  deterministic answer and the report says which numbers were caught.
- The report names every specialist routed (a failed one with its warnings), the conflicts, what a cap
  cut short, the charts, the tool trace and the mode.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from findesk.agents.roles.research import synthesize
from findesk.agents.roles.research.findings import Chart, SpecialistReport
from findesk.agents.roles.research.synthesize import number_citations
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.guardrails.input_guard import guard_text
from findesk.guardrails.output_guard import OutputGuard
from findesk.workflows.research.graph import build_graph
from findesk.workflows.research.models import DISCLAIMER, ResearchInput, ResearchReport
from findesk.workflows.research.render import TITLES, answer_html, desk_html, plan_html, to_html, to_markdown
from findesk.workflows.research.synthesize_guard import guarded_answer, guarded_desk
from findesk.workflows.spec import LOCAL_CALLER, RunCaller, RunScope, StreamHandler, WorkflowSpec

TEAM_TIER = "team"
# The answer is what the reader came for: its box sits under the plan and fills in last; the desks'
# findings behind it follow.
SECTIONS: tuple[tuple[str, str], ...] = (
    ("plan", "Plan"),
    ("answer", "Answer"),
    ("equity", TITLES["equity"]),
    ("macro", TITLES["macro"]),
    ("crypto", TITLES["crypto"]),
    ("compliance", TITLES["compliance"]),
)


def _check(inputs: ResearchInput) -> Result[ResearchInput]:
    checked = guard_text(inputs.question)
    if isinstance(checked, Err):
        return checked
    if not checked.value.text:
        return Err(ErrorCode.INVALID_INPUT, "research: the question is empty")
    return Ok(inputs.model_copy(update={"question": checked.value.text}))


def _bind(inputs: ResearchInput, caller: RunCaller) -> Result[ResearchInput]:
    """The input as the API's caller runs it: its key's user and tier, whatever the body said. Over
    the API only a team-tier key may drop the disclaimer; the local user (CLI, Python API) is the
    installation's operator and may."""
    bound = inputs.model_copy(update={"user": caller.user})
    if not bound.disclaimer and caller.user != LOCAL_CALLER.user and caller.tier != TEAM_TIER:
        return Err(
            ErrorCode.REFUSED,
            "research: only a team-tier API key may turn the disclaimer off; the answer keeps it",
        )
    return Ok(bound)  # the input was checked when it was parsed; binding changes only the user


def _initial(inputs: ResearchInput, context: DataContext) -> dict[str, Any]:
    return {
        "question": inputs.question,
        "session": inputs.session,
        "user": inputs.user,
        "disclaimer": inputs.disclaimer,
        "as_of": context.as_of,
        "reports": {},
        "basis": {},
        "cut_short": [],
        "memory_warnings": [],
    }


def _opening(inputs: ResearchInput, context: DataContext) -> dict[str, Any]:
    # the user is the key (or "local"); it is kept so `runs resume` binds the same caller again
    return {**inputs.model_dump(mode="json"), "as_of": context.as_of.isoformat()}


class ResearchStream:
    """The plan and each desk as ``section`` events the moment they are final; the answer at the end."""

    def __init__(self, scope: RunScope) -> None:
        self._scope = scope

    def update(self, chunk: Any) -> None:
        name, value, *rest = chunk
        if name == "plan":
            self._emit("plan", plan_html(list(value.intents), value.plan))
        elif isinstance(value, SpecialistReport):
            # the same guard as the final report's, so the streamed section is the section the report keeps
            basis = rest[0] if rest else value
            desk, _ = guarded_desk(OutputGuard(self._scope.pool(basis)), value, basis)
            self._emit(name, desk_html(name, desk), None if desk.findings else "no findings")

    def finish(self, report: ResearchReport) -> None:
        self._emit("answer", answer_html(report))

    def _emit(self, name: str, html: str, message: str | None = None) -> None:
        self._scope.section(name, html, message)


def _assemble(state: Mapping[str, Any], scope: RunScope, handler: StreamHandler | None) -> ResearchReport:
    plan = state["plan"]
    raw: dict[str, SpecialistReport] = dict(state.get("reports") or {})
    basis: dict[str, SpecialistReport] = dict(state.get("basis") or {})
    run = scope.facts(state)
    # the pool: tool results and the desks' code-composed reports (never a model's own figures); the
    # question's own numbers ("three quarters", "4.5%") are the user's
    pool = scope.pool(*basis.values(), state["question"], state.get("resolved") or "", plan.plan)
    guard = OutputGuard(pool)
    reports: dict[str, SpecialistReport] = {}
    desk_warnings: list[str] = []
    for agent, report in raw.items():
        reports[agent], caught = guarded_desk(guard, report, basis.get(agent, report))
        desk_warnings += caught
    notes = state.get("agents") or {}
    by_model = synthesize.ROLE.name in notes and notes[synthesize.ROLE.name].mode == "model"
    answer, warnings = guarded_answer(guard, state["synthesis"], state["fallback"], model=by_model)
    found = guard.report()
    charts: list[Chart] = [c for r in reports.values() for c in r.charts]
    disclaimer = DISCLAIMER if state.get("disclaimer", True) else None
    return ResearchReport(
        run_id=scope.run_id,
        question=state["question"],
        resolved_question=state.get("resolved") or state["question"],
        as_of=run.as_of,
        session=state.get("session"),
        data_mode=run.data_mode,
        mode=run.mode,
        intents=list(plan.intents),
        plan=plan.plan,
        subjects=plan.subjects,
        answer=answer,
        citations=number_citations(reports, state.get("resolved") or state["question"]),
        specialists=reports,
        conflicts=list(state.get("conflicts") or []),
        charts=charts,
        cut_short=list(state.get("cut_short") or []),
        disclaimer=disclaimer,
        warnings=[
            *run.warnings,
            *desk_warnings,
            *warnings,
            *found.warnings(),
            *(state.get("memory_warnings") or []),
        ],
        guard=found,
        agents=run.agents,
        tool_calls=run.tool_calls,
        round_trips=run.round_trips,
    )


SPEC: WorkflowSpec[ResearchInput, ResearchReport] = WorkflowSpec(
    name="research",
    title="Research desk",
    description=(
        "One question routed to the equity, macro, crypto and compliance desks it needs (in parallel), "
        "answered once with every fact cited, conflicts flagged and a disclaimer. Research only."
    ),
    input_model=ResearchInput,
    report_model=ResearchReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=lambda r: r.answer.split("\n", 1)[0][:300],
    check=_check,
    stream=lambda scope, _inputs: ResearchStream(scope),
    sections=SECTIONS,
    renderers={"markdown": to_markdown, "html": lambda r, _details: to_html(r)},
    cli_arguments=("question",),
    opening_inputs=_opening,
    bind_caller=_bind,
    aliases=("ask",),
)
