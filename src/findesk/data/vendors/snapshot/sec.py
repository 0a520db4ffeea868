"""The snapshot's SEC data: companies, filings, stored documents and XBRL facts.

Rules this store keeps:
- Point in time: filings by filing date, facts by ``filed``, reference lists by their file date,
  Nasdaq sector rows by their ``first_seen``; nothing filed or seen after ``as_of`` is ever returned,
  and asking for the document of a later filing is ``invalid_input``.
- Every filing has an EDGAR link (``url``): the Archives URL of its document, else its index page (an
  accession companyfacts records for that form and filing date), else EDGAR's filing search for that
  CIK, form and date; a local path is never the only reference.
- One ``Filing`` per accession: the submissions JSON (complete listing) is merged with
  ``sec/filings/index.csv`` (stored documents, several rows per filing); ``local_path`` is the primary
  ``.htm``/``.md`` document and is set only when that file is in the snapshot.
- A ticker names one company at ``as_of``. The snapshot has two SEC ticker tables, each a picture of
  one day (its ``SOURCES.tsv`` as-of: ``company_tickers.json`` 2024-05-14, ``company_tickers_exchange.csv``
  2026-06-01). When they give one CIK, that is the company. When they give different CIKs the symbol
  changed hands (or the company re-registered) between those days: on or before the older table's
  day the older table is right, on or after the newer table's day the newer one; in between the day
  of the change is unknown, so the ticker is ambiguous (``invalid_input`` naming both companies and
  CIKs, which no other vendor is asked to overrule) unless both names are evidently one company
  (equal once case, punctuation, Inc/Corp/plc and EDGAR's ``/DE/`` are set aside): then the newer CIK,
  with a note. A ticker only one table lists resolves to it, with a note when the date lies on the
  side of the table that lacks it. For a ticker that changed hands, the tables keyed by symbol only
  (GICS list, Nasdaq sector rows, the Nasdaq directory) are used only when they name the same
  company (the GICS list by CIK, the others by name). Filings and facts follow the same CIK.
- Absence is said plainly: a company the snapshot does not cover is ``no_data`` naming what is
  missing, an unknown ticker or concept is ``not_found``.
- Methods are synchronous and thread-safe; every file is parsed once (per CIK for JSON) under a lock.
  What is parsed (ticker tables, symbol tables, a company's filing list and each XBRL concept asked
  for) is kept on disk between processes (``SnapshotFiles.cached``: rebuilt when its file or the
  parsers change), so a new process reads neither the big JSON files nor the CSV tables again.
"""

from __future__ import annotations

import csv
import re
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from typing import Any, Literal, TypeVar

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import sec as fmt
from findesk.data.models import Company, Fact, Filing, FilingDocument
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles
from findesk.data.vendors.snapshot.store_cache import Blobs

V = "snapshot"
T = TypeVar("T")
TICKERS_CSV = "sec/company_tickers_exchange.csv"
TICKERS_JSON = "sec/company_tickers.json"
INDEX_CSV = "sec/filings/index.csv"
CONSTITUENTS_DIR = "reference/sp500_constituents"
NASDAQ_META = "reference/us_listed_stocks_metadata_sector_industry_2023-2025.csv"
ETF_MAP = "reference/ticker_exchange_map_from_nasdaqtraded_2024-08-01.csv"
PROVENANCE = "SOURCES.tsv"  # snapshot_path, source, license, as_of, notes: the day each table pictures
# The days SOURCES.tsv gives the two ticker tables, used when a snapshot's SOURCES.tsv lacks the row:
# company_tickers.json is SEC's file as of edgartools' last commit touching it; the exchange table is
# edgartools' parquet as of its last refresh commit.
OLDER_TICKERS_DAY = date(2024, 5, 14)
NEWER_TICKERS_DAY = date(2026, 6, 1)
INCOMPLETE = "the snapshot has no complete filing list for this company (no submissions JSON)"
_PRIMARY_FORMATS: dict[str, Literal["html", "markdown"]] = {"html": "html", "markdown": "markdown"}
_CONSTITUENTS = re.compile(r"constituents_(\d{4}-\d{2}-\d{2})\.csv$")


@dataclass(frozen=True, slots=True)
class _Listed:
    """A ticker's row in each SEC ticker table (None where that table lacks it)."""

    json: fmt.TickerEntry | None  # TICKERS_JSON
    csv: fmt.TickerEntry | None  # TICKERS_CSV


@dataclass(frozen=True, slots=True)
class _Picked:
    """The company a ticker names at a date: its table row, the table, and what the reader must know."""

    entry: fmt.TickerEntry
    origin: str
    notes: tuple[str, ...] = ()
    # the tables name two different companies: tables keyed by symbol alone may describe the other one
    changed_hands: bool = False


@dataclass(frozen=True, slots=True)
class _Stored:
    """One filing as listed in ``index.csv``: its metadata and, when present, its primary document."""

    filing: Filing
    fmt: Literal["html", "markdown"] | None


class SecStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._lock = threading.Lock()  # per-company loads run outside it (``_once``)
        self._per_cik: dict[tuple[str, int], Lazy[Any]] = {}
        self._tickers = Lazy(self._load_tickers)
        self._days = Lazy(self._load_days)
        self._index = Lazy(self._load_index)
        self._nasdaq = Lazy(lambda: self._load_symbol_csv(NASDAQ_META, "symbol"))
        self._etfs = Lazy(lambda: self._load_symbol_csv(ETF_MAP, "symbol"))
        self._constituents: dict[str, Blobs[dict[str, str]]] = {}

    # --- company ---------------------------------------------------------------------------------

    def company(self, symbol: str, as_of: date) -> Result[Company]:
        ticker = fmt.normalize_ticker(symbol)
        got = self._pick(ticker, as_of)
        if isinstance(got, Err):
            return got
        picked = got.value if got is not None else None
        entry, origin = (picked.entry, picked.origin) if picked else (None, ETF_MAP)
        etf = self._etfs.get().get(ticker)
        if picked is not None and picked.changed_hands and etf is not None:
            # the directory (2024-08-01) names the symbol's holder on its own day: keep it only for this one
            etf = etf if fmt.names_agree(etf.get("security_name"), picked.entry.name) else None
        if entry is None and etf is None:
            return self._unknown(ticker)
        used = [origin]
        sector = industry = None
        gics = self._gics(ticker, as_of)
        if gics is not None and picked is not None and picked.changed_hands:
            gics = gics if _row_cik(gics[1]) in (None, picked.entry.cik) else None
        meta = self._nasdaq.get().get(ticker)
        if meta is not None and picked is not None and picked.changed_hands:
            meta = meta if fmt.names_agree(meta.get("name"), picked.entry.name) else None
        if gics is not None:
            rel, row = gics
            sector, industry = row.get("GICS Sector") or None, row.get("GICS Sub-Industry") or None
            used.append(f"{rel} (GICS)")
        elif meta is not None and ((meta.get("sector") or meta.get("industry")) and _seen_by(meta, as_of)):
            sector, industry = meta.get("sector") or None, meta.get("industry") or None
            used.append(f"{NASDAQ_META} (Nasdaq sector/industry, not GICS)")
        is_etf = etf is not None and etf.get("is_etf") == "True"
        if etf is not None and origin != ETF_MAP:
            used.append(ETF_MAP)
        return Ok(
            Company(
                ticker=ticker,
                cik=entry.cik if entry else None,
                name=(entry.name if entry else None) or (etf or {}).get("security_name") or None,
                exchange=(entry.exchange if entry else None) or (etf or {}).get("listing_exchange") or None,
                sector=sector,
                industry=industry,
                is_etf=is_etf,
                source=self.files.source(used[0], note="also: " + "; ".join(used[1:]) if used[1:] else None),
                notes=list(picked.notes) if picked else [],
            )
        )

    # --- filings ---------------------------------------------------------------------------------

    def filings(
        self, symbol: str, as_of: date, forms: frozenset[str] | None = None, limit: int | None = None
    ) -> Result[list[Filing]]:
        ticker = fmt.normalize_ticker(symbol)
        known = self._cik(ticker, as_of)
        if isinstance(known, Err):
            return known
        cik = known.value
        got = self._submissions(cik, ticker)
        if isinstance(got, Err):
            return got
        listed = got.value if got is not None else None
        stored = {acc: s for acc, s in self._index.get().items() if s.filing.cik == cik}
        # without a submissions JSON, companyfacts still names every 10-K/10-Q (not the 8-Ks)
        periodic = self._periodic(cik, ticker) if listed is None else []
        if listed is None and not stored and not periodic:
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot holds no filings for {ticker} (CIK {cik}): no submissions JSON and no stored "
                "documents; use the live SEC EDGAR vendor for its filing list",
                V,
            )
        # a stored document without an accession is the listed filing of its form and filing date
        undated = {
            (s.filing.form, s.filing.filing_date): key
            for key, s in stored.items()
            if s.filing.accession_number is None
        }
        merged: dict[str, Filing] = {}
        used: set[str] = set()
        for f in listed if listed is not None else periodic:
            acc = f.accession_number or ""
            key = acc if acc in stored else undated.get((f.form, f.filing_date))
            s = stored.get(key) if key is not None else None
            if key is not None and s is not None:
                used.add(key)
                f = f.model_copy(update={"local_path": s.filing.local_path})
            merged[acc] = f
        partial = self.files.source(INDEX_CSV, note=f"{INCOMPLETE}: only its stored documents are listed")
        for key, s in stored.items():
            if key not in used and key not in merged:
                update = {"ticker": ticker} | ({"source": partial} if listed is None else {})
                merged[key] = self._linked(s.filing).model_copy(update=update)
        wanted = {f.strip().upper() for f in forms} if forms else None
        out = [
            f
            for f in merged.values()
            if f.filing_date <= as_of and (wanted is None or f.form.upper() in wanted)
        ]
        out.sort(key=lambda f: (f.filing_date, f.accepted_at is not None, f.accepted_at), reverse=True)
        if not out and listed is None:
            # Only a few documents are stored for this company: absence here proves nothing.
            what = f" of form {', '.join(sorted(wanted))}" if wanted else ""
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot holds no {ticker} filings{what} filed on or before {as_of.isoformat()} "
                "(it has no submissions JSON for it, only a few stored documents)",
                V,
            )
        return Ok(out[:limit] if limit is not None else out)

    def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        if filing.filing_date > as_of:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{filing.ticker} {filing.form} was filed {filing.filing_date.isoformat()}, after the as-of "
                f"date {as_of.isoformat()}; it cannot be read at that date",
                V,
            )
        stored = self._find_stored(filing)
        if stored is None or stored.filing.local_path is None or stored.fmt is None:
            where = filing.url or "its EDGAR Archives page"
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot has only the filing index entry for {filing.ticker} {filing.form} filed "
                f"{filing.filing_date.isoformat()}, not its document; it is on EDGAR at {where}",
                V,
            )
        rel = stored.filing.local_path
        content = self.files.path(rel).read_bytes().decode("utf-8", errors="replace")
        note = "a Markdown conversion, not the original EDGAR bytes" if stored.fmt == "markdown" else None
        return Ok(
            FilingDocument(
                filing=filing.model_copy(update={"local_path": rel}),
                format=stored.fmt,
                content=content,
                source=self.files.source(rel, note=note),
            )
        )

    # --- facts -----------------------------------------------------------------------------------

    def facts(self, symbol: str, concept: str, as_of: date) -> Result[list[Fact]]:
        ticker = fmt.normalize_ticker(symbol)
        known = self._cik(ticker, as_of)
        if isinstance(known, Err):
            return known
        cik = known.value
        rel = f"sec/companyfacts/CIK{fmt.cik10(cik)}.json"
        if not self.files.exists(rel):
            return Err(
                ErrorCode.NO_DATA,
                f"the snapshot holds no XBRL companyfacts for {ticker} (CIK {cik}); it has them only for "
                "AAPL, NVDA and Alphabet (GOOGL/GOOG)",
                V,
            )

        def parse() -> Result[list[Fact]]:
            data = self._once(("facts", cik), lambda: self.files.read_json(rel))
            return fmt.parse_facts(data, concept, ticker=ticker, source=self.files.source(rel))

        # Parsed once per concept: a briefing asks for several concepts of one company on every run.
        got = self._once(
            (f"facts:{ticker}:{concept.strip().lower()}", cik),
            lambda: self.files.cached("facts", [rel], parse, variant=f"{ticker}|{concept}"),
        )
        if isinstance(got, Err):
            return got
        visible = [f for f in got.value if f.filed <= as_of]
        if not visible:
            return Err(
                ErrorCode.NO_DATA,
                f"{ticker} filed no value of {concept.strip()} on or before {as_of.isoformat()}",
                V,
            )
        return Ok(visible)

    # --- loading ---------------------------------------------------------------------------------

    def _unknown(self, ticker: str) -> Err:
        return Err(
            ErrorCode.NOT_FOUND,
            f"{ticker} is not in the snapshot's SEC ticker tables or US listing directory; check the symbol",
            V,
        )

    def _once(self, key: tuple[str, int], load: Callable[[], T]) -> T:
        """``load()`` once per key. Only the lookup holds the store's lock: one company's first load
        never blocks another company, and a loader may itself ask for another key."""
        with self._lock:
            lazy = self._per_cik.setdefault(key, Lazy(load))
        return lazy.get()  # type: ignore[no-any-return]

    def _cik(self, ticker: str, as_of: date) -> Result[int]:
        """The CIK the ticker names at ``as_of`` (``_pick``), else the one its stored documents give."""
        picked = self._pick(ticker, as_of)
        if isinstance(picked, Err):
            return picked
        if picked is not None:
            return Ok(picked.value.entry.cik)
        cik = next((s.filing.cik for s in self._index.get().values() if s.filing.ticker == ticker), None)
        return Ok(cik) if cik is not None else self._unknown(ticker)

    def _pick(self, ticker: str, as_of: date) -> Result[_Picked] | None:
        """The company ``ticker`` names at ``as_of`` over the two ticker tables (the module's rules), an
        ``invalid_input`` when it changed hands at an unknown day around ``as_of``, or None when
        neither table lists it."""
        listed = self._tickers.get().get(ticker)
        if listed is None:
            return None
        days = self._days.get()
        (old_day, old_rel, old), (new_day, new_rel, new) = sorted(
            ((days[TICKERS_JSON], TICKERS_JSON, listed.json), (days[TICKERS_CSV], TICKERS_CSV, listed.csv)),
            key=lambda t: t[0],
        )
        if old is None or new is None:
            return self._single(ticker, as_of, (old_day, old_rel, old), (new_day, new_rel, new))
        if old.cik == new.cik:
            return Ok(_Picked(new, new_rel))  # the newer row also names the exchange
        same = fmt.same_company_name(old.name, new.name)
        if as_of <= old_day:
            return Ok(_Picked(old, old_rel, changed_hands=not same))
        was, now = _named(old), _named(new)
        if as_of >= new_day:
            note = (
                f"{ticker} was re-registered: the SEC ticker table of {old_day} gives {was}; its filings "
                "before the change are under that CIK"
                if same
                else f"{ticker} changed hands: on {old_day} it named {was}; by {new_day} it names {now}"
            )
            return Ok(_Picked(new, new_rel, (note,), changed_hands=not same))
        if same:
            return Ok(
                _Picked(
                    new,
                    new_rel,
                    (
                        f"{ticker}: the SEC ticker table of {old_day} gives {was} and that of {new_day} "
                        f"{now}; the names are one company re-registered under a new CIK, so CIK {new.cik} "
                        f"is used (filings before the change are under CIK {old.cik})",
                    ),
                )
            )
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{ticker} is ambiguous on {as_of.isoformat()}: the SEC ticker table of {old_day} gives {was}, "
            f"the table of {new_day} gives {now}. The symbol changed hands between those days and the "
            "snapshot does not say when, so it cannot name one company at this date. Run it at a date on "
            f"or before {old_day} or on or after {new_day}, or use a symbol of the company you mean that "
            "did not change hands",
            V,
            details={
                "ticker": ticker,
                "candidates": [
                    {"cik": e.cik, "name": e.name, "table": rel, "table_date": day.isoformat()}
                    for day, rel, e in ((old_day, old_rel, old), (new_day, new_rel, new))
                ],
            },
        )

    def _single(
        self,
        ticker: str,
        as_of: date,
        older: tuple[date, str, fmt.TickerEntry | None],
        newer: tuple[date, str, fmt.TickerEntry | None],
    ) -> Result[_Picked]:
        """A ticker only one table lists: that row, noting when ``as_of`` lies where the other table
        (which lacks it) is the nearer witness."""
        (old_day, _, old), (new_day, new_rel, new) = older, newer
        if new is not None:
            notes = (
                (
                    f"{ticker} is not in the SEC ticker table of {old_day}; the table of {new_day} gives "
                    f"{_named(new)}: on {as_of.isoformat()} it may have traded under another symbol, or "
                    "not yet at all",
                )
                if as_of < new_day
                else ()
            )
            return Ok(_Picked(new, new_rel, notes))
        assert old is not None  # ``_load_tickers`` keeps only tickers some table lists
        notes = (
            (
                f"{ticker} is not in the SEC ticker table of {new_day}; the table of {old_day} gives "
                f"{_named(old)}: by {as_of.isoformat()} it may have been delisted or renamed",
            )
            if as_of > old_day
            else ()
        )
        return Ok(_Picked(old, older[1], notes))

    def _load_days(self) -> dict[str, date]:
        """The day each ticker table pictures, from ``SOURCES.tsv`` (its as-of column), else the
        constants above."""
        days = {TICKERS_JSON: OLDER_TICKERS_DAY, TICKERS_CSV: NEWER_TICKERS_DAY}
        if not self.files.exists(PROVENANCE):
            return days
        for line in self.files.path(PROVENANCE).read_text(encoding="utf-8").splitlines():
            cells = line.split("\t")
            if len(cells) >= 4 and cells[0] in days:
                try:  # "2024-05-14 (last commit touching the file)"
                    days[cells[0]] = date.fromisoformat(cells[3].strip()[:10])
                except ValueError:
                    continue  # an undated row: keep the known day
        return days

    def _submissions(self, cik: int, ticker: str) -> Result[list[Filing]] | None:
        """Every filing of the recorded submissions JSON and its stored older pages, or None."""

        def load() -> Result[list[Filing]] | None:
            rel = f"sec/submissions/CIK{fmt.cik10(cik)}.json"
            if not self.files.exists(rel):
                return None
            data = self.files.read_json(rel)
            got = fmt.parse_submissions(data, ticker=ticker, source=self.files.source(rel))
            if isinstance(got, Err):
                return got
            out = list(got.value)
            for name, _, _ in fmt.older_pages(data):
                page = f"sec/submissions/{name}"
                if self.files.exists(page):
                    older = fmt.parse_submissions(
                        self.files.read_json(page), ticker=ticker, cik=cik, source=self.files.source(page)
                    )
                    if isinstance(older, Err):
                        return older
                    out.extend(older.value)
            return Ok(out)

        # every recorded page counts as a source: the main file names the older pages it links to
        pages = self.files.glob(f"sec/submissions/CIK{fmt.cik10(cik)}*.json")
        got = self._once(
            ("submissions", cik),
            lambda: self.files.cached("submissions", pages, load, variant=f"{cik}|{ticker}"),
        )
        if isinstance(got, Ok) and got.value and got.value[0].ticker != ticker:  # GOOG vs GOOGL share a CIK
            return Ok([f.model_copy(update={"ticker": ticker}) for f in got.value])
        return got

    def _load_tickers(self) -> Blobs[_Listed]:
        """Ticker -> its row in each SEC ticker table; which one is right depends on the date (``_pick``)."""
        return self.files.cached("tickers", [TICKERS_CSV, TICKERS_JSON], self._parse_tickers, expect=Blobs)

    def _parse_tickers(self) -> Blobs[_Listed]:
        newer: dict[str, fmt.TickerEntry] = {}
        older: dict[str, fmt.TickerEntry] = {}
        if self.files.exists(TICKERS_CSV):
            got = fmt.parse_company_tickers_exchange(self.files.path(TICKERS_CSV).read_text(encoding="utf-8"))
            if isinstance(got, Ok):
                newer = got.value
        if self.files.exists(TICKERS_JSON):
            old = fmt.parse_company_tickers(self.files.read_json(TICKERS_JSON))
            if isinstance(old, Ok):
                older = old.value
        return Blobs({t: _Listed(json=older.get(t), csv=newer.get(t)) for t in newer.keys() | older.keys()})

    def _load_index(self) -> dict[str, _Stored]:
        """``index.csv`` grouped by accession (or ticker/form/date when the accession is unknown)."""
        rows: dict[str, list[dict[str, str]]] = {}
        with self.files.path(INDEX_CSV).open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh):
                key = row["accession_number"] or f"{row['ticker']}|{row['form']}|{row['filing_date']}"
                rows.setdefault(key, []).append(row)
        out: dict[str, _Stored] = {}
        for key, group in rows.items():
            primary = next((r for r in group if r["format"] in _PRIMARY_FORMATS), None)
            head = primary or group[0]
            cik, accession, doc = int(head["cik"]), head["accession_number"] or None, head["primary_document"]
            url = fmt.archives_url(cik, accession, doc) if accession and doc else (head["source_url"] or None)
            present = primary is not None and self.files.exists(primary["path"])
            out[key] = _Stored(
                filing=Filing(
                    ticker=fmt.normalize_ticker(head["ticker"]),
                    cik=cik,
                    form=head["form"],
                    filing_date=date.fromisoformat(head["filing_date"]),
                    report_date=date.fromisoformat(head["report_date"]) if head["report_date"] else None,
                    accession_number=accession,
                    primary_document=doc or None,
                    url=url,
                    local_path=primary["path"] if present and primary else None,
                    source=self.files.source(INDEX_CSV),
                ),
                fmt=_PRIMARY_FORMATS[primary["format"]] if present and primary else None,
            )
        return out

    def _linked(self, filing: Filing) -> Filing:
        """A stored filing whose accession nothing records is linked to EDGAR's filing search for its
        CIK, form and date (the filing is the top row there): never cited by its local path."""
        return (
            filing if filing.url is not None else filing.model_copy(update={"url": fmt.filing_link(filing)})
        )

    def _periodic(self, cik: int, ticker: str) -> list[Filing]:
        """The 10-K/10-Q filings of the company's companyfacts (with their EDGAR index pages), or []."""
        rel = f"sec/companyfacts/CIK{fmt.cik10(cik)}.json"
        if not self.files.exists(rel):
            return []
        note = f"{INCOMPLETE}: its 10-K/10-Q filings are listed from XBRL companyfacts, no 8-K"
        source = self.files.source(rel, note=note)

        def load() -> list[Filing]:
            data = self._once(("facts", cik), lambda: self.files.read_json(rel))
            return fmt.periodic_filings_in_facts(data, ticker=ticker, source=source)

        found = self._once(
            ("periodic", cik),
            lambda: self.files.cached("periodic", [rel], load, variant=f"{cik}|{ticker}", expect=list),
        )
        return [f if f.ticker == ticker else f.model_copy(update={"ticker": ticker}) for f in found]

    def _find_stored(self, filing: Filing) -> _Stored | None:
        index = self._index.get()
        if filing.accession_number and filing.accession_number in index:
            return index[filing.accession_number]
        # Some stored 10-Ks have no known accession: match them by company, form and filing date.
        return next(
            (
                s
                for s in index.values()
                if s.filing.cik == filing.cik
                and s.filing.form == filing.form
                and s.filing.filing_date == filing.filing_date
            ),
            None,
        )

    def _load_symbol_csv(self, rel: str, column: str) -> Blobs[dict[str, str]]:
        def parse() -> Blobs[dict[str, str]]:
            if not self.files.exists(rel):
                return Blobs({})
            with self.files.path(rel).open(encoding="utf-8", newline="") as fh:
                rows = {fmt.normalize_ticker(r[column]): r for r in csv.DictReader(fh) if r.get(column)}
            return Blobs(rows)

        return self.files.cached("symbols", [rel], parse, variant=f"{rel}|{column}", expect=Blobs)

    def _gics(self, ticker: str, as_of: date) -> tuple[str, dict[str, str]] | None:
        """The ticker's row in the latest S&P 500 constituents list dated on or before ``as_of``."""
        folder = self.files.path(CONSTITUENTS_DIR)
        if not folder.is_dir():
            return None
        dated = sorted(
            (date.fromisoformat(m.group(1)), p.name)
            for p in folder.iterdir()
            if (m := _CONSTITUENTS.search(p.name))
        )
        usable = [name for day, name in dated if day <= as_of]
        if not usable:
            return None
        rel = f"{CONSTITUENTS_DIR}/{usable[-1]}"
        with self._lock:
            if rel not in self._constituents:
                self._constituents[rel] = self._load_symbol_csv(rel, "Symbol")
            table = self._constituents[rel]
        row = table.get(ticker)
        return (rel, row) if row is not None else None


def _named(entry: fmt.TickerEntry) -> str:
    return f"{entry.name or 'an unnamed company'} (CIK {entry.cik})"


def _row_cik(row: dict[str, str]) -> int | None:
    """The CIK an S&P 500 constituents row gives, or None when it gives none."""
    try:
        return int(row.get("CIK") or "")
    except ValueError:
        return None


def _seen_by(row: dict[str, str], as_of: date) -> bool:
    """A metadata row is usable at ``as_of`` only once it was first seen (point in time)."""
    try:
        return date.fromisoformat(row.get("first_seen") or "") <= as_of
    except ValueError:
        return False  # an undated row cannot be placed in time
