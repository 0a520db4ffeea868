"""The sector or theme of an ETF, from its ticker, its name and its provider category, so the weekly
analyst can group candidates and search news per group (the groups are ``sector_taxonomy.SECTORS``).

Rules this module keeps:
- Pure: strings in, a ``SectorAssignment`` out; no I/O, no network, no model. ``classify`` keeps its
  answers for the process (every screen places the same ~1,700 funds again, ~0.1 ms each in the name
  patterns); an answer is frozen, so sharing it is safe.
- Four rules in order, the first that places the fund decides and ``basis`` says which:
  1. ``override``: ``OVERRIDES``, a short table of well-known tickers whose names say less than the
     fund is (SPY, QQQ, the Select Sector SPDRs, SMH, GDX, KRE, ARKK ...).
  2. ``name``: a stock or ETF ticker the name carries for what a geared or single-stock fund tracks
     (``UNDERLYING_SECTORS``: "GraniteShares 2x Long NVDA" is Semiconductors), else the taxonomy's name
     patterns in its matching order (specific before broad).
  3. ``category``: the provider category's group (``CATEGORY_SECTORS``). It also refines a name hit
     that only says size or asset class (``REFINEMENTS``): "Invesco Short Term Treasury" filed under
     "Ultrashort Bond" holds bills (cash), "S&P 500 Pure Growth" filed under "Large Growth" is growth.
  4. ``default``: a group by the category's family words (``FAMILY_DEFAULTS``: any "... Bond" is a bond
     fund), else ``UNCLASSIFIED``.
- Decided: the Nasdaq-100 (QQQ, QQQM, TQQQ, SQQQ ...) is "US Large Cap Growth", not Technology: a
  third of it is outside the GICS technology sector, but its moves and news are the mega-cap growth
  names'. ARK Innovation (ARKK) is Technology.
- ``leveraged`` and ``inverse`` are read from the name and the category whatever the sector, so a
  geared fund keeps its underlying's group. Leveraged: a multiple above 1 ("2X", "1.25x", "3XShrs"),
  ProShares' "Ultra"/"UltraPro", "Leverage(d)", or a "Trading--Leveraged" category. Inverse: "Bear",
  "Inverse", "Short" (not "Short-Term", "Short Duration", "Ultra Short" and the like), ProShares'
  "UltraShort", a negative multiple, or a "Trading--Inverse" category. A fund that stacks exposures
  without a daily multiple (NTSX 90/60, return-stacked funds) is not flagged.
"""

from __future__ import annotations

import re
from functools import lru_cache

from findesk.analytics.etf.models import SectorAssignment
from findesk.analytics.etf.sector_taxonomy import (
    CASE_FREE_UNDERLYINGS,
    CATEGORY_SECTORS,
    SECTORS,
    UNCLASSIFIED,
    UNDERLYING_SECTORS,
)

OVERRIDES: dict[str, str] = {
    "SPY": "US Large Cap Broad",
    "IVV": "US Large Cap Broad",
    "VOO": "US Large Cap Broad",
    "VTI": "US Large Cap Broad",
    "DIA": "US Large Cap Broad",
    "RSP": "US Large Cap Broad",
    "QQQ": "US Large Cap Growth",
    "QQQM": "US Large Cap Growth",
    "IWM": "US Small & Mid Cap",
    "SMH": "Semiconductors",
    "SOXX": "Semiconductors",
    "XLK": "Technology",
    "XLC": "Communication Services",
    "XLY": "Consumer Discretionary",
    "XLP": "Consumer Staples",
    "XLE": "Energy",
    "XLF": "Financials",
    "XLV": "Health Care",
    "XLI": "Industrials",
    "XLB": "Materials",
    "XLRE": "Real Estate",
    "XLU": "Utilities",
    "GLD": "Gold & Precious Metals",
    "IAU": "Gold & Precious Metals",
    "SLV": "Gold & Precious Metals",
    "GDX": "Gold & Precious Metals",
    "GDXJ": "Gold & Precious Metals",
    "USO": "Oil & Gas",
    "XOP": "Oil & Gas",
    "KRE": "Regional Banks",
    "KBE": "Banks",
    "KBWB": "Banks",
    "XBI": "Biotechnology",
    "IBB": "Biotechnology",
    "ITB": "Homebuilders",
    "XHB": "Homebuilders",
    "ITA": "Aerospace & Defense",
    "TLT": "Treasuries & Government Bonds",
    "ARKK": "Technology",
    "MAGS": "US Large Cap Growth",
    "DCRE": "Core & Aggregate Bonds",  # "Commercial Real Estate" in the name, CMBS bonds in the fund
    "BDRY": "Commodities",  # dry-bulk freight futures, filed under "Miscellaneous Region"
}

# A category no group lists falls to the group of the first family word it contains.
FAMILY_DEFAULTS: tuple[tuple[str, str], ...] = (
    ("muni", "Municipal Bonds"),
    ("emerging markets bond", "International & EM Bonds"),
    ("global bond", "International & EM Bonds"),
    ("bond", "Core & Aggregate Bonds"),
    ("fixed income", "Core & Aggregate Bonds"),
    ("debt", "Core & Aggregate Bonds"),
    ("allocation", "Multi-Asset & Alternatives"),
    ("commodit", "Commodities"),
    ("real estate", "Real Estate"),
    ("emerging", "Emerging Markets"),
    ("foreign", "International Developed"),
    ("global", "Global Equity"),
    ("large", "US Large Cap Broad"),
    ("small", "US Small & Mid Cap"),
    ("mid-cap", "US Small & Mid Cap"),
)

# (group the name says, provider category) -> the group the category narrows it to
REFINEMENTS: dict[tuple[str, str], str] = {
    ("Treasuries & Government Bonds", "Ultrashort Bond"): "Ultrashort & Cash",
    ("Core & Aggregate Bonds", "Ultrashort Bond"): "Ultrashort & Cash",
    ("US Large Cap Broad", "Large Growth"): "US Large Cap Growth",
}

# brand words that describe the issuer, not the fund ("Global X Uranium" is not a global fund)
_BRANDS = re.compile(r"\bglobal x\b", re.IGNORECASE)
_NAME_RULES: tuple[tuple[str, re.Pattern[str]], ...] = tuple(
    (group.name, re.compile("|".join(f"(?:{p})" for p in group.name_patterns), re.IGNORECASE))
    for group in SECTORS
    if group.name_patterns
)
_TOKENS = re.compile(r"[A-Za-z]+")

_MULTIPLE = re.compile(r"(?<![\w.])(-?)(\d+(?:\.\d+)?)\s*x(?=\b|shrs)", re.IGNORECASE)
_LEVERAGE_WORD = re.compile(r"\bleveraged?\b(?! loans?)", re.IGNORECASE)
_PROSHARES_ULTRA = re.compile(r"\bUltra(Pro|Short)?\b")  # case matters: "Ultra Short Bond" is cash
_INVERSE_WORD = re.compile(
    r"\bbear\b|\binverse\b|(?-i:\bUltraShort\b)"
    r"|(?<!/)(?<!ultra )(?<!ultra-)\bshort\b(?![- ](term|duration|maturity|muni))(?! high yield muni)",
    re.IGNORECASE,
)


@lru_cache(maxsize=8192)
def classify(ticker: str, name: str | None, category: str | None) -> SectorAssignment:
    """The fund's group, the rule that decided it, and its leveraged / inverse flags."""
    name = (name or "").strip()
    category = (category or "").strip()
    leveraged, inverse = leverage_flags(name, category)
    sector, basis = _sector(ticker.strip().upper(), name, category)
    return SectorAssignment(sector=sector, basis=basis, leveraged=leveraged, inverse=inverse)


def leverage_flags(name: str, category: str = "") -> tuple[bool, bool]:
    """(leveraged, inverse) as the name and the provider category state them."""
    multiples = [(sign == "-", float(value)) for sign, value in _MULTIPLE.findall(name)]
    leveraged = (
        any(value > 1 for _, value in multiples)
        or bool(_LEVERAGE_WORD.search(name))
        or (bool(_PROSHARES_ULTRA.search(name)) and "proshares" in name.lower())
        or category.startswith("Trading--Leveraged")
    )
    inverse = (
        any(negative for negative, _ in multiples)
        or bool(_INVERSE_WORD.search(name))
        or category.startswith("Trading--Inverse")
    )
    return leveraged, inverse


def _sector(ticker: str, name: str, category: str) -> tuple[str, str]:
    if ticker in OVERRIDES:
        return OVERRIDES[ticker], "override"
    by_name = _by_name(name)
    if by_name is not None:
        refined = REFINEMENTS.get((by_name, category))
        return (refined, "category") if refined else (by_name, "name")
    if category in CATEGORY_SECTORS:
        return CATEGORY_SECTORS[category], "category"
    lowered = category.lower()
    for word, sector in FAMILY_DEFAULTS:
        if word in lowered:
            return sector, "default"
    return UNCLASSIFIED, "default"


def _by_name(name: str) -> str | None:
    for token in _TOKENS.findall(name):
        upper = token.upper()
        if upper in UNDERLYING_SECTORS and (token == upper or upper in CASE_FREE_UNDERLYINGS):
            return UNDERLYING_SECTORS[upper]
    text = _BRANDS.sub(" ", name)
    for sector, pattern in _NAME_RULES:
        if pattern.search(text):
            return sector
    return None
