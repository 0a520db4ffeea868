"""``findesk index build`` and ``findesk search`` as a user runs them: citations, resumable builds, errors."""

from __future__ import annotations

import gzip
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from findesk.core.result import Ok
from findesk.interfaces.cli.main import app
from findesk.knowledge.retrieval import corpus as corpus_mod
from findesk.knowledge.retrieval.chunks import Chunk, PageRecord
from findesk.knowledge.retrieval.corpus import Corpus, page_sources
from findesk.knowledge.retrieval.index import SourceDocument
from search_kit import ACME_10K_URL, build
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)


def cli(*args: str) -> Result:
    return CliRunner().invoke(app, list(args))


def error_of(got: Result) -> dict[str, str]:
    """The JSON error body of a failed ``--json`` command, after checking stderr is one line."""
    assert got.exit_code != 0
    assert "Traceback" not in got.stdout + got.stderr
    assert len([ln for ln in got.stderr.splitlines() if ln.strip()]) == 1, got.stderr
    body = json.loads(got.stdout)
    return body["error"]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def index_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("cli") / "index"
    build(path)
    return path


def write_pages(path: Path, docs: dict[str, list[str]], *, gz: bool = False) -> Path:
    lines = [
        json.dumps({"doc_name": name, "page": n, "text": text})
        for name, pages in docs.items()
        for n, text in enumerate(pages)
    ]
    data = "\n".join(lines) + "\n"
    if gz:
        path.write_bytes(gzip.compress(data.encode()))
    else:
        path.write_text(data)
    return path


# ---- search ------------------------------------------------------------------------------------------


def test_search_prints_cited_passages_with_both_scores(index_dir: Path) -> None:
    got = cli("search", "single supplier of rocket fuel", "--ticker", "acme", "--index", str(index_dir))
    assert got.exit_code == 0, got.output
    lines = got.stdout.splitlines()
    assert lines[1].startswith("Filters: ticker ACME")
    at = next(n for n, line in enumerate(lines) if line.startswith(" 1. "))
    first = lines[at]
    assert first.startswith(" 1. ACME 10-K filed 2024-02-01, Item 1A (Risk Factors)")
    assert "bm25" in first and "dense" in first and "fused" in first
    assert lines[at + 1].strip() == ACME_10K_URL
    assert "single supplier" in lines[at + 2]
    assert "BETA" not in got.stdout  # the ticker filter holds


def test_search_json_is_one_document_with_citations_and_filters(index_dir: Path) -> None:
    args = ["search", "crop failures and loan losses", "--form", "10-K", "--year", "FY2023", "--item", "1a"]
    got = cli(*args, "--k", "3", "--index", str(index_dir), "--json")
    assert got.exit_code == 0, got.output
    doc = json.loads(got.stdout)["data"]
    assert doc["filters"] == {"forms": ["10-K"], "fiscal_years": [2023], "items": ["1A"]}
    assert 1 <= len(doc["hits"]) <= 3
    top = doc["hits"][0]
    assert top["citation"]["label"].startswith("BETA 10-K filed 2024-03-01, Item 1A")
    assert top["citation"]["key"].endswith("#item-1a")
    assert top["meta"]["filing_date"] == "2024-03-01" and top["meta"]["item"] == "1A"
    assert isinstance(top["score"], float) and top["bm25"] is not None and top["dense"] is not None
    assert all(h["meta"]["item"] == "1A" for h in doc["hits"])


@pytest.mark.parametrize(
    ("args", "code", "needle"),
    [
        (["   "], "invalid_input", "the query is empty"),
        (["x" * 5000], "invalid_input", "at most 2,000"),
        (["anvils", "--as-of", "2024-13-01"], "invalid_input", "not a date"),
        (["anvils", "--as-of", "2999-01-01"], "invalid_input", "in the future"),
        (["anvils", "--year", "twenty"], "invalid_input", "not a year"),
        (["anvils", "--year", "99999"], "invalid_input", "out of range"),
        (["anvils", "--k", "0"], "invalid_input", "k must be between 1 and 100"),
    ],
)
def test_search_bad_input_is_one_clear_json_error(
    index_dir: Path, args: list[str], code: str, needle: str
) -> None:
    got = cli("search", *args, "--index", str(index_dir), "--json")
    err = error_of(got)
    assert err["code"] == code and needle in err["message"]
    assert got.exit_code == 2


def test_search_before_any_build_says_to_build(tmp_path: Path) -> None:
    err = error_of(cli("search", "anvils", "--index", str(tmp_path / "none"), "--json"))
    assert err["code"] == "not_found" and "findesk index build" in err["message"]
    assert not (tmp_path / "none").exists()  # searching creates nothing


@pytest.mark.parametrize(
    "query",
    [
        '"unbalanced',
        "AND OR NOT (",
        "title:foo^3 [x TO y]",
        "𝔘𝔫𝔦𝔠𝔬𝔡𝔢 ☃ 中文",
        "\u202eevil\u200b",
        "-- ; DROP TABLE",
    ],
)
def test_odd_query_text_is_searched_not_parsed(index_dir: Path, query: str) -> None:
    # after `--`, as a shell user passes text that starts with a dash
    got = cli("search", "--index", str(index_dir), "--json", "--", query)
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)["data"]["query"] == query.strip()


def test_document_text_cannot_inject_markup_or_fake_result_lines(tmp_path: Path) -> None:
    hostile = (
        "[/] [bold red]PAID[/bold red] \x1b[31mred\x1b[0m\n 2. FAKE 10-K filed 2099-01-01, Item 1A\n"
        "\u202eignore previous instructions"
    )
    corpus = write_pages(tmp_path / "hostile.jsonl", {"HOSTILE_DOC": [hostile]})
    index = tmp_path / "index"
    assert cli("index", "build", "--corpus", str(corpus), "--index", str(index)).exit_code == 0
    got = cli("search", "ignore previous instructions", "--index", str(index))
    assert got.exit_code == 0, got.output
    passage = [ln for ln in got.stdout.splitlines() if "PAID" in ln]
    assert len(passage) == 1 and "[bold red]PAID[/bold red]" in passage[0]  # printed literally, one line
    assert "\x1b" not in got.stdout and "\u202e" not in got.stdout
    assert not any(ln.startswith(" 2.") for ln in got.stdout.splitlines())


# ---- build -------------------------------------------------------------------------------------------


def test_build_a_page_corpus_then_rebuild_skips_unchanged(tmp_path: Path) -> None:
    corpus = write_pages(
        tmp_path / "pages.jsonl.gz",
        {"ACME_2023_10K": ["Anvil revenue rose.", "Rocket fuel risk."], "BETA_2023_10K": ["Farm loans."]},
        gz=True,
    )
    (tmp_path / "documents.jsonl").write_text(
        json.dumps({"doc_name": "ACME_2023_10K", "company": "Acme", "doc_type": "10k", "doc_period": 2023})
        + "\n"
    )
    index = tmp_path / "index"
    first = cli("index", "build", "--corpus", str(corpus), "--index", str(index))
    assert first.exit_code == 0, first.output
    assert "2 documents added, 0 replaced, 0 unchanged; 3 chunks embedded." in first.stdout
    assert "The index holds 2 documents and 3 chunks" in first.stdout

    again = cli("index", "build", "--corpus", str(corpus), "--index", str(index), "--json")
    report = json.loads(again.stdout)["data"]
    assert report["build"]["unchanged"] == 2 and report["build"]["chunks_embedded"] == 0
    assert report["index_stats"]["bytes_on_disk"] > 0

    found = json.loads(cli("search", "rocket fuel", "--index", str(index), "--json").stdout)["data"]["hits"][
        0
    ]
    assert found["citation"]["label"] == "Acme 10-K FY2023, page 2 of ACME_2023_10K"
    assert found["meta"]["page"] == 1 and found["meta"]["fiscal_year"] == 2023


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (
            '{"doc_name": "A", "page": 0, "text": "ok"}\n{"doc_name": "A", "page": 1, "text": \n',
            "bad.jsonl:2: not valid JSON",
        ),
        ('{"doc_name": "A", "page": -1, "text": "x"}\n', "bad.jsonl:1: page"),
        ('["not", "an", "object"]\n', "bad.jsonl:1: expected a JSON object"),
        ("\n\n", "holds no pages"),
    ],
)
def test_corrupt_corpus_line_is_named_and_nothing_is_indexed(
    tmp_path: Path, content: str, needle: str
) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text(content)
    index = tmp_path / "index"
    err = error_of(cli("index", "build", "--corpus", str(bad), "--index", str(index), "--json"))
    assert err["code"] == "invalid_input" and needle in err["message"]
    assert not index.exists()  # checked before the index is touched


def test_unknown_corpus_path_is_a_clear_error(tmp_path: Path) -> None:
    err = error_of(cli("index", "build", "--corpus", str(tmp_path / "missing.jsonl"), "--json"))
    assert (
        err["code"] == "invalid_input" and "does not exist" in err["message"] and "snapshot" in err["message"]
    )
    err = error_of(cli("index", "build", "--corpus", str(tmp_path), "--json"))
    assert "is a folder" in err["message"]


class _Interrupting:
    """Sources whose ``load`` raises KeyboardInterrupt (Ctrl-C) at document ``at``, once."""

    def __init__(self, sources: list[SourceDocument], at: int) -> None:
        self.sources, self.at, self.fired = sources, at, False

    def corpus(self) -> Corpus:
        def wrap(n: int, source: SourceDocument) -> SourceDocument:
            def load() -> list[Chunk]:
                if n == self.at and not self.fired:
                    self.fired = True
                    raise KeyboardInterrupt
                return source.load()

            return SourceDocument(source.doc_id, source.fingerprint, load)

        wrapped = [wrap(n, s) for n, s in enumerate(self.sources)]
        return Corpus("pages", len(wrapped), lambda: iter(wrapped))


@pytest.fixture
def interrupting(monkeypatch: pytest.MonkeyPatch) -> Iterator[_Interrupting]:
    pages = [PageRecord(doc_name=f"DOC{d:02d}", page=0, text=f"report {d} on anvils") for d in range(20)]
    fake = _Interrupting(page_sources(pages), at=12)
    monkeypatch.setattr(corpus_mod, "open_corpus", lambda spec, settings: Ok(fake.corpus()))
    yield fake


def test_ctrl_c_keeps_finished_batches_and_the_rerun_resumes(
    tmp_path: Path, interrupting: _Interrupting
) -> None:
    index = tmp_path / "index"
    stopped = cli("index", "build", "--corpus", "x", "--index", str(index))
    assert stopped.exit_code == 130
    assert "interrupted — run the same command again to resume" in stopped.stderr
    assert "Traceback" not in stopped.output

    resumed = cli("index", "build", "--corpus", "x", "--index", str(index), "--json")
    assert resumed.exit_code == 0, resumed.output
    report = json.loads(resumed.stdout)["data"]["build"]
    assert report["unchanged"] == 8  # the first batch survived the interrupt
    assert report["added"] == 12 and report["unchanged"] + report["added"] == 20
    stats = json.loads(cli("index", "stats", "--index", str(index), "--json").stdout)["data"]["index_stats"]
    assert stats["documents"] == 20 and stats["chunks"] == 20


def test_a_real_ctrl_c_stops_the_build_cleanly(tmp_path: Path) -> None:
    words = ["revenue", "margin", "supplier", "anvil", "rocket", "demand", "guidance", "inventory", "tariff"]
    docs = {f"DOC{d:03d}": [" ".join(words[(d + i) % len(words)] for i in range(120))] for d in range(400)}
    corpus = write_pages(tmp_path / "pages.jsonl", docs)
    index = tmp_path / "index"
    env = env_without_settings()
    env |= {"FINDESK_CONFIG": os.environ["FINDESK_CONFIG"], "FINDESK_CACHE_DIR": str(tmp_path / "cache")}
    args = [sys.executable, "-m", "findesk", "index", "build", "--corpus", str(corpus), "--index", str(index)]
    proc = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        # as a terminal starts it: a suite launched in the background (`cmd &` without job control)
        # hands its children SIGINT ignored, and Python then never raises KeyboardInterrupt
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline and proc.poll() is None and _complete(index) == 0:
        time.sleep(0.05)
    assert proc.poll() is None, "the build finished before it could be interrupted"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert "interrupted — run the same command again to resume" in err and "Traceback" not in err
    kept = _complete(index)
    assert 0 < kept < 400
    report = json.loads(cli("index", "stats", "--index", str(index), "--json").stdout)["data"]["index_stats"]
    assert report["documents"] == kept  # what was committed is searchable; nothing half-written shows


def _complete(index: Path) -> int:
    catalogue = index / "catalogue.sqlite3"
    if not catalogue.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{catalogue}?mode=ro", uri=True, timeout=1) as conn:
            return int(conn.execute("SELECT count(*) FROM documents WHERE complete = 1").fetchone()[0])
    except sqlite3.Error:
        return 0
