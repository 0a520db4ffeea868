"""Risk factors, business summaries and 8-K excerpts from the snapshot's real filings (``highlights``)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest
from pydantic import ValidationError

from findesk.data.models.base import Source
from findesk.data.models.filings import Filing, FilingDocument
from findesk.knowledge.filings import RiskFactor, business_summary, event_excerpt, risk_factors
from findesk.knowledge.filings.sections import parse_document

TEN_KS = {
    "AAPL": "AAPL/10-K_2024-11-01.htm",
    "AMZN": "AMZN/10-K_2025-02-07.htm",
    "GOOGL": "GOOGL/10-K_2025-02-05.htm",
    "META": "META/10-K_2025-01-30.htm",
    "MSFT": "MSFT/10-K_2025-07-30.md",
    "NVDA": "NVDA/10-K_2025-02-26.htm",
    "TSLA": "TSLA/10-K_2025-01-30.htm",
    "WFC": "WFC/10-K_2025-02-25.htm",
}
AAPL_8K = "AAPL/8-K_2024-10-31.md"
WITH_RISKS = sorted(set(TEN_KS) - {"WFC"})


def _sections(root: Path, rel: str, ticker: str, form: str) -> dict[str, str]:
    path = f"sec/filings/{rel}"
    filing = Filing(
        ticker=ticker,
        cik=1,
        form=form,
        filing_date=date.fromisoformat(Path(rel).stem.split("_")[1]),
        url=f"https://www.sec.gov/Archives/{rel}",
        local_path=path,
        source=Source(vendor="snapshot", ref=path),
    )
    fmt = "markdown" if rel.endswith(".md") else "html"
    content = (root / path).read_text(encoding="utf-8")
    doc = FilingDocument(filing=filing, format=fmt, content=content, source=filing.source)
    return {s.item: s.text for s in parse_document(doc)}


@pytest.fixture(scope="module")
def ten_ks(snapshot_dir: Path) -> dict[str, dict[str, str]]:
    return {t: _sections(snapshot_dir, rel, t, "10-K") for t, rel in TEN_KS.items()}


@pytest.fixture(scope="module")
def aapl_8k(snapshot_dir: Path) -> dict[str, str]:
    return _sections(snapshot_dir, AAPL_8K, "AAPL", "8-K")


# --- risk factors on the real 10-Ks -------------------------------------------------------------


def test_aapl_first_risk_factor(ten_ks: dict[str, dict[str, str]]) -> None:
    first = risk_factors(ten_ks["AAPL"]["1A"])[0]
    assert first.heading.startswith(
        "The Company’s operations and performance depend significantly on global and regional economic "
        "conditions"
    )
    assert first.category == "Macroeconomic and Industry Risks"
    assert first.summary.startswith("The Company has international operations with sales outside the U.S.")


@pytest.mark.parametrize("ticker", WITH_RISKS)
def test_five_sentence_headings_per_10k(ten_ks: dict[str, dict[str, str]], ticker: str) -> None:
    found = risk_factors(ten_ks[ticker]["1A"])
    assert len(found) == 5
    assert len({r.heading for r in found}) == 5
    for r in found:
        # a heading longer than 300 chars is clipped at a word and marked with "…"
        assert r.heading.endswith(".") or (r.heading.endswith("…") and len(r.heading) > 250), r.heading
        assert r.heading[0].isupper() and len(r.heading.split()) >= 4 and len(r.heading) <= 300
        assert not r.heading.isupper() and not r.heading.startswith(("•", "·", "Risks Related"))
        for boiler in ("described below", "read in conjunction", "forward-looking", "following factors"):
            assert boiler not in r.heading.lower()
        assert r.summary and len(r.summary) <= 240 and r.summary != r.heading
        assert r.category and r.category.lower() != "risk factors"


FIRST_HEADINGS = {  # ticker: (start of the first heading, its category)
    "AMZN": ("We Face Intense Competition.", "Business and Industry Risks"),
    "GOOGL": ("We generate a significant portion of our revenues", "Risks Specific to our Company"),
    "META": ("If we fail to retain existing users", "Risks Related to Our Product Offerings"),
    "MSFT": ("We face intense competition across all markets", "STRATEGIC AND COMPETITIVE RISKS"),
    "NVDA": (
        "Failure to meet the evolving needs of our industry",
        "Risks Related to Our Industry and Markets",
    ),
    "TSLA": (
        "We may experience delays in launching and ramping",
        "Risks Related to Our Ability to Grow Our Business",
    ),
}


@pytest.mark.parametrize("ticker", sorted(FIRST_HEADINGS))
def test_first_heading_per_10k(ten_ks: dict[str, dict[str, str]], ticker: str) -> None:
    first, category = FIRST_HEADINGS[ticker]
    found = risk_factors(ten_ks[ticker]["1A"], limit=1)
    assert len(found) == 1
    assert found[0].heading.startswith(first)
    assert found[0].category == category


def test_amzn_title_case_headings_in_order(ten_ks: dict[str, dict[str, str]]) -> None:
    headings = [r.heading for r in risk_factors(ten_ks["AMZN"]["1A"], limit=3)]
    assert headings == [
        "We Face Intense Competition.",
        "Our Expansion into New Products, Services, Technologies, and Geographic Regions Subjects Us to "
        "Additional Risks.",
        "Our International Operations Expose Us to a Number of Risks.",
    ]


def test_summary_lists_are_not_risk_factors(ten_ks: dict[str, dict[str, str]]) -> None:
    # NVDA and META open Item 1A with a bullet summary of the same risks; the full headings come after it
    nvda = risk_factors(ten_ks["NVDA"]["1A"], limit=2)
    assert nvda[0].summary.startswith("Our accelerated computing platforms experience rapid changes")
    assert nvda[1].heading == "Competition could adversely impact our market share and financial results."
    meta = risk_factors(ten_ks["META"]["1A"], limit=2)
    assert meta[1].heading.startswith("We generate substantially all of our revenue from advertising.")
    assert meta[1].summary.startswith(
        "Substantially all of our revenue is currently generated from marketers"
    )


def test_msft_wrapped_markdown(ten_ks: dict[str, dict[str, str]]) -> None:
    found = risk_factors(ten_ks["MSFT"]["1A"])
    headings = [r.heading for r in found]
    assert "Competition in the technology sector" not in " ".join(headings)  # a sub-topic line
    assert not any(h.startswith(("For all of these reasons", "The competitive pressures")) for h in headings)
    # the PDF conversion glued this heading to its body: the heading is its first sentence only
    assert headings[1] == "Our focus on cloud-based and AI services presents execution and competitive risks."
    assert found[1].summary.startswith(
        "We are incurring significant costs to build and maintain infrastructure"
    )
    assert found[2].category == "RISKS RELATING TO THE EVOLUTION OF OUR BUSINESS"
    # wrapped lines are joined: the first summary runs past the hard line break of the Markdown
    assert found[0].summary.startswith("Our competitors range in size from diversified global companies")
    assert "whose narrower product lines" in found[0].summary


def test_aapl_bodies_are_not_headings(ten_ks: dict[str, dict[str, str]]) -> None:
    headings = [r.heading for r in risk_factors(ten_ks["AAPL"]["1A"])]
    assert headings[1].startswith("The Company’s business can be impacted by political events")
    assert not any(
        h.startswith(("The Company has international operations", "Political events")) for h in headings
    )
    assert [r.category for r in risk_factors(ten_ks["AAPL"]["1A"], limit=4)][-1] == "Business Risks"


def test_wfc_incorporated_by_reference_gives_nothing(ten_ks: dict[str, dict[str, str]]) -> None:
    assert risk_factors(ten_ks["WFC"]["1A"]) == []


# --- business summaries -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("ticker", "first"),
    [
        ("AAPL", "The Company designs, manufactures and markets smartphones"),
        ("AMZN", "We seek to be Earth’s most customer-centric company."),  # forward-looking paragraph skipped
        ("GOOGL", "Alphabet is a collection of businesses"),  # the founders' letter quote is skipped
        ("META", "Our mission is to build the future of human connection"),
        ("MSFT", "Microsoft is a technology company"),
        ("NVDA", "NVIDIA pioneered accelerated computing"),
        ("TSLA", "We design, develop, manufacture, sell and lease high-performance fully electric vehicles"),
        ("WFC", "Wells Fargo & Company is a corporation organized under the laws of Delaware"),
    ],
)
def test_business_summary(ten_ks: dict[str, dict[str, str]], ticker: str, first: str) -> None:
    summary = business_summary(ten_ks[ticker]["1"])
    assert len(summary) == 2
    assert summary[0].startswith(first)
    for sentence in summary:
        assert sentence.endswith(".") and len(sentence) <= 400
        assert "forward-looking" not in sentence and "Item 1A" not in sentence


def test_msft_summary_joins_wrapped_lines(ten_ks: dict[str, dict[str, str]]) -> None:
    summary = business_summary(ten_ks["MSFT"]["1"])
    assert (
        summary[1]
        == "Our mission is to empower every person and every organization on the planet to achieve more."
    )
    assert business_summary(ten_ks["MSFT"]["1"], max_sentences=1) == summary[:1]


# --- 8-K excerpts -------------------------------------------------------------------------------


def test_aapl_8k_results_excerpt(aapl_8k: dict[str, str]) -> None:
    excerpt = event_excerpt(aapl_8k["2.02"])
    assert excerpt is not None
    assert excerpt.startswith(
        "On October 31, 2024, Apple Inc. (“Apple”) issued a press release regarding Apple’s"
    )
    assert "financial results for its fourth fiscal quarter ended September 28, 2024." in excerpt
    assert "shall not be deemed" not in excerpt and "Item 2.02" not in excerpt
    assert len(excerpt) <= 300


def test_aapl_8k_exhibit_list_is_none(aapl_8k: dict[str, str]) -> None:
    assert event_excerpt(aapl_8k["9.01"]) is None


# --- constructed cases --------------------------------------------------------------------------

ITEM_1A = "\n".join(
    [
        "Item 1A. Risk Factors",
        "Widgetco | Annual Report",  # a running header, repeated on every page
        "Our business could be harmed by the risks described below and by risks we do not know about yet.",
        "Any of them, alone or together, could make the price of our stock fall and investors could lose "
        "part or all of their investment; this section should be read in conjunction with Item 7 and notes.",
        "Risk Factors Summary",
        "•Demand for widgets may decline.",
        "MARKET RISKS",
        "Demand for our widgets may decline, which could adversely affect our results of operations.",
        "Widget demand",
        "Our widgets are sold to hobbyists whose spending falls in recessions, and a recession could reduce",
        "Widgetco | Annual Report",
        "our revenue materially. Widget prices are set by a small number of distributors.",
        "12",
        "Table of Contents",
        "Distributors may also lower prices, and we have little power to resist such changes over time.",
        "For all of these reasons, our revenue may decline and our business could be harmed.",
        "We Depend On A Single Widget Factory",
        "All of our widgets are made in one factory in Ohio, and any fire, flood or strike there would stop "
        "our production for months and harm our relationships with the distributors who resell our widgets "
        "to many hobbyists across North America and Europe. We have no second factory.",
        "Widgetco | Annual Report",
    ]
)


def test_constructed_item_1a() -> None:
    found = risk_factors(ITEM_1A, limit=10)
    assert found == [
        RiskFactor(
            heading="Demand for our widgets may decline, which could adversely affect our results of "
            "operations.",
            summary="Our widgets are sold to hobbyists whose spending falls in recessions, and a recession "
            "could reduce our revenue materially.",
            category="MARKET RISKS",
        ),
        RiskFactor(
            heading="We Depend On A Single Widget Factory.",
            summary="All of our widgets are made in one factory in Ohio, and any fire, flood or strike there "
            "would stop our production for months and harm our relationships with the distributors who "
            "resell our widgets to many hobbyists across North America…",
            category="MARKET RISKS",
        ),
    ]
    assert len(found[1].summary) <= 240
    assert risk_factors(ITEM_1A, limit=1) == found[:1]
    assert risk_factors(ITEM_1A, limit=0) == []


def test_long_heading_is_clipped_at_a_word() -> None:
    long_heading = "Changes in " + ", ".join(f"rule number {n}" for n in range(28)) + " could harm us."
    text = f"Item 1A. Risk Factors\n{long_heading}\n{'Our business is regulated in many places. ' * 20}"
    heading = risk_factors(text)[0].heading
    assert len(heading) <= 300 and heading.endswith("…") and heading.startswith("Changes in rule number 0")
    assert heading[:-1] == long_heading[: len(heading) - 1].rstrip(", ")


def test_business_summary_skips_headings_quotes_and_cross_references() -> None:
    text = "\n".join(
        [
            "Item 1. Business",
            "GENERAL",
            'Our founder once wrote, "We will build the best widgets in the whole world."',
            "See Part II, Item 8 of this Form 10-K for our segment information.",
            "Widgetco makes widgets for hobbyists in the U.S. and Canada. It sells to the U.S. Army too.",
            'Its motto is "Build well. Sell fair." Nothing else is said.',
        ]
    )
    assert business_summary(text) == [
        "Widgetco makes widgets for hobbyists in the U.S. and Canada.",
        "It sells to the U.S. Army too.",  # an initialism before a name does not end the sentence
    ]
    assert business_summary(text, max_sentences=3)[2] == 'Its motto is "Build well. Sell fair."'
    assert business_summary(
        "Item 1. Business\nWidgetco sells in the U.S. As a result, it needs U.S. buyers."
    ) == [
        "Widgetco sells in the U.S.",
        "As a result, it needs U.S. buyers.",
    ]
    assert business_summary(text, max_sentences=1) == [
        "Widgetco makes widgets for hobbyists in the U.S. and Canada."
    ]


def test_event_excerpt_drops_boilerplate_and_respects_max_chars() -> None:
    text = "\n".join(
        [
            "Item 8.01 Other Events.",
            "Widget Recall",
            "On May 1, 2025, Widgetco announced a voluntary recall of its model X widget.1 The recall covers "
            "about 10,000 units sold in 2024.",
            "This Current Report contains forward-looking statements within the meaning of the Act.",
            "The information in this Item 8.01 shall not be deemed “filed” for purposes of Section 18.",
            "Exhibit 99.1 attached hereto shall not be deemed “filed” for purposes of Section 18.",
        ]
    )
    assert event_excerpt(text) == (
        "On May 1, 2025, Widgetco announced a voluntary recall of its model X widget. "
        "The recall covers about 10,000 units sold in 2024."
    )
    short = event_excerpt(text, max_chars=40)
    assert short is not None and len(short) <= 40 and short.endswith("…")
    assert event_excerpt("Item 8.01 Other Events.\nWidget Recall") is None


def test_financial_statements_item_with_content_is_kept() -> None:
    text = "\n".join(
        [
            "Item 9.01 Financial Statements and Exhibits.",
            "(a) The audited financial statements of Gadget Inc. are filed as Exhibit 99.2 to this report.",
            "(d) Exhibits",
            "Exhibit No. | Description",
            "99.2 | Audited financial statements of Gadget Inc.",
            "104 | Cover Page Interactive Data File (embedded within the Inline XBRL document)",
        ]
    )
    assert (
        event_excerpt(text)
        == "The audited financial statements of Gadget Inc. are filed as Exhibit 99.2 to this report."
    )


@pytest.mark.parametrize("odd", ["", "\n\n", "Item 1A. Risk Factors", "....", "•", "x" * 5000, "| | |\n12\n"])
def test_odd_text_never_raises(odd: str) -> None:
    assert risk_factors(odd) == []
    assert business_summary(odd) == []
    assert event_excerpt(odd) is None


def test_risk_factor_is_frozen() -> None:
    rf = RiskFactor(heading="Demand may fall.", summary="")
    with pytest.raises(ValidationError):
        rf.heading = "changed"  # type: ignore[misc]
    assert rf.category is None
