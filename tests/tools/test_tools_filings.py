"""Filing tools on the real snapshot: every answer cites form, filing date and EDGAR URL."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date

from findesk.data.models import FilingSection
from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]

AAPL_10K_URL = "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"


def test_nvda_filing_list_cites_each_filing(call: Call) -> None:
    out = call("list_filings", symbol="NVDA", limit=5)
    assert out.ok, out.summary
    lines = out.summary.splitlines()
    assert lines[0] == "5 SEC filings of NVDA (CIK 1045810), newest first:"
    assert (
        "- 2025-08-27 10-Q period 2025-07-27: 0001045810-25-000209 "
        "https://www.sec.gov/Archives/edgar/data/1045810/000104581025000209/nvda-20250727.htm"
    ) in lines
    assert any(line.startswith("- 2025-08-27 8-K period 2025-08-27 items 2.02, 9.01:") for line in lines)


def test_form_filter(call: Call) -> None:
    out = call("list_filings", symbol="NVDA", forms=["10-k", "10-Q"], limit=4)
    assert out.ok, out.summary
    assert {f["form"] for f in out.payload} == {"10-K", "10-Q"}
    assert out.payload[0]["filing_date"] == "2025-08-27"


def test_an_earlier_as_of_hides_later_filings(call: Call) -> None:
    out = call("list_filings", at=date(2024, 6, 30), symbol="NVDA", limit=50)
    assert out.ok, out.summary
    dates = [f["filing_date"] for f in out.payload]
    assert len(dates) == 50 and max(dates) <= "2024-06-30"
    assert "2025-" not in out.summary
    # a long list stays whole and readable: accession numbers instead of URLs
    assert len(out.summary) < 3_500 and "… " not in out.summary


def test_aapl_risk_factors_section_with_citation(call: Call) -> None:
    out = call("get_filing_section", symbol="AAPL", form="10-k", item="1a")
    assert out.ok, out.summary
    section = out.result.unwrap()
    assert isinstance(section, FilingSection)
    assert (section.item, section.title, section.filing_date) == ("1A", "Risk Factors", date(2024, 11, 1))
    first = out.summary.splitlines()[0]
    cite = f"Cite: AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors) — {AAPL_10K_URL} (period 2024-09-28)"
    assert first == cite
    assert "Macroeconomic and Industry Risks" in out.summary
    assert f"of {len(section.text):,} characters shown" in out.summary
    assert len(out.summary) < 2_000 and out.payload["text"] == section.text


def test_section_is_point_in_time(call: Call) -> None:
    # the FY2024 10-K (filed 2024-11-01) is not public yet; the snapshot holds no older AAPL 10-K text
    out = call("get_filing_section", at=date(2024, 6, 30), symbol="AAPL", form="10-K", item="1A")
    assert out.error_code == "no_data"
    assert "2024-11-01" not in out.summary and "Do not estimate" in out.summary


def test_10q_item_without_its_part_and_a_bad_item(call: Call) -> None:
    out = call("get_filing_section", symbol="NVDA", form="10-Q", item="1A")
    assert out.ok, out.summary
    assert out.summary.startswith("Cite: NVDA 10-Q filed 2025-08-27, Item II-1A (Risk Factors) — https://")
    bad = call("get_filing_section", symbol="NVDA", form="10-Q", item="12")
    assert bad.error_code == "invalid_input" and "II-1A" in bad.summary


def test_nvda_material_events_have_official_titles_and_links(call: Call) -> None:
    out = call("get_material_events", symbol="NVDA", limit=2)
    assert out.ok, out.summary
    assert ("2.02", "Results of Operations and Financial Condition") in {
        (e["item"], e["title"]) for e in out.payload
    }
    assert (
        "- 2025-08-27 8-K (event 2025-08-27): Item 2.02 Results of Operations and Financial Condition; "
        "Item 9.01 Financial Statements and Exhibits — "
        "https://www.sec.gov/Archives/edgar/data/1045810/000104581025000207/nvda-20250827.htm"
    ) in out.summary.splitlines()
    assert "Item 5.02 Departure of Directors" in out.summary


def test_xbrl_facts_show_values_periods_and_filings(call: Call) -> None:
    out = call("get_xbrl_facts", symbol="NVDA", concept="Revenues", limit=4)
    assert out.ok, out.summary
    assert len(out.payload) == 4 and all(f["filed"] <= "2025-08-29" for f in out.payload)
    assert (
        "- 46,743,000,000 USD, 2025-04-28 to 2025-07-27 (~3 months) "
        "(10-Q for FY2026 Q2 filed 2025-08-27, accession 0001045810-25-000209)"
    ) in out.summary.splitlines()
    assert (
        "https://www.sec.gov/Archives/edgar/data/1045810/000104581025000209/0001045810-25-000209-index.htm"
        in out.summary
    )
    assert "Source: snapshot:sec/companyfacts/CIK0001045810.json" in out.summary


def test_xbrl_facts_are_point_in_time(call: Call) -> None:
    out = call("get_xbrl_facts", at=date(2025, 8, 26), symbol="NVDA", concept="Revenues", limit=40)
    assert out.ok, out.summary
    assert max(f["filed"] for f in out.payload) == "2025-05-28"
    assert "46,743,000,000" not in out.summary


def test_unknown_concept_is_an_error_not_a_guess(call: Call) -> None:
    out = call("get_xbrl_facts", symbol="NVDA", concept="RevenuesFromMars")
    assert not out.ok and out.error_code in ("not_found", "no_data")
