"""Everything needed to start one sandboxed process, prepared before the fork.

Rules:
- never raises: ``prepare`` returns ``Ok(Launch)`` or ``Err``; whatever it opened (the pids cgroup,
  the pipe carrying the seccomp filter) is released by ``Launch.release`` / on its own error path.
- the seccomp filter reaches bubblewrap through a pipe (``--seccomp FD``, passed with ``pass_fds``);
  no other host descriptor is inherited.
- bubblewrap itself starts with the sandbox's environment, never the host's.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from dataclasses import dataclass

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.sandbox.child import make_preexec
from findesk.core.sandbox.layout import bwrap_argv, sandbox_env
from findesk.core.sandbox.limits import SandboxLimits
from findesk.core.sandbox.pids import PidsLimit, open_pids_limit
from findesk.core.sandbox.syscall_filter import socket_filter_bpf


@dataclass
class Launch:
    argv: list[str]
    env: dict[str, str]
    filter_fd: int  # read end of the pipe holding the seccomp program; close after the spawn
    pids: PidsLimit
    preexec: Callable[[], None]

    def spawned(self) -> None:
        """Close the parent's copy of the filter pipe (the child has its own)."""
        if self.filter_fd >= 0:
            with contextlib.suppress(OSError):
                os.close(self.filter_fd)
            self.filter_fd = -1

    def release(self) -> None:
        """Close everything and remove the run's cgroup. Never raises."""
        self.spawned()
        self.pids.close()


def _filter_pipe(program: bytes) -> Result[int]:
    try:
        read_fd, write_fd = os.pipe()
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"no pipe for the seccomp filter ({exc})", "sandbox")
    try:
        os.write(write_fd, program)  # a few hundred bytes: well inside the pipe's buffer
    except OSError as exc:
        os.close(read_fd)
        return Err(ErrorCode.UNAVAILABLE, f"could not pass the seccomp filter ({exc})", "sandbox")
    finally:
        os.close(write_fd)
    return Ok(read_fd)


def prepare(bwrap: str, work_dir: str, limits: SandboxLimits) -> Result[Launch]:
    program = socket_filter_bpf()
    if isinstance(program, Err):
        return program
    pids = open_pids_limit(limits.processes)
    if isinstance(pids, Err):
        return pids
    fd = _filter_pipe(program.value)
    if isinstance(fd, Err):
        pids.value.close()
        return fd
    argv = bwrap_argv(bwrap, work_dir, fd.value)
    if isinstance(argv, Err):
        os.close(fd.value)
        pids.value.close()
        return argv
    preexec = make_preexec(limits, procs_fd=pids.value.procs_fd, nproc=pids.value.nproc)
    return Ok(Launch(argv.value, sandbox_env(), fd.value, pids.value, preexec))
