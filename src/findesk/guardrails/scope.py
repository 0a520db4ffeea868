"""The topic check: findesk answers research questions about markets, companies, the economy, crypto
and sanctions; a poem, a recipe or a trivia question is declined politely.

Rules this module keeps:
- Pure; never raises. Matching is on folded text (``text_fold.fold``).
- Two signals. A *finance anchor* (a market word, a ticker-like symbol, a dollar or percent figure, a
  form name, a known company or series name the caller passes in) puts a question in scope whatever
  else it says: "write a summary of AAPL's risks" is research. An *off-topic form* (creative writing,
  jokes, recipes, homework, programming help, translation, general trivia) without an anchor is
  declined; a question with neither is declined only when the caller says so (``strict``), since a
  follow-up ("and the year before?") may carry its subject from the session.
- The decline says what findesk does instead, in one message.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from findesk.guardrails.text_fold import fold

DECLINE = (
    "That is outside what findesk does, so it is politely declined. findesk is a research desk for US "
    "markets: it answers questions about listed companies and their filings, market data, the economy "
    "(FRED series), crypto assets and sanctions screening, each with sources, e.g. 'What are the main "
    "risks in AAPL's latest 10-K?', 'How have 10-year yields moved this year?' or 'Is this wallet on "
    "the OFAC list?'."
)

_FINANCE = (
    "stock|stocks|share|shares|equity|equities|market|markets|price|prices|priced|pricing|trading|traded"
    "|trade|ticker|tickers|index|indices|indexes|etf|etfs|fund|funds|mutual fund|bond|bonds|yield|yields"
    "|treasury|treasuries|rate|rates|interest|inflation|cpi|pce|gdp|unemployment|payrolls|jobs report"
    "|fed|fomc|federal reserve|recession|economy|economic|macro|fred|revenue|revenues|sales|earnings|eps"
    "|income|profit|profits|loss|losses|margin|margins|ebitda|ebit|cash flow|cash|debt|leverage|assets"
    "|liabilities|balance sheet|dividend|dividends|buyback|buybacks|repurchase|valuation|p e|pe ratio"
    "|multiple|multiples|market cap|capitalization|volatility|beta|alpha|return|returns|performance"
    "|outperform|guidance|forecast|outlook|quarter|quarterly|fiscal|annual|10 k|10 q|8 k|20 f|s 1|13f"
    "|form 4|filing|filings|sec|edgar|proxy|insider|insiders|analyst|analysts|ipo|merger|acquisition"
    "|spin off|bankruptcy|credit|spread|spreads|default|liquidity|crypto|cryptocurrency|bitcoin|btc"
    "|ethereum|eth|token|tokens|stablecoin|usdt|usdc|defi|tvl|wallet|address|blockchain|on chain"
    "|onchain|exchange|nasdaq|nyse|s p 500|s p|dow|russell|vix|sanction|sanctions|ofac|sdn|aml|kyc"
    "|compliance|segment|segments|risk|risks|risk factors|business|company|companies|corporation|inc"
    "|sector|industry|competitors|peers|customers|supplier|suppliers|tariff|tariffs|oil|gold|commodity"
    "|commodities|currency|currencies|dollar|euro|yen|forex|fx|housing|mortgage|mortgages|cpi|ppi"
    "|consumer|sentiment|reddit|stocktwits|wallstreetbets|wsb|news|headline|headlines|transcript"
    "|earnings call|ceo|cfo|management|board|shareholders|shareholder|investor|investors|portfolio"
    "|options|futures|derivative|derivatives|hedge|short interest|float|split|splits|capex|r d|opex"
    "|goodwill|impairment|amortization|depreciation|tax|taxes|eps|roe|roa|roic|fcf|growth|cagr|yoy"
    "|bank|banks|banking|loan|loans|deposit|deposits|lending|financial|finance|fiscal year|audit|auditor"
    "|cost|costs|expense|expenses|labor|wages|payroll|workforce|employees|headcount|store|stores|pricing"
    "|restaurant|restaurants|inventory|inventories|backlog|orders|demand|supply chain|production|shipments"
)
_ANCHOR = re.compile(rf"\b(?:{_FINANCE})\b")
_SYMBOL = re.compile(r"(?<![\w$])\$?[A-Z]{1,5}(?:[.-][A-Z])?(?![\w])|\$\s?\d|\d\s?%|\b0x[0-9a-fA-F]{6,}")
_NOT_SYMBOLS = frozenset({"I", "A", "OK", "AI", "US", "USA", "UK", "EU", "PM", "AM", "TV", "DIY", "FAQ"})
_OFF_TOPIC = re.compile(
    r"\b(?:poem|poems|poetry|haiku|limerick|sonnet|song|songs|lyrics|rap|story|stories|fairy tale|novel"
    r"|screenplay|joke|jokes|riddle|riddles|pun|puns|recipe|recipes|bake|baking|cook|cooking|dinner"
    r"|homework|essay|crossword|horoscope|astrology|zodiac|dating|girlfriend|boyfriend|workout|diet"
    r"|weather|football|soccer|basketball|baseball|nba|nfl|movie|movies|film|tv show|video game|celebrity"
    r"|capital of|who wrote|who painted|who invented|who discovered|photosynthesis|relativity|quadratic"
    r"|dinosaur|dinosaurs|planet|planets|butterfly|liver|romeo|shakespeare|gatsby|world war|python function"
    r"|javascript|php|mysql|html|css|factorial|recursion|translate|translation|in french|in spanish"
    r"|in german|in japanese|in russian|in english|how do you say|tell me a|sing|draw|paint)\b"
)


# Creative writing is out of scope even about a market subject: findesk does not write poems
_CREATIVE = re.compile(
    r"\b(?:write|compose|tell|make up|create|give|generate|sing|draft|rhyme)(?: \w+){0,3} (?:poem|poems"
    r"|poetry|haiku|haikus|limerick|sonnet|song|lyrics|rap|joke|jokes|riddle|fairy tale|bedtime story"
    r"|screenplay|short story)\b"
)


def has_anchor(text: str, known: Callable[[str], bool] | None = None) -> bool:
    """Whether the text is about markets: a finance word, a ticker-like symbol, a figure, or a name the
    caller knows (``known`` gets the folded text)."""
    if not isinstance(text, str):
        return False
    folded = fold(text)
    if _ANCHOR.search(folded):
        return True
    if any(m.group(0).lstrip("$") not in _NOT_SYMBOLS for m in _SYMBOL.finditer(text)):
        return True
    return bool(known and known(folded))


def off_topic(text: str, *, known: Callable[[str], bool] | None = None, strict: bool = False) -> bool:
    """Whether to decline the text as outside findesk's scope (see the module's rules)."""
    if not isinstance(text, str) or not text.strip():
        return False
    if _CREATIVE.search(fold(text)):
        return True
    if has_anchor(text, known):
        return False
    return strict or bool(_OFF_TOPIC.search(fold(text)))
