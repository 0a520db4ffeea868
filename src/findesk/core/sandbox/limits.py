"""What a sandboxed run may use (``SandboxLimits``) and what it produced (``SandboxRun``).

Rules:
- limits are validated at construction (``extra="forbid"``, every bound checked); a ``SandboxLimits``
  that exists is one the sandbox can enforce.
- a ``SandboxRun`` describes every outcome of the program, limits hit included: ``status`` says which
  wall stopped it, ``reason`` says it in one sentence for a reader.
- the work dir's disk use is capped too (``work_dir_bytes``, ``WORK_DIR_ENTRIES``): ``file_bytes``
  bounds one file, not how many a program writes.
- ``stdout`` never holds more than ``output_bytes`` bytes of the program's output and ``stderr`` never
  more than ``STDERR_BYTES`` (its tail: the end of a traceback is what explains a failure).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

RunStatus: TypeAlias = Literal[
    "ok", "error", "timeout", "cpu_limit", "memory_limit", "output_limit", "process_limit", "killed"
]

STDERR_BYTES = 8_000  # the tail of stderr kept in a SandboxRun
TMPFS_BYTES = 64 * 1024 * 1024  # size of the sandbox's private /tmp and /dev/shm (in memory)
WORK_DIR_ENTRIES = 10_000  # files and directories a program may create in its work dir
WORK_DIR_MIN_BYTES = 64 * 1024 * 1024  # disk its work dir may use: this, or 4 x file_bytes if larger


class SandboxLimits(BaseModel):
    """The walls around one run. Defaults suit a small pandas/numpy computation."""

    model_config = ConfigDict(extra="forbid", frozen=True, allow_inf_nan=False)

    cpu_seconds: int = Field(10, ge=1, le=3600)  # RLIMIT_CPU of each process
    memory_mb: int = Field(512, ge=64, le=65_536)  # RLIMIT_AS (address space) of each process
    processes: int = Field(16, ge=1, le=1024)  # tasks (processes and threads) the program may have at once
    wall_seconds: float = Field(15.0, gt=0, le=3600)  # the run is killed after this
    output_bytes: int = Field(20_000, ge=1, le=50_000_000)  # stdout cap; more => "output_limit"
    file_bytes: int = Field(5_000_000, ge=0, le=10_000_000_000)  # RLIMIT_FSIZE: largest file it may write


class SandboxRun(BaseModel):
    """One finished run of a program in the sandbox."""

    model_config = ConfigDict(extra="forbid")

    status: RunStatus
    exit_code: int | None  # None when the sandbox killed the run (timeout, output limit)
    stdout: str  # at most ``output_bytes`` bytes of output
    stderr: str  # the last ``STDERR_BYTES`` bytes of stderr
    duration_ms: float
    reason: str  # one sentence for a reader
    files: dict[str, bytes] = Field(default_factory=dict)  # collected files from the work dir


def work_dir_bytes(limits: SandboxLimits) -> int:
    """Disk the program may use in its work dir (beyond its inputs) before it is stopped."""
    return max(WORK_DIR_MIN_BYTES, 4 * limits.file_bytes)
