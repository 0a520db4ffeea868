"""The model-driven briefing with scripted fake models: same sections and guards as deterministic.

The fakes (``findesk.testing.fake_briefing_models``) read their context the way a model would: the
official one cites the ``Cite:`` keys of the pre-fetched results, the social one the ``(id …)`` marks,
the coordinator quotes the price from the reports.
"""

from __future__ import annotations

from brief_kit import BriefRun, planting, post

from findesk.core.events.model import AgentEnd, AgentStart, LlmCall
from findesk.core.llm.types import UserText
from findesk.testing.fake_briefing_models import briefing_models
from findesk.testing.fake_models import submit
from findesk.workflows.brief.models import Briefing

SECTIONS = ("snapshot", "business", "events", "risks", "social", "divergences")
MAX_INPUT_TOKENS = 15_000


def test_model_path_fills_the_same_sections_with_the_same_figures(brief_run: BriefRun) -> None:
    deterministic = brief_run("AAPL").briefing
    resolve, models = briefing_models()
    run = brief_run("AAPL", models=resolve)
    b = run.briefing
    assert b.audit.mode == "model"
    assert {a.name: a.mode for a in b.audit.agents} == {
        "official": "model",
        "social": "model",
        "coordinator": "model",
    }
    assert not any(a.fell_back for a in b.audit.agents)
    # figures come from code in both modes
    assert b.snapshot == deterministic.snapshot
    assert b.events.filings == deterministic.events.filings
    assert b.business.facts == deterministic.business.facts
    assert b.divergences == deterministic.divergences
    assert b.social.report.volume == deterministic.social.report.volume
    # prose comes from the model, cited to what the run read
    assert b.business.findings[0].claim.startswith("Per its 10-K: The Company designs")
    assert len(b.risks.risks) == 3 and all(b.source_number(r.citation) for r in b.risks.risks)
    assert b.headline == "AAPL last closed at $232.14 on 2025-08-29"
    assert b.social.report.themes[0].theme == "retail attention"
    assert b.audit.untraced_numbers == [] and b.audit.advice_removed == []
    assert all(m.remaining == 0 for m in models.values()), "each agent used exactly its one reply"


def test_sub_agents_run_concurrently_and_the_critical_path_has_at_most_three_round_trips(
    brief_run: BriefRun,
) -> None:
    resolve, _ = briefing_models()
    run = brief_run("NVDA", models=resolve)
    events = run.sink.events
    starts = {e.data.agent: e.seq for e in events if isinstance(e.data, AgentStart)}
    ends = {e.data.agent: e.seq for e in events if isinstance(e.data, AgentEnd)}
    # both sub-agents started before either finished; the coordinator started after both finished
    assert max(starts["official"], starts["social"]) < min(ends["official"], ends["social"])
    assert starts["coordinator"] > max(ends["official"], ends["social"])
    calls = [e for e in events if isinstance(e.data, LlmCall)]
    assert sorted(e.agent or "" for e in calls) == ["coordinator", "official", "social"]
    b = run.briefing
    assert b.audit.model_round_trips == 2 <= 3
    input_tokens = sum(e.data.input_tokens for e in calls if isinstance(e.data, LlmCall))
    assert 0 < input_tokens <= MAX_INPUT_TOKENS, input_tokens
    assert sum(a.input_tokens for a in b.audit.agents) == input_tokens


def test_a_model_that_gives_advice_or_invents_a_number_is_overruled(brief_run: BriefRun) -> None:
    bad = submit(
        {
            "headline": "AAPL closed at $232.14; we recommend buying AAPL with a price target of $300.",
            "summary": "Apple looks cheap. Analysts expect revenue of $512 billion next year.",
        }
    )
    resolve, _ = briefing_models({"coordinator": [bad]})
    b: Briefing = brief_run("AAPL", models=resolve).briefing
    assert b.audit.advice_removed, "the recommendation and price target were caught"
    assert {a.kind for a in b.audit.advice_removed} >= {"recommendation"}
    assert "300" in " ".join(u.text for u in b.audit.untraced_numbers) or "512" in " ".join(
        u.text for u in b.audit.untraced_numbers
    )
    assert "recommend" not in b.headline.lower() and "512" not in b.summary
    assert b.headline.startswith("Apple Inc. (AAPL) closed at $232.14"), (
        "the deterministic summary replaced it"
    )
    assert any(w.startswith("number_trace") for w in b.audit.warnings)
    assert any(w.startswith("advice_removed") for w in b.audit.warnings)


def test_a_finding_citing_a_source_the_run_never_read_is_dropped(brief_run: BriefRun) -> None:
    invented = submit(
        {
            "findings": [
                {
                    "kind": "business",
                    "claim": "Apple makes phones.",
                    "citation": "https://example.com/not-a-filing",
                },
            ]
        }
    )
    resolve, _ = briefing_models({"official": [invented]})
    b = brief_run("AAPL", models=resolve).briefing
    assert b.business.findings == []
    assert b.business.message is not None
    assert any("dropped: their citation is not a source this run read" in w for w in b.audit.warnings)


def test_a_failing_model_falls_back_to_the_deterministic_sections(brief_run: BriefRun) -> None:
    resolve, _ = briefing_models({"official": [], "social": [], "coordinator": []})  # no replies: chain fails
    b = brief_run("AAPL", models=resolve).briefing
    deterministic = brief_run("AAPL").briefing
    for name in SECTIONS:
        assert getattr(b, name) == getattr(deterministic, name), name
    assert all(a.fell_back for a in b.audit.agents)
    assert any(w.startswith("model_unavailable") for w in b.audit.warnings)


def test_a_posts_claim_reaches_the_coordinator_only_inside_the_data_fence(brief_run: BriefRun) -> None:
    # the coordinator's task carries the contradicted claims, whose text a stranger wrote
    planted = post("fence1", "AAPL revenue came in at $120 billion last quarter, a huge blowout.")
    resolve, models = briefing_models()
    b = brief_run("AAPL", models=resolve, overrides={"get_reddit_posts": planting(planted)}).briefing
    assert any(d.verdict == "contradicted" for d in b.divergences.divergences)
    task = next(m.text for m in models["coordinator"].requests[0].messages if isinstance(m, UserText))
    start, end = task.index("<tool_data>"), task.index("</tool_data>")
    at = task.index("$120 billion")
    assert start < at < end
