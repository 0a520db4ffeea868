"""Query analysis: the documents a question points at, and the filing words it is expanded with."""

from __future__ import annotations

import pytest

from findesk.knowledge.retrieval.chunks import ChunkMeta
from findesk.knowledge.retrieval.finance_terms import expand, expansions
from findesk.knowledge.retrieval.query import plan_query, quarters_in, years_in


def _doc(
    doc_id: str, company: str, ticker: str | None, form: str, year: int, period: str | None
) -> ChunkMeta:
    return ChunkMeta(
        kind="page",
        doc_id=doc_id,
        doc_hash="h",
        company=company,
        ticker=ticker,
        form=form,
        fiscal_year=year,
        fiscal_period=period,
    )


DOCS = [
    _doc("CORNING_2021_10K", "Corning", "GLW", "10-K", 2021, "FY"),
    _doc("CORNING_2022_10K", "Corning", "GLW", "10-K", 2022, "FY"),
    _doc("JNJ_2022_10K", "Johnson & Johnson", "JNJ", "10-K", 2022, "FY"),
    _doc("JNJ_2023Q2_CALL", "Johnson & Johnson", "JNJ", "EARNINGS CALL", 2023, "Q2"),
    _doc("MGM_2022_10K", "MGM Resorts", "MGM", "10-K", 2022, "FY"),
    _doc("FL_2022_8K", "Foot Locker", "FL", "8-K", 2022, None),
    _doc("ALL_2022_10K", "Allstate Corp", "ALL", "10-K", 2022, "FY"),
    _doc("AWK_2022_10K", "American Water Works", "AWK", "10-K", 2022, "FY"),
    _doc("AXP_2022_10K", "American Express", "AXP", "10-K", 2022, "FY"),
]


def _ids(question: str) -> set[str] | None:
    ids = plan_query(question, DOCS).derived.doc_ids
    return set(ids) if ids is not None else None


def test_company_and_year_in_the_question_narrow_to_that_filing() -> None:
    assert _ids("Does Corning have positive working capital based on FY2022 data?") == {"CORNING_2022_10K"}


def test_the_latest_year_named_is_the_document_year() -> None:
    assert _ids("How did Corning's revenue change from FY2020 to FY2022?") == {"CORNING_2022_10K"}


def test_a_mixed_case_ticker_names_the_company_but_a_lower_case_word_never_does() -> None:
    assert _ids("Did JnJ's net earnings as a percent of sales increase in Q2 of FY2023?") == {
        "JNJ_2023Q2_CALL"
    }
    # "all" is Allstate's ticker, written in lower case it is just a word
    assert _ids("Which of all the companies had a positive working capital in 2022?") == {
        d.doc_id for d in DOCS if d.fiscal_year == 2022
    }


def test_names_written_together_or_by_a_distinctive_first_word_match() -> None:
    assert _ids("Does Footlocker's new CEO have previous CEO experience?") == {"FL_2022_8K"}
    assert _ids("Which region had the worst topline performance for MGM during FY2022?") == {"MGM_2022_10K"}


def test_a_generic_first_word_never_stands_for_a_company() -> None:
    # "American" alone must not select American Water Works or American Express
    assert _ids("What are the risks to american consumers?") is None
    assert _ids("What are the geographies that American Express primarily operates in as of 2022?") == {
        "AXP_2022_10K"
    }


def test_a_clue_nothing_matches_is_dropped_and_said() -> None:
    plan = plan_query("What was Corning's capex in FY2030?", DOCS)
    assert plan.derived.doc_ids == {"CORNING_2021_10K", "CORNING_2022_10K"}
    assert "fiscal year 2030: no document matches, clue ignored" in plan.notes


def test_a_named_form_narrows_and_a_fourth_quarter_includes_the_annual_filing() -> None:
    assert _ids("In the 10-K, what drove Corning's gross margin in 2022?") == {"CORNING_2022_10K"}
    assert _ids("How did Corning do in Q4 2022?") == {"CORNING_2022_10K"}


def test_nothing_derived_when_asked_not_to_or_when_the_question_has_no_clue() -> None:
    assert plan_query("Corning FY2022 capex", DOCS, derive=False).derived.doc_ids is None
    assert _ids("What is a capital-intensive business?") is None


@pytest.mark.parametrize(
    ("text", "years"),
    [
        ("FY2022", [2022]),
        ("FY 2015 - FY2017", [2015, 2017]),
        ("Q2'2023", [2023]),
        ("Q22023", [2023]),
        ("by the end of 2021 Q1", [2021]),
        ("FY'22", [2022]),
        ("$1,500 million", []),
    ],
)
def test_years_are_read_in_the_ways_analysts_write_them(text: str, years: list[int]) -> None:
    assert years_in(text) == years


def test_quarters_are_read_as_digits_or_words() -> None:
    assert quarters_in("Q2 of FY2024 and the third quarter") == {"Q2", "Q3"}
    assert quarters_in("the QQQ fund") == set()


def test_analyst_words_are_expanded_into_the_captions_filings_use() -> None:
    expanded = expand("What is the FY2018 capex for 3M?")
    assert "purchases of property plant and equipment" in expanded
    assert (
        expand("Using the balance sheet, what is the working capital?").count("total current liabilities")
        >= 1
    )
    assert expansions("Tell me a joke") == []
