"""Point in time, planted: a document filed after the as-of date is never returned, by any way in.

A phrase no other document contains is planted in an 8-K and an earnings call dated after ``AS_OF``.
Searching for exactly that phrase under ``AS_OF`` through ``retrieve``, ``findesk search --as-of`` and
the ``search_filings`` tool returns other passages (the search itself works) but never the planted
ones; without an as-of date the planted passages come first, so the test can fail. Both backends: the
PostgreSQL index is reached through the same ``--index`` option and ``retrieval_url`` setting.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from retrieval_fakes import IndexAt
from typer.testing import CliRunner

from findesk.core.config import Settings
from findesk.core.result import Ok
from findesk.data.context import resolve_context
from findesk.interfaces.cli.main import app
from findesk.knowledge.retrieval.index import RetrievalIndex
from findesk.knowledge.retrieval.models import Filters
from findesk.knowledge.retrieval.retrieve import retrieve
from findesk.tools.base import ToolContext, execute
from findesk.tools.catalog import close_tool_context, default_registry, open_tool_context
from search_kit import AS_OF, PLANTED, PLANTED_8K_URL, build

QUERIES = [PLANTED, PLANTED.lower(), f'"{PLANTED}"', f"ACME 2025 8-K {PLANTED}", f"{PLANTED} earnings call"]


@pytest.fixture(scope="module")
def index_dir(module_index_at: IndexAt) -> Path | str:
    path = module_index_at("as-of")
    build(path)
    return path


@pytest.fixture(scope="module")
def index(index_dir: Path | str) -> Iterator[RetrievalIndex]:
    with RetrievalIndex.open(index_dir, create=False) as idx:
        yield idx


def _planted(texts: list[str]) -> list[str]:
    return [t for t in texts if PLANTED.lower() in t.lower()]


@pytest.mark.parametrize("query", QUERIES)
def test_retrieve_never_returns_a_document_filed_after_as_of(index: RetrievalIndex, query: str) -> None:
    got = retrieve(index, query, Filters(as_of=AS_OF), k=50)
    assert got.hits, "the search under as_of still finds the earlier documents"
    assert all(h.chunk.meta.filing_date is not None and h.chunk.meta.filing_date <= AS_OF for h in got.hits)
    assert _planted([h.chunk.text for h in got.hits]) == []
    assert got.filters.as_of == AS_OF  # nothing the query says widened the date


def test_retrieve_without_as_of_finds_the_planted_phrase_first(index: RetrievalIndex) -> None:
    got = retrieve(index, PLANTED, None, k=5)
    assert PLANTED in got.hits[0].chunk.text
    assert len(_planted([h.chunk.text for h in got.hits])) == 2  # the 8-K and the call


def test_cli_search_as_of_hides_the_planted_document(index_dir: Path | str) -> None:
    later = CliRunner().invoke(app, ["search", PLANTED, "--index", str(index_dir), "--json"])
    assert later.exit_code == 0, later.output
    urls = [h["citation"]["url"] for h in json.loads(later.stdout)["data"]["hits"]]
    assert PLANTED_8K_URL in urls

    for query in QUERIES:
        args = ["search", query, "--as-of", AS_OF.isoformat(), "--index", str(index_dir), "--json"]
        got = CliRunner().invoke(app, args)
        assert got.exit_code == 0, got.output
        doc = json.loads(got.stdout)["data"]
        assert doc["filters"]["as_of"] == AS_OF.isoformat()
        assert doc["hits"] and _planted([h["text"] for h in doc["hits"]]) == []
        assert all(h["citation"]["filing_date"] <= AS_OF.isoformat() for h in doc["hits"])
        text = CliRunner().invoke(app, args[:-1])
        assert text.exit_code == 0 and PLANTED.lower() not in text.stdout.lower().replace(query.lower(), "")


def test_search_filings_tool_applies_the_runs_as_of(
    index_dir: Path | str, snapshot_dir: Path, tmp_path: Path
) -> None:
    where = {"retrieval_url": index_dir} if isinstance(index_dir, str) else {"index_dir": index_dir}
    settings = Settings.model_validate(
        {"snapshot_dir": snapshot_dir, "cache_dir": tmp_path, "chains": {}, **where}
    )

    def run(query: str, at: str) -> list[str]:
        context = resolve_context(settings, mode="snapshot", as_of=at)
        assert isinstance(context, Ok)

        async def go() -> list[str]:
            opened = await open_tool_context(settings, context.value)
            assert isinstance(opened, Ok), opened
            ctx: ToolContext = opened.value
            try:
                out = await execute(
                    default_registry().get("search_filings"), "search_filings", {"query": query}, ctx
                )
            finally:
                await close_tool_context(ctx)
            assert out.ok, out.summary
            passages = out.summary.split("\n", 1)[1]  # the first line repeats the query
            return [p["text"] for p in out.payload["passages"]] + [passages]

        return asyncio.run(go())

    assert _planted(run(PLANTED, "2025-08-29"))  # visible once filed
    for query in QUERIES:
        assert _planted(run(query, AS_OF.isoformat())) == [], query
