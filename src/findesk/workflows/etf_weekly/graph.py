"""The weekly ETF analyst as a LangGraph state graph:
``quant → (news_overview | news per sector, in parallel) → senior → director → [senior_revision →
director_final]``.

Rules:
- The quant analyst always runs deterministically (code only), whatever the run's mode.
- News is searched per sector, never per symbol: ``quant`` fans out one ``news_sector`` run per
  sector group (``Send``), in one superstep with the market overview; the largest |average alpha|
  sectors come first and get the high-effort search, up to ``news.max_sectors`` sectors.
- A model's output is normalized by code before it enters the state (``normalize_*``): evidence
  quality, flags the protocol decides and the data-constrained note are code's in both modes.
- The MD's send-back is one bounded conditional edge: a first review below the threshold returns the
  weakest sectors to the senior analyst once; the revision is reviewed once more; both versions stay
  in the state (``senior_first``, ``director_first``).
- State is serializable (typed models, dates, plain containers), so a run is checkpointed and resumes.
"""

from __future__ import annotations

import operator
from datetime import date
from typing import Annotated, Any, TypedDict, cast

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send

from findesk.agents.roles.etf_weekly import director, news, quant, senior
from findesk.agents.roles.etf_weekly.models import (
    DirectorReview,
    MarketOverview,
    QuantReport,
    SectorNews,
    SeniorReview,
)
from findesk.agents.runtime import AgentOutcome
from findesk.analytics.etf.sector_taxonomy import news_sources
from findesk.workflows.etf_weekly.config import StrategyConfig
from findesk.workflows.nodes import State, agent_node, held
from findesk.workflows.spec import AgentNotes


class EtfWeeklyState(TypedDict, total=False):
    strategy: StrategyConfig
    week_ending: date
    watch: list[str]
    quant: QuantReport
    overview: MarketOverview
    news: Annotated[dict[str, SectorNews], operator.or_]
    senior: SeniorReview
    senior_first: SeniorReview
    director: DirectorReview
    director_first: DirectorReview
    agents: AgentNotes
    # each agent's output as its code composes it from the same inputs: what a model's output is checked
    # against, and what replaces it when the model states a number no tool gave
    basis: Annotated[dict[str, Any], operator.or_]
    sector_input: news.SectorNewsInput  # a Send's payload to one news_sector run
    overview_input: news.OverviewInput  # the Send's payload to the overview


def _quant_input(state: State) -> quant.QuantInput:
    s: StrategyConfig = state["strategy"]
    return quant.QuantInput(
        week_ending=state["week_ending"],
        prep=s.prep,
        candidates=s.candidates,
        signals=s.signals,
        beta_alpha_pct=s.protocol.beta_alpha_pct,
        watch=list(state.get("watch") or []),
    )


def _quant(_state: State, _inputs: quant.QuantInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    return {"quant": out.output}


def sector_inputs(state: State) -> list[news.SectorNewsInput]:
    """One news search per sector group, the largest |average alpha| first, high effort above the
    strategy's threshold."""
    s: StrategyConfig = state["strategy"]
    report: QuantReport = state["quant"]
    ctx = report.market_context
    out = []
    for group in list(report.sector_groups.values())[: s.news.max_sectors]:
        high = abs(group.avg_alpha_residual) >= s.news.high_effort_alpha_pct
        tickers, terms = news_sources(group.sector)
        out.append(
            news.SectorNewsInput(
                sector=group.sector,
                week_start=ctx.week_start,
                week_end=ctx.week_end,
                avg_alpha_residual=group.avg_alpha_residual,
                members=group.members,
                tickers=list(tickers[: s.news.high_tickers if high else s.news.normal_tickers]),
                terms=list(terms),
                effort="high" if high else "normal",
                limit=s.news.high_limit if high else s.news.normal_limit,
                protocol=s.protocol,
            )
        )
    return out


def _fan_out(state: State) -> list[Send]:
    """The market overview and one search per sector, in one superstep. A ``Send``'s payload is the
    node's whole input, so each carries its role's input."""
    ctx = state["quant"].market_context
    overview = news.OverviewInput(
        week_start=ctx.week_start, week_end=ctx.week_end, spy_weekly_return=ctx.spy_weekly_return
    )
    sends = [Send("news_sector", {"sector_input": i}) for i in sector_inputs(state)]
    return [Send("news_overview", {"overview_input": overview}), *sends]


def _sector_build(_state: State, given: news.SectorNewsInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    report, basis = held(news.SECTOR_ROLE, given, out, news.normalize_sector)
    return {"news": {given.sector: report}, "basis": {f"news:{given.sector}": basis}}


def _overview_build(_state: State, given: news.OverviewInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    report, basis = held(news.OVERVIEW_ROLE, given, out, news.normalize_overview)
    return {"overview": report, "basis": {"overview": basis}}


def _senior_input(state: State) -> senior.SeniorInput:
    q: QuantReport = state["quant"]
    return senior.SeniorInput(
        market=q.market_context,
        groups=q.sector_groups,
        profiles=q.symbol_profiles,
        news=dict(state.get("news") or {}),
        protocol=state["strategy"].protocol,
    )


def _senior(_state: State, given: senior.SeniorInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    review, basis = held(senior.ROLE, given, out, senior.normalize)
    return {"senior": review, "basis": {"senior": basis}}


def _director_input(state: State, revision: int) -> director.DirectorInput:
    q: QuantReport = state["quant"]
    s: StrategyConfig = state["strategy"]
    return director.DirectorInput(
        market=q.market_context,
        groups=q.sector_groups,
        profiles=q.symbol_profiles,
        news=dict(state.get("news") or {}),
        senior=state["senior"],
        protocol=s.protocol,
        quality_threshold=s.review.quality_threshold,
        max_send_back=s.review.max_send_back,
        revision=revision,
        warnings=[*q.warnings, *q.market_context.warnings],
    )


def _director(_state: State, given: director.DirectorInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    # the normalizer is looked up on each call (not bound when the graph is compiled)
    review, basis = held(director.ROLE, given, out, lambda o, g, b: director.normalize(o, g, b))
    return {"director": review, "basis": {"director": basis}}


def _after_director(state: State) -> str:
    return "senior_revision" if state["director"].send_back and not state.get("director_first") else END


def _revision_input(state: State) -> senior.SeniorInput:
    first: DirectorReview = state["director"]
    return _senior_input(state).model_copy(
        update={"previous": state["senior"], "send_back": first.send_back, "objections": first.objections}
    )


def _revision(state: State, given: senior.SeniorInput, out: AgentOutcome[Any]) -> dict[str, Any]:
    review, basis = held(senior.ROLE, given, out, senior.normalize)
    before = dict(state.get("basis") or {})
    return {
        "senior": review,
        "senior_first": state["senior"],
        "director_first": state["director"],
        "basis": {
            "senior": basis,
            "senior_first": before.get("senior", state["senior"]),
            "director_first": before.get("director", state["director"]),
        },
    }


def build_graph() -> StateGraph:  # type: ignore[type-arg]
    graph: Any = StateGraph(EtfWeeklyState)
    graph.add_node(
        "quant",
        agent_node(
            quant.ROLE, _quant_input, _quant, progress=lambda u: ("quant", u["quant"]), mode="deterministic"
        ),
    )
    graph.add_node(
        "news_overview",
        agent_node(
            news.OVERVIEW_ROLE,
            lambda st: st["overview_input"],
            _overview_build,
            progress=lambda u: ("overview", u["overview"]),
        ),
    )
    graph.add_node(
        "news_sector",
        agent_node(
            news.SECTOR_ROLE,
            lambda st: st["sector_input"],
            _sector_build,
            progress=lambda u: ("news", next(iter(u["news"].values()))),
        ),
    )
    graph.add_node(
        "senior", agent_node(senior.ROLE, _senior_input, _senior, progress=lambda u: ("senior", u["senior"]))
    )
    graph.add_node(
        "director",
        agent_node(
            director.ROLE,
            lambda st: _director_input(st, 0),
            _director,
            progress=lambda u: ("director", u["director"]),
        ),
    )
    graph.add_node(
        "senior_revision",
        agent_node(senior.ROLE, _revision_input, _revision, progress=lambda u: ("senior", u["senior"])),
    )
    graph.add_node(
        "director_final",
        agent_node(
            director.ROLE,
            lambda st: _director_input(st, 1),
            _director,
            progress=lambda u: ("director", u["director"]),
        ),
    )
    graph.add_edge(START, "quant")
    graph.add_conditional_edges("quant", _fan_out, ["news_overview", "news_sector"])
    graph.add_edge("news_overview", "senior")
    graph.add_edge("news_sector", "senior")
    graph.add_edge("senior", "director")
    graph.add_conditional_edges("director", _after_director, ["senior_revision", END])
    graph.add_edge("senior_revision", "director_final")
    graph.add_edge("director_final", END)
    return cast(StateGraph, graph)  # type: ignore[type-arg]
