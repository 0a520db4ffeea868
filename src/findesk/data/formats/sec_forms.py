"""Official SEC item codes and titles for 8-K, 10-K and 10-Q.

Titles follow the forms' own wording (Form 8-K General Instructions; Form 10-K and 10-Q Parts).
10-Q items are keyed by part: ``I-2`` is Part I Item 2 (MD&A), ``II-1A`` is Part II Item 1A.
"""

from __future__ import annotations

EIGHT_K_ITEMS: dict[str, str] = {
    "1.01": "Entry into a Material Definitive Agreement",
    "1.02": "Termination of a Material Definitive Agreement",
    "1.03": "Bankruptcy or Receivership",
    "1.04": "Mine Safety - Reporting of Shutdowns and Patterns of Violations",
    "1.05": "Material Cybersecurity Incidents",
    "2.01": "Completion of Acquisition or Disposition of Assets",
    "2.02": "Results of Operations and Financial Condition",
    "2.03": "Creation of a Direct Financial Obligation or an Obligation under an Off-Balance Sheet "
    "Arrangement of a Registrant",
    "2.04": "Triggering Events That Accelerate or Increase a Direct Financial Obligation or an "
    "Obligation under an Off-Balance Sheet Arrangement",
    "2.05": "Costs Associated with Exit or Disposal Activities",
    "2.06": "Material Impairments",
    "3.01": "Notice of Delisting or Failure to Satisfy a Continued Listing Rule or Standard; "
    "Transfer of Listing",
    "3.02": "Unregistered Sales of Equity Securities",
    "3.03": "Material Modification to Rights of Security Holders",
    "4.01": "Changes in Registrant's Certifying Accountant",
    "4.02": "Non-Reliance on Previously Issued Financial Statements or a Related Audit Report or "
    "Completed Interim Review",
    "5.01": "Changes in Control of Registrant",
    "5.02": "Departure of Directors or Certain Officers; Election of Directors; Appointment of Certain "
    "Officers; Compensatory Arrangements of Certain Officers",
    "5.03": "Amendments to Articles of Incorporation or Bylaws; Change in Fiscal Year",
    "5.04": "Temporary Suspension of Trading Under Registrant's Employee Benefit Plans",
    "5.05": "Amendment to Registrant's Code of Ethics, or Waiver of a Provision of the Code of Ethics",
    "5.06": "Change in Shell Company Status",
    "5.07": "Submission of Matters to a Vote of Security Holders",
    "5.08": "Shareholder Director Nominations",
    "6.01": "ABS Informational and Computational Material",
    "6.02": "Change of Servicer or Trustee",
    "6.03": "Change in Credit Enhancement or Other External Support",
    "6.04": "Failure to Make a Required Distribution",
    "6.05": "Securities Act Updating Disclosure",
    "6.06": "Static Pool",
    "6.10": "Alternative Filings of Asset-Backed Issuers",
    "7.01": "Regulation FD Disclosure",
    "8.01": "Other Events",
    "9.01": "Financial Statements and Exhibits",
}

TEN_K_ITEMS: dict[str, str] = {
    "1": "Business",
    "1A": "Risk Factors",
    "1B": "Unresolved Staff Comments",
    "1C": "Cybersecurity",
    "2": "Properties",
    "3": "Legal Proceedings",
    "4": "Mine Safety Disclosures",
    "5": "Market for Registrant's Common Equity, Related Stockholder Matters and Issuer Purchases of "
    "Equity Securities",
    "6": "[Reserved]",
    "7": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "7A": "Quantitative and Qualitative Disclosures About Market Risk",
    "8": "Financial Statements and Supplementary Data",
    "9": "Changes in and Disagreements with Accountants on Accounting and Financial Disclosure",
    "9A": "Controls and Procedures",
    "9B": "Other Information",
    "9C": "Disclosure Regarding Foreign Jurisdictions that Prevent Inspections",
    "10": "Directors, Executive Officers and Corporate Governance",
    "11": "Executive Compensation",
    "12": "Security Ownership of Certain Beneficial Owners and Management and Related Stockholder Matters",
    "13": "Certain Relationships and Related Transactions, and Director Independence",
    "14": "Principal Accountant Fees and Services",
    "15": "Exhibits and Financial Statement Schedules",
    "16": "Form 10-K Summary",
}

TEN_Q_ITEMS: dict[str, str] = {
    "I-1": "Financial Statements",
    "I-2": "Management's Discussion and Analysis of Financial Condition and Results of Operations",
    "I-3": "Quantitative and Qualitative Disclosures About Market Risk",
    "I-4": "Controls and Procedures",
    "II-1": "Legal Proceedings",
    "II-1A": "Risk Factors",
    "II-2": "Unregistered Sales of Equity Securities and Use of Proceeds",
    "II-3": "Defaults Upon Senior Securities",
    "II-4": "Mine Safety Disclosures",
    "II-5": "Other Information",
    "II-6": "Exhibits",
}


def base_form(form: str) -> str:
    """``10-K/A`` -> ``10-K``; ``10-K405`` -> ``10-K``; ``8-K/A`` -> ``8-K``."""
    upper = form.strip().upper().removesuffix("/A")
    if upper.startswith("10-K"):
        return "10-K"
    if upper.startswith("10-Q"):
        return "10-Q"
    return upper


def items_for_form(form: str) -> dict[str, str]:
    """The official item table of a form (empty for forms without items)."""
    return {"10-K": TEN_K_ITEMS, "10-Q": TEN_Q_ITEMS, "8-K": EIGHT_K_ITEMS}.get(base_form(form), {})


def normalize_item(form: str, item: str) -> str | None:
    """A user's item spelling -> the canonical key, or None when the form has no such item.

    Accepts ``1a``, ``Item 1A``, ``ITEM 7.``; for 10-Q also ``2`` (Part I Item 2, the first part that
    has it) and ``1A`` (Part II Item 1A, the only one), ``II-1A``, ``part ii item 1a``.
    """
    table = items_for_form(form)
    raw = item.strip().upper().replace("ITEM", "").replace("PART", "").strip().rstrip(".").strip()
    raw = " ".join(raw.split())
    if base_form(form) == "10-Q":
        parts = raw.replace(",", " ").replace("-", " ").split()
        if len(parts) == 2 and parts[0] in ("I", "II"):
            key = f"{parts[0]}-{parts[1]}"
            return key if key in table else None
        for part in ("I", "II"):
            if f"{part}-{raw}" in table:
                return f"{part}-{raw}"
        return None
    if base_form(form) == "8-K" and raw.isdigit() and len(raw) == 3:  # "202" -> "2.02"
        raw = f"{raw[0]}.{raw[1:]}"
    return raw if raw in table else None


def item_title(form: str, item: str) -> str | None:
    return items_for_form(form).get(item)
