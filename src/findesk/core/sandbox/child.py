"""What runs in the forked child between ``fork`` and ``exec`` of bubblewrap (``preexec_fn``).

Rules:
- the child first joins the run's ``pids`` cgroup (so bubblewrap and everything it starts count),
  then sets its resource limits; both are inherited by the sandboxed program.
- limits: ``RLIMIT_CPU`` (soft = the limit, so the program gets ``SIGXCPU``; hard one second later,
  ``SIGKILL``), ``RLIMIT_AS``, ``RLIMIT_FSIZE``, ``RLIMIT_CORE`` = 0, ``RLIMIT_NOFILE``, and
  ``RLIMIT_NPROC`` in the non-root fallback.
- the function does only system calls on values computed beforehand (no imports, no allocation-heavy
  work, no locks): it runs in a child forked from a process that may have threads. An error raised
  here makes ``Popen`` fail, so a limit that cannot be set means the program does not start.
"""

from __future__ import annotations

import os
import resource
from collections.abc import Callable

from findesk.core.sandbox.limits import SandboxLimits

NOFILE = 256


def rlimits_for(limits: SandboxLimits, nproc: int | None) -> list[tuple[int, int, int]]:
    """``(resource, soft, hard)`` for every limit the child sets."""
    mb = 1024 * 1024
    out = [
        (resource.RLIMIT_CORE, 0, 0),
        (resource.RLIMIT_CPU, limits.cpu_seconds, limits.cpu_seconds + 1),
        (resource.RLIMIT_AS, limits.memory_mb * mb, limits.memory_mb * mb),
        (resource.RLIMIT_FSIZE, limits.file_bytes, limits.file_bytes),
        (resource.RLIMIT_NOFILE, NOFILE, NOFILE),
    ]
    if nproc is not None:
        out.append((resource.RLIMIT_NPROC, nproc, nproc))
    return [(which, *_within_hard(which, soft, hard)) for which, soft, hard in out]


def _within_hard(which: int, soft: int, hard: int) -> tuple[int, int]:
    """Never ask for more than the current hard limit (a normal user cannot raise it)."""
    current = resource.getrlimit(which)[1]
    if current != resource.RLIM_INFINITY:
        hard = min(hard, current)
    return min(soft, hard), hard


def make_preexec(limits: SandboxLimits, *, procs_fd: int | None, nproc: int | None) -> Callable[[], None]:
    """The ``preexec_fn`` for bubblewrap's ``Popen``."""
    table = rlimits_for(limits, nproc)

    def preexec() -> None:
        if procs_fd is not None:
            os.write(procs_fd, b"0")  # cgroup v1: "0" moves the writing task
        for which, soft, hard in table:
            resource.setrlimit(which, (soft, hard))

    return preexec
