"""The research desk with scripted models (explicit fakes, no network): the same schema and guards as
the deterministic desk, three model round trips on the critical path, the rules' mandatory routes kept
whatever the router model says, a fabricated number caught, and a conflict between two desks shown."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.core.config import Settings
from findesk.core.events.model import SectionReady
from findesk.core.llm.chain import ModelChain
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.testing.fake_models import ScriptedModel, submit
from findesk.testing.fake_research_models import FABRICATED, PRICES, fabricating, research_models
from findesk.tools.base import ToolContext
from findesk.workflows.research.models import ResearchReport
from workflows.research.conftest import ask

SANCTIONED = "0x8576acc5c05d6ce88f4e49bf65bdf0c62f91353c"


def _report(result: object) -> ResearchReport:
    assert isinstance(result, ResearchReport), result
    return result


def test_with_models_the_desk_keeps_its_schema_guards_and_three_round_trips(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    resolve, models = research_models()
    report = _report(
        ask(desk_settings, desk_tools, "What was NVDA revenue last quarter?", mode="model", models=resolve)[0]
    )
    assert report.mode == "model" and report.intents == ["equity"]
    assert report.round_trips == 3  # route, the equity desk, synthesize: one submit each
    assert {a.name: a.mode for a in report.agents}["research_equity"] == "model"
    assert len(models["equity"].requests) == 1 and len(models["synthesize"].requests) == 1
    # the model's findings keep their citations, the answer its markers and the disclaimer
    assert report.specialists["equity"].findings and all(
        f.citations for f in report.specialists["equity"].findings
    )
    assert "[1]" in report.answer and report.disclaimer
    # a single-domain question stays well inside the input-token budget
    assert sum(a.input_tokens for a in report.agents) <= 12_000


def test_a_number_the_model_made_up_is_caught_and_not_shown(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    resolve, _models = research_models({"synthesize": [fabricating] * 5})
    report = _report(
        ask(desk_settings, desk_tools, "What was NVDA revenue last quarter?", mode="model", models=resolve)[0]
    )
    assert FABRICATED not in report.answer
    assert any(u.text.startswith("$987,654.3") for u in report.guard.untraced_numbers)
    assert any(w.startswith("fabricated_number") for w in report.warnings)
    # the desk's own answer from the same findings instead, with their citations
    assert report.answer.startswith("Research answer as of 2025-08-29 from the Equity desk(s)")
    assert "[1]" in report.answer


def test_the_rules_mandatory_routes_apply_whatever_the_router_model_says(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    lazy_router = [
        submit({"intents": ["macro"], "plan": "model: macro only", "subjects": {"series": ["DGS10"]}})
    ]
    resolve, _models = research_models({"route": lazy_router})
    report = _report(
        ask(
            desk_settings,
            desk_tools,
            f"Is {SANCTIONED} sanctioned, and what is NVDA's revenue?",
            mode="model",
            models=resolve,
        )[0]
    )
    assert {"compliance", "equity"} <= set(report.intents)
    assert SANCTIONED in report.subjects.addresses and "NVDA" in report.subjects.tickers


def _only(scripted: dict[str, ScriptedModel]) -> Callable[[Role[Any, Any]], Result[ModelChain]]:
    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        for desk, model in scripted.items():
            if desk in role.name:
                return Ok(ModelChain([model], PRICES, max_retries=0))
        return Err(ErrorCode.NOT_CONFIGURED, "deterministic for this role")

    return resolve


def _spy_close(desk: str, value: float, source: str) -> ScriptedModel:
    finding = {
        "text": f"SPY closed at {value} on 2025-08-29.",
        "citations": [{"agent": desk, "tool": "get_price_history", "source": source}],
        "quantity": "SPY close 2025-08-29",
        "value": value,
        "unit": "USD",
    }
    return ScriptedModel([submit({"agent": desk, "findings": [finding]})] * 3, model="research")


def test_two_desks_reporting_different_figures_for_one_quantity_are_shown_as_a_conflict(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    resolve = _only(
        {
            "equity": _spy_close("equity", 645.05, "snapshot:prices/market/us_listed_stocks (as traded)"),
            "macro": _spy_close("macro", 641.37, "snapshot:prices/etfs (adjusted)"),
        }
    )
    report = _report(
        ask(
            desk_settings,
            desk_tools,
            "How did NVDA and SPY close on 2025-08-29?",
            mode="model",
            models=resolve,
        )[0]
    )
    assert len(report.conflicts) == 1
    conflict = report.conflicts[0]
    assert {v.agent for v in conflict.values} == {"equity", "macro"}
    assert "Conflicts between desks" in report.answer
    assert "645.05" in report.answer and "641.37" in report.answer
    assert "disagree" in report.answer.lower() or "more reliable" in report.answer.lower()


def test_a_run_whose_budget_is_spent_after_routing_skips_the_desks_and_says_so(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    # the router's one call costs more than this run's whole budget: no desk may start
    broke = desk_settings.model_copy(
        update={"llm": desk_settings.llm.model_copy(update={"budget_usd": 0.000001})}
    )
    resolve, models = research_models()
    report = _report(
        ask(broke, desk_tools, "What was NVDA revenue last quarter?", mode="model", models=resolve)[0]
    )
    assert (
        report.cut_short
        and "dollar budget ($0.00) was spent before the equity desk(s) ran" in (report.cut_short[0])
    ), report.cut_short
    assert not models["equity"].requests  # the desk never called its model
    assert "**Cut short**" in report.answer and report.cut_short[0] in report.answer
    # the question was routed: the answer never claims that nothing could take it
    assert "no desk ran. Plan: equity: NVDA" in report.answer and "No specialist could" not in report.answer


def _lying_desk(request: Any) -> Any:
    finding = {
        "text": f"AAPL revenue will reach {FABRICATED} next year. You should buy AAPL now.",
        "citations": [{"agent": "equity", "tool": "get_xbrl_facts", "source": "x"}],
    }
    return submit({"agent": "equity", "findings": [finding]})


def _advising_coordinator(request: Any) -> Any:
    return submit({"answer": "Research answer for AAPL. You should buy AAPL now."})


def test_a_desk_model_that_makes_up_a_number_or_advises_is_replaced_by_its_own_tool_findings(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    resolve, _models = research_models({"equity": [_lying_desk] * 10})
    report, events = ask(desk_settings, desk_tools, "What is AAPL revenue?", mode="model", models=resolve)
    report = _report(report)
    desk = report.specialists["equity"]
    texts = " ".join(f.text for f in desk.findings)
    assert FABRICATED not in texts and "buy AAPL" not in texts  # the desk's own findings instead
    assert any(f.quantity == "AAPL revenue quarter ended 2025-06-28" for f in desk.findings)
    assert FABRICATED not in report.answer and "buy AAPL" not in report.answer
    assert any(w.startswith("fabricated_number: the equity desk's model findings") for w in report.warnings)
    # the streamed desk section is the one the report keeps
    sections = [e.data for e in events if isinstance(e.data, SectionReady) and e.data.name == "equity"]
    assert sections and FABRICATED not in sections[-1].html and "buy AAPL" not in sections[-1].html


def test_advice_the_coordinator_writes_is_removed_and_reported_and_memory_keeps_the_checked_line(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    from findesk.knowledge.memory.store import MemoryStore

    resolve, _models = research_models({"synthesize": [_advising_coordinator] * 10})
    report = _report(
        ask(
            desk_settings,
            desk_tools,
            "What is AAPL revenue?",
            mode="model",
            models=resolve,
            session="advice",
        )[0]
    )
    assert "buy AAPL" not in report.answer
    assert report.guard.advice_removed and any(w.startswith("advice_removed: 1") for w in report.warnings)
    store = MemoryStore.from_settings(desk_settings)
    try:
        turns = store.session_turns("local", "advice").unwrap()
    finally:
        store.close()
    assert turns and turns[-1].answer_line.startswith("Research answer as of 2025-08-29 from the Equity")


def test_a_desk_stopped_by_its_iteration_cap_is_reported_as_cut_short(
    desk_settings: Settings, desk_tools: ToolContext
) -> None:
    from findesk.testing.fake_models import reply

    looping = [reply("", [("get_quote", {"symbol": "AAPL"})]) for _ in range(10)]
    resolve, _models = research_models({"equity": looping})
    report = _report(ask(desk_settings, desk_tools, "What is AAPL revenue?", mode="model", models=resolve)[0])
    assert any(c.startswith("equity desk: max_iterations") for c in report.cut_short), report.cut_short
    assert "**Cut short**" in report.answer
    # the desk still answers from its playbook's tool results
    assert any(
        f.quantity == "AAPL revenue quarter ended 2025-06-28" for f in report.specialists["equity"].findings
    )
