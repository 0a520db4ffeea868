"""The fork limit of a run: a per-run child cgroup of the cgroup v1 ``pids`` controller.

``RLIMIT_NPROC`` alone does not stop a fork bomb started by root (root's processes are exempt), so
when a writable ``pids`` hierarchy exists (``/sys/fs/cgroup/pids``) each run gets its own child
cgroup inside this process's own pids cgroup (``findesk-sandbox-<pid>-<random>``) with ``pids.max``
set to the program's limit plus bubblewrap's two tasks; the forked child joins it before it execs
bubblewrap (it writes to ``procs_fd``), so every task of the sandbox counts, threads included.

Rules:
- never raises: ``open_pids_limit`` returns ``Ok(PidsLimit)`` or ``Err(NOT_CONFIGURED)``; ``close``
  and ``hit`` swallow errors (cleanup must never hide the run's own outcome).
- only cgroups this module created are written to or removed; only tasks inside them are signalled.
- fallback without a writable ``pids`` controller: a non-root user gets ``RLIMIT_NPROC`` (which the
  kernel enforces for non-root users) set to the tasks it already has plus the limit; root is
  refused, since nothing else would stop its fork bomb.
- the cgroup is removed by ``close`` once its tasks are gone (it waits briefly, killing stragglers).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok, Result

CGROUP_V1_PIDS = Path("/sys/fs/cgroup/pids")
# tasks of bubblewrap itself: the monitor outside the sandbox and the reaper (pid 1) inside it
BWRAP_TASKS = 2


@dataclass
class PidsLimit:
    """How one run's task count is capped: a cgroup (``path``) or an ``RLIMIT_NPROC`` value."""

    path: Path | None  # the run's own cgroup, None in the RLIMIT_NPROC fallback
    procs_fd: int | None  # open for writing to ``cgroup.procs``: the child writes its pid here
    nproc: int | None  # RLIMIT_NPROC for the child (fallback only)

    def hit(self) -> bool:
        """Whether the run tried to exceed the limit (``pids.events``: ``max N`` with N > 0)."""
        if self.path is None:
            return False
        try:
            for line in (self.path / "pids.events").read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "max":
                    return int(value) > 0
        except (OSError, ValueError):
            return False
        return False

    def tasks(self) -> list[int]:
        if self.path is None:
            return []
        try:
            return [int(p) for p in (self.path / "cgroup.procs").read_text().split()]
        except (OSError, ValueError):
            return []

    def kill_all(self, *, spare: int | None = None) -> None:
        """SIGKILL every task still in the run's cgroup but ``spare`` (nothing in the fallback)."""
        for pid in self.tasks():
            if pid == spare:
                continue
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)

    def close(self, *, wait_s: float = 2.0) -> None:
        """Close the fd and remove the cgroup once empty (killing stragglers). Never raises."""
        if self.procs_fd is not None:
            with contextlib.suppress(OSError):
                os.close(self.procs_fd)
            self.procs_fd = None
        if self.path is None:
            return
        path, deadline = self.path, time.monotonic() + wait_s
        while True:
            try:
                path.rmdir()
                self.path = None
                return
            except FileNotFoundError:
                self.path = None
                return
            except OSError:
                if time.monotonic() > deadline:
                    return  # left behind, empty or not: better than blocking the caller for ever
                self.kill_all()
                time.sleep(0.01)


def _own_pids_cgroup() -> Path | None:
    """The directory of this process's cgroup in a writable v1 ``pids`` hierarchy, if any."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, rel = line.split(":", 2)
        if "pids" in controllers.split(","):
            here = CGROUP_V1_PIDS / rel.lstrip("/")
            if (here / "cgroup.procs").exists() and os.access(here, os.W_OK):
                return here
    return None


def _tasks_of_user(uid: int) -> int:
    """Tasks (threads included) whose real uid is ``uid``: what RLIMIT_NPROC counts."""
    count = 0
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = dict(
                line.split(":", 1) for line in (entry / "status").read_text().splitlines() if ":" in line
            )
            if int(fields["Uid"].split()[0]) == uid:
                count += int(fields["Threads"].strip())
        except (OSError, KeyError, ValueError, IndexError):
            continue
    return count


def open_pids_limit(processes: int) -> Result[PidsLimit]:
    """Prepare the task limit for one run: ``processes`` tasks for the program (plus bubblewrap's)."""
    here = _own_pids_cgroup()
    if here is not None:
        path = here / f"findesk-sandbox-{os.getpid()}-{secrets.token_hex(4)}"
        try:
            path.mkdir()
        except OSError as exc:
            here = None
            reason = str(exc)
        else:
            try:
                (path / "pids.max").write_text(str(processes + BWRAP_TASKS))
                fd = os.open(path / "cgroup.procs", os.O_WRONLY | os.O_CLOEXEC)
            except OSError as exc:
                PidsLimit(path, None, None).close(wait_s=0)
                return Err(
                    ErrorCode.NOT_CONFIGURED,
                    f"could not set up the sandbox's process limit in {path} ({exc})",
                    source="sandbox",
                )
            return Ok(PidsLimit(path, fd, None))
    else:
        reason = f"no writable cgroup v1 pids controller under {CGROUP_V1_PIDS}"
    if os.geteuid() == 0:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"the sandbox cannot limit processes for root ({reason}; RLIMIT_NPROC does not apply to "
            "root): mount the cgroup v1 pids controller at /sys/fs/cgroup/pids or run as a normal user",
            source="sandbox",
        )
    return Ok(PidsLimit(None, None, _tasks_of_user(os.getuid()) + processes + BWRAP_TASKS))
