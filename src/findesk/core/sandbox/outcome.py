"""Turn how a sandboxed run ended into a ``(status, reason)`` pair.

Rules:
- pure and total: every combination of inputs gets a status and a one-sentence reason; never raises.
- the sandbox's own kills come first (``timeout``, ``output_limit``, a work dir grown past its cap:
  ``killed``); then a clean exit is ``ok``;
  then the limits, recognised from the signal (bubblewrap reports a death by signal N as exit code
  128 + N), the pids cgroup's ``max`` event and the last lines of stderr (``MemoryError``,
  ``BlockingIOError`` from ``fork``); then other signals are ``killed``; anything else is ``error``
  with the last line of stderr as its reason.
"""

from __future__ import annotations

import signal
from typing import Literal

from findesk.core.sandbox.limits import WORK_DIR_ENTRIES, RunStatus, SandboxLimits, work_dir_bytes

KilledFor = Literal["timeout", "output_limit", "work_dir_limit"]

_MEMORY_MARKS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
_FORK_MARKS = ("BlockingIOError", "Resource temporarily unavailable", "can't start new thread")


def _last_line(stderr: str) -> str:
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    return lines[-1] if lines else ""


def _signal_name(num: int) -> str:
    try:
        return signal.Signals(num).name
    except ValueError:
        return f"signal {num}"


def classify(
    *,
    exit_code: int | None,
    killed_for: KilledFor | None,
    stderr: str,
    duration_ms: float,
    limits: SandboxLimits,
    pids_hit: bool,
) -> tuple[RunStatus, str]:
    if killed_for == "timeout":
        also = " (it had also hit the process limit)" if pids_hit else ""
        return "timeout", f"the program ran longer than {limits.wall_seconds:g} s and was stopped{also}"
    if killed_for == "output_limit":
        return "output_limit", (
            f"the program printed more than {limits.output_bytes} bytes; output was cut there and the "
            "program was stopped"
        )
    if killed_for == "work_dir_limit":
        return "killed", (
            f"the program wrote more than {work_dir_bytes(limits) // 1_048_576} MB or {WORK_DIR_ENTRIES} "
            "files into its work dir and was stopped"
        )
    if exit_code == 0:
        return "ok", "the program finished normally"
    last = _last_line(stderr)
    sig = exit_code - 128 if exit_code is not None and 128 < exit_code <= 128 + 64 else None
    cpu_reason = f"the program used more than {limits.cpu_seconds} s of CPU time"
    if sig == signal.SIGXCPU:
        return "cpu_limit", cpu_reason
    if sig == signal.SIGKILL and duration_ms >= limits.cpu_seconds * 1000:
        return "cpu_limit", cpu_reason + " (killed at the hard limit)"
    if pids_hit or any(mark in last for mark in _FORK_MARKS):
        return "process_limit", (
            f"the program tried to run more than {limits.processes} processes or threads at once "
            f"(the process limit){': ' + last if last else ''}"
        )
    if any(mark in last for mark in _MEMORY_MARKS) or (
        sig is not None and any(mark in stderr for mark in _MEMORY_MARKS)
    ):
        return "memory_limit", f"the program needed more than {limits.memory_mb} MB of memory: {last}"
    if sig is not None:
        return "killed", f"the program was killed by {_signal_name(sig)}"
    if exit_code is None:
        return "killed", "the program was killed"
    if last:
        return "error", f"the program failed (exit code {exit_code}): {last}"
    return "error", f"the program exited with code {exit_code}"
