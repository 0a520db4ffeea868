"""``findesk db current|upgrade`` on the configured state database (``FINDESK_AUDIT_URL``), SQLite and
PostgreSQL: ``current`` creates nothing, ``upgrade`` migrates once and then reports it is at head."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from findesk.core.migrations import HEAD
from findesk.interfaces.cli.main import app
from state_kit import sqlite_file, tables

runner = CliRunner()


def test_current_creates_nothing_and_upgrade_migrates_once(
    state_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # users write PostgreSQL URLs without a driver: findesk uses psycopg 3 for them
    url = state_db.replace("postgresql+psycopg://", "postgresql://")
    monkeypatch.setenv("FINDESK_AUDIT_URL", url)
    path = sqlite_file(state_db)

    before = runner.invoke(app, ["db", "current", "--json"])
    if path is not None:
        assert before.exit_code == 4, before.output  # not_found: no file yet
        assert not path.exists()
    else:
        assert before.exit_code == 0, before.output
        assert json.loads(before.output)["data"]["revision"] is None and tables(state_db) == set()

    first = runner.invoke(app, ["db", "upgrade"])
    assert first.exit_code == 0, first.output
    assert f"upgraded from none (new, or made before migrations) to {HEAD} (head)" in first.output
    again = runner.invoke(app, ["db", "upgrade"])
    assert again.exit_code == 0 and f"already at revision {HEAD} (head)" in again.output

    now = runner.invoke(app, ["db", "current", "--json"])
    assert now.exit_code == 0, now.output
    shown = json.loads(now.output)["data"]
    assert (shown["revision"], shown["head"], shown["at_head"]) == (HEAD, HEAD, True)
    if path is not None:
        assert shown["location"] == str(path)
    else:  # the driver findesk chose, and never a password
        assert shown["location"].startswith("postgresql+psycopg://postgres:***@/")


def test_a_database_that_is_down_is_one_line_without_its_password(monkeypatch: pytest.MonkeyPatch) -> None:
    import socket

    with socket.socket() as probe:  # a loopback port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("FINDESK_AUDIT_URL", f"postgresql://findesk:hunter2@127.0.0.1:{port}/findesk")
    got = runner.invoke(app, ["db", "upgrade"])
    assert got.exit_code == 5  # unavailable
    lines = got.output.strip().splitlines()
    # psycopg adds a hint line ("Is the server running…?"); an error stays one line
    assert len(lines) == 1 and lines[0].startswith("findesk: unavailable: cannot upgrade the schema")
    assert "Connection refused" in lines[0] and "hunter2" not in got.output
