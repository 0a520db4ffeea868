"""Startup cost: modules every command imports do not load the database layer or other heavy
libraries until they are used (each check runs in a fresh interpreter)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = ("sqlalchemy", "pydantic_settings", "httpx", "langgraph", "numpy", "pyarrow")


def _loaded_after(code: str) -> set[str]:
    probe = f"{code}\nimport json, sys\nprint(json.dumps(sorted(m for m in {HEAVY!r} if m in sys.modules)))"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(json.loads(out.stdout.strip().splitlines()[-1]))


def test_the_audit_log_and_key_store_modules_load_sqlalchemy_only_when_opened() -> None:
    assert _loaded_after("import findesk.core.events.audit, findesk.core.access") == set()
    assert "sqlalchemy" not in _loaded_after("from findesk.core.events.audit import RunSummary, AuditLog")


def test_opening_the_audit_log_loads_sqlalchemy(tmp_path: Path) -> None:
    code = (
        "from findesk.core.events.audit import AuditLog\n"
        f"log = AuditLog.open('sqlite:///{tmp_path}/audit.sqlite3').unwrap()\n"
        "log.close()"
    )
    assert "sqlalchemy" in _loaded_after(code)


def test_the_cli_session_helpers_load_no_settings_data_or_http_layer() -> None:
    assert _loaded_after("import findesk.interfaces.cli.session") == set()
