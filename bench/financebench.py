"""FinanceBench evidence-page retrieval: hit@k, recall@5, MRR, latency, build time and index size.

Runs the product's retrieval (``findesk.knowledge.retrieval.retrieve``: BM25 + MiniLM dense, fused by
reciprocal rank, with query-derived filters) on any questions / page-corpus pair in the schema of
``../shared/bench/financebench/`` and scores it the way that folder's README defines:

- the unit is a page: chunks are ranked, then collapsed to their (document, page) in order of first
  appearance; a hit must match both the document and a gold page;
- ``hit@k``: a gold page in the top k; ``recall@k``: the share of the question's gold pages in the top k;
  ``mrr``: reciprocal rank of the first gold page within the top 100 pages (0 if none);
- ``--store single`` searches only the question's own document (a caller filter on its doc id);
  ``--store shared`` searches every document of the corpus at once.

The index is built (or brought up to date: unchanged documents are skipped) in ``--index`` (default: a
cache folder keyed by the corpus file), so a second run measures queries without rebuilding. ``build_s``
is this run's build time; with ``--fresh`` the index is built from scratch in a new folder.
Latency is the wall time of one ``retrieve`` call, after warm-up queries, with the index open.

    python bench/financebench.py --questions Q.jsonl --corpus pages.jsonl.gz [--store single|shared]
        [--mode fused|bm25|dense] [--no-derive] [--ablation] [--fresh] [--index DIR] [--json]
"""

from __future__ import annotations

import argparse
import hashlib
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from findesk.core.result import Err
from findesk.knowledge.retrieval.corpus import page_corpus
from findesk.knowledge.retrieval.index import BuildProgress, RetrievalIndex, SourceDocument
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.retrieve import Mode, retrieve

CHUNKS_PER_QUERY = 100  # chunks fetched per question before collapsing to pages
PAGES = 100  # pages kept per question (MRR looks this deep)
WARMUP = 3


def _questions(path: Path) -> list[dict[str, Any]]:
    out = []
    for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            q = json.loads(line)
            _ = (q["question"], q["doc_name"], list(q["gold_pages"]))
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            sys.exit(f"{path}:{lineno}: not a question record with question, doc_name, gold_pages ({exc})")
        out.append(q)
    if not out:
        sys.exit(f"{path}: no questions")
    return out


def _default_index(corpus: Path) -> Path:
    stat = corpus.stat()
    key = hashlib.sha256(f"{corpus.resolve()}|{stat.st_size}|{stat.st_mtime_ns}".encode()).hexdigest()[:12]
    return Path.home() / ".cache" / "findesk" / "bench" / f"financebench-{key}"


def _build(index: RetrievalIndex, sources: list[SourceDocument]) -> float:
    last = [0.0]

    def progress(p: BuildProgress) -> None:
        now = time.monotonic()
        if now - last[0] > 5 or p.done == p.total:
            last[0] = now
            print(f"  indexing {p.done}/{p.total} documents, {p.chunks} chunks embedded", file=sys.stderr)

    report = index.build(sources, progress=progress)
    print(
        f"  index: {report.added} added, {report.replaced} replaced, {report.unchanged} unchanged, "
        f"{report.chunks_embedded} chunks embedded in {report.seconds:.1f} s",
        file=sys.stderr,
    )
    return report.seconds


def _pages(hits: list[tuple[str, int | None]]) -> list[tuple[str, int]]:
    seen: dict[tuple[str, int], None] = {}
    for doc, page in hits:
        if page is not None:
            seen.setdefault((doc, page), None)
        if len(seen) >= PAGES:
            break
    return list(seen)


def run(
    index: RetrievalIndex, questions: list[dict[str, Any]], store: str, mode: Mode, derive: bool
) -> dict[str, Any]:
    """Score every question; returns the figures (without build time and size)."""
    per_type: dict[str, list[float]] = defaultdict(list)
    sums: dict[str, list[float]] = defaultdict(list)
    latencies: list[float] = []
    misses: list[str] = []
    for q in questions[:WARMUP]:
        retrieve(index, q["question"], None, CHUNKS_PER_QUERY, derive=derive, mode=mode)
    for q in questions:
        filters = Filters(doc_ids=frozenset({q["doc_name"]})) if store == "single" else None
        started = time.perf_counter()
        result = retrieve(index, q["question"], filters, CHUNKS_PER_QUERY, derive=derive, mode=mode)
        latencies.append((time.perf_counter() - started) * 1000)
        ranked = _pages([(h.chunk.meta.doc_id, h.chunk.meta.page) for h in result.hits])
        gold = {(q["doc_name"], int(p)) for p in q["gold_pages"]}
        found = [i for i, key in enumerate(ranked, start=1) if key in gold]
        first = found[0] if found else None
        for k in (1, 3, 5, 10, 20):
            sums[f"hit@{k}"].append(1.0 if first is not None and first <= k else 0.0)
            sums[f"recall@{k}"].append(len([r for r in found if r <= k]) / len(gold))
        sums["mrr"].append(1.0 / first if first is not None else 0.0)
        per_type[q.get("question_type", "all")].append(1.0 if first is not None and first <= 5 else 0.0)
        if first is None or first > 5:
            misses.append(q.get("id", q["doc_name"]))
    figures: dict[str, Any] = {key: round(statistics.fmean(values), 3) for key, values in sums.items()}
    ordered = sorted(latencies)
    figures["p50_ms"] = round(statistics.median(ordered), 1)
    figures["p95_ms"] = round(ordered[min(len(ordered) - 1, int(0.95 * len(ordered)))], 1)
    figures["hit@5_by_type"] = {t: round(statistics.fmean(v), 3) for t, v in sorted(per_type.items())}
    figures["n_questions"] = len(questions)
    figures["missed_at_5"] = misses
    return figures


def _dir_bytes(path: Path) -> int:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file())


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--questions", type=Path, required=True)
    parser.add_argument("--corpus", type=Path, required=True)
    parser.add_argument("--store", choices=("single", "shared"), default="shared")
    parser.add_argument("--mode", choices=("fused", "bm25", "dense"), default="fused")
    parser.add_argument("--no-derive", action="store_true", help="no filters derived from the question")
    parser.add_argument("--ablation", action="store_true", help="all modes, derived filters on and off")
    parser.add_argument("--index", type=Path, default=None, help="index folder (default: a cache per corpus)")
    parser.add_argument("--fresh", action="store_true", help="build from scratch in a new temporary folder")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    for path in (args.questions, args.corpus):
        if not path.is_file():
            sys.exit(f"{path}: no such file")
    questions = _questions(args.questions)
    opened = page_corpus(args.corpus)  # read and checked whole before any index folder is made
    if isinstance(opened, Err):
        sys.exit(opened.reason)
    sources = list(opened.value.sources())

    tmp = tempfile.TemporaryDirectory(prefix="financebench-") if args.fresh else None
    folder = Path(tmp.name) / "index" if tmp else (args.index or _default_index(args.corpus))
    with RetrievalIndex.open(folder) as index:
        build_s = _build(index, sources)
        stats = index.stats()
        common = {
            "store": args.store,
            "build_s": round(build_s, 1),
            "index_bytes": stats.bytes_on_disk,
            "documents": stats.documents,
            "chunks": stats.chunks,
            "index": str(folder),
        }
        if args.ablation:
            rows = []
            for mode in ("bm25", "dense", "fused"):
                for derive in (False, True):
                    figures = run(index, questions, args.store, mode, derive)
                    rows.append({"mode": mode, "derive": derive, **figures})
            if args.json:
                print(json.dumps({**common, "ablation": rows}))
            else:
                print(f"store={args.store}  documents={stats.documents}  chunks={stats.chunks}")
                heads = ("hit@1", "hit@5", "hit@10", "rec@5", "mrr", "p50ms")
                print(f"{'mode':6} {'derive':6} " + " ".join(f"{h:>6}" for h in heads))
                for r in rows:
                    print(
                        f"{r['mode']:6} {r['derive']!s:6} {r['hit@1']:6.3f} {r['hit@5']:6.3f} "
                        f"{r['hit@10']:6.3f} {r['recall@5']:6.3f} {r['mrr']:6.3f} {r['p50_ms']:6.1f}"
                    )
        else:
            figures = run(index, questions, args.store, args.mode, not args.no_derive)
            out = {**figures, **common, "mode": args.mode, "derive": not args.no_derive}
            if args.json:
                print(json.dumps(out))
            else:
                for key in ("hit@1", "hit@3", "hit@5", "hit@10", "hit@20", "recall@5", "mrr"):
                    print(f"{key:10} {out[key]:.3f}")
                print(f"{'by type':10} {out['hit@5_by_type']}  (hit@5)")
                print(
                    f"{'latency':10} p50 {out['p50_ms']} ms, p95 {out['p95_ms']} ms (one warm retrieve call)"
                )
                print(
                    f"{'build':10} {out['build_s']} s this run; index {out['index_bytes'] / 1e6:.1f} MB, "
                    f"{out['documents']} documents, {out['chunks']} chunks at {out['index']}"
                )
    if tmp:
        tmp.cleanup()


if __name__ == "__main__":
    main()
