"""Finance vocabulary for lexical query expansion: the words filings use for what analysts ask about.

Rules this module keeps:
- A question names a concept in an analyst's words ("capex", "working capital", "quick ratio"); the filing
  states it in its statements' own line items ("purchases of property, plant and equipment", "total current
  assets"). Each entry maps a pattern of the first to the words of the second, so BM25 can match the page that
  holds the figure. Entries are general accounting and filing vocabulary, not tied to any company.
- Only the lexical query is expanded; the dense query is the question as asked.
- Naming a financial statement adds that statement's title and its standard captions.
"""

from __future__ import annotations

import re

BALANCE_SHEET = (
    "consolidated balance sheets total current assets total current liabilities total assets "
    "total liabilities shareholders equity"
)
INCOME_STATEMENT = (
    "consolidated statements of income operations net sales revenues cost of sales gross profit "
    "operating income net income earnings per share"
)
CASH_FLOW_STATEMENT = (
    "consolidated statements of cash flows operating activities investing activities financing activities "
    "depreciation amortization"
)

_ENTRIES: tuple[tuple[str, str], ...] = (
    # the statements themselves
    (r"balance sheets?|statements? of financial (?:position|condition)", BALANCE_SHEET),
    (
        r"income statements?|statements? of (?:income|operations|earnings)|\bp&l\b|profit and loss",
        INCOME_STATEMENT,
    ),
    (r"cash ?flows? statements?|statements? of cash ?flows?", CASH_FLOW_STATEMENT),
    # liquidity and leverage
    (r"working capital", "total current assets total current liabilities " + BALANCE_SHEET),
    (
        r"quick ratio|current ratio|liquidity",
        "cash and cash equivalents marketable securities receivables total current assets "
        "total current liabilities",
    ),
    (r"\bdebt\b|borrowings?|leverage", "long-term debt total debt borrowings notes payable debt maturities"),
    (r"credit agreement|revolving|credit facilit", "revolving credit agreement credit facility borrow"),
    (
        r"shareholders?|stockholders?|book value|liquidat",
        "total shareholders equity total assets total liabilities",
    ),
    # investment and assets
    (
        r"capital[- ]intensive|capex|capital expenditures?|capital spending",
        "capital expenditures purchases of property plant and equipment additions to property and equipment "
        "property plant and equipment net "
        "total assets depreciation",
    ),
    (r"fixed assets?|pp&e|\bppn?e\b|property, plant", "property plant and equipment net"),
    (r"return on assets|\broa\b|asset turnover", "net income revenues total assets"),
    (r"return on equity|\broe\b", "net income total shareholders equity"),
    # income statement concepts
    (r"top ?line|revenues?|\bsales\b", "revenues net sales total revenues"),
    (r"gross margin|gross profit", "gross margin gross profit cost of sales net sales"),
    (
        r"\bcogs\b|cost of goods|cost of sales|cost of revenue",
        "cost of sales cost of revenue cost of goods sold",
    ),
    (r"operating margin|operating income|operating profit|\bebit\b", "operating income revenues"),
    (r"ebitda", "operating income depreciation and amortization"),
    (
        r"net income|net earnings|net profit|profit margin|bottom ?line",
        "net income net earnings attributable",
    ),
    (r"\beps\b|per share", "earnings per share diluted"),
    (r"effective tax rate|tax rate|income tax", "effective tax rate income taxes statutory rate"),
    # working-capital cycle
    (r"\bdpo\b|days payable|accounts payable", "accounts payable cost of sales"),
    (r"\bdso\b|days sales|receivables", "accounts receivable net revenues"),
    (r"inventor|\bdio\b", "inventories merchandise inventories cost of sales"),
    # cash flows and capital return
    (
        r"operating cash flow|cash flows? from operations|cash from operations|free cash flow",
        "net cash provided by operating activities capital expenditures",
    ),
    (r"dividend|payout", "dividends paid cash dividends declared"),
    (r"repurchas|buybacks?", "share repurchases repurchased common stock"),
    # business description and disclosures
    (
        r"segments?|product categor|service categor|business lines?",
        "segment revenues by product disaggregation",
    ),
    (r"geograph|regions?\b|countr|international", "geographic region united states international country"),
    (r"legal|lawsuits?|litigation|\bsued\b", "legal proceedings litigation contingencies lawsuits claims"),
    (r"acqui|mergers?\b|takeover", "acquisitions acquired business combinations purchase price"),
    (r"customers?|clients?", "customers revenue"),
    (r"industry|operates? in|line of business", "business overview industry segments"),
    (r"cyclical|seasonal", "cyclical seasonal economic conditions demand"),
    (r"\bvar\b|value[- ]at[- ]risk", "value-at-risk var average total"),
    (r"guidance|outlook|forecast", "guidance outlook full year expects"),
    (r"restructuring|layoffs?|severance", "restructuring severance charges liability"),
    (r"spin[- ]?off|spinning off|separation|divest", "separation spin-off distribution divestiture"),
    (r"stores?\b|locations?\b", "stores number of stores store count"),
    (
        r"\bceo\b|\bcfo\b|chief executive|chief financial|executive officers?",
        "chief executive officer appointed",
    ),
    (
        r"registered|listed on|trading symbol|exchange",
        "title of each class trading symbol exchange registered",
    ),
    (r"retain|retention|attrition|churn", "retention loyalty attrition"),
    (r"risk factors?|\brisks?\b", "risk factors"),
)
_COMPILED = tuple((re.compile(pattern, re.IGNORECASE), words) for pattern, words in _ENTRIES)


def expansions(query: str) -> list[str]:
    """The filing vocabulary for every concept the query names, in table order, without repeats."""
    seen: list[str] = []
    for pattern, words in _COMPILED:
        if pattern.search(query) and words not in seen:
            seen.append(words)
    return seen


def expand(query: str) -> str:
    """The query followed by the filing vocabulary of the concepts it names."""
    extra = expansions(query)
    return " ".join([query, *extra]) if extra else query
