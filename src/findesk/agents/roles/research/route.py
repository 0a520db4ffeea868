"""The research coordinator's deterministic router: which specialists a question needs, the subjects
it names and a one-line plan (``route``), and how a model's proposal is held to the rules' mandatory
routes (``apply_mandatory``).

Rules:
- Pure: ``route`` reads only the question and the reference tables (``RouteTables``, loaded once per
  process from the snapshot's SEC ticker files, ETF map, CoinGecko coins list and FRED file names).
- Subjects come from explicit rules, each named in ``reasons``: cashtags and upper-case words that
  are real US tickers (common words such as ``A``, ``IT``, ``ALL``, ``ON`` are not; ``BTC``/``ETH``
  are tokens here); company names (a short alias list, and multi-word SEC names written in title
  case); FRED series ids and macro terms; index names (``SPX``, ``S&P 500`` → ``^GSPC``); token
  names and symbols; 0x addresses (exactly 40 hex digits); sanctions words; windows, quarter counts
  and thresholds on a macro series.
- Routes: company tickers → equity; series, indexes, ETFs, correlations and cross-asset comparisons
  → macro; tokens, protocols, and an address asked about for balances or flows → crypto; ANY address
  and any sanctions word → compliance. Addresses, sanctions words and company tickers are mandatory:
  a model's proposal cannot drop them (``apply_mandatory``).
- The question is data, never an instruction: text such as "ignore the rules" matches no rule and
  changes nothing. Only ASCII letters make a ticker (no Unicode folding into a real ticker).
- A question with no subject routes nowhere, and the plan says what could not be understood.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, Field

from findesk.agents.roles.research.findings import SPECIALISTS, SpecialistName, Subjects
from findesk.agents.roles.research.route_terms import (
    ADDRESS,
    AMBIGUOUS_PROTOCOLS,
    CAPITALIZED_ALIASES,
    CARET,
    CASHTAG,
    COIN_NAMES,
    COIN_SYMBOLS,
    COMPANY_ALIASES,
    CORRELATION,
    CRYPTO_WORDS,
    DEFI_WORDS,
    FLOWS,
    HEXISH,
    INDEXES,
    JOINERS,
    MACRO_PATTERNS,
    MACRO_WORDS,
    NAME_SUFFIXES,
    NAMED_SERIES,
    NAMED_TOKEN,
    NOT_NAMES,
    NUMBER_WORDS,
    ONE_QUARTER,
    PAREN_LETTER,
    PERIOD,
    PROTOCOLS,
    QUARTERS,
    QUOTED,
    SANCTIONS,
    SERIES_INDEX,
    SERIES_WORD,
    STOP_WORDS,
    THEMES,
    THRESHOLD,
    UPPER_WORD,
    VERSUS,
    WINDOW,
    WORD_TOKEN,
)
from findesk.core.result import Ok
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.snapshot.name_tables import NameTables, load_name_tables

MAX_CHARS = 4000  # a longer text is cut before any rule runs (the input guard caps questions at 2,000)
MAX_PLAN = 300
MAX_NAMES = 5
MAX_ITEMS = 12  # per subject list: a pasted list of 500 tickers does not fan out 500 lookups

# -- tables -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RouteTables:
    """What the rules look words up in; built once per process from the snapshot's name tables."""

    tickers: Mapping[str, str] = field(default_factory=dict)  # ticker -> company name
    etfs: frozenset[str] = frozenset()
    names: Mapping[str, str] = field(default_factory=dict)  # lower-case company phrase -> ticker
    sec_names: frozenset[str] = frozenset()  # the phrases that came from SEC names (title case needed)
    coin_symbols: Mapping[str, str] = field(default_factory=dict)  # upper-case symbol -> coin id
    coin_by_symbol: Mapping[str, tuple[str, ...]] = field(default_factory=dict)  # every coin of a symbol
    coin_names: Mapping[str, str] = field(default_factory=dict)  # lower-case name -> coin id
    fred: frozenset[str] = frozenset()
    max_phrase: int = 4
    warnings: tuple[str, ...] = ()


def _clean_company(name: str) -> list[str]:
    words = re.sub(r"/[A-Za-z]{1,3}/?$", "", name).lower().replace(",", " ").replace(".", " ").split()
    while words and words[-1] in NAME_SUFFIXES:
        words.pop()
    return words


def build_route_tables(raw: NameTables) -> RouteTables:
    """Route tables from the snapshot's name tables; curated names whose ticker or coin the loaded
    tables do not know are dropped (kept all when a table could not be loaded)."""
    tickers = raw.tickers
    names: dict[str, str] = {}
    sec_names: set[str] = set()
    for ticker, company in tickers.items():
        words = _clean_company(company)
        phrase = " ".join(words)
        long_enough = len(words) >= 2 and len(phrase) >= 8  # one word ("Target", "Block") is too common
        if long_enough and ticker not in raw.etfs and names.setdefault(phrase, ticker) == ticker:
            sec_names.add(phrase)
    for alias, ticker in COMPANY_ALIASES.items():
        if not tickers or ticker in tickers:
            names[alias] = ticker
            sec_names.discard(alias)
    by_symbol: dict[str, list[str]] = {}
    ids: set[str] = set()
    for coin_id, symbol, _name in raw.coins:
        ids.add(coin_id)
        by_symbol.setdefault(symbol.upper(), []).append(coin_id)
    coin_symbols = {s: c for s, c in COIN_SYMBOLS.items() if not ids or c in ids}
    coin_names = {n: c for n, c in COIN_NAMES.items() if not ids or c in ids}
    longest = max((len(p.split()) for p in names), default=1)
    warnings = tuple(f"route tables: {m} could not be read" for m in raw.missing)
    return RouteTables(
        tickers=tickers,
        etfs=raw.etfs,
        names=names,
        sec_names=frozenset(sec_names),
        coin_symbols=coin_symbols,
        coin_by_symbol={s: tuple(v) for s, v in by_symbol.items()},
        coin_names=coin_names,
        fred=raw.fred,
        max_phrase=min(longest, 6),
        warnings=warnings,
    )


@functools.lru_cache(maxsize=4)
def load_route_tables(snapshot_dir: Path | None, cache_dir: Path | None = None) -> RouteTables:
    """The route tables of a snapshot, once per process; without one, only the curated names."""
    return build_route_tables(load_name_tables(snapshot_dir, cache_dir))


# -- plan -------------------------------------------------------------------------------------------


class RoutePlan(BaseModel):
    intents: list[SpecialistName] = Field(default_factory=list)  # ordered as SPECIALISTS
    plan: str  # one line
    subjects: Subjects = Field(default_factory=Subjects)
    reasons: list[str] = Field(default_factory=list)  # which rule fired, one line each
    mandatory: list[SpecialistName] = Field(default_factory=list)  # routes a model may not drop


def _ordered(intents: Iterable[str]) -> list[SpecialistName]:
    wanted = set(intents)
    return [s for s in SPECIALISTS if s in wanted]


def short_address(address: str) -> str:
    return f"{address[:6]}…{address[-4:]}"


@dataclass
class _Scan:
    """What the rules found so far in one question."""

    text: str
    reasons: list[str] = field(default_factory=list)
    companies: list[str] = field(default_factory=list)
    market: list[str] = field(default_factory=list)  # indexes and ETFs: the macro desk's
    series: list[str] = field(default_factory=list)
    tokens: list[str] = field(default_factory=list)
    addresses: list[str] = field(default_factory=list)
    protocols: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    themes: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    spans: list[tuple[int, int, str]] = field(default_factory=list)  # macro matches: start, end, target
    sanctions: list[str] = field(default_factory=list)

    at: dict[str, int] = field(default_factory=dict)  # where each subject was first named

    def add(self, items: list[str], value: str, at: int) -> None:
        if value not in items and len(items) < MAX_ITEMS:
            items.append(value)
        self.at[value] = min(at, self.at.get(value, at))

    def in_order(self, items: list[str]) -> list[str]:
        """As the question names them, whichever rule found them first."""
        return sorted(items, key=lambda v: self.at.get(v, 0))

    def why(self, reason: str) -> None:
        if reason not in self.reasons:
            self.reasons.append(reason)


def _blank(text: str, spans: Iterable[tuple[int, int]]) -> str:
    chars = list(text)
    for start, end in spans:
        chars[start:end] = " " * (end - start)
    return "".join(chars)


def _scan_addresses(scan: _Scan) -> str:
    seen: set[str] = set()
    for m in ADDRESS.finditer(scan.text):
        address = "0x" + m.group(0)[2:]
        if address.lower() not in seen and len(scan.addresses) < MAX_ITEMS:
            seen.add(address.lower())
            scan.addresses.append(address)
    if scan.addresses:
        scan.why(f"address: {', '.join(short_address(a) for a in scan.addresses)} → compliance (always)")
    odd = [m.group(0) for m in HEXISH.finditer(scan.text) if len(m.group(0)) != 42]
    if odd:
        scan.why(f"not an address (0x + 40 hex digits needed): {', '.join(o[:10] + '…' for o in odd[:3])}")
    # the hex must not leak into the other rules (a "0xABCDEF" is no ticker)
    return _blank(scan.text, [(m.start(), m.end()) for m in HEXISH.finditer(scan.text)])


def _scan_macro(scan: _Scan, text: str, tables: RouteTables) -> str:
    taken: list[tuple[int, int]] = []
    for pattern, target in MACRO_PATTERNS:
        for m in pattern.finditer(text):
            if any(m.start() < e and s < m.end() for s, e in taken):
                continue
            taken.append((m.start(), m.end()))
            scan.spans.append((m.start(), m.end(), target))
            if target in INDEXES:
                scan.add(scan.market, target, m.start())
            else:
                scan.add(scan.series, target, m.start())
            if target in SERIES_INDEX:  # the VIX is also a priced index (returns, correlations)
                scan.add(scan.market, SERIES_INDEX[target], m.start())
            scan.why(f"macro term {m.group(0).strip()!r} → {target}")
    for m in CARET.finditer(text):
        target = "^VIX" if m.group(1).upper() == "VIX" else "^GSPC"
        scan.add(scan.market, target, m.start())
        scan.spans.append((m.start(), m.end(), target))
        taken.append((m.start(), m.end()))
        scan.why(f"index {m.group(0)} → {target}")
    for m in SERIES_WORD.finditer(text):
        word = m.group(1)
        if word in tables.fred:
            scan.add(scan.series, word, m.start())
            scan.spans.append((m.start(), m.end(), word))
            taken.append((m.start(), m.end()))
            scan.why(f"FRED series id {word}")
    for m in NAMED_SERIES.finditer(text):
        # "FRED series ABC123" names a series id; one the snapshot's FRED files lack does not exist here
        word = m.group(1)
        if word not in tables.fred and not any(s <= m.start(1) < e for s, e in taken):
            scan.add(scan.unknown, word, m.start(1))
            taken.append((m.start(1), m.end(1)))
    for m in NAMED_TOKEN.finditer(text):
        group = 1 if m.group(1) else 2
        word = m.group(group)
        known = word in tables.coin_symbols or word in tables.tickers or word in tables.etfs
        if not known and word not in STOP_WORDS and not any(s <= m.start(group) < e for s, e in taken):
            scan.add(scan.unknown, word, m.start(group))
            taken.append((m.start(group), m.end(group)))
    scan.spans.sort()
    return _blank(text, taken)


def _scan_tickers(scan: _Scan, text: str, tables: RouteTables, shouted: bool) -> str:
    taken: list[tuple[int, int]] = []

    def found(symbol: str, why: str, at: int) -> None:
        if symbol in tables.etfs:
            scan.add(scan.market, symbol, at)
            scan.why(f"{why}: {symbol} is an ETF → macro")
        else:
            scan.add(scan.companies, symbol, at)
            scan.why(f"{why}: {symbol} → equity")

    for m in CASHTAG.finditer(text):
        raw = m.group(1)
        taken.append((m.start(), m.end()))
        coin = tables.coin_symbols.get(raw.upper())
        if coin is not None:
            scan.add(scan.tokens, coin, m.start())
            scan.why(f"cashtag ${raw}: the token {coin} → crypto")
            continue
        checked = normalize_symbol(raw)
        if not isinstance(checked, Ok):
            scan.why(f"cashtag ${raw} ignored: {checked.reason}")
        elif tables.tickers and checked.value not in tables.tickers and checked.value not in tables.etfs:
            scan.add(scan.unknown, checked.value, m.start())
        else:
            found(checked.value, f"cashtag ${raw}", m.start())
    for m in PAREN_LETTER.finditer(text):
        if m.group(1) in tables.tickers or m.group(1) in tables.etfs:
            taken.append((m.start(), m.end()))
            found(m.group(1), f"ticker ({m.group(1)})", m.start())
    if shouted:
        scan.why("the question is all upper case: only the stop list tells words from tickers")
    for m in UPPER_WORD.finditer(text):
        word = m.group(1)
        if any(m.start() < e and s < m.end() for s, e in taken):
            continue
        if word in tables.coin_symbols:
            scan.add(scan.tokens, tables.coin_symbols[word], m.start())
            scan.why(f"token symbol {word} → {tables.coin_symbols[word]}")
        elif (
            len(word) == 1
            and word in tables.tickers
            and _listed_with_ticker(text, m.start(), m.end(), tables)
        ):
            found(word, f"ticker {word} (listed with another ticker)", m.start())
        elif len(word) == 1 or word in STOP_WORDS or word in MACRO_WORDS or PERIOD.fullmatch(word):
            continue
        elif word in tables.tickers or word in tables.etfs:  # ETFs file no 10-K: not in SEC's table
            found(word, f"ticker {word}", m.start())
        elif len(word) >= 2 and not word.isdigit():
            scan.add(scan.unknown, word, m.start())
        else:
            continue
        taken.append((m.start(), m.end()))
    return _blank(text, taken)


# "JPM and F", "F, GM": a one-letter word is a ticker (Ford) only when a list joins it to another ticker
_JOIN = r"(?:,|\s&|\band|\bvs\.?|\bversus|\bor)"
_LEFT_TICKER = re.compile(rf"\b([A-Z][A-Z0-9]{{1,5}})\s*{_JOIN}\s*$")
_RIGHT_TICKER = re.compile(rf"^\s*{_JOIN}\s+([A-Z][A-Z0-9]{{1,5}})\b")


def _listed_with_ticker(text: str, start: int, end: int, tables: RouteTables) -> bool:
    known = (tables.tickers, tables.etfs)
    left = _LEFT_TICKER.search(text[max(0, start - 24) : start])
    right = _RIGHT_TICKER.match(text[end : end + 24])
    return any(m is not None and any(m.group(1) in k for k in known) for m in (left, right))


def _words(text: str) -> list[tuple[str, str, int, int]]:
    """(lower-case word without 's, word as typed, start, end) of every word."""
    out = []
    for m in WORD_TOKEN.finditer(text):
        typed = m.group(0)
        typed = typed[:-2] if typed.endswith("'s") else typed
        out.append((typed.lower(), typed, m.start(), m.end()))
    return out


def _capitalized(typed: str) -> bool:
    return typed[:1].isupper()


def _scan_names(scan: _Scan, text: str, tables: RouteTables, shouted: bool) -> str:
    words = _words(text)
    taken: list[tuple[int, int]] = []
    i = 0
    while i < len(words):
        hit = None
        for n in range(min(tables.max_phrase, len(words) - i), 0, -1):
            chunk = words[i : i + n]
            phrase = " ".join(w[0] for w in chunk)
            key = phrase
            if key in tables.names:
                ticker = tables.names[key]
                if key in tables.sec_names:
                    ok = shouted or all(_capitalized(w[1]) for w in chunk if w[0] not in JOINERS)
                else:
                    ok = shouted or key not in CAPITALIZED_ALIASES or _capitalized(chunk[0][1])
                if ok:
                    hit = (n, "company", ticker, phrase)
                    break
            if key in tables.coin_names:
                hit = (n, "coin", tables.coin_names[key], phrase)
                break
            if key in PROTOCOLS and (key not in AMBIGUOUS_PROTOCOLS or DEFI_WORDS.search(text)):
                hit = (n, "protocol", PROTOCOLS[key], phrase)
                break
        if hit is None:
            i += 1
            continue
        n, kind, value, phrase = hit
        at = words[i][2]
        taken.append((at, words[i + n - 1][3]))
        if kind == "company":
            if value in tables.etfs:
                scan.add(scan.market, value, at)
            else:
                scan.add(scan.companies, value, at)
            scan.why(f"company name {phrase!r} → {value}")
        elif kind == "coin":
            scan.add(scan.tokens, value, at)
            scan.why(f"token name {phrase!r} → {value}")
        else:
            scan.add(scan.protocols, value, at)
            scan.why(f"protocol {phrase!r} → {value}")
        i += n
    return _blank(text, taken)


def _scan_crypto_symbols(scan: _Scan, text: str, tables: RouteTables) -> None:
    """Symbols outside the major coins count only in a question about crypto, and never when the same
    letters are a US ticker (the ticker rule has them)."""
    if not CRYPTO_WORDS.search(text):
        return
    for m in UPPER_WORD.finditer(text):
        word = m.group(1)
        coins = tables.coin_by_symbol.get(word)
        if not coins or word in tables.tickers or word in STOP_WORDS or word in MACRO_WORDS or len(word) < 2:
            continue
        coin = coins[0] if len(coins) == 1 else word.lower()  # the token tool says which coins fit
        scan.add(scan.tokens, coin, m.start())
        if word in scan.unknown:
            scan.unknown.remove(word)
        scan.why(f"token symbol {word} in a crypto question → {coin}")


def _scan_sanctions(scan: _Scan, text: str, tables: RouteTables, shouted: bool) -> None:
    hits = sorted({m.group(0).lower() for m in SANCTIONS.finditer(text)})
    if not hits:
        return
    scan.sanctions = hits
    scan.why(f"sanctions words ({', '.join(hits)}) → compliance (always)")
    for name in [*_quoted_names(text), *([] if shouted else _capitalized_names(scan, text, tables))]:
        if len(scan.names) < MAX_NAMES and name not in scan.names:
            scan.names.append(name)
    if scan.names:
        scan.why(f"names to screen: {', '.join(scan.names)}")


def _quoted_names(text: str) -> list[str]:
    names = (re.sub(r"[^A-Za-z0-9 .,&'\-]", "", m.group(1)).strip() for m in QUOTED.finditer(text))
    return [n for n in names if n]


def _capitalized_names(scan: _Scan, text: str, tables: RouteTables) -> list[str]:
    """Runs of capitalized words ("Garantex Europe", "Bank of Kunlun") that are not question words,
    known subjects or labels ("SYSTEM:"); a run stops at punctuation. A lone all-capitals word is an
    acronym or shouting, not a name (quote it to screen it). In a shouted question every word is
    capitalized, so only quoted names are read there."""
    known = {*scan.companies, *scan.market, *scan.series}
    unquoted = QUOTED.sub(" ", text)
    out: list[str] = []
    run: list[str] = []
    last_end = 0

    def close() -> None:
        while run and run[-1].lower() in JOINERS:
            run.pop()
        name = " ".join(run)
        titled = len(run) >= 2 or any(not w.isupper() for w in run)
        if run and len(name) >= 3 and titled:
            out.append(name[:80])
        run.clear()

    for lower, typed, start, end in _words(unquoted):
        if unquoted[last_end:start].strip():  # punctuation between the words
            close()
        last_end = end
        label = unquoted[end : end + 1] == ":"
        plain = lower not in NOT_NAMES and lower not in tables.names and lower not in tables.coin_names
        name_word = _capitalized(typed) and plain and typed not in known and not label
        if name_word or (lower in JOINERS and run):
            run.append(typed)
        else:
            close()
    close()
    return out


def _scan_numbers(text: str, scan: _Scan) -> tuple[int | None, int | None, str | None]:
    window = None
    for m in WINDOW.finditer(text):
        if m.group(1):
            n, unit = _number(m.group(1)), m.group(2).lower()
            days = n * 7 if unit.startswith("w") else n
        else:
            days = _number(m.group(3)) * 30
        if 1 <= days <= 3650:
            window = days
            scan.why(f"window {m.group(0).strip()!r} → {days} days")
            break
    quarters = None
    q = QUARTERS.search(text)
    if q and 1 <= _number(q.group(1)) <= 20:
        quarters = _number(q.group(1))
    elif ONE_QUARTER.search(text):
        quarters = 1
    if quarters is not None:
        scan.why(f"quarters → {quarters}")
    threshold = None
    for m in THRESHOLD.finditer(text):
        before = [(s, e, t) for s, e, t in scan.spans if e <= m.start() and m.start() - e <= 40]
        if not before:
            continue
        series = before[-1][2]
        verb = m.group("verb").lower()
        op = "<" if any(w in verb for w in ("below", "under", "<")) else ">"
        threshold = f"{series}{op}{m.group('value')}"
        scan.why(f"threshold {m.group(0).strip()!r} → {threshold}")
        break
    return window, quarters, threshold


def _number(text: str) -> int:
    return int(text) if text.isdigit() else NUMBER_WORDS[text.lower()]


def _themes(text: str) -> list[str]:
    return [theme for pattern, theme in THEMES if pattern.search(text)][:8]


def route(question: str, *, tables: RouteTables) -> RoutePlan:
    """The specialists ``question`` needs, its subjects and a one-line plan, by explicit rules."""
    text = question[:MAX_CHARS]
    scan = _Scan(text=text)
    if len(question) > MAX_CHARS:
        scan.why(f"only the first {MAX_CHARS} characters were read")
    letters = [c for c in text if c.isascii() and c.isalpha()]
    shouted = len(letters) >= 8 and all(c.isupper() for c in letters)
    rest = _scan_addresses(scan)
    rest = _scan_macro(scan, rest, tables)
    rest = _scan_names(scan, rest, tables, shouted)
    rest = _scan_tickers(scan, rest, tables, shouted)
    _scan_crypto_symbols(scan, rest, tables)
    _scan_sanctions(
        scan, _blank(text, [(m.start(), m.end()) for m in HEXISH.finditer(text)]), tables, shouted
    )
    window, quarters, threshold = _scan_numbers(text, scan)
    themes = _themes(text)

    intents, mandatory, compared = _intents(scan, text)
    subjects = Subjects(
        tickers=scan.in_order([*scan.companies, *scan.market]),
        market=scan.in_order(scan.market),
        compared=compared,
        series=scan.in_order(scan.series),
        tokens=scan.in_order(scan.tokens),
        addresses=scan.addresses,
        protocols=scan.in_order(scan.protocols),
        names=scan.names if "compliance" in intents else [],
        themes=themes,
        window_days=window,
        quarters=quarters,
        threshold=threshold,
    )
    if scan.unknown:
        scan.why(f"not found (no US ticker, token or FRED series): {', '.join(scan.unknown[:5])}")
    shown = _Shown(scan.in_order(scan.companies), scan.in_order(scan.market), compared)
    return RoutePlan(
        intents=intents,
        plan=_plan_line(intents, subjects, shown, scan.unknown),
        subjects=subjects,
        reasons=[*scan.reasons, *tables.warnings],
        mandatory=mandatory,
    )


def _intents(scan: _Scan, text: str) -> tuple[list[SpecialistName], list[SpecialistName], bool]:
    """The routed desks, the mandatory ones among them, and whether macro compares asset classes."""
    intents: set[str] = set()
    mandatory: set[str] = set()
    if scan.companies:
        intents.add("equity")
        mandatory.add("equity")
    if scan.series or scan.market:
        intents.add("macro")
    classes = sum(bool(x) for x in (scan.companies, scan.series or scan.market, scan.tokens))
    compared = False
    if (classes or scan.addresses or scan.protocols) and CORRELATION.search(text):
        intents.add("macro")
        compared = True
        scan.why("correlation → macro")
    elif classes >= 2 and VERSUS.search(text):
        intents.add("macro")
        compared = True
        scan.why("comparison across asset classes → macro")
    if scan.tokens or scan.protocols:
        intents.add("crypto")
    if scan.addresses:
        intents.add("compliance")
        mandatory.add("compliance")
        if FLOWS.search(text):
            intents.add("crypto")
            scan.why("address asked about for balances or flows → crypto")
    if scan.sanctions:
        intents.add("compliance")
        mandatory.add("compliance")
    return _ordered(intents), _ordered(mandatory), compared


@dataclass(frozen=True)
class _Shown:
    """What the plan line names besides the subjects: companies and priced indexes/ETFs apart."""

    companies: list[str]
    market: list[str]
    compared: bool = False


def _plan_line(intents: list[SpecialistName], s: Subjects, shown: _Shown, unknown: list[str]) -> str:
    if not intents:
        line = (
            "nothing routed: the question names no ticker, company, FRED series or macro term, token, "
            "address, protocol or sanctions term"
        )
        if unknown:
            line += f"; {_not_found(unknown)}"
        return line
    line = _one_line("; ".join(f"{intent}: {_segment(intent, s, shown)}" for intent in intents))
    return f"{line}; {_not_found(unknown)}" if unknown else line


def _not_found(unknown: list[str]) -> str:
    """A fabricated or mistyped symbol said plainly, so no answer is read as being about it."""
    names = ", ".join(unknown[:5])
    return (
        f"not found: {names} — no US-listed company or ETF, token or FRED series by that name in the "
        "data, so nothing is reported about it"
    )


def describe(intents: list[SpecialistName], s: Subjects) -> str:
    """The plan line for subjects that did not all come from the question's own text (a follow-up's
    carried subjects): indexes (``^GSPC``) are priced by macro, every other ticker is named as a company."""
    market = [t for t in s.tickers if t.startswith("^")]
    return _plan_line(intents, s, _Shown([t for t in s.tickers if t not in market], market), [])


_COMPLIANCE_THEMES = ("fund tracing", "mixer", "risk score")


def _segment(intent: SpecialistName, s: Subjects, shown: _Shown) -> str:
    topics = ", ".join(t for t in s.themes if t not in _COMPLIANCE_THEMES)
    topics = f" {topics}" if topics else ""
    if intent == "equity":
        plural = "s" if s.quarters and s.quarters > 1 else ""
        return (
            ", ".join(shown.companies)
            + topics
            + (f" over {s.quarters} quarter{plural}" if s.quarters else "")
        )
    if intent == "macro":
        out = ", ".join([*s.series, *shown.market, *(shown.companies if shown.compared else [])]) + topics
        out += f" over {s.window_days} days" if s.window_days else ""
        return out + (f" after {s.threshold}" if s.threshold else "")
    if intent == "crypto":
        return ", ".join([*s.tokens, *s.protocols, *(short_address(a) for a in s.addresses)]) + topics
    screened = [*(short_address(a) for a in s.addresses), *s.names]
    out = "screen " + ", ".join(screened) if screened else "sanctions screen"
    extra = [t for t in s.themes if t in _COMPLIANCE_THEMES]
    return out + (f" ({', '.join(extra)})" if extra else "")


def _one_line(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_PLAN else flat[: MAX_PLAN - 1] + "…"


# -- with a model -----------------------------------------------------------------------------------


def apply_mandatory(model_plan: RoutePlan, rules_plan: RoutePlan) -> RoutePlan:
    """The model's proposal with the rules' mandatory routes and subjects put back: an address or a
    sanctions word always reaches compliance, a company ticker always reaches equity. Subjects the
    model invented that are not well formed (an address that is not 0x + 40 hex, a ticker that is
    not a US ticker) are dropped and said."""
    reasons = list(model_plan.reasons)
    proposed = model_plan.subjects
    addresses = [a for a in proposed.addresses if ADDRESS.fullmatch(a.strip())]
    tickers: list[str] = []
    for raw in proposed.tickers:
        checked = normalize_symbol(raw) if not raw.startswith("^") else Ok(raw.upper())
        if isinstance(checked, Ok):
            tickers.append(checked.value)
        else:
            reasons.append(f"model ticker {raw!r} dropped: {checked.reason}")
    for bad in sorted(set(proposed.addresses) - set(addresses)):
        reasons.append(f"model address {bad[:12]!r} dropped: not 0x followed by 40 hex digits")
    rules = rules_plan.subjects

    def union(a: list[str], b: list[str], *, fold: bool = False) -> list[str]:
        seen = {x.lower() if fold else x for x in a}
        return [*a, *(x for x in b if (x.lower() if fold else x) not in seen)][: MAX_ITEMS * 2]

    subjects = Subjects(
        tickers=union(tickers, rules.tickers),
        series=union(proposed.series, rules.series),
        tokens=union(proposed.tokens, rules.tokens),
        addresses=union(addresses, rules.addresses, fold=True),
        protocols=union(proposed.protocols, rules.protocols),
        names=union(proposed.names, rules.names),
        themes=union(proposed.themes, rules.themes),
        window_days=proposed.window_days or rules.window_days,
        quarters=proposed.quarters or rules.quarters,
        threshold=proposed.threshold or rules.threshold,
    )
    proposed_intents = set(_ordered(model_plan.intents))
    added = [m for m in rules_plan.mandatory if m not in proposed_intents]
    intents = _ordered([*proposed_intents, *rules_plan.mandatory])
    plan = _one_line(model_plan.plan)
    if added:
        tail = "; ".join(
            f"{m} (mandatory): {_segment(m, subjects, _Shown(_companies(rules_plan), []))}" for m in added
        )
        plan = _one_line(f"{plan}; {tail}" if plan else tail)
        reasons.extend(f"mandatory route kept: {m}" for m in added)
    return RoutePlan(
        intents=intents,
        plan=plan or rules_plan.plan,
        subjects=subjects,
        reasons=reasons,
        mandatory=rules_plan.mandatory,
    )


def _companies(plan: RoutePlan) -> list[str]:
    return [t for t in plan.subjects.tickers if not t.startswith("^")]
