"""Retrieval chunks of SEC filings, earnings-call transcripts and page corpora, following document structure.

Rules this module keeps:
- Structure first: a filing is cut into its Items (the existing splitter, ``parse_document``) and a
  detected sub-heading inside an Item starts a new chunk; a page corpus is cut per page; a transcript
  into its prepared remarks and then one series per question/answer turn (the snapshot's transcripts
  carry no speaker tags, so a turn starts at the operator's hand-off, "next question comes from ...").
  Chunks never span two Items, pages or turns.
- A token cap (WordPieces of the embedding model's tokenizer, ``tokens``): no chunk exceeds it. Inside
  a section, lines are packed greedily; an over-long line is split into sentences, an over-long
  sentence at word boundaries. Consecutive chunks of one section overlap by a tail of at most
  ``overlap`` tokens of the previous chunk, made of whole lines or, for prose, whole words.
- Tables (runs of lines with `` | ``-joined cells, as ``html_text`` renders them) are kept whole when
  they fit the cap; a larger table is split on row boundaries, never inside a row (only a single row
  longer than the cap is cut, at word boundaries), and a table row is never used as a partial overlap.
- Stable ids: a chunk's id hashes its document id, its position in the document and its text, so the
  same input gives the same ids on every run and a changed text changes the id. ``doc_hash`` is the
  hash of the whole document, so an index can replace a changed document's chunks.
- Chunkers are pure (no I/O); reading a page corpus file is ``load_pages``, whose errors name the file
  and line number and never drop a line silently.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from findesk.data.formats.sec_forms import base_form
from findesk.data.models.filings import FilingDocument
from findesk.data.models.transcripts import Transcript
from findesk.knowledge.filings.sections import parse_document
from findesk.knowledge.retrieval.tokens import count_many, count_tokens, tail, truncate

# all-MiniLM-L6-v2 reads at most 256 WordPieces including [CLS] and [SEP]; a chunk of 254 is embedded whole.
DEFAULT_MAX_TOKENS = 254
DEFAULT_OVERLAP = 32

_TABLE_CELL = " | "
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[\"“(\[]?[A-Z0-9$])")
_HEADING_WORD = re.compile(r"[A-Za-z][A-Za-z'’&-]*")
_LOWER_OK = frozenset(
    {"and", "of", "the", "for", "in", "on", "to", "a", "an", "or", "by", "with", "from", "at"}
)
_MAX_HEADING_CHARS = 90
_MAX_HEADING_WORDS = 12
# The operator's hand-off opens each question/answer turn of an earnings call.
_TURN_START = re.compile(
    r"(?:(?:our|the)\s+(?:first|next|following|last|final)\s+question\s+(?:comes|is\s+coming|is)\s+from"
    r"|(?:next|first)\s+question\s+comes\s+from)",
    re.IGNORECASE,
)
_PREPARED = "Prepared remarks"

Kind = Literal["filing", "transcript", "page"]


class ChunkMeta(BaseModel):
    """Where a chunk comes from, enough to filter on and to cite."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: Kind
    doc_id: str  # stable document identity: EDGAR URL, snapshot path or page-corpus doc_name
    doc_hash: str  # hash of the whole document's text; changes when the document does
    ticker: str | None = None
    company: str | None = None
    form: str | None = None  # "10-K", "10-Q", "8-K", "earnings call", a page corpus's doc type
    fiscal_year: int | None = None
    fiscal_period: str | None = None  # "FY", "Q1".."Q4"; None when not known
    filing_date: date | None = None  # the day it became public (a call's day for transcripts)
    item: str | None = None  # "1A", "II-2", "2.02"
    item_title: str | None = None
    heading: str | None = None  # the sub-heading inside an Item, or a transcript section
    page: int | None = None  # 0-indexed page of a page corpus
    source_url: str | None = None


class Chunk(BaseModel):
    """One retrievable piece of a document."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str
    position: int  # 0-based order within its document
    text: str
    tokens: int
    meta: ChunkMeta


class PageRecord(BaseModel):
    """One line of a page-corpus JSONL file (the FinanceBench bench schema)."""

    model_config = ConfigDict(frozen=True, extra="ignore")

    doc_name: str = Field(min_length=1, strict=True)
    page: int = Field(ge=0, strict=True)
    text: str = Field(strict=True)


class DocumentInfo(BaseModel):
    """What a caller knows about a page-corpus document, carried into its chunks' metadata."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    ticker: str | None = None
    company: str | None = None
    form: str | None = None
    fiscal_year: int | None = None
    fiscal_period: str | None = None
    filing_date: date | None = None
    source_url: str | None = None


class PageCorpusError(ValueError):
    """A page-corpus file that cannot be read; the message names the file and line."""


@dataclass(frozen=True, slots=True)
class _Unit:
    text: str
    tokens: int
    row: bool  # a table row or a whole table: never a partial overlap


@dataclass(frozen=True, slots=True)
class _Section:
    heading: str | None
    lines: list[str]


def _hash(*parts: str, size: int = 16) -> str:
    digest = hashlib.blake2b(digest_size=size)
    for part in parts:
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def chunk_id(doc_id: str, position: int, text: str) -> str:
    """The stable id of the chunk at ``position`` of ``doc_id`` with this text."""
    return _hash(doc_id, str(position), text)


def _is_row(line: str) -> bool:
    return _TABLE_CELL in line


def _is_heading(line: str) -> bool:
    """A short title-like line: not a sentence, not a table row, mostly capitalized words."""
    if len(line) > _MAX_HEADING_CHARS or _is_row(line) or line[-1] in ".,;:":
        return False
    words = _HEADING_WORD.findall(line)
    if not words or len(words) > _MAX_HEADING_WORDS or len(" ".join(words)) < len(line) / 2:
        return False
    return all(w[0].isupper() or w.lower() in _LOWER_OK for w in words) and words[0][0].isupper()


def _sections(text: str) -> list[_Section]:
    """Lines grouped under the sub-headings detected in them (consecutive headings join)."""
    out: list[_Section] = []
    current = _Section(None, [])
    for raw in text.splitlines():
        line = raw.strip()
        if not line:
            continue
        if _is_heading(line):
            if current.lines and not (current.heading is not None and current.lines == [current.heading]):
                out.append(current)
                current = _Section(line, [line])
            else:  # nothing but headings so far: stack them
                heading = line if current.heading is None else f"{current.heading} — {line}"
                current = _Section(heading, [*current.lines, line])
            continue
        current.lines.append(line)
    if current.lines:
        out.append(current)
    return out


def _tables(lines: list[str], counts: list[int], cap: int) -> list[tuple[str, int, bool]]:
    """``(text, tokens, is_row)`` with each run of table rows that fits the cap joined into one block."""
    out: list[tuple[str, int, bool]] = []
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and _is_row(lines[j]):
            j += 1
        if j == i:
            out.append((lines[i], counts[i], False))
            i += 1
            continue
        size = sum(counts[i:j])
        if size <= cap:  # a table that fits is one unit, so packing never separates its rows
            out.append(("\n".join(lines[i:j]), size, True))
        else:
            out.extend((lines[k], counts[k], True) for k in range(i, j))
        i = j
    return out


def _units(lines: list[str], cap: int) -> list[_Unit]:
    """Lines as packable units no larger than ``cap``: long prose is split, rows are kept (or cut, alone)."""
    counts = count_many(lines)
    units: list[_Unit] = []
    for line, n, row in _tables(lines, counts, cap):
        if n <= cap:
            units.append(_Unit(line, n, row))
            continue
        pieces = [line] if row else _SENTENCE_END.split(line)
        for piece, m in zip(pieces, count_many(pieces), strict=True):
            rest, size = piece, m
            while size > cap:  # a single over-long sentence or row: cut at word boundaries
                head, rest = truncate(rest, cap)
                units.append(_Unit(head, count_tokens(head), row))
                size = count_tokens(rest)
            if rest:
                units.append(_Unit(rest, size, row))
    return units


def _overlap(units: list[_Unit], budget: int) -> list[_Unit]:
    """The tail of a chunk to repeat at the start of the next: whole lines, or whole words of prose."""
    taken: list[_Unit] = []
    left = budget
    for unit in reversed(units):
        if unit.tokens <= left:
            taken.insert(0, unit)
            left -= unit.tokens
            continue
        if not unit.row and left > 0:
            piece = _sentence_tail(unit.text, left) or tail(unit.text, left)
            if piece:
                taken.insert(0, _Unit(piece, count_tokens(piece), False))
        break
    return taken


def _sentence_tail(text: str, budget: int) -> str:
    """The trailing whole sentences of ``text`` within ``budget`` tokens (empty if not even one fits)."""
    sentences = _SENTENCE_END.split(text)
    kept: list[str] = []
    left = budget
    for sentence, n in zip(reversed(sentences), reversed(count_many(sentences)), strict=True):
        if n > left:
            break
        kept.insert(0, sentence)
        left -= n
    return " ".join(kept)


def _pack(units: list[_Unit], cap: int, overlap: int) -> list[tuple[str, int]]:
    """Greedy packing of units into chunks of at most ``cap`` tokens, each starting with an overlap tail."""
    chunks: list[list[_Unit]] = []
    current: list[_Unit] = []
    size = 0
    fresh = 0  # units in ``current`` that are not overlap
    for unit in units:
        if current and size + unit.tokens > cap:
            chunks.append(current)
            carried = _overlap(current, overlap)
            while carried and sum(u.tokens for u in carried) + unit.tokens > cap:
                carried.pop(0)
            current, size, fresh = carried, sum(u.tokens for u in carried), 0
        current.append(unit)
        size += unit.tokens
        fresh += 1
    if current and fresh:
        chunks.append(current)
    out: list[tuple[str, int]] = []
    for group in chunks:
        text = "\n".join(u.text for u in group)
        out.append((text, count_tokens(text)))
    return out


def _split(text: str, cap: int, overlap: int, *, headings: bool) -> list[tuple[str | None, str, int]]:
    """``(heading, text, tokens)`` chunks of one structural section."""
    if cap <= 0 or overlap < 0 or overlap >= cap:
        raise ValueError(f"need 0 <= overlap < cap, got cap={cap} overlap={overlap}")
    groups = _sections(text) if headings else [_Section(None, [ln.strip() for ln in text.splitlines()])]
    out: list[tuple[str | None, str, int]] = []
    for group in groups:
        lines = [ln for ln in group.lines if ln]
        if lines:
            out.extend((group.heading, t, n) for t, n in _pack(_units(lines, cap), cap, overlap))
    return out


def chunk_filing(
    doc: FilingDocument, *, max_tokens: int = DEFAULT_MAX_TOKENS, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """Chunks of a 10-K, 10-Q or 8-K: one series per Item, a new chunk at each detected sub-heading."""
    filing = doc.filing
    doc_id = filing.url or filing.local_path or doc.source.ref
    kind = base_form(filing.form)
    base = ChunkMeta(
        kind="filing",
        doc_id=doc_id,
        doc_hash=_hash(doc.content),
        ticker=filing.ticker,
        form=filing.form,
        # The fiscal year is named by the year its period ends, the convention of most filers.
        fiscal_year=filing.report_date.year if filing.report_date and kind in ("10-K", "10-Q") else None,
        fiscal_period="FY" if kind == "10-K" else None,
        filing_date=filing.filing_date,
        source_url=filing.url,
    )
    chunks: list[Chunk] = []
    for section in parse_document(doc):
        for heading, text, n in _split(section.text, max_tokens, overlap, headings=True):
            meta = base.model_copy(
                update={"item": section.item, "item_title": section.title, "heading": heading}
            )
            chunks.append(_chunk(meta, len(chunks), text, n))
    return chunks


def _chunk(meta: ChunkMeta, position: int, text: str, tokens: int) -> Chunk:
    return Chunk(
        id=chunk_id(meta.doc_id, position, text), position=position, text=text, tokens=tokens, meta=meta
    )


def transcript_turns(text: str) -> list[tuple[str, str]]:
    """``(label, text)``: the prepared remarks, then one entry per question/answer turn."""
    starts = [m.start() for m in _TURN_START.finditer(text)]
    bounds = [0, *starts, len(text)]
    turns: list[tuple[str, str]] = []
    for i in range(len(bounds) - 1):
        part = text[bounds[i] : bounds[i + 1]].strip()
        if part:
            turns.append((_PREPARED if i == 0 else f"Question {i}", part))
    return turns


def chunk_transcript(
    transcript: Transcript, *, max_tokens: int = DEFAULT_MAX_TOKENS, overlap: int = DEFAULT_OVERLAP
) -> list[Chunk]:
    """Chunks of an earnings call: the prepared remarks, then each question/answer turn on its own."""
    doc_id = f"transcript:{transcript.ticker}:{transcript.fiscal_year}Q{transcript.fiscal_quarter}"
    base = ChunkMeta(
        kind="transcript",
        doc_id=doc_id,
        doc_hash=_hash(transcript.text),
        ticker=transcript.ticker,
        company=transcript.company_name,
        form="earnings call",
        fiscal_year=transcript.fiscal_year,
        fiscal_period=f"Q{transcript.fiscal_quarter}",
        filing_date=transcript.conference_at.date(),
        source_url=transcript.source.ref,
    )
    chunks: list[Chunk] = []
    for label, text in transcript_turns(transcript.text):
        for _, piece, n in _split(text, max_tokens, overlap, headings=False):
            chunks.append(_chunk(base.model_copy(update={"heading": label}), len(chunks), piece, n))
    return chunks


def chunk_pages(
    pages: Iterable[PageRecord],
    documents: Mapping[str, DocumentInfo] | None = None,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    overlap: int = DEFAULT_OVERLAP,
) -> list[Chunk]:
    """Chunks of a page corpus: each page on its own (split further only past the cap)."""
    by_doc: dict[str, list[PageRecord]] = {}
    for page in pages:
        by_doc.setdefault(page.doc_name, []).append(page)
    known = documents or {}
    chunks: list[Chunk] = []
    for name, doc_pages in by_doc.items():
        doc_pages.sort(key=lambda p: p.page)
        info = known.get(name, DocumentInfo())
        base = ChunkMeta(
            kind="page",
            doc_id=name,
            doc_hash=_hash(*(f"{p.page}\x1e{p.text}" for p in doc_pages)),
            **info.model_dump(),
        )
        position = 0
        for page in doc_pages:
            for _, text, n in _split(page.text, max_tokens, overlap, headings=False):
                chunks.append(_chunk(base.model_copy(update={"page": page.page}), position, text, n))
                position += 1
    return chunks


def load_pages(path: Path) -> list[PageRecord]:
    """Read a page-corpus JSONL file (``.gz`` allowed): one ``{"doc_name", "page", "text"}`` per line.

    Blank lines are skipped; any other bad line stops the load with a ``PageCorpusError`` naming the file,
    the line number and what is wrong, so no page is lost silently.
    """
    opener = gzip.open if path.suffix == ".gz" else open
    records: list[PageRecord] = []
    try:
        with opener(path, "rt", encoding="utf-8") as fh:
            for lineno, line in enumerate(fh, start=1):
                if not line.strip():
                    continue
                records.append(_page(path, lineno, line))
    except (OSError, UnicodeDecodeError, EOFError) as exc:
        raise PageCorpusError(f"{path}: cannot read the page corpus: {exc}") from exc
    return records


def _page(path: Path, lineno: int, line: str) -> PageRecord:
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        raise PageCorpusError(f"{path}:{lineno}: not valid JSON ({exc.msg})") from exc
    if not isinstance(data, dict):
        raise PageCorpusError(f"{path}:{lineno}: expected a JSON object with doc_name, page and text")
    try:
        return PageRecord.model_validate(data)
    except ValidationError as exc:
        problems = "; ".join(
            f"{'.'.join(str(p) for p in err['loc']) or 'line'}: {err['msg']}" for err in exc.errors()
        )
        raise PageCorpusError(f"{path}:{lineno}: {problems}") from exc
