"""SEC EDGAR formats: submissions JSON, XBRL companyfacts, 8-K items, ticker tables.

Rules this module keeps:
- Pure: JSON/text in, typed models out, no I/O. The snapshot store and the live EDGAR vendor both
  parse through here, so a recorded body and a live body give identical models.
- A structurally broken body (missing columns, wrong types) is ``bad_response``, never an exception.
- Point in time: when an ``as_of`` is passed, filings are kept by ``filingDate <= as_of`` and facts by
  ``filed <= as_of``; nothing else is used to decide visibility.
- Links are sec.gov URLs: a document's Archives URL, a filing's index page (CIK + accession), or, when
  the accession is unknown, EDGAR's filing search for the CIK, form and date (``search_note`` says so).
- Tickers are compared in SEC spelling: upper case, share classes with a dash (``BRK.B`` and
  ``BRK/B`` are read as ``BRK-B``).
"""

from __future__ import annotations

import csv
import difflib
import io
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any, Protocol

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec_forms import EIGHT_K_ITEMS, base_form
from findesk.data.models import Fact, Filing, MaterialEvent, Source

ARCHIVES = "https://www.sec.gov/Archives/edgar/data"
BROWSE = "https://www.sec.gov/cgi-bin/browse-edgar"
UNKNOWN_ITEM = "Unknown item"
_COLUMNS = ("accessionNumber", "filingDate", "form")


@dataclass(frozen=True, slots=True)
class TickerEntry:
    ticker: str
    cik: int
    name: str | None
    exchange: str | None = None


def normalize_ticker(symbol: str) -> str:
    return symbol.strip().upper().replace(".", "-").replace("/", "-")


def cik10(cik: int) -> str:
    return f"{cik:010d}"


def archives_url(cik: int, accession: str, primary_document: str) -> str:
    return f"{ARCHIVES}/{cik}/{accession.replace('-', '')}/{primary_document}"


def filing_index_url(cik: int, accession: str) -> str:
    """The filing's EDGAR index page: needs only the CIK and accession (not the document's name)."""
    return archives_url(cik, accession, f"{accession}-index.htm")


class _Filed(Protocol):
    @property
    def url(self) -> str | None: ...
    @property
    def cik(self) -> int: ...
    @property
    def form(self) -> str: ...
    @property
    def filing_date(self) -> date: ...


def filing_link(filed: _Filed) -> str:
    """How a filing (or an 8-K item, or a section of one) is cited: its own URL, else EDGAR's filing
    search for its CIK, form and date; never a local path."""
    return filed.url or edgar_search_url(filed.cik, filed.form, filed.filing_date)


def fact_link(fact: Fact) -> str:
    """How an XBRL fact is cited: its filing's EDGAR index page, else the data file it came from."""
    return filing_index_url(fact.cik, fact.accession_number) if fact.accession_number else fact.source.cite()


def edgar_search_url(cik: int, form: str, filed: date) -> str:
    """EDGAR's filing search for ``form`` filings of ``cik`` up to ``filed`` (newest first), used when
    a document's accession is unknown: the filing is the first row of that page."""
    return (
        f"{BROWSE}?action=getcompany&CIK={cik10(cik)}&type={form}"
        f"&dateb={filed.strftime('%Y%m%d')}&owner=include&count=10"
    )


def is_edgar_search(url: str | None) -> bool:
    """True for an ``edgar_search_url``: it lists the filing, it is not the filing itself."""
    return url is not None and url.startswith(BROWSE)


def search_note(url: str | None) -> str:
    """What a citation label adds when its link is EDGAR's search page, not the filing itself."""
    if not is_edgar_search(url):
        return ""
    return " (EDGAR filing search: accession not on record)"


def _date(text: Any) -> date | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return date.fromisoformat(text[:10])
    except ValueError:
        return None


def _datetime(text: Any) -> datetime | None:
    if not isinstance(text, str) or not text:
        return None
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None


def _bad(what: str, source: Source) -> Err:
    return Err(ErrorCode.BAD_RESPONSE, f"{source.ref} is not a valid {what}", source.vendor)


# --- submissions ---------------------------------------------------------------------------------


def submissions_columns(data: Any) -> Mapping[str, Any] | None:
    """The columnar filing arrays: ``filings.recent`` of a main file, or an older page's top level."""
    if not isinstance(data, Mapping):
        return None
    filings = data.get("filings")
    if isinstance(filings, Mapping) and isinstance(filings.get("recent"), Mapping):
        return filings["recent"]  # type: ignore[no-any-return]
    return data if all(k in data for k in _COLUMNS) else None


def older_pages(data: Any) -> list[tuple[str, date | None, date | None]]:
    """Older submissions pages named by a main file: ``(file name, filingFrom, filingTo)``."""
    if not isinstance(data, Mapping) or not isinstance(data.get("filings"), Mapping):
        return []
    pages = data["filings"].get("files") or []
    return [
        (p["name"], _date(p.get("filingFrom")), _date(p.get("filingTo")))
        for p in pages
        if isinstance(p, Mapping) and isinstance(p.get("name"), str)
    ]


def parse_submissions(
    data: Any, *, ticker: str, source: Source, cik: int | None = None, as_of: date | None = None
) -> Result[list[Filing]]:
    """Filings of a submissions body (main file or older page), in the body's order.

    ``cik`` is required for an older page (it does not name its company); a main file's own ``cik``
    wins otherwise.
    """
    cols = submissions_columns(data)
    if cols is None:
        return _bad("SEC submissions body (no filings.recent arrays)", source)
    if isinstance(data, Mapping) and "cik" in data:
        try:
            cik = int(data["cik"])
        except (TypeError, ValueError):
            return _bad("SEC submissions body (bad cik)", source)
    if cik is None:
        return _bad("SEC submissions page: the company's CIK is unknown", source)
    try:
        n = len(cols["accessionNumber"])
        arrays = {k: v for k, v in cols.items() if isinstance(v, Sequence) and len(v) == n}
    except TypeError:
        return _bad("SEC submissions body (accessionNumber is not a list)", source)

    def col(name: str, i: int) -> Any:
        values = arrays.get(name)
        return values[i] if values is not None else None

    out: list[Filing] = []
    for i in range(n):
        filed = _date(col("filingDate", i))
        accession, form = col("accessionNumber", i), col("form", i)
        if filed is None or not isinstance(accession, str) or not isinstance(form, str):
            return _bad(f"SEC submissions body (row {i} lacks accessionNumber/filingDate/form)", source)
        if as_of is not None and filed > as_of:
            continue
        doc = col("primaryDocument", i) or None
        items = col("items", i)
        out.append(
            Filing(
                ticker=ticker,
                cik=cik,
                form=form,
                filing_date=filed,
                report_date=_date(col("reportDate", i)),
                accepted_at=_datetime(col("acceptanceDateTime", i)),
                accession_number=accession,
                primary_document=doc if isinstance(doc, str) else None,
                url=archives_url(cik, accession, doc) if isinstance(doc, str) else None,
                items=[s.strip() for s in items.split(",") if s.strip()] if isinstance(items, str) else [],
                source=source,
            )
        )
    return Ok(out)


PERIODIC_FORMS = frozenset({"10-K", "10-K/A", "10-Q", "10-Q/A"})


def periodic_filings_in_facts(data: Any, *, ticker: str, source: Source) -> list[Filing]:
    """The 10-K/10-Q filings companyfacts names (``accn``, ``form``, ``filed``), one per accession,
    each linked to its EDGAR index page; other forms are left out (companyfacts lists few of them)."""
    facts = data.get("facts") if isinstance(data, Mapping) else None
    try:
        cik = int(data["cik"])
    except (KeyError, TypeError, ValueError):
        return []
    found: dict[str, Filing] = {}
    for concepts in facts.values() if isinstance(facts, Mapping) else []:
        for node in concepts.values() if isinstance(concepts, Mapping) else []:
            units = node.get("units") if isinstance(node, Mapping) else None
            for rows in units.values() if isinstance(units, Mapping) else []:
                for row in rows if isinstance(rows, list) else []:
                    if not isinstance(row, Mapping) or row.get("form") not in PERIODIC_FORMS:
                        continue
                    accession, filed = row.get("accn"), _date(row.get("filed"))
                    if not isinstance(accession, str) or filed is None or accession in found:
                        continue
                    found[accession] = Filing(
                        ticker=ticker,
                        cik=cik,
                        form=str(row["form"]),
                        filing_date=filed,
                        accession_number=accession,
                        url=filing_index_url(cik, accession),
                        source=source,
                    )
    return list(found.values())


# --- 8-K material events -------------------------------------------------------------------------


def material_events(filings: Iterable[Filing]) -> list[MaterialEvent]:
    """One event per item code of every 8-K / 8-K/A, with the official item title."""
    events: list[MaterialEvent] = []
    for f in filings:
        if base_form(f.form) != "8-K":
            continue
        for code in f.items:
            events.append(
                MaterialEvent(
                    ticker=f.ticker,
                    cik=f.cik,
                    form=f.form,
                    filing_date=f.filing_date,
                    event_date=f.report_date,
                    item=code,
                    title=EIGHT_K_ITEMS.get(code, UNKNOWN_ITEM),
                    accession_number=f.accession_number,
                    url=f.url,
                    source=f.source,
                )
            )
    return events


# --- XBRL companyfacts ---------------------------------------------------------------------------


def concept_names(data: Any) -> list[str]:
    """Every ``taxonomy:Concept`` of a companyfacts body."""
    facts = data.get("facts") if isinstance(data, Mapping) else None
    if not isinstance(facts, Mapping):
        return []
    return [
        f"{tax}:{name}"
        for tax, concepts in facts.items()
        if isinstance(concepts, Mapping)
        for name in concepts
    ]


def match_concept(data: Any, concept: str) -> list[tuple[str, str]]:
    """``(taxonomy, Concept)`` pairs matching ``Revenues`` or ``us-gaap:Revenues``, case-insensitively."""
    wanted = concept.strip().lower()
    taxonomy, _, name = wanted.rpartition(":")
    out = []
    for full in concept_names(data):
        tax, _, con = full.partition(":")
        if con.lower() == name and (not taxonomy or tax.lower() == taxonomy):
            out.append((tax, con))
    return out


def close_concepts(data: Any, concept: str, n: int = 5) -> list[str]:
    """Up to ``n`` concept names close to a misspelt one (for a helpful ``not_found``)."""
    names = concept_names(data)
    by_lower: dict[str, str] = {}
    for full in names:
        by_lower.setdefault(full.partition(":")[2].lower(), full)
    wanted = concept.strip().lower().rpartition(":")[2]
    return [by_lower[m] for m in difflib.get_close_matches(wanted, list(by_lower), n=n, cutoff=0.6)]


def parse_facts(
    data: Any, concept: str, *, ticker: str, source: Source, as_of: date | None = None
) -> Result[list[Fact]]:
    """Every value of ``concept`` in every unit, ordered by period end then filing date.

    An unknown concept is ``not_found`` naming close concepts; values filed after ``as_of`` are dropped.
    """
    if not isinstance(data, Mapping) or not isinstance(data.get("facts"), Mapping):
        return _bad("SEC companyfacts body (no facts object)", source)
    try:
        cik = int(data["cik"])
    except (KeyError, TypeError, ValueError):
        return _bad("SEC companyfacts body (bad cik)", source)
    matches = match_concept(data, concept)
    if not matches:
        close = close_concepts(data, concept)
        hint = f"; close matches: {', '.join(close)}" if close else ""
        return Err(
            ErrorCode.NOT_FOUND,
            f"{ticker} reports no XBRL concept {concept.strip()!r}{hint}",
            source.vendor,
            {"close_matches": close},
        )
    out: list[Fact] = []
    for tax, name in matches:
        node = data["facts"][tax][name]
        units = node.get("units") if isinstance(node, Mapping) else None
        if not isinstance(units, Mapping):
            return _bad(f"SEC companyfacts body ({tax}:{name} has no units)", source)
        for unit, rows in units.items():
            for row in rows if isinstance(rows, list) else []:
                fact = _fact(
                    row, ticker=ticker, cik=cik, tax=tax, name=name, label=node.get("label"), unit=unit
                )
                if fact is None:
                    return _bad(f"SEC companyfacts body ({tax}:{name} has a malformed value)", source)
                if as_of is None or fact["filed"] <= as_of:
                    out.append(Fact(source=source, **fact))
    out.sort(key=lambda f: (f.period_end, f.filed, f.unit, f.period_start or f.period_end))
    return Ok(out)


def _fact(
    row: Any, *, ticker: str, cik: int, tax: str, name: str, label: Any, unit: str
) -> dict[str, Any] | None:
    if not isinstance(row, Mapping):
        return None
    end, filed, val = _date(row.get("end")), _date(row.get("filed")), row.get("val")
    if end is None or filed is None or not isinstance(val, int | float) or isinstance(val, bool):
        return None
    fy = row.get("fy")
    return {
        "ticker": ticker,
        "cik": cik,
        "taxonomy": tax,
        "concept": name,
        "label": label if isinstance(label, str) else None,
        "unit": unit,
        "value": float(val),
        "period_start": _date(row.get("start")),
        "period_end": end,
        "fiscal_year": fy if isinstance(fy, int) else None,
        "fiscal_period": row.get("fp") or None,
        "form": row.get("form") or None,
        "filed": filed,
        "accession_number": row.get("accn") or None,
        "frame": row.get("frame") or None,
    }


# --- ticker tables -------------------------------------------------------------------------------


def parse_company_tickers(data: Any) -> Result[dict[str, TickerEntry]]:
    """SEC ``company_tickers.json``: ``{"0": {"cik_str": 320193, "ticker": "AAPL", "title": ...}}``."""
    if not isinstance(data, Mapping):
        return Err(ErrorCode.BAD_RESPONSE, "company_tickers.json is not a JSON object")
    out: dict[str, TickerEntry] = {}
    for row in data.values():
        try:
            ticker, cik = normalize_ticker(row["ticker"]), int(row["cik_str"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return Err(ErrorCode.BAD_RESPONSE, "company_tickers.json has a row without ticker/cik_str")
        out.setdefault(ticker, TickerEntry(ticker, cik, row.get("title") or None))
    return Ok(out)


def parse_company_tickers_exchange(text: str) -> Result[dict[str, TickerEntry]]:
    """``company_tickers_exchange.csv`` (``cik,ticker,exchange,name``); the first row of a ticker wins."""
    out: dict[str, TickerEntry] = {}
    reader = csv.DictReader(io.StringIO(text))
    if not reader.fieldnames or not {"cik", "ticker"} <= set(reader.fieldnames):
        return Err(ErrorCode.BAD_RESPONSE, "company_tickers_exchange.csv lacks the cik/ticker columns")
    for row in reader:
        try:
            ticker, cik = normalize_ticker(row["ticker"]), int(row["cik"])
        except (TypeError, ValueError, AttributeError):
            continue  # SEC's own table has a few blank rows; they name nothing
        if ticker:
            out.setdefault(
                ticker, TickerEntry(ticker, cik, row.get("name") or None, row.get("exchange") or None)
            )
    return Ok(out)


# --- company names -------------------------------------------------------------------------------

# Words that name a legal form, an article or a listed line, not the company: "BlackRock Inc." and
# "BlackRock, Inc.", "Mega Matrix Corp." and "Mega Matrix Inc", or "Avidity Biosciences, Inc." and the
# listing line "Avidity Biosciences Inc. Common Stock" name one company.
_NAME_NOISE = frozenset(
    {
        "the", "inc", "incorporated", "corp", "corporation", "co", "company", "plc", "ltd", "limited",
        "lp", "llc", "llp", "sa", "nv", "ag", "se",
        "common", "stock", "shares", "share", "ordinary", "units", "unit", "warrants", "warrant",
    }
)  # fmt: skip
# EDGAR's conformed-name qualifiers: a state of incorporation or a re-registration ("/DE/", "/MD/", "/NEW")
_QUALIFIER = re.compile(r"/[a-z .]*/?")


def name_words(name: str) -> tuple[str, ...]:
    """A company name reduced to the words that identify it: lower case, no punctuation, no EDGAR
    qualifier (``/DE/``), no legal-form or share-line words (Inc, Corp, plc, L.P., Common Stock)."""
    text = _QUALIFIER.sub(" ", name.lower()).replace("&", " and ")
    # "L.P." reads "lp" and "Gold.com" "goldcom": dots and apostrophes join, they do not separate
    text = text.replace(".", "").replace("'", "").replace("\u2019", "")
    text = re.sub(r"\bl p\b", "lp", text)  # "CEDAR FAIR L P"
    return tuple(w for w in re.findall(r"[a-z0-9]+", text) if w not in _NAME_NOISE)


def same_company_name(a: str | None, b: str | None) -> bool:
    """Whether two SEC names are evidently one company (equal once ``name_words`` reduces them); a
    missing or empty name is never evidence."""
    if not a or not b:
        return False
    left, right = name_words(a), name_words(b)
    return bool(left) and left == right


def names_agree(a: str | None, b: str | None) -> bool:
    """Whether a listing line and an SEC name describe the same company: one reduced name begins with
    the other ("Barrick Mining Corporation Common Shares" and "BARRICK MINING CORP")."""
    if not a or not b:
        return False
    left, right = name_words(a), name_words(b)
    short, long_ = sorted((left, right), key=len)
    return bool(short) and long_[: len(short)] == short
