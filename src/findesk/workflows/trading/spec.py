"""The trading desk as a workflow spec: a ticker and a date in, ``TradeReport`` out.

Rules:
- The decision date is the run's as-of date (``prepare``): nothing after it is read. A date after the
  run's as-of date is refused with the command to run instead, never silently moved.
- Identity first (``precheck``): an unknown, ambiguous, fund or CIK-less ticker stops the run with a
  clear error before any analyst runs.
- The user (whose decision log and reflections the run reads and writes) is the bound caller, never a
  request field.
- The assembler guards every role's prose: PII removed and every number traced to the run's tool
  results and typed reports; a model-written output that states a number no tool gave is replaced by
  the code-built one, and the report says so. The desk's ratings are its purpose, so advice wording is
  not scrubbed here; the report carries the disclaimer instead.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from findesk.agents.roles.trading.inputs import desk_view
from findesk.agents.roles.trading.models import FinalDecision
from findesk.analytics.trading.params import DeskParams
from findesk.core.config import Settings
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext
from findesk.data.symbols import normalize_symbol
from findesk.guardrails.output_guard import OutputGuard
from findesk.tools.base import ToolContext
from findesk.workflows.spec import RunCaller, RunScope, StreamHandler, WorkflowSpec, on_its_date
from findesk.workflows.trading import identity
from findesk.workflows.trading.graph import ANALYST_KEYS, build_graph
from findesk.workflows.trading.models import TradeInput, TradeReport
from findesk.workflows.trading.render_html import to_html
from findesk.workflows.trading.render_markdown import to_markdown, to_terminal
from findesk.workflows.trading.stream import SECTIONS, TradeStream


def _check(inputs: TradeInput) -> Result[TradeInput]:
    symbol = normalize_symbol(inputs.ticker)
    if isinstance(symbol, Err):
        return symbol
    return Ok(inputs.model_copy(update={"ticker": symbol.value}))


def _bind(inputs: TradeInput, caller: RunCaller) -> Result[TradeInput]:
    return Ok(inputs.model_copy(update={"user": caller.user}))


def _prepare(
    inputs: TradeInput, context: DataContext, _settings: Settings
) -> Result[tuple[TradeInput, DataContext]]:
    return on_its_date("trade", inputs, context, params=inputs.params or DeskParams())


async def _precheck(tools: ToolContext, inputs: TradeInput) -> Err | None:
    resolved = await identity.resolve(tools.router, inputs.ticker, tools.as_of)
    return resolved if isinstance(resolved, Err) else None


def _initial(inputs: TradeInput, context: DataContext) -> dict[str, Any]:
    from findesk.agents.roles.trading.models import Identity

    day = inputs.date or context.as_of
    return {
        "ticker": inputs.ticker,
        "day": day,
        "user": inputs.user,
        "params": inputs.params or DeskParams(),
        "debate_rounds": inputs.debate_rounds,
        "risk_rounds": inputs.risk_rounds,
        # resolved again by the first node; this placeholder names the ticker only
        "identity": Identity(ticker=inputs.ticker, cik=0, name=inputs.ticker, source="not yet resolved"),
        "debate": [],
        "risk": [],
        "memory_notes": [],
        "basis": {},
    }


def _guarded(
    guard: OutputGuard, key: str, value: BaseModel, basis: Mapping[str, Any], model: bool, warnings: list[str]
) -> Any:
    if isinstance(value, FinalDecision) and value.rating == "REVIEW":
        # a decision sent for review stays REVIEW whatever its reason says: the code-built decision
        # never replaces it (an untraced figure in the reason is still reported by the guard)
        return guard.model(value)
    return guard.held(key, value, basis.get(key) if model else None, warnings)


def _assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> TradeReport:
    run = scope.facts(state)
    basis: dict[str, Any] = dict(state.get("basis") or {})
    notes = state.get("agents") or {}
    model = {name for name, note in notes.items() if note.mode == "model"}
    # numbers may come from the run's tool results, the desk's parameters, what code built for every role
    # from them (``basis``: never a model's words, so a model's figure cannot trace itself) and the past
    # lessons the memory gave (figures of earlier decisions' realised outcomes)
    coded = {k: basis[k] for k in ANALYST_KEYS if k in basis}
    pool = scope.pool(
        state["identity"],
        state["params"],
        desk_view(state["identity"], state["day"], coded),
        basis,
        state.get("lessons") or {},
    )
    guard = OutputGuard(pool, advice=False)
    warnings: list[str] = []

    def g(key: str, role: str, value: Any) -> Any:
        return _guarded(guard, key, value, basis, role in model, warnings)

    debate = [g(f"debate:{t.side}:{t.round}", f"trade_{t.side}", t) for t in state.get("debate") or []]
    risk = [g(f"risk:{t.side}:{t.round}", f"trade_risk_{t.side}", t) for t in state.get("risk") or []]
    report = TradeReport(
        run_id=scope.run_id,
        as_of=run.as_of,
        data_mode=run.data_mode,
        mode=run.mode,
        identity=state["identity"],
        params=state["params"],
        debate_rounds=state["debate_rounds"],
        risk_rounds=state["risk_rounds"],
        market=g("market", "trade_market", state["market"]),
        fundamentals=g("fundamentals", "trade_fundamentals", state["fundamentals"]),
        news=g("news", "trade_news", state["news"]),
        social=g("social", "trade_social", state["social"]),
        investment_debate=debate,
        investment_decision=g("decision", "trade_research_manager", state["decision"]),
        trader_plan=g("plan", "trade_trader", state["plan"]),
        risk_debate=risk,
        final_decision=g("final", "trade_risk_manager", state["final"]),
        lessons=dict(state.get("lessons") or {}),
        memory_notes=list(state.get("memory_notes") or []),
        **run.usage(),
    )
    found = guard.report()
    return report.model_copy(
        update={"warnings": [*run.warnings, *warnings, *found.warnings()], "guard": found}
    )


def _headline(report: TradeReport) -> str:
    f = report.final_decision
    i = report.identity
    size = f"{f.position_pct:g}% of capital" if f.position_pct else "no position"
    why = f" ({f.review_reason})" if f.rating == "REVIEW" and f.review_reason else ""
    return f"{i.ticker} ({i.name}, CIK {i.cik}) on {report.as_of.isoformat()}: {f.rating}{why}, {size}"


SPEC: WorkflowSpec[TradeInput, TradeReport] = WorkflowSpec(
    name="trade",
    title="Trading desk",
    description=(
        "A firm-style review of one US company on one date: identity from SEC tables, market, fundamentals, "
        "news and social analysts in parallel, a bull/bear debate, a research manager's rating (BUY / "
        "OVERWEIGHT / HOLD / UNDERWEIGHT / SELL), a trader's plan with ATR stops, a risk debate and the risk "
        "manager's final rating and size. Point in time at the date; a simulation for research."
    ),
    input_model=TradeInput,
    report_model=TradeReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=_headline,
    check=_check,
    precheck=_precheck,
    stream=lambda scope, _inputs: TradeStream(scope),
    sections=SECTIONS,
    renderers={"terminal": to_terminal, "markdown": to_markdown, "html": lambda r, _details: to_html(r)},
    cli_arguments=("ticker",),
    bind_caller=_bind,
    prepare=_prepare,
)
