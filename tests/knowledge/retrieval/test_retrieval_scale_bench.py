"""Smoke test of ``bench/retrieval_scale.py`` at a tiny size: the exact stores find the exact top-10
(recall 1.0), the HNSW rows come from the store's own searches through the index, and the table has its
columns. The pgvector half runs against the session's real PostgreSQL + pgvector (``pg_url``)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np

SCRIPT = Path(__file__).resolve().parents[3] / "bench" / "retrieval_scale.py"


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("retrieval_scale_bench", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


def test_exact_top_matches_a_full_sort() -> None:
    bench = _bench()
    data = bench.Mixture(32, 20, seed=1).draw(3_000, stream=2)
    queries = bench.Mixture(32, 20, seed=1).draw(5, stream=1)
    full = np.argsort(-(queries @ data.T), axis=1)[:, :10]
    assert (bench.exact_top(data, queries, block=700) == full).all()
    assert np.allclose(np.linalg.norm(data, axis=1), 1.0, atol=1e-5)


def test_small_run_reports_every_store(tmp_path: Path, pg_url: str) -> None:
    bench = _bench()
    lines: list[str] = []
    rows = bench.run(
        [2_000],
        ["numpy", "pgvector-exact", "pgvector"],
        dim=48,
        queries=20,
        exact_queries=10,
        warmup=2,
        clusters=20,
        hnsw=bench.Hnsw(m=8, ef_construction=32, ef_search=(40,), maintenance_work_mem="64MB"),
        pg_url=pg_url,
        workdir=tmp_path,
        log=lines.append,
    )
    by_store = {row.store: row for row in rows}
    assert set(by_store) == {"numpy", "pgvector-exact", "pgvector HNSW"}
    assert by_store["numpy"].recall_at_10 == 1.0
    assert by_store["pgvector-exact"].recall_at_10 == 1.0
    hnsw = by_store["pgvector HNSW"]
    assert hnsw.index_build_s is not None and hnsw.ef_search == 40 and hnsw.m == 8
    assert hnsw.index_scans is not None and hnsw.index_scans >= 20  # the store's searches used the index
    assert hnsw.recall_at_10 > 0.5
    assert all(row.vectors == 2_000 and 0 < row.p50_ms <= row.p95_ms for row in rows)

    table = bench.table(rows).splitlines()
    header = [cell.strip() for cell in table[0].strip("|").split("|")]
    assert header == list(bench.COLUMNS)
    assert {"p50 ms", "p95 ms", "recall@10", "index build s", "ef_search"} <= set(header)
    assert len(table) == 2 + len(rows)
    assert any("HNSW built" in line for line in lines)
