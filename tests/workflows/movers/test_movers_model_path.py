"""The movers analyzer with a scripted program writer: a good program is accepted, a program that tries
to exfiltrate is stopped by the sandbox and logged, a wrong one is refused by the numpy check, and a
rate-limited model hands over to the next without being retried."""

from __future__ import annotations

import socket
import threading
from pathlib import Path
from typing import Any

import pytest
from movers_kit import DAY, MoversRun, run_movers

from findesk.core.config import Settings
from findesk.testing.fake_models import ScriptedModel, rate_limited
from findesk.testing.fake_movers_models import (
    GOOD_PROGRAM,
    WRONG_PROGRAM,
    exfiltrating_program,
    movers_models,
    program_reply,
)
from findesk.tools.base import ToolContext

# the analysis runs in the sandbox: without bubblewrap, skipped here and failed in CI
pytestmark = pytest.mark.usefixtures("sandbox_ready")

SECRET = "sk-ant-test-exfil-0123456789"


def _model_run(settings: Settings, tools: ToolContext, out: Path, resolve: Any) -> MoversRun:
    """The 2025-08-29 dry run with the scripted program writer ``resolve``."""
    return run_movers(
        settings, tools, {"date": DAY, "dry_run": True, "out": str(out)}, mode="model", models=resolve
    )


def test_a_model_written_program_runs_in_the_sandbox_and_is_accepted_when_it_matches(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path
) -> None:
    resolve, models = movers_models()
    run = _model_run(movers_settings, movers_tools, tmp_path, resolve)
    r = run.ok
    assert len(models[0].requests) == 1
    assert [p.origin for p in r.programs] == ["model"]
    assert r.programs[0].accepted and r.metrics_check == "sandbox_matched"
    assert r.programs[0].source.strip() == GOOD_PROGRAM.strip()
    assert r.mode == "model"


class Listener:
    """A TCP listener on 127.0.0.1 that records whether anyone connected (bounded: 5 s)."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(4)
        self.sock.settimeout(5)
        self.port = self.sock.getsockname()[1]
        self.received: list[bytes] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        try:
            conn, _ = self.sock.accept()
            self.received.append(conn.recv(65536))
            conn.close()
        except OSError:
            pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(6)


def test_an_exfiltrating_program_is_stopped_logged_and_replaced_by_the_reviewed_one(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", SECRET)
    marker = movers_settings.state_dir / "secret-note.txt"
    marker.write_text(SECRET)
    listener = Listener()
    try:
        # the host itself can reach the listener (so the sandbox's refusal below means something)
        with socket.create_connection(("127.0.0.1", listener.port), timeout=2) as probe:
            probe.sendall(b"host-probe")
        listener.thread.join(6)
        assert listener.received == [b"host-probe"]
        listener.received.clear()
        listener.thread = threading.Thread(target=listener._accept, daemon=True)
        listener.thread.start()
        resolve, _ = movers_models([program_reply(exfiltrating_program(listener.port, str(marker)))])
        run = _model_run(movers_settings, movers_tools, tmp_path, resolve)
    finally:
        listener.close()
    r = run.ok
    assert listener.received == []  # nothing reached the host
    attempt, fallback = r.programs
    assert attempt.origin == "model" and not attempt.accepted
    assert attempt.run is not None and attempt.run.status == "error"
    assert "PermissionError" in attempt.run.reason or "Permission" in attempt.run.stderr_tail
    assert fallback.origin == "reviewed" and fallback.accepted and r.metrics_check == "sandbox_matched"
    assert any("model-written program was not accepted" in w for w in r.warnings)
    logged = run.tool_results("python_analyzer")
    assert len(logged) == 2  # the blocked attempt is in the audit trail
    assert SECRET not in str([e.model_dump() for e in run.events])


def test_a_program_with_wrong_figures_is_refused_by_the_numpy_check(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path
) -> None:
    resolve, _ = movers_models([program_reply(WRONG_PROGRAM)])
    run = _model_run(movers_settings, movers_tools, tmp_path, resolve)
    r = run.ok
    assert not r.programs[0].accepted
    assert any(p.startswith("total_return_pct") for p in r.programs[0].problems)
    assert r.programs[-1].origin == "reviewed" and r.metrics is not None
    assert r.metrics.total_return_pct != 999.0


def test_on_429_the_chain_moves_to_the_next_model_without_retrying_the_one_that_refused(
    movers_settings: Settings, movers_tools: ToolContext, tmp_path: Path
) -> None:
    refusing = ScriptedModel([rate_limited(), rate_limited()], model="first")
    second = ScriptedModel([program_reply(GOOD_PROGRAM)], model="movers")
    resolve, _ = movers_models(chain=[refusing, second])
    run = _model_run(movers_settings, movers_tools, tmp_path, resolve)
    r = run.ok
    assert len(refusing.requests) == 1 and len(second.requests) == 1
    assert r.programs[0].origin == "model" and r.programs[0].accepted
