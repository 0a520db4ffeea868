"""Citable Item sections of 10-K, 10-Q and 8-K filings, parsed once and cached.

Rules this module keeps:
- ``parse_document`` is pure and synchronous: document -> text -> Items -> ``FilingSection``s, each
  carrying its citation (ticker, form, filing date, item, official title, EDGAR URL, local path).
- A document is parsed once. The cache key is the document's identity (vendor, ref, URL), a hash of
  its content and ``PARSER_VERSION``, so a changed document or a changed parser never serves stale
  sections. Two levels: an in-memory LRU and JSON files under ``cache_dir/sections/``. A cache file
  that cannot be read or validated is ignored and rewritten. Bump ``PARSER_VERSION`` whenever the
  output of ``parse_document`` changes.
- CPU-heavy work (parsing, hashing, JSON) runs in a worker thread, never on the event loop.
- Point in time: nothing filed after ``as_of`` is used. Errors are data: every failure is an
  ``Err`` with one plain sentence; the source's own errors are passed through unchanged.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import threading
from collections import OrderedDict
from datetime import date
from pathlib import Path
from typing import Any, Protocol

from pydantic import ValidationError

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec_forms import base_form, item_title, items_for_form, normalize_item
from findesk.data.models.filings import Filing, FilingDocument, FilingSection
from findesk.knowledge.filings.eight_k import split_eight_k
from findesk.knowledge.filings.html_text import document_text
from findesk.knowledge.filings.items import ItemText, split_items

PARSER_VERSION = "1"
_SOURCE = "filing_sections"
_FORMS = ("10-K", "10-Q", "8-K")
_MEMORY_ENTRIES = 32
_FILINGS_LOOKBACK = 25


class FilingSource(Protocol):
    """What the section service needs from the data layer (the router and the snapshot vendor)."""

    async def filings(
        self,
        symbol: str,
        as_of: date,
        forms: frozenset[str] | None = None,
        limit: int | None = None,
    ) -> Result[list[Filing]]:
        """Filings of ``symbol`` filed on or before ``as_of``, newest first."""
        ...

    async def document(self, filing: Filing, as_of: date) -> Result[FilingDocument]:
        """The primary document of ``filing``."""
        ...


def split_text(text: str, form: str) -> list[ItemText]:
    """The Items of a document's plain text, by form (empty for forms without Items)."""
    kind = base_form(form)
    if kind == "8-K":
        return split_eight_k(text)
    if kind in ("10-K", "10-Q"):
        return split_items(text, kind)
    return []


def parse_document(doc: FilingDocument) -> list[FilingSection]:
    """All Item sections of one document, in document order (pure, synchronous)."""
    filing = doc.filing
    text = document_text(doc.content, doc.format)
    return [
        FilingSection(
            ticker=filing.ticker,
            cik=filing.cik,
            form=filing.form,
            filing_date=filing.filing_date,
            report_date=filing.report_date,
            item=part.item,
            title=part.title,
            text=part.text,
            url=filing.url,
            local_path=filing.local_path,
            source=doc.source,
        )
        for part in split_text(text, filing.form)
    ]


def cache_key(doc: FilingDocument) -> str:
    """Identity + content hash + parser version, as a file-name-safe hex digest."""
    content = hashlib.blake2b(doc.content.encode("utf-8", "surrogatepass"), digest_size=16).hexdigest()
    identity = "|".join(
        (doc.source.vendor, doc.source.ref, doc.filing.url or "", doc.format, content, PARSER_VERSION)
    )
    return hashlib.blake2b(identity.encode(), digest_size=20).hexdigest()


class SectionService:
    """Item sections of filings from a ``FilingSource``, parsed once and cached (memory + disk)."""

    def __init__(self, source: FilingSource, cache_dir: Path) -> None:
        self._source = source
        self._dir = Path(cache_dir) / "sections"
        self._memory: OrderedDict[str, list[FilingSection]] = OrderedDict()
        self._locks: dict[str, asyncio.Lock] = {}
        # filing -> content key: within one process a filing's document does not change, so a warm
        # call skips re-reading and re-hashing it (the disk cache stays keyed by content)
        self._keys: dict[tuple[object, ...], str] = {}
        self.parses = 0  # documents actually parsed (not served from a cache): for tests and stats

    async def sections(self, filing: Filing, as_of: date) -> Result[list[FilingSection]]:
        """All Item sections of ``filing`` (an empty list when the document has no Item headings)."""
        if filing.filing_date > as_of:
            return Err(
                ErrorCode.NO_DATA,
                f"{filing.ticker} {filing.form} was filed on {filing.filing_date.isoformat()}, "
                f"after the as-of date {as_of.isoformat()}.",
                _SOURCE,
            )
        known = self._known(filing)
        if known is not None:
            return Ok(known)
        doc = await self._source.document(filing, as_of)
        if isinstance(doc, Err):
            return doc
        return Ok(await self._parsed(doc.value))

    async def section(self, symbol: str, form: str, item: str, as_of: date) -> Result[FilingSection]:
        """One Item of the newest ``form`` filing of ``symbol`` filed on or before ``as_of``."""
        kind = base_form(form)
        if kind not in _FORMS:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"Form {form!r} has no Item sections; use one of {', '.join(_FORMS)}.",
                _SOURCE,
            )
        key = normalize_item(kind, item)
        if key is None:
            valid = ", ".join(items_for_form(kind))
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{item!r} is not an item of Form {kind}; valid items are: {valid}.",
                _SOURCE,
            )
        title = item_title(kind, key) or key
        listed = await self._source.filings(
            symbol, as_of, forms=frozenset({kind, f"{kind}/A"}), limit=_FILINGS_LOOKBACK
        )
        if isinstance(listed, Err):
            return listed
        candidates = _candidates(listed.value, kind, key, as_of)
        if not candidates:
            what = f"reporting Item {key} ({title}) " if kind == "8-K" and listed.value else ""
            return Err(
                ErrorCode.NO_DATA,
                f"No {kind} filing of {symbol.upper()} {what}filed on or before {as_of.isoformat()} "
                "was found.",
                _SOURCE,
            )
        last_err: Err | None = None
        for filing in candidates:
            parsed = self._known(filing)
            if parsed is None:
                doc = await self._source.document(filing, as_of)
                if isinstance(doc, Err):
                    last_err = doc
                    if doc.code.is_fallthrough:
                        continue  # try the next older filing whose document may be available
                    return doc
                parsed = await self._parsed(doc.value)
            for sec in parsed:
                if sec.item == key:
                    return Ok(sec)
            return Err(
                ErrorCode.NO_DATA,
                f"{filing.ticker} {filing.form} filed {filing.filing_date.isoformat()} has no "
                f"Item {key} ({title}) in its document.",
                _SOURCE,
            )
        code = last_err.code if last_err else ErrorCode.NO_DATA
        why = f" (last error: {last_err.reason})" if last_err else ""
        return Err(
            code,
            f"No document is available for the {kind} filings of {symbol.upper()} filed on or before "
            f"{as_of.isoformat()}{why}.",
            (last_err.source if last_err else None) or _SOURCE,
        )

    def _known(self, filing: Filing) -> list[FilingSection] | None:
        key = self._keys.get(_filing_identity(filing))
        return self._remember(key) if key is not None else None

    async def _parsed(self, doc: FilingDocument) -> list[FilingSection]:
        key = await asyncio.to_thread(cache_key, doc)
        self._keys[_filing_identity(doc.filing)] = key
        hit = self._remember(key)
        if hit is not None:
            return hit
        # One parse per document even when several requests for it arrive together.
        lock = self._locks.setdefault(key, asyncio.Lock())
        try:
            async with lock:
                hit = self._remember(key)
                if hit is None:
                    hit = await asyncio.to_thread(self._load_or_parse, key, doc)
                    self._remember(key, hit)
                return hit
        finally:
            if not lock.locked():
                self._locks.pop(key, None)  # no waiters left: do not keep one lock per document

    def _remember(self, key: str, value: list[FilingSection] | None = None) -> list[FilingSection] | None:
        if value is not None:
            self._memory[key] = value
        hit = self._memory.get(key)
        if hit is not None:
            self._memory.move_to_end(key)
            while len(self._memory) > _MEMORY_ENTRIES:
                self._memory.popitem(last=False)
        return hit

    def _load_or_parse(self, key: str, doc: FilingDocument) -> list[FilingSection]:
        path = self._dir / f"{key}.json"
        cached = _read_cache(path, key)
        if cached is not None:
            return cached
        self.parses += 1
        sections = parse_document(doc)
        _write_cache(path, key, sections)
        return sections


def _filing_identity(filing: Filing) -> tuple[object, ...]:
    return (
        filing.cik,
        filing.form,
        filing.filing_date,
        filing.accession_number,
        filing.url,
        filing.local_path,
    )


def _candidates(filings: list[Filing], kind: str, key: str, as_of: date) -> list[Filing]:
    """Filings to try, newest first: originals before amendments; 8-Ks listing the item first."""
    usable = [f for f in filings if base_form(f.form) == kind and f.filing_date <= as_of]
    usable.sort(key=lambda f: f.filing_date, reverse=True)
    originals = [f for f in usable if not f.form.upper().endswith("/A")]
    chosen = originals or usable
    if kind == "8-K":
        listing = [f for f in chosen if key in f.items]
        return listing + [f for f in chosen if f not in listing and not f.items]
    return chosen


def _read_cache(path: Path, key: str) -> list[FilingSection] | None:
    try:
        raw: Any = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("key") != key or raw.get("parser_version") != PARSER_VERSION:
            return None
        return [FilingSection.model_validate(item) for item in raw["sections"]]
    except FileNotFoundError:
        return None
    except (OSError, ValueError, TypeError, KeyError, AttributeError, ValidationError):
        return None  # corrupt or foreign file: parse again and overwrite it


def _write_cache(path: Path, key: str, sections: list[FilingSection]) -> None:
    payload = {
        "key": key,
        "parser_version": PARSER_VERSION,
        "sections": [s.model_dump(mode="json") for s in sections],
    }
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(f".{os.getpid()}-{threading.get_ident()}.tmp")
        tmp.write_text(json.dumps(payload, ensure_ascii=False), encoding="utf-8")
        tmp.replace(path)  # atomic: a reader never sees a half-written file
    except OSError:
        pass  # the cache is an optimization; a read-only disk must not fail the request
