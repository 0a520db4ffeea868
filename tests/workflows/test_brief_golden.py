"""Golden behaviour of the advisor briefing on the real snapshot (deterministic mode).

Each test states what an advisor would notice: no advice, every official claim cited, every social
claim tagged, out-of-scope input refused before any tool runs, planted contradictions surfaced, the
volume anomaly surfaced, and one failing source degrading only its own section.
"""

from __future__ import annotations

import json

import pytest
from brief_kit import BriefRun, failing, planting, post

from findesk.core.result import Err, ErrorCode
from findesk.guardrails.advice import find_advice
from findesk.workflows.brief.models import Briefing
from findesk.workflows.brief.render_markdown import to_markdown

FOCUS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "F")
SECTIONS = ("snapshot", "business", "events", "risks", "social", "divergences")


def desk_prose(b: Briefing) -> list[str]:
    """Every sentence the desk itself writes (quoted posts and headlines are data, not prose)."""
    texts = [b.headline, b.summary]
    texts += [f.claim for f in (*b.business.findings, *b.events.findings, *b.risks.risks)]
    texts += [t.summary for t in b.social.report.themes]
    texts += [d.official.statement for d in b.divergences.divergences]
    return texts


def test_aapl_fills_every_section_with_cited_real_data(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    q = b.snapshot.quote
    assert q is not None and q.price == 232.14 and q.session_date.isoformat() == "2025-08-29"
    assert b.snapshot.company is not None and b.snapshot.company.name == "Apple Inc."
    assert b.business.findings[0].claim.startswith(
        "The Company designs, manufactures and markets smartphones"
    )
    # the last filings include the 10-Q (issue 12: age stamps, 10-Qs in the events)
    assert [(f.form, f.filing_date.isoformat()) for f in b.events.filings][:2] == [
        ("10-Q", "2025-08-01"),
        ("8-K", "2025-07-31"),
    ]
    assert b.events.filings[1].items[0].title == "Results of Operations and Financial Condition"
    assert len(b.risks.risks) == 5
    assert b.risks.risks[0].title is not None
    assert b.risks.risks[0].title.startswith("The Company’s operations and performance depend significantly")
    revenue = next(f for f in b.business.facts if f.metric == "revenue" and f.form == "10-Q")
    assert revenue.value == 94_036_000_000 and revenue.filed.isoformat() == "2025-08-01"
    assert b.social.report.reddit is not None and b.social.report.reddit.total > 0
    assert b.social.report.volume is not None and b.social.report.volume.anomaly.z_score == -0.72
    assert b.audit.mode == "deterministic" and b.audit.data_mode == "offline snapshot as of 2025-08-29"
    assert len(b.audit.tool_calls) >= 13 and all(t.status == "ok" for t in b.audit.tool_calls)


@pytest.mark.parametrize("symbol", FOCUS)
def test_every_section_has_content_or_says_why(brief_run: BriefRun, symbol: str) -> None:
    b = brief_run(symbol).briefing
    assert b.snapshot.quote is not None, b.snapshot.message
    for name in SECTIONS[1:4]:
        section = getattr(b, name)
        filled = bool(getattr(section, "findings", None) or getattr(section, "filings", None))
        filled = filled or bool(getattr(section, "risks", None))
        assert filled or section.message, f"{symbol} {name} is empty without a reason"
    if symbol == "F":  # the snapshot holds no Ford filings: say so, invent nothing
        assert not b.business.findings and not b.risks.risks and not b.events.filings
        for section in (b.business, b.events, b.risks):
            assert section.message is not None and "no filings for F" in section.message
        assert any("no filings for F" in w for w in b.audit.warnings)
    else:
        assert b.business.findings and b.risks.risks and b.events.filings


@pytest.mark.parametrize("symbol", ("AAPL", "NVDA", "TSLA", "META"))
def test_no_advice_in_anything_the_desk_writes(brief_run: BriefRun, symbol: str) -> None:
    b = brief_run(symbol).briefing
    assert [f for text in desk_prose(b) for f in find_advice(text)] == []
    assert b.audit.advice_removed == []
    assert "does not give investment advice" in b.disclaimer
    assert b.disclaimer in to_markdown(b)


@pytest.mark.parametrize("symbol", ("AAPL", "NVDA", "MSFT", "GOOGL"))
def test_every_official_claim_is_cited_to_a_filing_the_run_read(brief_run: BriefRun, symbol: str) -> None:
    run = brief_run(symbol)
    b = run.briefing
    read = json.dumps([e.data.model_dump(mode="json") for e in run.sink.of_type("tool_result")])
    findings = [*b.business.findings, *b.events.findings, *b.risks.risks]
    assert findings
    for f in findings:
        assert b.source_number(f.citation) is not None, f
        assert f.citation in read, f"{f.citation} was not in any tool result of the run"
    for filing in b.events.filings:
        assert filing.citation.startswith(
            "https://www.sec.gov/Archives/edgar/data/"
        ) or filing.citation.startswith("sec/filings/")


def test_every_social_claim_is_tagged_unverified(brief_run: BriefRun) -> None:
    b = brief_run(
        "AAPL", overrides={"get_reddit_posts": planting(post("p1", "AAPL stock split announced today!"))}
    )
    report = b.briefing.social.report
    assert report.disclaimer.startswith("UNVERIFIED")
    assert report.claims, "the planted post and real news carry checkable claims"
    lines = to_markdown(b.briefing).splitlines()
    for claim in report.claims:
        shown = [
            line
            for line in lines
            if claim.text[:60] in line and "UNVERIFIED" not in line.split(claim.text[:20])[0]
        ]
        assert not shown, f"claim shown without its [UNVERIFIED] tag: {shown}"
        assert any(claim.text[:60] in line and "[UNVERIFIED]" in line for line in lines)


@pytest.mark.parametrize("symbol", ("VOD.L", "BRK.B", "SHOP.TO"))
def test_non_us_listing_is_refused_before_any_tool_runs(brief_run: BriefRun, symbol: str) -> None:
    run = brief_run(symbol)
    assert isinstance(run.result, Err) and run.result.code is ErrorCode.OUT_OF_SCOPE
    assert run.types() == ["error"], "no tool call, no agent, exactly one error event"


def test_advice_question_is_refused_before_any_tool_runs(brief_run: BriefRun) -> None:
    run = brief_run("AAPL", question="Should I buy AAPL before earnings? What's your price target?")
    assert isinstance(run.result, Err) and run.result.code is ErrorCode.REFUSED
    assert "investment advice" in run.result.reason
    assert run.types() == ["error"]
    allowed = brief_run("AAPL", question="What are the main risks Apple lists in its 10-K?")
    assert allowed.briefing.symbol == "AAPL"


def test_input_over_2000_characters_is_rejected_before_any_tool_runs(brief_run: BriefRun) -> None:
    run = brief_run("AAPL", question="Tell me about Apple. " * 100)
    assert isinstance(run.result, Err) and run.result.code is ErrorCode.INVALID_INPUT
    assert "2,000" in run.result.reason and run.types() == ["error"]


def test_planted_revenue_claim_is_contradicted_with_both_sides_cited(brief_run: BriefRun) -> None:
    planted = post("p2", "AAPL revenue came in at $120 billion last quarter, a huge blowout.")
    b = brief_run("AAPL", overrides={"get_reddit_posts": planting(planted)}).briefing
    hits = [d for d in b.divergences.divergences if d.claim.post_id == "reddit:p2"]
    assert len(hits) == 1 and hits[0].verdict == "contradicted"
    assert hits[0].claim.url == "https://www.reddit.com/r/wallstreetbets/comments/p2/"
    assert "94,036,000,000" in hits[0].official.statement
    assert any("000032019325000073" in c for c in hits[0].official.citations)
    assert "1 social claim contradicted by the filings" in b.summary


def test_planted_buyout_rumour_is_contradicted_by_the_8ks_covering_the_window(brief_run: BriefRun) -> None:
    planted = post("p3", "Apple is being acquired in a secret buyout deal, announcement next week.")
    b = brief_run("AAPL", overrides={"get_reddit_posts": planting(planted)}).briefing
    hits = [d for d in b.divergences.divergences if d.claim.post_id == "reddit:p3"]
    # AAPL's 8-K list reaches back past the window, and a material agreement must be filed: contradicted
    assert [(d.claim.kind, d.verdict) for d in hits] == [("buyout", "contradicted")]
    assert "1.01" in hits[0].official.statement


def test_real_volume_anomaly_is_surfaced(brief_run: BriefRun) -> None:
    nvda = brief_run("NVDA").briefing
    volume = nvda.social.report.volume
    assert volume is not None and volume.anomaly.unusual and volume.anomaly.z_score == 2.1
    assert volume.anomaly.volume == 242_712_298 and volume.anomaly.baseline_sessions == 30
    assert "unusual (z-score +2.10)" in nvda.summary
    aapl = brief_run("AAPL").briefing.social.report.volume
    assert aapl is not None and not aapl.anomaly.unusual


# tool that fails -> the sections allowed to change (everything else must equal the baseline)
DEGRADES = {
    "get_quote": {"snapshot", "business"},  # the key figures' P/E and yield need the price
    "get_company": {"snapshot", "social", "divergences"},  # the name also finds posts about "Apple"
    "list_filings": {"events"},
    "get_business_overview": {"business"},
    "get_risk_factors": {"risks"},
    "get_xbrl_facts": {"business", "divergences"},
    "get_material_events": {"business", "divergences"},  # key figures name the latest Item 2.02
    "get_reddit_posts": {"social", "divergences"},
    "get_news": {"social", "divergences"},
    "get_stocktwits_posts": {"social"},
    "get_volume_anomaly": {"social"},
}


@pytest.fixture(scope="module")
def baseline(brief_run: BriefRun) -> Briefing:
    return brief_run("AAPL").briefing


@pytest.mark.parametrize("tool", sorted(DEGRADES))
def test_each_failing_source_degrades_only_its_own_section(
    brief_run: BriefRun, baseline: Briefing, tool: str
) -> None:
    run = brief_run("AAPL", overrides={tool: failing})
    b = run.briefing
    assert run.types()[-1] == "done", "the briefing still completes"
    assert any("planted failure" in w for w in b.audit.warnings), b.audit.warnings
    assert next(t.status for t in b.audit.tool_calls if t.name == tool) == "unavailable"
    changed = {name for name in SECTIONS if getattr(b, name) != getattr(baseline, name)}
    assert changed, f"failing {tool} changed nothing visible"
    assert changed <= DEGRADES[tool], f"failing {tool} also changed {changed - DEGRADES[tool]}"
    if tool == "get_quote":
        assert b.snapshot.quote is None and b.snapshot.message is not None
        assert b.snapshot.message.startswith("Live quote unavailable: unavailable")
        assert "live quote unavailable" in b.headline


@pytest.mark.parametrize("symbol", FOCUS)
def test_every_number_the_desk_writes_traces_to_the_run_data(brief_run: BriefRun, symbol: str) -> None:
    b = brief_run(symbol).briefing
    assert b.audit.untraced_numbers == []
    assert not any(w.startswith("number_trace") for w in b.audit.warnings)


def test_a_run_ends_with_exactly_one_done_event_carrying_the_briefing(brief_run: BriefRun) -> None:
    run = brief_run("MSFT")
    types = run.types()
    assert types.count("done") == 1 and types[-1] == "done" and "error" not in types
    done = run.sink.of_type("done")[0].data
    assert Briefing.model_validate(done.model_dump()["result"]).symbol == "MSFT"
    # the workflow (brief) and its three agents
    assert types.count("agent_start") == 4 and types.count("agent_end") == 4
