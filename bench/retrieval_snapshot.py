"""Whole-snapshot retrieval index: build time and size from scratch, query latency, and point in time.

Builds the index of every filing and earnings call in the snapshot (the corpus ``findesk index build``
uses), then runs each query under several ``as_of`` dates and checks that no returned chunk was filed
after its ``as_of`` (and that none is undated). A planted document, filed one day after the latest
``as_of`` and holding a phrase no real filing has, is added to the same index: searching for that exact
phrase must never return it under any of the dates, and must return it first without a date.

    python bench/retrieval_snapshot.py [--index DIR] [--queries FILE] [--as-of 2024-06-30 ...] [--json]

``--queries`` is a text file with one query per line (default: a built-in list of analyst questions).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from datetime import date, timedelta
from pathlib import Path

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.models.base import Source
from findesk.data.models.filings import Filing, FilingDocument
from findesk.knowledge.retrieval.corpus import filing_source, open_corpus
from findesk.knowledge.retrieval.index import BuildProgress, RetrievalIndex
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.retrieve import retrieve

QUERIES = [
    "export restrictions on chips to China",
    "What did Apple say about tariffs?",
    "Microsoft capital expenditures for AI data centers",
    "gross margin outlook for next quarter",
    "share repurchase program authorization",
    "litigation and regulatory proceedings",
    "supply chain concentration risk",
    "revenue by geographic region",
    "What drove the change in operating income?",
    "cybersecurity incidents",
    "debt maturities and credit facility",
    "guidance for data center revenue",
]
AS_OF = [date(2024, 6, 30), date(2025, 1, 31), date(2025, 8, 29)]
PLANTED = "Quokka zephyr lattice programme of the sandbox snapshot"


def _planted(after: date) -> FilingDocument:
    filing = Filing(
        ticker="NVDA",
        cik=1045810,
        form="8-K",
        filing_date=after,
        url="https://www.sec.gov/Archives/edgar/data/1045810/000000000099999999/planted-8k.htm",
        source=Source(vendor="bench", ref="planted-8k.md"),
    )
    content = f"# NVDA FORM 8-K\n\n## Item 8.01 Other Events\n\n{PLANTED}. The company announced it.\n"
    return FilingDocument(filing=filing, format="markdown", content=content, source=filing.source)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--index", type=Path, default=None, help="index folder (default: a new temporary one)"
    )
    parser.add_argument("--queries", type=Path, default=None)
    parser.add_argument("--as-of", dest="as_of", type=date.fromisoformat, nargs="+", default=AS_OF)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    queries = QUERIES
    if args.queries is not None:
        queries = [q.strip() for q in args.queries.read_text(encoding="utf-8").splitlines() if q.strip()]
        if not queries:
            sys.exit(f"{args.queries}: no queries")
    opened = open_corpus("snapshot", Settings())
    if isinstance(opened, Err):
        sys.exit(opened.reason)
    corpus = opened.value
    planted = _planted(max(args.as_of) + timedelta(days=1))

    tmp = tempfile.TemporaryDirectory(prefix="snapshot-index-") if args.index is None else None
    folder = Path(tmp.name) / "index" if tmp else args.index
    last = [0.0]

    def progress(p: BuildProgress) -> None:
        if time.monotonic() - last[0] > 10 or p.done == p.total:
            last[0] = time.monotonic()
            print(f"  {p.done}/{p.total} documents, {p.chunks} chunks embedded", file=sys.stderr)

    with RetrievalIndex.open(folder) as index:
        sources = [*corpus.sources(), filing_source(planted, "NVIDIA CORP")]
        report = index.build(sources, progress=progress)
        stats = index.stats()
        violations: list[str] = []
        latencies: list[float] = []
        for as_of in args.as_of:
            for query in [*queries, PLANTED]:
                started = time.perf_counter()
                result = retrieve(index, query, Filters(as_of=as_of), k=20)
                latencies.append((time.perf_counter() - started) * 1000)
                for hit in result.hits:
                    filed = hit.chunk.meta.filing_date
                    if filed is None or filed > as_of:
                        violations.append(f"{query!r} as of {as_of}: {hit.chunk.meta.doc_id} filed {filed}")
        unbounded = retrieve(index, PLANTED, None, k=1)
        planted_first = bool(unbounded.hits) and unbounded.hits[0].chunk.meta.doc_id == planted.filing.url
    ordered = sorted(latencies)
    out = {
        "documents": stats.documents,
        "chunks": stats.chunks,
        "build_s": round(report.seconds, 1),
        "chunks_embedded": report.chunks_embedded,
        "index_mb": round(stats.bytes_on_disk / 1e6, 1),
        "queries": len(latencies),
        "p50_ms": round(statistics.median(ordered), 1),
        "p95_ms": round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1),
        "as_of_violations": len(violations),
        "planted_found_without_as_of": planted_first,
    }
    if tmp:
        tmp.cleanup()
    if args.json:
        print(json.dumps(out))
    else:
        for key, value in out.items():
            print(f"{key:28} {value}")
        for line in violations[:20]:
            print("VIOLATION", line)
    if violations or not planted_first:
        sys.exit(1)


if __name__ == "__main__":
    main()
