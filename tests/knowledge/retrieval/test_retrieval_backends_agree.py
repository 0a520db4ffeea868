"""The same real filings indexed on embedded files and on PostgreSQL give the same answers.

A slice of the recorded snapshot (Apple's 2025 10-Q and an 8-K, two earnings calls: ~240 chunks) is
built once into each backend. The vectors come from the explicit fake ``HashEncoder`` (bag of hashed
words, 384 dimensions) so the build takes a second: MiniLM needs ~0.2 s a chunk on a busy CI box, and
the real encoder on PostgreSQL is covered by the parametrized ``retrieve`` and as-of tests. What a user would
notice is compared: the documents and chunks held, dense results (identical, in order, with equal
scores), lexical results under each filter (the scoring functions differ in detail, so: the same top
passage and mostly the same top ten, every hit admitted by the filters), hybrid retrieval's top
passage and most of its top five, with citations; and ``findesk index build`` / ``index stats`` /
``search`` pointed at PostgreSQL by ``FINDESK_RETRIEVAL_URL`` alone.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from retrieval_fakes import HashEncoder
from typer.testing import CliRunner

from findesk.core.result import Ok
from findesk.interfaces.cli.main import app
from findesk.knowledge.retrieval.citations import cite
from findesk.knowledge.retrieval.corpus import snapshot_corpus
from findesk.knowledge.retrieval.index import RetrievalIndex
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.retrieve import retrieve
from pg_kit import new_database

SLICE = ("aapl-2025", "aapl-20241031", "transcript:NVDA:2024Q1", "transcript:MSFT:2024Q1")
CASES = [
    (
        "iPhone net sales by geographic segment",
        Filters(tickers=frozenset({"AAPL"}), forms=frozenset({"10-Q"})),
    ),
    ("supply chain concentration and manufacturing partners", Filters(items=frozenset({"II-1A"}))),
    ("data center revenue growth from hyperscalers", Filters(forms=frozenset({"earnings call"}))),
    ("share repurchase program and dividends", Filters(as_of=date(2024, 12, 31))),  # not the 10-Q
    ("Azure cloud revenue", Filters(tickers=frozenset({"MSFT"}), fiscal_years=frozenset({2024}))),
    ("quarterly results press release", Filters(tickers=frozenset({"AAPL"}), forms=frozenset({"8-K"}))),
]


@pytest.fixture(scope="module")
def indexes(
    snapshot_dir: Path, pg_server: Any, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[tuple[RetrievalIndex, RetrievalIndex, Path, str]]:
    corpus = snapshot_corpus(snapshot_dir)
    assert isinstance(corpus, Ok)
    sources = [s for s in corpus.value if any(key in s.doc_id for key in SLICE)]
    assert len(sources) == 4
    encoder = HashEncoder(dim=384)
    folder, url = tmp_path_factory.mktemp("agree") / "index", new_database(pg_server)
    with (
        RetrievalIndex.open(folder, encoder=encoder) as embedded,
        RetrievalIndex.open(url, encoder=encoder) as server,
    ):
        assert embedded.build(sources).added == server.build(sources).added == len(sources)
        yield embedded, server, folder, url


def test_both_hold_the_same_documents_and_chunks(
    indexes: tuple[RetrievalIndex, RetrievalIndex, Path, str],
) -> None:
    embedded, server, _, _ = indexes
    assert server.documents() == embedded.documents()
    ids = embedded.chunk_ids()
    assert server.chunk_ids() == ids and len(ids) > 200
    assert server.chunks(ids[::37]) == embedded.chunks(ids[::37])
    assert (server.stats().documents, server.stats().chunks) == (embedded.stats().documents, len(ids))


@pytest.mark.parametrize(("query", "filters"), CASES)
def test_dense_results_are_identical(
    indexes: tuple[RetrievalIndex, RetrievalIndex, Path, str], query: str, filters: Filters
) -> None:
    embedded, server, _, _ = indexes
    want, got = embedded.dense(query, filters, 10), server.dense(query, filters, 10)
    assert want, "the filters admit passages"
    assert [h.chunk_id for h in got] == [h.chunk_id for h in want]
    assert [h.score for h in got] == pytest.approx([h.score for h in want], abs=1e-5)


@pytest.mark.parametrize(("query", "filters"), CASES)
def test_lexical_results_bring_the_same_passages_under_the_same_filters(
    indexes: tuple[RetrievalIndex, RetrievalIndex, Path, str], query: str, filters: Filters
) -> None:
    embedded, server, _, _ = indexes
    want, got = embedded.lexical(query, filters, 10), server.lexical(query, filters, 10)
    chunks = server.chunks([h.chunk_id for h in got])
    assert got and all(filters.admits(c.meta) for c in chunks.values()) and len(chunks) == len(got)
    # BM25 near-ties may fall either way: the best passage is among the other's top three, and at least
    # seven in ten passages are the same
    assert got[0].chunk_id in [h.chunk_id for h in want[:3]]
    shared = {h.chunk_id for h in got} & {h.chunk_id for h in want}
    assert len(shared) >= 0.7 * min(len(got), len(want))


@pytest.mark.parametrize(("query", "filters"), CASES)
def test_hybrid_retrieval_cites_the_same_top_passages(
    indexes: tuple[RetrievalIndex, RetrievalIndex, Path, str], query: str, filters: Filters
) -> None:
    embedded, server, _, _ = indexes
    want, got = retrieve(embedded, query, filters, k=5), retrieve(server, query, filters, k=5)
    assert (got.filters, got.notes) == (want.filters, want.notes)
    assert got.hits[0].chunk.id == want.hits[0].chunk.id
    assert len({h.chunk.id for h in got.hits} & {h.chunk.id for h in want.hits}) >= 0.6 * len(want.hits)
    for hit in got.hits:
        citation = cite(hit.chunk.meta)
        assert filters.admits(hit.chunk.meta) and citation.url and citation.label
        assert hit.dense is not None or hit.bm25 is not None


def test_findesk_index_build_stats_and_search_use_retrieval_url(
    pg_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pages = tmp_path / "pages.jsonl"
    lines = [
        {"doc_name": "ACME_2023_10K", "page": 0, "text": "Acme sells anvils; revenue grew on desert demand."},
        {"doc_name": "ACME_2023_10K", "page": 1, "text": "Risk factors: one supplier makes all rocket fuel."},
    ]
    pages.write_text("\n".join(json.dumps(line) for line in lines) + "\n")
    monkeypatch.setenv("FINDESK_RETRIEVAL_URL", pg_url)
    built = CliRunner().invoke(app, ["index", "build", "--corpus", str(pages), "--json"])
    assert built.exit_code == 0, built.output
    assert json.loads(built.stdout)["data"]["index"] == pg_url.replace("postgres:@", "postgres:***@")
    stats = CliRunner().invoke(app, ["index", "stats", "--json"])
    assert stats.exit_code == 0, stats.output
    assert json.loads(stats.stdout)["data"]["index_stats"]["chunks"] == 2
    found = CliRunner().invoke(app, ["search", "rocket fuel supplier", "--json"])
    assert found.exit_code == 0, found.output
    [top, *_] = json.loads(found.stdout)["data"]["hits"]
    assert (top["meta"]["doc_id"], top["meta"]["page"]) == ("ACME_2023_10K", 1) and top["citation"]["label"]
    again = CliRunner().invoke(app, ["index", "build", "--corpus", str(pages), "--json"])
    assert json.loads(again.stdout)["data"]["build"]["unchanged"] == 1  # incremental on the server too


def test_a_password_in_the_url_is_never_shown(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_RETRIEVAL_URL", "postgresql://findesk:s3cret@127.0.0.1:9/nowhere")
    out = CliRunner().invoke(app, ["search", "revenue", "--json"])
    assert out.exit_code != 0 and "s3cret" not in out.output
    assert "cannot connect to PostgreSQL" in out.output
