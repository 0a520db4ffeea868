"""10-K / 10-Q Item splitter on small hand-made texts: heading variants, TOC skipping, 10-Q Parts."""

from __future__ import annotations

from findesk.knowledge.filings.items import split_items

BODY = "Substantial text about the business. " * 40


def _keys(text: str, form: str = "10-K") -> list[str]:
    return [it.item for it in split_items(text, form)]


def test_toc_is_skipped_and_body_headings_chosen() -> None:
    toc = "\n".join(
        [
            "TABLE OF CONTENTS",
            "Item 1. | Business | 3",
            "Item 1A. | Risk Factors | 9",
            "Item 7. | Management's Discussion and Analysis | 30",
            "Item 8. | Financial Statements and Supplementary Data | 45",
        ]
    )
    body = "\n".join(
        [
            "ITEM 1. BUSINESS",
            BODY,
            "ITEM 1A — RISK FACTORS",
            "Our business faces risk. " * 30,
            "Item 7: Management's Discussion and Analysis of Financial Condition",
            BODY,
            "Item 8.",
            "Financial Statements and Supplementary Data",
            BODY,
        ]
    )
    items = split_items(toc + "\n" + body, "10-K")
    assert [it.item for it in items] == ["1", "1A", "7", "8"]
    assert items[1].title == "Risk Factors"  # official title, not the document's "RISK FACTORS"
    assert items[1].text.startswith("ITEM 1A — RISK FACTORS\nOur business faces risk.")
    assert "ITEM 1A" not in items[0].text  # each item ends where the next heading starts
    assert items[3].text.startswith("Item 8.\nFinancial Statements")  # heading split across lines
    assert all(it.start > len(toc) for it in items)


def test_cross_references_page_headers_and_8k_codes_are_not_headings() -> None:
    text = "\n".join(
        [
            "Item 1. Business",
            BODY,
            "Item 7 of this report discusses results.",  # cross-reference
            "Item 2.02 Results of Operations",  # an 8-K item code
            "ITEM 1. BUSINESS (CONTINUED)",  # running page header
            BODY,
            "Item 1A. Risk Factors",
            BODY,
            "PART I Item 1A",  # bare running header inside the item
            BODY,
            "Item 1B. Unresolved Staff Comments",
            "None.",
            "PART II",
        ]
    )
    items = split_items(text, "10-K")
    assert [it.item for it in items] == ["1", "1A", "1B"]
    assert "PART I Item 1A" in items[1].text
    assert items[2].text == "Item 1B. Unresolved Staff Comments\nNone."  # trailing Part line dropped


def test_combined_heading_and_no_separator_variants() -> None:
    text = "\n".join(
        ["Items 1 and 2. Business and Properties", BODY, "Item 3.Legal Proceedings", BODY, "ITEM10 Directors"]
    )
    items = split_items(text, "10-K")
    assert [it.item for it in items] == ["1", "2", "3", "10"]
    assert items[0].text == items[1].text


def test_10q_parts_are_assigned_and_missing_items_not_invented() -> None:
    text = "\n".join(
        [
            "PART I — FINANCIAL INFORMATION",
            "Item 1. Financial Statements",
            BODY,
            "Item 2. Management's Discussion and Analysis of Financial Condition and Results of Operations",
            BODY,
            "PART II — OTHER INFORMATION",
            "Item 1. Legal Proceedings",
            BODY,
            "Item 1A. Risk Factors",
            BODY,
            "Item 6. Exhibits",
            BODY,
        ]
    )
    assert _keys(text, "10-Q") == ["I-1", "I-2", "II-1", "II-1A", "II-6"]


def test_other_forms_and_empty_text() -> None:
    assert split_items("Item 1. Business\n" + BODY, "8-K") == []
    assert split_items("", "10-K") == []
    assert split_items("no headings at all", "10-K") == []


def test_toc_rows_alone_are_not_sections() -> None:
    # A 10-K whose body uses a cross-reference index instead of Item headings: nothing is invented.
    toc = "Item 1. | Business | 3\nItem 1A. | Risk Factors | 9\nItem 7. | Management's Discussion | 30\n"
    assert split_items(toc + "Risk Factors\n" + BODY, "10-K") == []
