"""``findesk index build`` and ``findesk search``: build the retrieval index, search it with citations.

Rules:
- Commands parse options, call ``knowledge.retrieval`` (corpus, index, service) and render; they hold
  no retrieval logic. Every failure is one line (``findesk: <code>: <reason>``) and, with ``--json``,
  the project's JSON error body.
- Everything is checked before anything is written: every ``--corpus`` is opened (a page corpus is
  read whole, so a corrupt line names its file and line and indexes nothing) before the index is.
- ``--executor ray`` (or ``[executor] kind = "ray"``) encodes the chunks on a Ray cluster
  (``embed_fanout``); loading, chunking and writing stay in this process, the index's one writer.
- A build shows a progress bar on stderr (stdout stays the report, or the one JSON document). Ctrl-C
  keeps every committed batch and says "interrupted — run the same command again to resume"; the index
  itself purges a half-written batch when next opened, so the rerun equals an uninterrupted build.
- Search text and filters come from the user; retrieved text comes from documents, so it is printed
  literally (never as rich markup) and on one line per passage, and cannot forge a result line.
- The index lives where the settings say (``index_target``: ``retrieval_url`` for PostgreSQL, else the
  index directory) unless ``--index`` names another directory or PostgreSQL URL. Which backend that is
  is the index's business (``knowledge.retrieval.backends``); output names it with a URL's password
  masked.
"""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import typer

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.interfaces.cli import session as ses

if TYPE_CHECKING:
    from findesk.core.config import Settings
    from findesk.knowledge.retrieval.index import BuildProgress, BuildReport, RetrievalIndex
    from findesk.knowledge.retrieval.models import Filters, Hit, IndexStats
    from findesk.knowledge.retrieval.retrieve import Retrieval

index_app = typer.Typer(
    help="The retrieval index over filings, earnings calls and page corpora: build it, see its size.",
    no_args_is_help=True,
)

JSON = typer.Option(False, "--json", help="Print one JSON document instead of text.")
INDEX = typer.Option(
    None,
    "--index",
    help="Index directory or PostgreSQL URL (default: retrieval_url, else index_dir, "
    "else <cache_dir>/retrieval).",
)
INTERRUPTED = "interrupted — run the same command again to resume"
SNIPPET_CHARS = 320
_YEARS = (1900, 2100)


def _index_target(settings: Settings, index: str | None) -> Path | str:
    return index if index is not None else settings.index_target()


def _where(target: Path | str) -> str:
    from findesk.knowledge.retrieval.backends import describe

    return describe(target)


def _size(n: int) -> str:
    for unit, step in (("GB", 1 << 30), ("MB", 1 << 20), ("kB", 1 << 10)):
        if n >= step:
            return f"{n / step:,.1f} {unit}"
    return f"{n} B"


def _open_for_build(target: Path | str, encoder: Any = None) -> Result[RetrievalIndex]:
    from findesk.knowledge.retrieval.index import RetrievalIndex, RetrievalIndexError

    try:
        return Ok(RetrievalIndex.open(target, create=True, encoder=encoder))
    except (RetrievalIndexError, OSError) as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot open the retrieval index at {_where(target)}: {exc}")


@index_app.command("build")
def build(
    corpus: list[str] = typer.Option(
        [],
        "--corpus",
        help="`snapshot` (every filing and earnings call of the snapshot, the default) or a page-corpus "
        "JSONL file (doc_name, page, text per line; .gz allowed); repeat to index several.",
    ),
    index: str | None = INDEX,
    prune: bool = typer.Option(
        False, "--prune", help="Also remove indexed documents that none of the corpora holds any more."
    ),
    executor: str | None = typer.Option(
        None, "--executor", help="Encode on: local (this process) | ray (a Ray cluster); default [executor]."
    ),
    address: str | None = typer.Option(
        None, "--address", help="With --executor ray: HOST:PORT of a running Ray head, or 'local'."
    ),
    as_json: bool = JSON,
) -> None:
    """Add new and changed documents to the index (unchanged ones are skipped); resumable after Ctrl-C."""
    from itertools import chain

    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

    from findesk.knowledge.retrieval.corpus import SNAPSHOT, Corpus, open_corpus
    from findesk.knowledge.retrieval.embed_fanout import EncodingError
    from findesk.knowledge.retrieval.index import BuildError, IndexLockedError

    settings = ses.load(as_json)
    path = _index_target(settings, index)
    specs = dict.fromkeys(corpus or [SNAPSHOT])  # naming a corpus twice indexes it once
    corpora = [ses.unwrap(open_corpus(spec, settings), as_json) for spec in specs]
    everything = Corpus(
        " + ".join(c.name for c in corpora),
        sum(len(c) for c in corpora),
        lambda: chain.from_iterable(iter(c) for c in corpora),
    )
    fan_out = ses.unwrap(_executor(settings, executor, address), as_json)
    opened = ses.unwrap(_open_for_build(path, _encoder(fan_out)), as_json)
    done = 0
    columns = (
        TextColumn("indexing"),
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("documents · {task.fields[chunks]:,} chunks embedded"),
        TimeElapsedColumn(),
    )
    with opened as idx, Progress(*columns, console=ses.stderr, transient=True) as bar:
        task = bar.add_task("build", total=len(everything), chunks=0)

        def advance(p: BuildProgress) -> None:
            nonlocal done
            done = p.done
            bar.update(task, completed=p.done, chunks=p.chunks)

        try:
            report = idx.build(everything, progress=advance, remove_missing=prune)
        except KeyboardInterrupt:
            bar.stop()
            _interrupted(done, len(everything), as_json)
        except IndexLockedError as exc:
            ses.fail(Err(ErrorCode.UNAVAILABLE, str(exc)), as_json)
        except BuildError as exc:
            reason = f"{exc}; the documents before it are indexed, run the same command again after fixing it"
            ses.fail(Err(ErrorCode.INVALID_INPUT, reason), as_json)
        except EncodingError as exc:  # a worker of --executor ray failed: the batches before it are kept
            ses.fail(Err(ErrorCode.UNAVAILABLE, f"{exc}; run the same command again to resume"), as_json)
        finally:
            if fan_out is not None:
                fan_out.close()
        stats = idx.stats()
    _report(everything.name, _where(path), report, stats, as_json)


def _executor(settings: Settings, kind: str | None, address: str | None) -> Result[Any]:
    """The executor ``--executor`` / ``--address`` / ``[executor]`` name for encoding, or None: encode in
    this process (a local pool would only add process starts to a build that already uses every core)."""
    from findesk.core.executor import choose, open_executor

    if kind not in (None, "local", "ray"):
        return Err(ErrorCode.INVALID_INPUT, f"--executor must be local or ray, not {kind!r}")
    chosen = choose(settings.executor, kind, address)
    if chosen.kind != "ray":
        return Ok(None)
    return open_executor(chosen)


def _encoder(executor: Any) -> Any:
    if executor is None:
        return None
    from findesk.knowledge.retrieval.embed_fanout import FannedEncoder

    return FannedEncoder(executor)


def _interrupted(done: int, total: int, as_json: bool) -> NoReturn:
    message = f"{INTERRUPTED} ({done} of {total} documents handled; finished batches are kept)"
    if as_json:
        print(json.dumps(ses.error_body(Err(ErrorCode.UNAVAILABLE, message)), ensure_ascii=False))
    ses.stderr.print(f"findesk: {message}", markup=False, highlight=False)
    raise typer.Exit(130)


def _report(name: str, path: str, report: BuildReport, stats: IndexStats, as_json: bool) -> None:
    if as_json:
        ses.emit_json(None, {"corpus": name, "index": str(path), "build": report, "index_stats": stats})
        return
    removed = f", {report.removed} removed" if report.removed else ""
    ses.say(
        f"Indexed {name} into {path} in {report.seconds:,.1f} s: {report.added} documents added, "
        f"{report.replaced} replaced, {report.unchanged} unchanged{removed}; "
        f"{report.chunks_embedded:,} chunks embedded."
    )
    ses.say(
        f"The index holds {stats.documents:,} documents and {stats.chunks:,} chunks, "
        f"{_size(stats.bytes_on_disk)} on disk."
    )


@index_app.command("stats")
def stats(index: str | None = INDEX, as_json: bool = JSON) -> None:
    """How many documents and chunks the index holds, and its size on disk."""
    from findesk.knowledge.retrieval.service import open_index

    settings = ses.load(as_json)
    path = _index_target(settings, index)
    with ses.unwrap(open_index(path), as_json) as idx:
        numbers = idx.stats()
    if as_json:
        ses.emit_json(None, {"index": _where(path), "index_stats": numbers})
        return
    ses.say(
        f"{_where(path)}: {numbers.documents:,} documents, {numbers.chunks:,} chunks, "
        f"{_size(numbers.bytes_on_disk)} on disk."
    )


# ---- search -------------------------------------------------------------------------------------------


def _year(text: str) -> Result[int]:
    try:
        value = int(text.strip().upper().removeprefix("FY"))
    except ValueError:
        return Err(ErrorCode.INVALID_INPUT, f"--year {text!r} is not a year; use e.g. 2024")
    if not _YEARS[0] <= value <= _YEARS[1]:
        return Err(ErrorCode.INVALID_INPUT, f"--year {value} is out of range ({_YEARS[0]}–{_YEARS[1]})")
    return Ok(value)


def _as_set(values: list[str]) -> frozenset[str] | None:
    kept = frozenset(v.strip() for v in values if v.strip())
    return kept or None


def _filters(
    tickers: list[str],
    forms: list[str],
    years: list[str],
    items: list[str],
    as_of: date | None,
    as_json: bool,
) -> Filters:
    from findesk.knowledge.retrieval.models import Filters

    fiscal = frozenset(ses.unwrap(_year(y), as_json) for y in years) or None
    return Filters(
        tickers=_as_set(tickers),
        forms=_as_set(forms),
        fiscal_years=fiscal,
        items=_as_set(items),
        as_of=as_of,
    )


def search(
    query: str = typer.Argument(..., help='What to look for, e.g. "data center revenue growth".'),
    ticker: list[str] = typer.Option([], "--ticker", help="Only this company (repeat for several)."),
    form: list[str] = typer.Option([], "--form", help='Only this form: 10-K, 10-Q, 8-K, "earnings call".'),
    year: list[str] = typer.Option([], "--year", help="Only this fiscal year, e.g. 2024."),
    item: list[str] = typer.Option([], "--item", help="Only this Item, e.g. 1A, 7, II-1A, 2.02."),
    as_of: str | None = typer.Option(
        None, "--as-of", help="Only documents filed on or before this day, YYYY-MM-DD (default: no limit)."
    ),
    k: int = typer.Option(10, "--k", help="How many passages (1-100)."),
    derive: bool = typer.Option(
        True, "--derive/--no-derive", help="Also narrow by the company, year and form the query names."
    ),
    index: str | None = INDEX,
    as_json: bool = JSON,
) -> None:
    """Search the index: cited passages (form, filing date, Item or page, URL) with BM25 and dense scores."""
    from findesk.core.dates import parse_date
    from findesk.knowledge.retrieval.service import check_query, open_index
    from findesk.knowledge.retrieval.service import search as run_search

    settings = ses.load(as_json)
    day = ses.unwrap(parse_date(as_of, what="--as-of"), as_json) if as_of is not None else None
    filters = _filters(ticker, form, year, item, day, as_json)
    ses.unwrap(check_query(query, k), as_json)  # before opening the index: a typo costs nothing
    path = _index_target(settings, index)
    with ses.unwrap(open_index(path), as_json) as idx:
        result = ses.unwrap(run_search(idx, query, filters, k, derive=derive), as_json)
    if as_json:
        ses.emit_json(None, _document(result, _where(path)))
        return
    _render(result)


def _plain_filters(filters: Filters) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for name in type(filters).model_fields:
        value = getattr(filters, name)
        if value is None:
            continue
        out[name] = value.isoformat() if isinstance(value, date) else sorted(value)
    return out


def _hit(rank: int, hit: Hit) -> dict[str, Any]:
    from findesk.knowledge.retrieval.citations import cite

    meta = hit.chunk.meta
    return {
        "rank": rank,
        "chunk_id": hit.chunk.id,
        "citation": cite(meta).model_dump(),
        "score": hit.score,
        "bm25": hit.bm25,
        "bm25_rank": hit.bm25_rank,
        "dense": hit.dense,
        "dense_rank": hit.dense_rank,
        "meta": meta.model_dump(mode="json"),
        "text": hit.chunk.text,
    }


def _document(result: Retrieval, path: str) -> dict[str, Any]:
    return {
        "query": result.query,
        "index": path,
        "filters": _plain_filters(result.filters),
        "from_query": _plain_filters(result.derived),
        "query_notes": result.notes,
        "hits": [_hit(n, h) for n, h in enumerate(result.hits, 1)],
    }


def _scores(hit: Hit) -> str:
    bm25 = f"bm25 {hit.bm25:.2f} (#{hit.bm25_rank})" if hit.bm25 is not None else "bm25 —"
    dense = f"dense {hit.dense:.3f} (#{hit.dense_rank})" if hit.dense is not None else "dense —"
    return f"fused {hit.score:.4f} · {bm25} · {dense}"


def _render(result: Retrieval) -> None:
    from findesk.knowledge.retrieval.citations import cite, describe_filters, printable
    from findesk.tools.summaries import clip

    applied = describe_filters(result.filters) or "none"
    ses.say(f'{len(result.hits)} passages for "{clip(printable(result.query), 200)}"')
    ses.say(f"Filters: {applied}")
    for note in result.notes:
        ses.say(f"Query: {printable(note)}")
    if not result.hits:
        ses.say("No passage matches; loosen the filters or check the index covers these documents.")
    for n, hit in enumerate(result.hits, 1):
        c = cite(hit.chunk.meta)
        ses.say(f"{n:>2}. {c.label} · {_scores(hit)}")
        ses.say(f"    {c.url or hit.chunk.meta.doc_id}")
        ses.say(f"    “{clip(printable(hit.chunk.text), SNIPPET_CHARS)}”")
