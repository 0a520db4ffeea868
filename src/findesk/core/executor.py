"""Batch fan-out behind one interface: map a function over jobs on a local process pool or a Ray cluster.

Rules:
- ``Executor.map(fn, jobs)`` returns one ``Result`` per job, in the jobs' order, whatever order the
  workers finish in. A job whose function raises is ``Err`` naming the exception (``Type: message``); a
  worker that dies or a cluster that drops a task is ``Err(unavailable)`` for that job only. Errors are
  data: the batch always finishes. The one exception is ``fatal``: an exception of those types raised
  by any job is raised again in the caller (a backtest's look-ahead must fail the whole backtest).
- ``fn`` must be a module-level function and the jobs picklable: they cross a process boundary. A job
  carries everything it reads (bars, settings, the data context); a worker never relies on its own
  working directory or environment, which on a cluster node is not the caller's.
- ``LocalExecutor(workers)`` is the ``spawn`` process pool (no thread state forked); with one job or
  one worker it runs in this process, so a small batch pays for no process.
- ``RayExecutor`` connects to a running cluster (``address`` "HOST:PORT") or starts a private one in
  this process (``"local"``) with a bounded object store, no dashboard and a short temp dir. Ray is an
  optional extra (``findesk[ray]``), imported only here and only when asked for: without it
  ``open_executor`` is a one-line ``not_configured`` error. On a cluster every node needs findesk
  installed and the snapshot/data at the same path as the caller's settings name.
- Whoever opens an executor closes it (``with``); a Ray connection this module did not open (Ray
  already initialised in the process) is left open.
"""

from __future__ import annotations

import ipaddress
import multiprocessing
import os
import socket
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, Protocol, TypeVar

from findesk.core.config import ExecutorSettings
from findesk.core.result import Err, ErrorCode, Ok, Result

J = TypeVar("J")
R = TypeVar("R")

ExecutorKind = Literal["local", "ray"]
LOCAL_RAY = "local"
RAY_INSTALL_HINT = "pip install 'findesk[ray]'"
LOOPBACK_SWITCH = "RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER"  # 0: every Ray address stays on loopback
# a private Ray's session files; Ray's default (/tmp/ray/session_<timestamp>_<pid>/…) can push its
# Unix socket paths over the 107-byte limit when TMPDIR is long
RAY_TEMP_DIR = Path("/tmp/findesk-ray")


@dataclass(frozen=True)
class _Fatal:
    """A job raised an exception the caller asked to see raised (carried back as data, raised there)."""

    error: BaseException


def _call(fn: Callable[[Any], Any], fatal: tuple[type[BaseException], ...], job: Any) -> Any:
    """Run one job in a worker: its value, its failure as ``Err``, or a fatal exception to raise."""
    try:
        return Ok(fn(job))
    except fatal as exc:
        return _Fatal(exc)
    except Exception as exc:  # one job's failure is its own result; the batch goes on
        return Err(ErrorCode.UNAVAILABLE, f"{type(exc).__name__}: {exc}")


def _settle(outcomes: Sequence[Any]) -> list[Result[Any]]:
    for got in outcomes:
        if isinstance(got, _Fatal):
            raise got.error
    return list(outcomes)


class Executor(Protocol):
    """Maps a picklable function over jobs; see the module rules."""

    @property
    def description(self) -> str:
        """Where the jobs run, for a progress line ("3 local workers", "Ray at 10.0.0.5:6379")."""
        ...

    def map(
        self, fn: Callable[[J], R], jobs: Sequence[J], *, fatal: tuple[type[BaseException], ...] = ()
    ) -> list[Result[R]]: ...

    def close(self) -> None: ...

    def __enter__(self) -> Executor: ...

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None: ...


class _Closing:
    def close(self) -> None:
        return None

    def __enter__(self) -> Any:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


class LocalExecutor(_Closing):
    """A ``spawn`` process pool of ``workers`` processes, opened per ``map`` (a batch is seconds to
    minutes; a pool kept between batches would hold memory the rest of the run needs)."""

    def __init__(self, workers: int = 1) -> None:
        self.workers = max(1, workers)

    @property
    def description(self) -> str:
        return f"{self.workers} local worker(s)"

    def map(
        self, fn: Callable[[J], R], jobs: Sequence[J], *, fatal: tuple[type[BaseException], ...] = ()
    ) -> list[Result[R]]:
        if len(jobs) <= 1 or self.workers <= 1:
            return _settle([_call(fn, fatal, job) for job in jobs])
        context = multiprocessing.get_context("spawn")
        outcomes: list[Any] = []
        with ProcessPoolExecutor(max_workers=min(self.workers, len(jobs)), mp_context=context) as pool:
            futures: list[Future[Any]] = [pool.submit(_call, fn, fatal, job) for job in jobs]
            for future in futures:
                try:
                    outcomes.append(future.result())
                except BrokenProcessPool as exc:  # a worker died (killed, out of memory): its jobs only
                    outcomes.append(Err(ErrorCode.UNAVAILABLE, f"the worker process died: {exc}"))
        return _settle(outcomes)


class RayExecutor(_Closing):
    """Jobs as Ray tasks (one CPU each) on the cluster at ``address``, or on a private local Ray."""

    def __init__(self, ray: Any, address: str, owned: bool) -> None:
        self._ray = ray
        self.address = address
        self._owned = owned

    @property
    def description(self) -> str:
        return "a private local Ray" if self.address == LOCAL_RAY else f"the Ray cluster at {self.address}"

    def map(
        self, fn: Callable[[J], R], jobs: Sequence[J], *, fatal: tuple[type[BaseException], ...] = ()
    ) -> list[Result[R]]:
        ray = self._ray
        remote = ray.remote(num_cpus=1, max_retries=1)(_call)
        refs = [remote.remote(fn, fatal, job) for job in jobs]
        outcomes: list[Any] = []
        for ref in refs:  # in the jobs' order; Ray runs them in any order
            try:
                outcomes.append(ray.get(ref))
            except ray.exceptions.RayError as exc:  # the task's worker or node died: this job only
                reason = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
                outcomes.append(Err(ErrorCode.UNAVAILABLE, f"the Ray task failed: {reason}"))
        return _settle(outcomes)

    def close(self) -> None:
        if self._owned and self._ray.is_initialized():
            self._ray.shutdown()
        self._owned = False


def import_ray() -> Result[Any]:
    try:
        import ray
    except ImportError:
        return Err(
            ErrorCode.NOT_CONFIGURED, f"--executor ray needs Ray, which is not installed: {RAY_INSTALL_HINT}"
        )
    return Ok(ray)


def _is_loopback(address: str) -> bool:
    host = address.rsplit(":", 1)[0].strip("[]")
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def ray_unreachable(address: str, timeout_s: float = 5.0) -> str | None:
    """None when something accepts TCP connections at ``address``, else why not (``ray.init`` would retry
    for ever against a wrong address)."""
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return f"{address!r} is not HOST:PORT"
    try:
        with socket.create_connection((host.strip("[]"), int(port)), timeout=timeout_s):
            return None
    except OSError as exc:
        return f"nothing answers at {address} ({exc})"


def connect_ray(address: str | None, object_store_mb: int = 256) -> Result[RayExecutor]:
    """A Ray executor on the cluster at ``address`` ("HOST:PORT"), or a private local Ray (None, "local")."""
    target = (address or LOCAL_RAY).strip() or LOCAL_RAY
    host, _, port = target.rpartition(":")
    if target != LOCAL_RAY and not (host and port.isdigit() and 0 < int(port) < 65536):
        return Err(ErrorCode.INVALID_INPUT, f"a Ray address is HOST:PORT or 'local', not {target!r}")
    loopback = target != LOCAL_RAY and _is_loopback(target)
    if loopback:
        # Ray reads this when it is imported: without it, it swaps a loopback address for the machine's
        # primary one and then waits for ever on a head that listens on loopback only
        os.environ.setdefault(LOOPBACK_SWITCH, "0")
    imported = import_ray()
    if isinstance(imported, Err):
        return imported
    ray = imported.value
    if ray.is_initialized():  # this process already has a Ray connection: use it, leave it open
        return Ok(RayExecutor(ray, target, owned=False))
    options: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    if target == LOCAL_RAY:
        RAY_TEMP_DIR.mkdir(parents=True, exist_ok=True)
        options |= {
            "object_store_memory": object_store_mb * 1024 * 1024,
            "include_dashboard": False,
            "_temp_dir": str(RAY_TEMP_DIR),
        }
    else:
        constants = getattr(getattr(ray, "_private", None), "ray_constants", None)
        if loopback and getattr(constants, "ENABLE_RAY_CLUSTER", False):
            return Err(
                ErrorCode.NOT_CONFIGURED,
                f"Ray was imported before {LOOPBACK_SWITCH}=0 was set, so it cannot reach a head on "
                f"loopback ({target}): set {LOOPBACK_SWITCH}=0 in the environment",
            )
        problem = ray_unreachable(target)
        if problem is not None:
            return Err(ErrorCode.UNAVAILABLE, f"cannot connect to Ray: {problem}")
        options["address"] = target
    try:
        ray.init(**options)
    except Exception as exc:  # a cluster of another Ray version, a refused token
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return Err(ErrorCode.UNAVAILABLE, f"cannot connect to Ray at {target}: {first}")
    return Ok(RayExecutor(ray, target, owned=True))


def open_executor(settings: ExecutorSettings, *, workers: int = 1) -> Result[Executor]:
    """The executor ``settings`` names: the local pool of ``workers`` processes, or Ray."""
    if settings.kind == "ray":
        connected = connect_ray(settings.address, settings.object_store_mb)
        return connected if isinstance(connected, Err) else Ok(connected.value)
    return Ok(LocalExecutor(workers))


def choose(
    settings: ExecutorSettings, kind: str | None = None, address: str | None = None
) -> ExecutorSettings:
    """``settings`` with a command line's ``--executor`` / ``--address`` applied (None: keep); an
    address alone means Ray (only Ray has one)."""
    update: dict[str, Any] = {}
    if kind is not None:
        update["kind"] = kind
    if address is not None:
        update["address"] = address
        update.setdefault("kind", "ray")
    return settings.model_copy(update=update) if update else settings


__all__ = [
    "Executor",
    "ExecutorKind",
    "LocalExecutor",
    "RayExecutor",
    "choose",
    "connect_ray",
    "import_ray",
    "open_executor",
]
