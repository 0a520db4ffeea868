"""``run_python``: run model-written Python inside the sandbox and report what happened.

Rules:
- never raises (cancellation excepted, after cleanup): every outcome of the program, limits hit
  included, is ``Ok(SandboxRun)``; ``Err`` means the sandbox itself could not be used (bubblewrap or
  libseccomp missing, no way to cap processes: ``NOT_CONFIGURED``), the request was malformed
  (``INVALID_INPUT``) or the host failed (``UNAVAILABLE``). A program is never run without the sandbox.
- each run gets a fresh private work dir (mode 700) holding ``main.py`` and the ``inputs`` files,
  bound read-write at ``/sandbox``; it is removed afterwards, whatever happened.
- stdout is read as it comes: past ``output_bytes`` the run is killed (``output_limit``); stderr keeps
  its tail. After ``wall_seconds`` the run is killed (``timeout``). The work dir's disk use is checked
  every ``WATCH_EVERY_S``: past ``work_dir_bytes(limits)`` (plus the inputs) or ``WORK_DIR_ENTRIES``
  entries the run is killed (``killed``), so many small files cannot fill the disk. Killing
  bubblewrap tears down the sandbox's pid namespace; the run's pids cgroup is swept too, then removed.
- ``collect`` names regular files the caller wants back from the work dir: opened without following
  symlinks, at most ``file_bytes`` each; missing ones are simply absent from ``files``.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import re
import shutil
import signal
import stat
import subprocess
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.core.sandbox.bwrap import find_bwrap, is_ready, sandbox_status
from findesk.core.sandbox.launch import Launch, prepare
from findesk.core.sandbox.limits import (
    STDERR_BYTES,
    WORK_DIR_ENTRIES,
    SandboxLimits,
    SandboxRun,
    work_dir_bytes,
)
from findesk.core.sandbox.outcome import KilledFor, classify

SCRIPT = "main.py"
MAX_PROGRAM_CHARS = 1_000_000
FILE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,127}")
READ_CHUNK = 65_536
REAP_TIMEOUT_S = 2.0  # after a kill, how long to wait for the sandbox to go away
WATCH_EVERY_S = 0.25  # how often the work dir's size is checked


class _Capture:
    """Bytes read from one pipe so far (kept even when the reader is cancelled)."""

    def __init__(self) -> None:
        self.data = bytearray()
        self.overflow = False
        self.full = asyncio.Event()  # set once more than the cap arrived


async def _read_capped(stream: asyncio.StreamReader, cap: int, into: _Capture) -> None:
    """Read until EOF; past ``cap`` bytes set ``into.full`` (the caller kills) and drain the rest
    unkept, so the pipe reaches EOF and its transport closes."""
    while chunk := await stream.read(READ_CHUNK):
        if into.overflow:
            continue
        into.data += chunk
        if len(into.data) > cap:
            del into.data[cap:]
            into.overflow = True
            into.full.set()


async def _read_tail(stream: asyncio.StreamReader, keep: int, into: _Capture) -> None:
    """Read until EOF, keeping only the last ``keep`` bytes."""
    while chunk := await stream.read(READ_CHUNK):
        into.data += chunk
        if len(into.data) > keep:
            del into.data[:-keep]


def _text(data: bytes) -> str:
    """UTF-8 text of a capture; a character cut at the end by a cap is dropped, not mangled."""
    return codecs.getincrementaldecoder("utf-8")(errors="replace").decode(data, final=False)


def _check_request(program: str, inputs: dict[str, bytes], collect: tuple[str, ...]) -> Err | None:
    def bad(reason: str) -> Err:
        return Err(ErrorCode.INVALID_INPUT, reason, "sandbox")

    if not isinstance(program, str) or not program.strip():
        return bad("the program is empty")
    if len(program) > MAX_PROGRAM_CHARS:
        return bad(f"the program is longer than {MAX_PROGRAM_CHARS} characters")
    for name, data in inputs.items():
        if not FILE_NAME.fullmatch(name) or name == SCRIPT:
            return bad(
                f"input file name {name!r} is not a plain name (letters, digits, . _ -) or is {SCRIPT}"
            )
        if not isinstance(data, bytes):
            return bad(f"input file {name!r} must be bytes")
    for name in collect:
        if not FILE_NAME.fullmatch(name):
            return bad(f"file name to collect {name!r} is not a plain file name (letters, digits, . _ -)")
    return None


def _write_work_dir(work: str, program: str, inputs: dict[str, bytes]) -> None:
    for name, data in [(SCRIPT, program.encode()), *inputs.items()]:
        fd = os.open(Path(work, name), os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)


def _collect(work: str, names: tuple[str, ...], max_bytes: int) -> dict[str, bytes]:
    out: dict[str, bytes] = {}
    dir_fd = os.open(work, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for name in dict.fromkeys(names):
            try:
                fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dir_fd)
            except OSError:
                continue  # missing, a symlink, or unreadable: not collected
            with os.fdopen(fd, "rb") as fh:
                if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
                    continue
                data = fh.read(max_bytes + 1)
            if len(data) <= max_bytes:
                out[name] = data
    finally:
        os.close(dir_fd)
    return out


def _remove_tree(path: str) -> None:
    """Remove the work dir even where the program took permissions away. Never raises."""

    def retry(func: Callable[..., Any], target: str, _exc: Any) -> None:
        where = Path(target)
        with contextlib.suppress(OSError):
            where.parent.chmod(0o700)
            if where.is_dir() and not where.is_symlink():
                where.chmod(0o700)
                shutil.rmtree(where, ignore_errors=True)
            else:
                func(target)

    with contextlib.suppress(OSError):
        shutil.rmtree(path, onerror=retry)


def _children_of(pid: int) -> list[int]:
    """Pids whose parent is ``pid`` (from /proc; our own unreaped child's children cannot be reused)."""
    out = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if len(fields) > 1 and fields[1] == str(pid):
            out.append(int(entry.name))
    return out


def _stop(proc: asyncio.subprocess.Process, launch: Launch) -> None:
    """SIGKILL the sandbox's pid 1 (the kernel then kills everything in its pid namespace) and any
    task left in the run's cgroup, sparing bubblewrap's monitor (our child), which then reports and
    exits by itself; ``_drive`` kills the monitor too if it lingers."""
    if proc.returncode is not None:
        return
    children = _children_of(proc.pid)
    for child in children:
        with contextlib.suppress(OSError):
            os.kill(child, signal.SIGKILL)
    if not children:  # bubblewrap has not started the sandbox yet (or is gone): stop it instead
        _kill_monitor(proc)
    launch.pids.kill_all(spare=proc.pid)


def _kill_monitor(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        with contextlib.suppress(ProcessLookupError):
            proc.kill()


def _work_dir_usage(work: str, max_entries: int) -> tuple[int, int]:
    """Bytes on disk and entries under ``work``; stops counting past ``max_entries``."""
    used, entries, todo = 0, 0, [work]
    while todo and entries <= max_entries:
        try:
            with os.scandir(todo.pop()) as it:
                for entry in it:
                    entries += 1
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_blocks * 512
                    if entry.is_dir(follow_symlinks=False):
                        todo.append(entry.path)
        except OSError:
            continue
    return used, entries


async def _watch_work_dir(work: str, max_bytes: int) -> None:
    """Return once the work dir holds more than ``max_bytes`` or ``WORK_DIR_ENTRIES`` entries."""
    while True:
        await asyncio.sleep(WATCH_EVERY_S)
        used, entries = _work_dir_usage(work, WORK_DIR_ENTRIES)
        if used > max_bytes or entries > WORK_DIR_ENTRIES:
            return


async def _finish(reader: asyncio.Task[None], out: _Capture, proc: asyncio.subprocess.Process) -> None:
    """Wait for stdout to end or overflow, then, unless it overflowed, for the process to exit.
    (``asyncio.wait`` leaves the reader running when this is cancelled.)"""
    full = asyncio.create_task(out.full.wait())
    try:
        await asyncio.wait({reader, full}, return_when=asyncio.FIRST_COMPLETED)
        if not out.overflow:
            await proc.wait()
    finally:
        full.cancel()


async def _drive(
    proc: asyncio.subprocess.Process, launch: Launch, limits: SandboxLimits, work: str, work_bytes: int
) -> tuple[_Capture, _Capture, KilledFor | None]:
    assert proc.stdout is not None and proc.stderr is not None
    out, err = _Capture(), _Capture()
    readers = [
        asyncio.create_task(_read_capped(proc.stdout, limits.output_bytes, out)),
        asyncio.create_task(_read_tail(proc.stderr, STDERR_BYTES, err)),
    ]
    finish = asyncio.create_task(_finish(readers[0], out, proc))
    watch = asyncio.create_task(_watch_work_dir(work, work_bytes))
    killed_for: KilledFor | None = None
    try:
        done, _ = await asyncio.wait(
            {finish, watch}, timeout=limits.wall_seconds, return_when=asyncio.FIRST_COMPLETED
        )
        if finish in done:
            killed_for = "output_limit" if out.overflow else None
        elif watch in done:
            killed_for = "work_dir_limit"
        else:
            killed_for = "timeout"
        if killed_for is not None:
            _stop(proc, launch)
        try:
            await asyncio.wait_for(proc.wait(), REAP_TIMEOUT_S)
        except TimeoutError:
            _kill_monitor(proc)
            launch.pids.kill_all()
        await asyncio.wait(readers, timeout=REAP_TIMEOUT_S)
    finally:
        if proc.returncode is None:  # cancelled: no time to wait, kill it all
            _stop(proc, launch)
            _kill_monitor(proc)
        for task in (finish, watch, *readers):
            task.cancel()
    return out, err, killed_for


async def _run(
    program: str,
    inputs: dict[str, bytes],
    limits: SandboxLimits,
    collect: tuple[str, ...],
    bwrap: str | None,
) -> Result[SandboxRun]:
    bad = _check_request(program, inputs, collect)
    if bad is not None:
        return bad
    found = find_bwrap(bwrap)
    if isinstance(found, Err):
        return found
    if not is_ready(found.value):
        ready = await asyncio.to_thread(sandbox_status, found.value)
        if isinstance(ready, Err):
            return ready
    work = tempfile.mkdtemp(prefix="findesk-sandbox-")
    launch: Launch | None = None
    try:
        _write_work_dir(work, program, inputs)
        prepared = prepare(found.value, work, limits)
        if isinstance(prepared, Err):
            return prepared
        launch = prepared.value
        started = time.perf_counter()
        try:
            proc = await asyncio.create_subprocess_exec(
                *launch.argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                env=launch.env,
                cwd="/",
                pass_fds=(launch.filter_fd,),
                preexec_fn=launch.preexec,  # only setrlimit and one write
                start_new_session=True,
            )
        except (OSError, subprocess.SubprocessError) as exc:
            return Err(ErrorCode.UNAVAILABLE, f"could not start bubblewrap: {exc}", "sandbox")
        launch.spawned()
        work_bytes = work_dir_bytes(limits) + sum(len(data) for data in inputs.values()) + len(program)
        out, err, killed_for = await _drive(proc, launch, limits, work, work_bytes)
        duration_ms = (time.perf_counter() - started) * 1000
        stderr = _text(bytes(err.data))
        exit_code = None if killed_for is not None else proc.returncode
        if exit_code == 1 and not out.data and stderr.startswith("bwrap: "):
            why = f"bubblewrap could not set up the sandbox: {stderr.strip()}"
            return Err(ErrorCode.UNAVAILABLE, why, "sandbox")
        status, reason = classify(
            exit_code=exit_code,
            killed_for=killed_for,
            stderr=stderr,
            duration_ms=duration_ms,
            limits=limits,
            pids_hit=launch.pids.hit(),
        )
        return Ok(
            SandboxRun(
                status=status,
                exit_code=exit_code,
                stdout=_text(bytes(out.data)),
                stderr=stderr,
                duration_ms=round(duration_ms, 1),
                reason=reason,
                files=_collect(work, collect, limits.file_bytes) if collect else {},
            )
        )
    finally:
        if launch is not None:
            launch.release()
        _remove_tree(work)


async def run_python(
    program: str,
    *,
    inputs: dict[str, bytes] | None = None,
    limits: SandboxLimits = SandboxLimits(),
    collect: tuple[str, ...] = (),
    bwrap: str | None = None,
) -> Result[SandboxRun]:
    """Run ``program`` as ``main.py`` in a fresh sandbox; see the module docstring for the walls."""
    try:
        return await _run(program, dict(inputs or {}), limits, tuple(collect), bwrap)
    except Exception as exc:  # the contract is "never raises"
        return Err(ErrorCode.UNAVAILABLE, f"the sandbox failed unexpectedly: {exc}", "sandbox")
