"""What an index is built from: the snapshot's filings and earnings calls, and page-text JSONL corpora.

Rules this module keeps:
- Reuse, never re-parse: filings are listed and read by the data layer's snapshot SEC store
  (``SecStore.filings`` / ``SecStore.document``, every stored 10-K, 10-Q and 8-K of every ticker
  folder under ``sec/filings/``) and calls by its transcript store; they are chunked by
  ``chunk_filing`` / ``chunk_transcript``, so the filing date every chunk carries is the data layer's
  own point-in-time key (a call's day for transcripts) and ``as_of`` filters apply to it. A filing's
  chunks also carry the filer's name (``SecStore.company``), as a call's carry its company's.
- Lazy: a ``SourceDocument`` holds only its id, a fingerprint and a ``load`` that parses and chunks;
  the index calls ``load`` only for a new or changed document. Snapshot documents are read one at a
  time as the build asks for them, so the whole snapshot is never in memory.
- Fingerprints hash the document's content, its metadata and ``CORPUS_VERSION`` with the chunker's
  settings, so an unchanged document is skipped, and a changed text, a corrected filing date or a
  new chunker re-chunks it. ``doc_id`` is the id its chunks carry, so a replacement removes exactly
  the old chunks.
- Page corpora (the FinanceBench schema) are read whole before anything is indexed: a bad line is a
  ``PageCorpusError`` naming the file and line, so a corrupt file indexes nothing rather than half.
  Document metadata comes from a sibling ``documents.jsonl`` (``company``, ``doc_type``,
  ``doc_period``, ``doc_link``) when there is one; page documents have no filing date, so an ``as_of``
  search never returns them (a date that is not known cannot be shown to precede ``as_of``).
- Where the snapshot is comes from the settings (``resolved_snapshot_dir``), never from a path here.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec_forms import base_form
from findesk.data.models.filings import Filing, FilingDocument
from findesk.data.models.transcripts import Transcript
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import SecStore
from findesk.data.vendors.snapshot.transcripts import TranscriptStore
from findesk.knowledge.retrieval.chunks import (
    DEFAULT_MAX_TOKENS,
    DEFAULT_OVERLAP,
    Chunk,
    DocumentInfo,
    PageCorpusError,
    PageRecord,
    chunk_filing,
    chunk_pages,
    chunk_transcript,
    load_pages,
)
from findesk.knowledge.retrieval.index import SourceDocument

CORPUS_VERSION = "1"  # bump when what a document's chunks are made of changes
SNAPSHOT = "snapshot"  # the corpus name of the whole snapshot (filings + transcripts)
FORMS = frozenset({"10-K", "10-Q", "8-K"})
DOCUMENTS_FILE = "documents.jsonl"
_FILINGS_DIR = "sec/filings"
_TRANSCRIPTS_DIR = "transcripts"
_EVERYTHING = date(9999, 1, 1)  # "as of the end of time": list every stored document, whatever its date
_SETTINGS = f"{CORPUS_VERSION}|{DEFAULT_MAX_TOKENS}|{DEFAULT_OVERLAP}"
_NAME_QUARTER = re.compile(r"(?<=\d{4})(Q[1-4])(?![0-9])", re.IGNORECASE)
_NAME_DATE = re.compile(r"dated[-_](\d{4}-\d{2}-\d{2})")
_DOC_TYPES = {"10K": "10-K", "10Q": "10-Q", "8K": "8-K", "EARNINGS": "earnings call"}


@dataclass(frozen=True)
class Corpus:
    """A named set of sources; ``len`` is known before any document is read (for the progress bar)."""

    name: str
    size: int
    sources: Callable[[], Iterator[SourceDocument]]

    def __len__(self) -> int:
        return self.size

    def __iter__(self) -> Iterator[SourceDocument]:
        return self.sources()


def fingerprint(*parts: str) -> str:
    """The content hash a source is skipped or replaced by (with the corpus and chunker settings)."""
    digest = hashlib.blake2b(digest_size=20)
    for part in (_SETTINGS, *parts):
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\x1f")
    return digest.hexdigest()


def filing_doc_id(filing: Filing, ref: str) -> str:
    """The document id ``chunk_filing`` gives a filing's chunks (``ref``: the document's source ref)."""
    return filing.url or filing.local_path or ref


def filing_source(doc: FilingDocument, company: str | None = None) -> SourceDocument:
    """One filing document as a source (chunked by ``chunk_filing`` when the index asks).

    ``company`` (the filer's name, which a filing record does not carry) goes into every chunk's
    metadata, so a question naming the company finds its filings as well as its calls.
    """
    meta = doc.filing.model_dump_json(exclude={"source"})

    def load() -> list[Chunk]:
        chunks = chunk_filing(doc)
        if company is None:
            return chunks
        # the id hashes document, position and text, so naming the company leaves every id as it was
        return [c.model_copy(update={"meta": c.meta.model_copy(update={"company": company})}) for c in chunks]

    return SourceDocument(
        doc_id=filing_doc_id(doc.filing, doc.source.ref),
        fingerprint=fingerprint("filing", meta, company or "", doc.format, doc.content),
        load=load,
    )


def transcript_source(transcript: Transcript) -> SourceDocument:
    """One earnings call as a source (chunked by ``chunk_transcript`` when the index asks)."""
    meta = transcript.model_dump_json(exclude={"text", "source"})
    t = transcript
    return SourceDocument(
        doc_id=f"transcript:{t.ticker}:{t.fiscal_year}Q{t.fiscal_quarter}",
        fingerprint=fingerprint("transcript", meta, t.source.ref, t.text),
        load=lambda: chunk_transcript(transcript),
    )


def _stored_filings(sec: SecStore, files: SnapshotFiles) -> list[Filing]:
    """Every 10-K / 10-Q / 8-K whose document the snapshot stores, per ticker folder, oldest first."""
    tickers = sorted({Path(rel).parent.name for rel in files.glob(f"{_FILINGS_DIR}/*/*")})
    found: list[Filing] = []
    for ticker in tickers:
        listed = sec.filings(ticker, _EVERYTHING)
        if isinstance(listed, Ok):
            found += [f for f in listed.value if f.local_path is not None and base_form(f.form) in FORMS]
    found.sort(key=lambda f: (f.filing_date, f.ticker, f.form))
    return found


def _company_name(sec: SecStore, filing: Filing) -> str | None:
    found = sec.company(filing.ticker, filing.filing_date)
    return found.value.name if isinstance(found, Ok) else None


def _calls(store: TranscriptStore, files: SnapshotFiles) -> list[Transcript]:
    """Every earnings call whose text the snapshot stores, per ticker folder, oldest first."""
    tickers = sorted({Path(rel).parent.name for rel in files.glob(f"{_TRANSCRIPTS_DIR}/*/*.txt")})
    found: list[Transcript] = []
    for ticker in tickers:
        got = store.transcripts(ticker, _EVERYTHING, limit=10_000)
        if isinstance(got, Ok):
            found += got.value
    found.sort(key=lambda t: (t.conference_at, t.ticker))
    return found


def snapshot_corpus(root: Path, cache_dir: Path | None = None) -> Result[Corpus]:
    """Every stored filing and earnings call of the snapshot at ``root``."""
    if not (root / "snapshot.json").is_file():
        return Err(ErrorCode.NOT_CONFIGURED, f"{root} is not a findesk snapshot (it has no snapshot.json)")
    files = SnapshotFiles(root, cache_dir)
    sec = SecStore(files)
    filings = _stored_filings(sec, files)
    calls = _calls(TranscriptStore(files), files)

    def sources() -> Iterator[SourceDocument]:
        for filing in filings:
            doc = sec.document(filing, filing.filing_date)
            if isinstance(doc, Ok):  # listed with a local path, so stored: read one at a time
                yield filing_source(doc.value, _company_name(sec, filing))
        for call in calls:
            yield transcript_source(call)

    return Ok(Corpus(SNAPSHOT, len(filings) + len(calls), sources))


class _DocumentLine(BaseModel):
    """One line of a page corpus's ``documents.jsonl`` (the FinanceBench schema; other keys ignored)."""

    model_config = ConfigDict(extra="ignore")

    doc_name: str
    company: str | None = None
    ticker: str | None = None  # not in FinanceBench; lets a question's ticker ("JPM") find the document
    doc_type: str | None = None
    doc_period: int | None = None
    doc_link: str | None = None

    def _period(self, form: str | None) -> str | None:
        # FinanceBench names say the quarter ("AMCOR_2023Q2_10Q", "PEPSICO_2023Q1_EARNINGS")
        quarter = _NAME_QUARTER.search(self.doc_name)
        if quarter is not None:
            return quarter.group(1).upper()
        return "FY" if form == "10-K" else None

    def _dated(self) -> date | None:
        # an 8-K's name carries its date ("PEPSICO_2023_8K_dated-2023-05-30"); other pages stay undated
        found = _NAME_DATE.search(self.doc_name)
        try:
            return date.fromisoformat(found.group(1)) if found else None
        except ValueError:
            return None

    def info(self) -> DocumentInfo:
        kind = (self.doc_type or "").strip().upper().replace("-", "")
        form = _DOC_TYPES.get(kind, self.doc_type)
        return DocumentInfo(
            ticker=(self.ticker or "").strip().upper() or None,
            company=self.company,
            form=form,
            fiscal_year=self.doc_period,
            fiscal_period=self._period(form),
            filing_date=self._dated(),
            source_url=self.doc_link,
        )


def read_documents(path: Path) -> dict[str, DocumentInfo]:
    """``documents.jsonl``: document name -> what is known of it; a bad line is a ``PageCorpusError``."""
    out: dict[str, DocumentInfo] = {}
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as exc:
        raise PageCorpusError(f"{path}: cannot read the document list: {exc}") from exc
    for lineno, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            record = _DocumentLine.model_validate(json.loads(line))
        except (json.JSONDecodeError, ValidationError) as exc:
            reason = exc.msg if isinstance(exc, json.JSONDecodeError) else f"{exc.error_count()} bad field(s)"
            raise PageCorpusError(f"{path}:{lineno}: not a document record ({reason})") from exc
        out.setdefault(record.doc_name, record.info())  # upstream lists one document twice: the first wins
    return out


def _page_source(name: str, pages: list[PageRecord], info: DocumentInfo | None) -> SourceDocument:
    known = {name: info} if info is not None else None
    ordered = sorted(pages, key=lambda p: p.page)
    return SourceDocument(
        doc_id=name,
        fingerprint=fingerprint(
            "page",
            name,
            info.model_dump_json() if info is not None else "",
            *(f"{p.page}\x1e{p.text}" for p in ordered),
        ),
        load=lambda: chunk_pages(ordered, known),
    )


def page_sources(
    pages: Iterable[PageRecord], documents: dict[str, DocumentInfo] | None = None
) -> list[SourceDocument]:
    """One source per document of a page corpus, in the order documents first appear."""
    by_doc: dict[str, list[PageRecord]] = {}
    for page in pages:
        by_doc.setdefault(page.doc_name, []).append(page)
    known = documents or {}
    return [_page_source(name, doc_pages, known.get(name)) for name, doc_pages in by_doc.items()]


def page_corpus(path: Path) -> Result[Corpus]:
    """A page-text JSONL corpus (``.gz`` allowed), with ``documents.jsonl`` beside it if present."""
    if not path.is_file():
        what = "is a folder, not a JSONL file" if path.is_dir() else "does not exist"
        return Err(
            ErrorCode.INVALID_INPUT,
            f"corpus {path} {what}; give a page-corpus JSONL file (doc_name, page, text per line) "
            f"or `{SNAPSHOT}`",
        )
    try:
        pages = load_pages(path)
        sibling = path.parent / DOCUMENTS_FILE
        documents = read_documents(sibling) if sibling.is_file() and sibling != path else None
    except PageCorpusError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{exc}; nothing was indexed from it")
    if not pages:
        return Err(ErrorCode.INVALID_INPUT, f"corpus {path} holds no pages")
    sources = page_sources(pages, documents)
    return Ok(Corpus(str(path), len(sources), lambda: iter(sources)))


def open_corpus(spec: str, settings: Settings) -> Result[Corpus]:
    """``snapshot`` (the configured snapshot) or the path of a page-corpus JSONL file."""
    if spec.strip().lower() == SNAPSHOT:
        root = settings.resolved_snapshot_dir()
        if root is None:
            return Err(
                ErrorCode.NOT_CONFIGURED,
                "no snapshot is configured; set FINDESK_SNAPSHOT_DIR (or snapshot_dir in findesk.toml)",
            )
        return snapshot_corpus(root, settings.cache_dir)
    return page_corpus(Path(spec).expanduser())
