"""The CLI under attack (issue 14): output paths checked before the run, a full disk is a clear
non-zero exit that loses nothing, a config folder is called a folder, a missing snapshot never turns
into live sources on its own, and look-alike or all-digit tickers get one true refusal."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog
from findesk.core.result import Err
from findesk.interfaces.cli.main import app
from snapshot_kit import env_without_settings

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

AS_OF = "2025-08-29"


@pytest.fixture(scope="module")
def _shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cli-hardening-cache")


@pytest.fixture(autouse=True)
def _warm_cache(_shared_cache: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """One derived-data cache for this module: each briefing here then parses the snapshot once."""
    monkeypatch.setenv("FINDESK_CACHE_DIR", str(_shared_cache))


def findesk(
    *args: str, env: dict[str, str] | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess[str]:
    base = env_without_settings()
    for key in ("FINDESK_CACHE_DIR", "FINDESK_CONFIG", "FINDESK_STATE_DIR"):
        base[key] = os.environ[key]
    return subprocess.run(
        [sys.executable, "-m", "findesk", *args],
        capture_output=True,
        text=True,
        env={**base, **(env or {})},
        cwd=cwd,
        timeout=120,
    )


def one_line_failure(proc: subprocess.CompletedProcess[str], code: int, *needles: str) -> str:
    assert proc.returncode == code, (proc.returncode, proc.stdout, proc.stderr)
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("findesk: "), proc.stderr
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


def recorded_runs() -> list[Any]:
    opened = AuditLog.open(Settings().resolved_audit_url(), read_only=True)
    return [] if isinstance(opened, Err) else opened.value.list_runs()


# -- item 8: --output / --events ------------------------------------------------------------------


@pytest.mark.parametrize("flag", ["--output", "--events"])
def test_a_folder_as_output_fails_before_the_run(snapshot_dir: Path, tmp_path: Path, flag: str) -> None:
    started = time.monotonic()
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "markdown", flag, str(tmp_path))
    took = time.monotonic() - started
    line = one_line_failure(proc, 2, "invalid_input", flag, str(tmp_path), "is a folder")
    assert "IsADirectoryError" not in line
    assert recorded_runs() == []  # refused before any run started
    assert took < 15


@pytest.mark.parametrize("flag", ["--output", "--events"])
def test_an_unwritable_output_path_fails_before_the_run(
    snapshot_dir: Path, tmp_path: Path, flag: str
) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", flag, str(blocker / "report.md"))
    one_line_failure(proc, 2, "invalid_input", flag, str(blocker))
    assert recorded_runs() == []


def test_output_into_a_missing_folder_fails_before_the_run(snapshot_dir: Path, tmp_path: Path) -> None:
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", "--output", str(tmp_path / "nope" / "x.md"))
    one_line_failure(proc, 2, "does not exist", str(tmp_path / "nope"))
    assert recorded_runs() == []


def test_a_full_disk_for_the_report_exits_non_zero_and_the_run_is_finished(snapshot_dir: Path) -> None:
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "markdown", "--output", "/dev/full")
    line = one_line_failure(
        proc, 5, "unavailable", "/dev/full", "No space left on device", "findesk runs show"
    )
    runs = recorded_runs()
    assert len(runs) == 1 and runs[0].status == "done" and runs[0].run_id in line


def test_a_report_is_replaced_whole_and_never_half_written(snapshot_dir: Path, tmp_path: Path) -> None:
    target = tmp_path / "aapl.md"
    target.write_text("OLD-REPORT")
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "markdown", "--output", str(target))
    assert proc.returncode == 0, proc.stderr
    assert "AAPL" in target.read_text() and "OLD-REPORT" not in target.read_text()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["aapl.md"]  # no temporary file left behind


def test_a_full_disk_for_the_events_exits_non_zero_after_the_report(snapshot_dir: Path) -> None:
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "json", "--events", "/dev/full")
    assert json.loads(proc.stdout)["symbol"] == "AAPL"  # the report still reaches stdout
    one_line_failure(proc, 5, "unavailable", "/dev/full", "No space left on device")
    runs = recorded_runs()
    assert len(runs) == 1 and runs[0].status == "done"


def _fail_commits(monkeypatch: pytest.MonkeyPatch, times: int | None) -> None:
    """The audit log's disk is full for ``times`` commits that hold the run's end (None: for ever)."""
    real = AuditLog._commit
    left = [times]

    def commit(self: AuditLog, engine: Any, batch: list[Any]) -> str | None:
        ends = any(type(e.data).__name__ in ("Done", "Error") for e in batch)
        if ends and (left[0] is None or left[0] > 0):
            if left[0] is not None:
                left[0] -= 1
            return f"could not record {len(batch)} events: OperationalError: database or disk is full"
        return real(self, engine, batch)

    monkeypatch.setattr(AuditLog, "_commit", commit)


def test_an_audit_log_that_lost_the_end_records_it_again(
    snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_commits(monkeypatch, times=1)
    got = CliRunner().invoke(app, ["brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "json"])
    assert got.exit_code == 0, got.output
    runs = recorded_runs()
    assert len(runs) == 1 and runs[0].status == "done"  # not left "running"


def test_an_audit_log_on_a_full_disk_exits_non_zero_after_the_report(
    snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    _fail_commits(monkeypatch, times=None)
    got = CliRunner().invoke(app, ["brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "json"])
    assert got.exit_code == 5
    assert json.loads(got.stdout)["symbol"] == "AAPL"  # the report is delivered all the same
    assert "audit log" in got.stderr and "database or disk is full" in got.stderr


def test_a_full_disk_for_the_report_and_the_audit_log_never_points_to_a_record_that_is_not_there(
    snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a small full tmpfs holds both: the output and the state directory
    _fail_commits(monkeypatch, times=None)
    args = ["brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "markdown", "--output", "/dev/full"]
    got = CliRunner().invoke(app, args)
    assert got.exit_code == 5
    assert "No space left on device" in got.stderr and "the report is lost" in got.stderr
    assert "findesk runs show" not in got.stderr  # it would show nothing


def test_a_checkpoint_store_that_fills_up_stops_checkpoints_not_the_run(
    snapshot_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sqlite3

    from langgraph.checkpoint.sqlite.aio import AsyncSqliteSaver

    async def full(*_args: Any, **_kwargs: Any) -> Any:
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(AsyncSqliteSaver, "aput", full)
    monkeypatch.setattr(AsyncSqliteSaver, "aput_writes", full)
    got = CliRunner().invoke(app, ["brief", "AAPL", "--as-of", AS_OF, "-q", "-f", "json"])
    assert got.exit_code == 0, got.output
    assert json.loads(got.stdout)["symbol"] == "AAPL"  # the briefing, not "internal error in brief"
    assert "checkpoints stopped" in got.stderr and "database or disk is full" in got.stderr
    runs = recorded_runs()
    assert len(runs) == 1 and runs[0].status == "done"


# -- item 8: config path ------------------------------------------------------------------------


def test_a_config_path_that_is_a_folder_is_reported_as_a_folder(tmp_path: Path) -> None:
    proc = findesk("config", "show", env={"FINDESK_CONFIG": str(tmp_path)})
    line = one_line_failure(proc, 2, "invalid_input", str(tmp_path), "is a folder")
    assert "does not exist" not in line


# -- item 11: no snapshot, no silent live --------------------------------------------------------


def test_the_first_readme_command_with_an_empty_snapshot_folder_names_it(tmp_path: Path) -> None:
    proc = findesk("brief", "AAPL", "--as-of", AS_OF, env={"FINDESK_SNAPSHOT_DIR": str(tmp_path)})
    one_line_failure(proc, 3, "not_configured", str(tmp_path), "FINDESK_SNAPSHOT_DIR", "--live")
    assert recorded_runs() == []


def test_a_clone_without_a_snapshot_does_not_go_live(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("FINDESK_SNAPSHOT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("findesk.core.config._CHECKOUT", tmp_path / "clone")
    got = CliRunner().invoke(app, ["brief", "AAPL", "--as-of", AS_OF])
    assert got.exit_code == 3, got.output
    assert str(tmp_path.parent / "shared" / "snapshot") in got.stderr
    assert "FINDESK_SNAPSHOT_DIR" in got.stderr and "--live" in got.stderr
    assert recorded_runs() == []  # nothing ran, live or otherwise


# -- item 9: tickers ----------------------------------------------------------------------------


@pytest.mark.parametrize("ticker", ["ıbm", "ﬀ", "ＡＡＰＬ", "AAPL\u200b"])
def test_look_alike_tickers_are_refused_not_folded(snapshot_dir: Path, ticker: str) -> None:
    proc = findesk("brief", ticker, "-q", "-f", "json")
    assert proc.returncode == 2, proc.stdout
    error = json.loads(proc.stdout)["error"]
    assert error["code"] == "invalid_input" and "ASCII" in error["message"]
    assert [r.status for r in recorded_runs()] == ["error"]  # the refusal is recorded, nothing ran


def test_a_digits_only_ticker_gets_one_true_reason(snapshot_dir: Path) -> None:
    proc = findesk("brief", "12345", "-q")
    line = one_line_failure(proc, 2, "invalid_input", "'12345'", "a letter followed by")
    assert "1-6 letters or digits" not in line  # the old rule, which 12345 meets


def test_a_server_without_a_snapshot_refuses_to_start_instead_of_going_live(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import uvicorn

    served: list[bool] = []
    monkeypatch.setattr(uvicorn.Server, "run", lambda *_a, **_k: served.append(True))
    monkeypatch.delenv("FINDESK_SNAPSHOT_DIR", raising=False)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("findesk.core.config._CHECKOUT", tmp_path / "clone")
    got = CliRunner().invoke(app, ["serve", "--host", "127.0.0.1", "--port", "0"])
    assert got.exit_code == 3 and not served, got.output
    assert str(tmp_path.parent / "shared" / "snapshot") in got.stderr and "--live" in got.stderr
