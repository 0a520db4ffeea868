"""The client's question gets an answer from the briefing's own evidence, or an explicit "not addressed"
(issue 12, defect 13: ``--question`` used to change nothing)."""

from __future__ import annotations

import io
import re

import pytest
from brief_kit import BriefRun
from rich.console import Console

from findesk.interfaces.cli.brief_view import draw
from findesk.workflows.brief.render_html import to_html
from findesk.workflows.brief.render_markdown import to_markdown


def test_without_a_question_there_is_no_answer_block(brief_run: BriefRun) -> None:
    assert brief_run("AAPL").briefing.question is None


def test_a_risk_question_points_to_the_risk_factors_with_their_citations(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="What risks does Apple list?").briefing
    assert b.question is not None and b.question.addressed
    assert b.question.topics == ["risk factors"]
    assert [p.text for p in b.question.points] == [r.title for r in b.risks.risks[:3]]
    for point in b.question.points:
        assert point.section == "risks"
        assert all(b.source_number(key) is not None for key in point.citations)  # every [n] resolves
    assert "Top risks" in b.question.note


@pytest.mark.parametrize(
    "question",
    ["¿Cuáles son los riesgos principales?", "Welche Risiken nennt Apple?", "苹果有哪些主要风险？"],
)
def test_questions_in_other_languages_are_matched_too(brief_run: BriefRun, question: str) -> None:
    b = brief_run("AAPL", question=question).briefing
    assert b.question is not None and b.question.addressed and b.question.topics == ["risk factors"]


def test_a_figures_question_repeats_the_reported_figures_with_their_filing(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="How did revenue grow last quarter?").briefing
    assert b.question is not None and b.question.addressed
    assert b.question.points and all(p.section == "business" for p in b.question.points)
    assert any("94,036,000,000" in p.text for p in b.question.points)
    assert all(b.source_number(k) is not None for p in b.question.points for k in p.citations)


def test_a_question_outside_the_briefing_is_said_to_be_not_addressed(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="Who designed the Apple Park campus?").briefing
    assert b.question is not None and not b.question.addressed and not b.question.points
    assert b.question.note.startswith("Not addressed by this briefing")


def test_a_topic_the_briefing_has_no_evidence_for_is_not_addressed(brief_run: BriefRun) -> None:
    # F has no filings in the snapshot: its risk factors cannot be quoted
    b = brief_run("F", question="What are Ford's main risks?").briefing
    assert b.question is not None and not b.question.addressed
    assert "Top risks has no risk factors for F" in b.question.note


def test_every_format_shows_the_question_block_before_the_sections(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="What are the main risks?").briefing
    n = b.source_number(b.risks.risks[0].citation)
    md = to_markdown(b)
    assert md.index("## Client question") < md.index("## Snapshot")
    assert f"- Top risks: {b.risks.risks[0].title} [{n}]" in md.replace("\\", "")
    page = to_html(b)
    block = page[page.index('<section id="client-question">') : page.index('<section id="section-1">')]
    assert f'<a class="cite" href="#source-{n}">[{n}]</a>' in block
    console = Console(file=io.StringIO(), width=120, color_system=None, emoji=False, highlight=False)
    draw(console, b)
    screen = console.file.getvalue()  # type: ignore[attr-defined]
    assert "“What are the main risks?”" in screen
    assert screen.index("Client question") < screen.index("Snapshot")
    assert re.search(rf"^\[{n}\] ", screen, re.MULTILINE), "the cited source is listed on the screen"
    no_question = to_markdown(brief_run("AAPL").briefing)
    assert "Client question" not in no_question


def test_a_growth_question_gets_the_key_figures_with_year_earlier_and_growth(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="How did revenue grow?").briefing
    assert b.question is not None and b.question.topics == ["reported figures"]
    first = b.question.points[0].text
    assert first.startswith("Revenue, latest reported quarter: 94,036,000,000 USD")
    assert "a year earlier 85,777,000,000" in first and "growth +9.6% (computed)" in first


def test_valuation_and_earnings_date_questions_get_only_their_lines(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="What is the P/E and the dividend yield?").briefing
    assert b.question is not None and b.question.topics == ["valuation and dividends"]
    assert [p.text.split(":")[0] for p in b.question.points] == ["Trailing P/E", "Dividend yield"]
    b = brief_run("AAPL", question="When is the next earnings date?").briefing
    assert b.question is not None and b.question.topics == ["earnings dates"]  # not also "figures"
    assert b.question.points[0].text.startswith("Next earnings date: not known at this date")


def test_markup_in_the_question_is_shown_as_text_in_every_format(brief_run: BriefRun) -> None:
    q = "<script>alert(1)</script><img src=x onerror=alert(2)> What are the risks? [x](javascript:alert(3))"
    b = brief_run("AAPL", question=q).briefing
    page = to_html(b)
    assert "<script>alert" not in page and "<img src=x" not in page and 'href="javascript' not in page
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page
    md = to_markdown(b)
    assert "> \\<script\\>alert(1)\\</script\\>" in md and "](javascript" not in md.replace("\\](", "")


def test_form_names_with_a_dash_match_after_folding(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", question="Summarize the latest 8-K").briefing
    assert b.question is not None and b.question.topics == ["filings and events"]


def test_the_business_topic_never_rides_along_with_another_topic(brief_run: BriefRun) -> None:
    # "do" and "does" are business words; they must not put the 10-K business text in front
    b = brief_run("AAPL", question="What do people say on Reddit?").briefing
    assert b.question is not None and b.question.topics == ["social posts"]
    b = brief_run("AAPL", question="Does the stock trade high volume?").briefing
    assert b.question is not None and b.question.topics == ["the quote"]


def test_a_price_question_keeps_the_adjusted_label(brief_run: BriefRun) -> None:
    from datetime import date

    b = brief_run("TSLA", at=date(2022, 1, 21), question="What was the price?").briefing
    assert b.question is not None
    assert b.question.points[0].text.startswith("split/dividend-adjusted price 314.63 USD (not the as-traded")
