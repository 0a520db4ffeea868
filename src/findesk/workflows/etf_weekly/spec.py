"""The weekly ETF analyst as a workflow spec: a strategy and a week in, ``EtfWeeklyReport`` out, and a
run folder (dashboard, Markdown, every agent's JSON) written.

Rules:
- The week's last day is the run's as-of date (``prepare``): nothing after it is read. A week ending
  after the run's as-of date is refused, never silently moved.
- The strategy comes from ``strategy`` (an object), else the YAML file ``config``, else the defaults;
  ``config`` is read once, when the run is prepared, so a resumed run keeps the parameters it started
  with. Over HTTP a request may not name a file or a folder (``config``, ``out``, ``output.folder``):
  the server reads no path a stranger gives and writes runs under its own state folder.
- The assembler applies the output guard to every agent's prose: advice scrubbed, every number traced
  to the quant output and the run's tool results (cited sources). A model-written output that states
  a number no tool gave is replaced by the code-built one, and the report says so.
- ``publish`` writes the run folder and appends the week's figures to the history (and MLflow when
  installed); a folder that cannot be written is a warning in the report, never a lost run (the audit
  log holds the report).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping
from datetime import date
from pathlib import Path
from typing import Any

from pydantic import BaseModel
from pydantic_core import to_json

from findesk.agents.roles.etf_weekly.models import (
    DirectorReview,
    MarketOverview,
    QuantReport,
    SectorNews,
    SeniorReview,
)
from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.guardrails.output_guard import OutputGuard
from findesk.workflows.etf_weekly import history
from findesk.workflows.etf_weekly.config import StrategyConfig, load_strategy
from findesk.workflows.etf_weekly.graph import build_graph
from findesk.workflows.etf_weekly.models import EtfWeeklyInput, EtfWeeklyReport, HistoryEntry
from findesk.workflows.etf_weekly.render_html import to_html
from findesk.workflows.etf_weekly.render_markdown import to_markdown, to_terminal
from findesk.workflows.etf_weekly.stream import SECTIONS, EtfWeeklyStream
from findesk.workflows.spec import RunCaller, RunScope, StreamHandler, WorkflowSpec

SERVER_FOLDER = "etf-weekly"  # under the server's state folder


def _check(inputs: EtfWeeklyInput) -> Result[EtfWeeklyInput]:
    if inputs.config is not None and not inputs.config.strip():
        return Err(ErrorCode.INVALID_INPUT, "etf-weekly: --config is empty")
    if inputs.week_ending is not None and inputs.week_ending < date(2000, 1, 1):
        return Err(
            ErrorCode.INVALID_INPUT, f"etf-weekly: the week ending {inputs.week_ending} is before 2000"
        )
    return Ok(inputs)


def _bind(inputs: EtfWeeklyInput, caller: RunCaller) -> Result[EtfWeeklyInput]:
    """Over HTTP the request names no path: the server reads no file and writes under its own folder."""
    if not caller.remote:  # ``config`` and ``out`` are refused from a remote caller (``local_only``)
        return Ok(inputs)
    strategy = inputs.strategy or StrategyConfig()
    if strategy.output.folder != StrategyConfig().output.folder:
        return Err(
            ErrorCode.INVALID_INPUT,
            "etf-weekly: over HTTP `strategy.output.folder` cannot be set; "
            "the server chooses where runs are written",
        )
    return Ok(inputs.model_copy(update={"strategy": strategy, "server": True}))


def runs_folder(inputs: EtfWeeklyInput, settings: Settings) -> Path:
    if inputs.server:
        return settings.state_dir / SERVER_FOLDER
    strategy = inputs.strategy or StrategyConfig()
    return Path(inputs.out or strategy.output.folder).expanduser()


def _prepare(
    inputs: EtfWeeklyInput, context: DataContext, settings: Settings
) -> Result[tuple[EtfWeeklyInput, DataContext]]:
    strategy = inputs.strategy
    if strategy is None and inputs.config is not None:
        loaded = load_strategy(inputs.config)
        if isinstance(loaded, Err):
            return loaded
        strategy = loaded.value
    strategy = strategy or StrategyConfig()
    week = inputs.week_ending or context.as_of
    if week > context.as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"etf-weekly: the week ending {week.isoformat()} is after the run's as-of date "
            f"{context.as_of.isoformat()}; pass --as-of {week.isoformat()} (or later) to run it",
        )
    earlier = history.earlier(runs_folder(inputs, settings), strategy.strategy_hash(), week)
    watch = earlier[0].green if earlier else []
    prepared = inputs.model_copy(update={"strategy": strategy, "week_ending": week, "watch": watch})
    return Ok((prepared, context.model_copy(update={"as_of": week, "as_of_is_default": False})))


def _initial(inputs: EtfWeeklyInput, context: DataContext) -> dict[str, Any]:
    return {
        "strategy": inputs.strategy or StrategyConfig(),
        "week_ending": inputs.week_ending or context.as_of,
        "watch": list(inputs.watch),
        "news": {},
        "basis": {},
    }


def _guarded(
    guard: OutputGuard, key: str, value: BaseModel, basis: Mapping[str, Any], model: bool, warnings: list[str]
) -> Any:
    """``value`` guarded; a model's output that states an untraced number gives way to the code's. A
    news output's ``sources`` are citations (third-party headlines with their links), not the desk's
    prose: they are shown as published, never scrubbed to an empty title."""

    def part(v: Any) -> Any:
        if not isinstance(v, SectorNews | MarketOverview):
            return guard.model(v)
        return guard.model(v.model_copy(update={"sources": []})).model_copy(update={"sources": v.sources})

    return guard.held(key, value, basis.get(key) if model else None, warnings, part=part)


def _assemble(state: Mapping[str, Any], scope: RunScope, _handler: StreamHandler | None) -> EtfWeeklyReport:
    run = scope.facts(state)
    strategy: StrategyConfig = state["strategy"]
    q: QuantReport = state["quant"]
    director: DirectorReview = state["director"]
    basis: dict[str, Any] = dict(state.get("basis") or {})
    notes = state.get("agents") or {}
    model = {name for name, note in notes.items() if note.mode == "model"}
    # numbers may come from the quant output, the run's tool results (cited sources) and the MD's score
    pool = scope.pool(q, {"quality_score": director.quality_score})
    first = state.get("director_first")
    if first is not None:
        pool = scope.pool(q, {"quality_score": director.quality_score}, {"first": first.quality_score})
    guard = OutputGuard(pool)
    warnings: list[str] = []
    quant = guard.model(q)
    news: dict[str, SectorNews] = {
        s: _guarded(guard, f"news:{s}", n, basis, "etf_news_sector" in model, warnings)
        for s, n in (state.get("news") or {}).items()
    }
    overview: MarketOverview | None = state.get("overview")
    if overview is not None:
        overview = _guarded(guard, "overview", overview, basis, "etf_news_overview" in model, warnings)
    senior_model = "etf_senior" in model
    senior: SeniorReview = _guarded(guard, "senior", state["senior"], basis, senior_model, warnings)
    senior_first = state.get("senior_first")
    if senior_first is not None:
        senior_first = _guarded(guard, "senior_first", senior_first, basis, senior_model, warnings)
    director_model = "etf_director" in model
    director = _guarded(guard, "director", director, basis, director_model, warnings)
    if first is not None:
        first = _guarded(guard, "director_first", first, basis, director_model, warnings)
    found = guard.report()
    ctx = quant.market_context
    return EtfWeeklyReport(
        run_id=scope.run_id,
        as_of=run.as_of,
        week_start=ctx.week_start,
        week_end=ctx.week_end,
        data_mode=run.data_mode,
        mode=run.mode,
        strategy=strategy,
        strategy_hash=strategy.strategy_hash(),
        market_context=ctx,
        sector_groups=quant.sector_groups,
        symbol_profiles=quant.symbol_profiles,
        excluded=quant.excluded,
        data_flags=quant.data_flags,
        price_source=quant.price_source,
        overview=overview,
        news=news,
        senior=senior,
        senior_first=senior_first,
        director=director,
        director_first=first,
        charts=quant.series,
        watched=quant.watched,
        warnings=[*quant.warnings, *run.warnings, *warnings, *found.warnings()],
        guard=found,
        **run.usage(),
    )


def final_flags(report: EtfWeeklyReport) -> dict[str, str]:
    flags: dict[str, str] = {s: v.flag for s, v in report.senior.symbols.items()}
    for a in report.director.flag_adjustments:
        if a.symbol in flags:
            flags[a.symbol] = a.to_flag
    return flags


def history_entry(report: EtfWeeklyReport, follow_up: dict[str, float]) -> HistoryEntry:
    flags = final_flags(report)
    return HistoryEntry(
        run_id=report.run_id,
        week_end=report.week_end,
        strategy_hash=report.strategy_hash,
        candidates=len(report.symbol_profiles),
        sectors=len(report.sector_groups),
        evidence=dict(Counter(n.evidence for n in report.news.values())),
        flags=dict(Counter(flags.values())),
        quality_score=report.director.quality_score,
        model_calls=report.model_calls,
        input_tokens=report.input_tokens,
        output_tokens=report.output_tokens,
        cost_usd=report.cost_usd,
        green=sorted(s for s, f in flags.items() if f == "GREEN"),
        follow_up=follow_up,
    )


def run_folder(folder: Path, report: EtfWeeklyReport) -> Path:
    """``<folder>/<week_end>_<run_id>``: where a run is written."""
    return folder / f"{report.week_end.isoformat()}_{report.run_id}"


def write_run_folder(target: Path, report: EtfWeeklyReport) -> None:
    """dashboard.html, report.md, report.json and agents/*.json into ``target`` (which exists)."""
    (target / "agents").mkdir(parents=True, exist_ok=True)
    (target / "dashboard.html").write_text(to_html(report), encoding="utf-8")
    (target / "report.md").write_text(to_markdown(report, True), encoding="utf-8")
    (target / "report.json").write_text(report.model_dump_json(indent=1), encoding="utf-8")
    agents: dict[str, Any] = {
        "quant": {
            "market_context": report.market_context,
            "sector_groups": report.sector_groups,
            "symbol_profiles": report.symbol_profiles,
            "excluded": report.excluded,
            "data_flags": report.data_flags,
        },
        "news": {"overview": report.overview, "sectors": report.news},
        "senior": report.senior,
        "director": report.director,
        "senior_first": report.senior_first,
        "director_first": report.director_first,
    }
    for name, value in agents.items():
        if value is not None:  # the first versions exist only when the director sent sectors back
            (target / "agents" / f"{name}.json").write_bytes(to_json(value, indent=1))


def _publish(inputs: EtfWeeklyInput, report: EtfWeeklyReport, settings: Settings) -> EtfWeeklyReport:
    folder = runs_folder(inputs, settings)
    earlier = history.earlier(folder, report.strategy_hash, report.week_end)
    last_green = earlier[0].green if earlier else []
    follow_up = {s: round(report.watched[s], 4) for s in last_green if s in report.watched}
    entry = history_entry(report, follow_up)
    report = report.model_copy(update={"history": [entry, *earlier]})
    target = run_folder(folder, report)
    try:
        target.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        problem = f"the run folder could not be written under {folder}: {exc}"
        return report.model_copy(update={"warnings": [*report.warnings, problem]})
    logged = history.log_mlflow(folder, entry, report.strategy.name)
    # the folder's JSON and dashboard carry the final report, with its folder, history and warnings
    report = report.model_copy(
        update={
            "output_dir": str(target.resolve()),
            "warnings": [*report.warnings, *([logged] if logged else [])],
        }
    )
    try:
        write_run_folder(target, report)
        history.append(folder, entry)
    except OSError as exc:
        problem = f"the run folder could not be written under {folder}: {exc}"
        return report.model_copy(update={"output_dir": None, "warnings": [*report.warnings, problem]})
    return report


def _headline(report: EtfWeeklyReport) -> str:
    flags = Counter(final_flags(report).values())
    return (
        f"ETF week {report.week_start.isoformat()}..{report.week_end.isoformat()}: "
        f"{len(report.symbol_profiles)} candidate(s), {flags.get('GREEN', 0)} GREEN / "
        f"{flags.get('YELLOW', 0)} "
        f"YELLOW / {flags.get('RED', 0)} RED, quality {report.director.quality_score:.1f}/10"
    )


SPEC: WorkflowSpec[EtfWeeklyInput, EtfWeeklyReport] = WorkflowSpec(
    name="etf-weekly",
    title="Weekly ETF analyst",
    description=(
        "The US ETF universe screened for one week: alpha vs beta per fund, technicals, candidates by the "
        "strategy's rules, news per sector, senior analyst flags, a managing director's review and an HTML "
        "dashboard. Research screen, never advice."
    ),
    input_model=EtfWeeklyInput,
    report_model=EtfWeeklyReport,
    graph=build_graph,
    initial_state=_initial,
    assemble=_assemble,
    headline=_headline,
    check=_check,
    stream=lambda scope, _inputs: EtfWeeklyStream(scope),
    sections=SECTIONS,
    renderers={"terminal": to_terminal, "markdown": to_markdown, "html": lambda r, _details: to_html(r)},
    bind_caller=_bind,
    prepare=_prepare,
    publish=_publish,
    local_only=("config", "out"),
)
