"""When the sandbox cannot be used, programs are refused (``Err``), never run another way; bad
requests are ``INVALID_INPUT``; limits are validated; outcomes are classified from signals and stderr."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from findesk.core.result import Err, ErrorCode
from findesk.core.sandbox import SandboxLimits, run_python, sandbox_status, syscall_filter
from findesk.core.sandbox import bwrap as bwrap_module
from findesk.core.sandbox import pids as pids_module
from findesk.core.sandbox.outcome import classify


def _marker_program(marker: Path) -> str:
    return f"open({str(marker)!r}, 'w').write('ran outside the sandbox')\n"


async def test_a_missing_bwrap_is_not_configured_and_nothing_runs(tmp_path: Path) -> None:
    marker = tmp_path / "side-effect.txt"
    status = sandbox_status("/nonexistent/bwrap")
    assert isinstance(status, Err) and status.code is ErrorCode.NOT_CONFIGURED
    assert "apt-get install bubblewrap" in status.reason

    result = await run_python(_marker_program(marker), bwrap="/nonexistent/bwrap")
    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert "apt-get install bubblewrap" in result.reason
    assert not marker.exists()


@pytest.mark.parametrize("impostor", ["/bin/true", "/bin/false"])
async def test_a_bwrap_that_does_not_sandbox_is_refused(impostor: str, tmp_path: Path) -> None:
    marker = tmp_path / "side-effect.txt"
    result = await run_python(_marker_program(marker), bwrap=impostor)
    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED, result
    assert "could not start a sandbox" in result.reason
    assert not marker.exists()


async def test_a_missing_libseccomp_is_not_configured(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(syscall_filter, "_cache", {})
    monkeypatch.setattr(bwrap_module, "_passed", set())
    monkeypatch.setitem(sys.modules, "pyseccomp", None)  # import now fails
    marker = tmp_path / "side-effect.txt"
    result = await run_python(_marker_program(marker), bwrap="/usr/bin/bwrap")
    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert "libseccomp" in result.reason and "pip install pyseccomp" in result.reason
    assert not marker.exists()


async def test_root_without_a_pids_cgroup_is_refused(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(bwrap_module, "_passed", set())
    monkeypatch.setattr(pids_module, "_own_pids_cgroup", lambda: None)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    marker = tmp_path / "side-effect.txt"
    result = await run_python(_marker_program(marker), bwrap="/usr/bin/bwrap")
    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert "cannot limit processes for root" in result.reason
    assert not marker.exists()


@pytest.mark.parametrize(
    ("kwargs", "words"),
    [
        ({"program": ""}, "empty"),
        ({"program": "print(1)", "inputs": {"../escape.json": b"{}"}}, "plain name"),
        ({"program": "print(1)", "inputs": {"main.py": b"print(2)"}}, "main.py"),
        ({"program": "print(1)", "collect": ("/etc/passwd",)}, "plain file name"),
    ],
)
async def test_malformed_requests_are_invalid_input(kwargs: dict[str, object], words: str) -> None:
    result = await run_python(**kwargs)  # type: ignore[arg-type]
    assert isinstance(result, Err) and result.code is ErrorCode.INVALID_INPUT
    assert words in result.reason


def test_limits_are_validated() -> None:
    for bad in ({"cpu_seconds": 0}, {"memory_mb": 1}, {"processes": 0}, {"wall_seconds": 0}, {"nope": 1}):
        with pytest.raises(ValidationError):
            SandboxLimits.model_validate(bad)
    assert SandboxLimits().memory_mb == 512


def test_outcomes_are_classified_from_signals_and_stderr() -> None:
    limits = SandboxLimits(cpu_seconds=2)

    def status(exit_code: int | None, stderr: str = "", *, pids_hit: bool = False, ms: float = 10) -> str:
        got, reason = classify(
            exit_code=exit_code,
            killed_for=None,
            stderr=stderr,
            duration_ms=ms,
            limits=limits,
            pids_hit=pids_hit,
        )
        assert reason.startswith("the program")
        return got

    assert status(0) == "ok"
    assert status(128 + 24) == "cpu_limit"  # SIGXCPU
    assert status(128 + 9, ms=3_100) == "cpu_limit"  # SIGKILL at the hard CPU limit
    assert status(128 + 9, ms=100) == "killed"
    assert status(128 + 11) == "killed"  # SIGSEGV
    assert status(1, "Traceback …\nMemoryError\n") == "memory_limit"
    assert status(1, "Traceback …\nBlockingIOError: [Errno 11] Resource temporarily unavailable\n") == (
        "process_limit"
    )
    assert status(1, "", pids_hit=True) == "process_limit"
    assert status(1, "Traceback …\nValueError: bad\n") == "error"
    assert status(3) == "error"


def test_a_normal_user_without_a_pids_cgroup_gets_rlimit_nproc(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pids_module, "_own_pids_cgroup", lambda: None)
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    monkeypatch.setattr(os, "getuid", lambda: 1000)
    limit = pids_module.open_pids_limit(16).unwrap()
    # the tasks uid 1000 already has (none here) + the program's 16 + bubblewrap's 2
    assert limit.path is None and limit.nproc == 18
