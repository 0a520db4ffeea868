"""A build killed with SIGKILL resumes: the next build finishes it and the index equals a clean one.

A real child process builds the index and is killed (kill -9) at two moments: while a batch is being
loaded and embedded, and in the worst window, after the lexical and vector stores committed a batch
but before the catalogue marked it complete. The encoder is the explicit fake ``HashEncoder``. Both
backends: on PostgreSQL the killed process's sessions are rolled back and its advisory lock released
by the server, which the test waits for (at once on a local socket).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from retrieval_fakes import HashEncoder, IndexAt, corpus

from findesk.knowledge.retrieval.backends import open_stores
from findesk.knowledge.retrieval.index import BATCH_DOCUMENTS, RetrievalIndex
from findesk.knowledge.retrieval.models import Filters, ScoredId

DOCS = 3 * BATCH_DOCUMENTS + 4
QUERIES = ["shared revenue report", "doc7 page1", "topic3 alpha2", "doc21 topic5"]

CHILD = textwrap.dedent(
    """
    import sys, time
    sys.path.insert(0, sys.argv[1])
    from retrieval_fakes import HashEncoder, corpus
    from findesk.knowledge.retrieval import catalogue, pg_catalogue
    from findesk.knowledge.retrieval.index import RetrievalIndex

    target, docs, moment = sys.argv[2], int(sys.argv[3]), sys.argv[4]
    batches = 0

    def pause_before(real):
        def complete(self, done):
            global batches
            batches += 1
            if moment == "before-complete" and batches == 2:
                print("STORES-COMMITTED", flush=True)  # the stores hold batch 2; the catalogue does not
                time.sleep(60)
            return real(self, done)
        return complete

    catalogue.Catalogue.complete = pause_before(catalogue.Catalogue.complete)
    pg_catalogue.PgCatalogue.complete = pause_before(pg_catalogue.PgCatalogue.complete)

    def progress(p):
        if moment == "while-loading" and p.done == docs - 3:
            print("LOADING", flush=True)  # batches so far are committed, the current one is in memory
            time.sleep(60)

    with RetrievalIndex.open(target, encoder=HashEncoder()) as index:  # a directory or a URL
        index.build(corpus(docs), progress=progress)
    print("FINISHED", flush=True)
    """
)


def kill_build(target: Path | str, moment: str) -> None:
    """Run a build in a child process, SIGKILL it at ``moment`` and wait until its write lock is free."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(Path.cwd() / "src"), os.environ.get("PYTHONPATH", "")]),
    }
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, str(Path(__file__).parent), str(target), str(DOCS), moment],
        stdout=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        assert child.stdout is not None
        line = child.stdout.readline().strip()
        assert line in ("STORES-COMMITTED", "LOADING"), f"child said {line!r}"
        child.send_signal(signal.SIGKILL)
        assert child.wait(timeout=30) == -signal.SIGKILL
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    stores = open_stores(target, create=False)
    try:
        deadline = time.monotonic() + 10
        while not stores.lock.try_acquire():  # PostgreSQL ends the dead process's session a moment later
            assert time.monotonic() < deadline, "the killed build's write lock was never released"
            time.sleep(0.05)
    finally:
        stores.close()


Ranked = dict[str, list[tuple[float, str]]]


def snapshot(index: RetrievalIndex) -> tuple[list[str], Ranked, Ranked]:
    """What a user sees: the chunk ids, and the ranked top 20 of a few queries with their scores.

    The corpus repeats words on purpose, so many scores tie at the cut; the index orders ties by chunk
    id, so even those must come out the same.
    """

    def ranked(hits: list[ScoredId]) -> list[tuple[float, str]]:
        return [(round(h.score, 4), h.chunk_id) for h in hits]

    lexical = {q: ranked(index.lexical(q, Filters(), 20)) for q in QUERIES}
    dense = {q: ranked(index.dense(q, Filters(), 20)) for q in QUERIES}
    return sorted(index.chunk_ids()), lexical, dense


@pytest.fixture(scope="module")
def clean(module_index_at: IndexAt) -> tuple[list[str], Ranked, Ranked]:
    with RetrievalIndex.open(module_index_at("clean"), encoder=HashEncoder()) as index:
        index.build(corpus(DOCS))
        return snapshot(index)


@pytest.mark.parametrize(
    ("moment", "committed"),
    [
        ("while-loading", 3 * BATCH_DOCUMENTS),  # three whole batches were written before the kill
        ("before-complete", BATCH_DOCUMENTS),  # batch 2 reached the stores but not the catalogue
    ],
)
def test_a_killed_build_resumes_to_the_same_index_as_a_clean_build(
    module_index_at: IndexAt,
    moment: str,
    committed: int,
    clean: tuple[list[str], Ranked, Ranked],
) -> None:
    path = module_index_at(f"killed-{moment}")
    kill_build(path, moment)

    with RetrievalIndex.open(path, encoder=HashEncoder()) as index:
        # opening purged the half-written batch: only whole, complete documents are searchable
        survivors = {d.doc_id for d in index.documents()}
        assert survivors == {f"DOC{i:03d}" for i in range(committed)}
        ids = set(index.chunk_ids())
        for query in QUERIES:
            assert {s.chunk_id for s in index.lexical(query, Filters(), 100)} <= ids
            assert {s.chunk_id for s in index.dense(query, Filters(), 100)} <= ids

        report = index.build(corpus(DOCS))
        assert (report.unchanged, report.added) == (committed, DOCS - committed)
        assert snapshot(index) == clean
        assert index.stats().chunks == len(clean[0])
