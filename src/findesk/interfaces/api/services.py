"""What one server process holds open: settings, the audit log, the key store, metrics, warm tools.

Rules:
- Opened once at start-up (``ApiServices.open`` returns ``Err`` with a clear reason, never raises) and
  closed at shutdown; requests only borrow from it.
- The server is stateless apart from its database: keys, usage and runs live in the state database, so
  several processes behind a load balancer agree. Only caches (tool contexts) are per process.
- One tool context per data mode, opened on first use and reused by every request (warm runs);
  the as-of date is per request.
"""

from __future__ import annotations

import asyncio
import ipaddress
import os
from dataclasses import dataclass, field
from datetime import date

from findesk.agents.runtime import ModelResolver
from findesk.core.access import KeyStore, open_key_store
from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog, open_audit_log
from findesk.core.result import Err, Ok, Result
from findesk.data.context import DataContext, resolve_context
from findesk.interfaces.api.metrics import Metrics
from findesk.interfaces.api.run_tasks import RunTasks
from findesk.knowledge.memory.store import MemoryStore
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.pool import WorkflowPool

_CONTEXTS_KEPT = 1000  # distinct as-of dates remembered
# each worker holds its own warm tool context (hundreds of MB once the snapshot is loaded)
DEFAULT_MAX_WORKERS = 8


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def keys_required(settings: Settings, host: str) -> bool:
    """Keys are required unless the server only listens on loopback (or the setting forces it)."""
    forced = settings.api.require_keys
    return (not is_loopback(host)) if forced is None else forced


@dataclass
class ApiServices:
    settings: Settings
    audit: AuditLog
    keys: KeyStore
    require_keys: bool
    metrics: Metrics = field(default_factory=Metrics)
    registry: ToolRegistry | None = None  # None: the default tool catalog (tests plant tools here)
    models: ModelResolver | None = None  # None: models from the settings (tests use fakes)
    runs: asyncio.Semaphore | None = None
    workers: int = 0  # worker processes for runs; 0: runs go through run_workflow in this process
    pool: WorkflowPool | None = None
    run_tasks: RunTasks = field(default_factory=RunTasks)  # runs under way, settled at shutdown
    memory: MemoryStore | None = None  # the research desk's memory (set by ``open``), kept like the key store
    _contexts: dict[date | None, DataContext] = field(default_factory=dict)
    _tools: dict[str, ToolContext] = field(default_factory=dict)
    _borrowed: set[str] = field(default_factory=set)  # contexts the caller opened and will close
    _tools_lock: asyncio.Lock | None = None

    @classmethod
    def open(
        cls,
        settings: Settings,
        *,
        require_keys: bool,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        tools: ToolContext | None = None,
        workers: int | None = None,
    ) -> Result[ApiServices]:
        """``tools``: an open tool context to use for its data mode (the caller closes it).
        ``workers``: worker processes for runs (default ``api.workers``, else one per core, at most
        8). Planted tools or models live in this process, so with either of them runs go here."""
        audit = open_audit_log(settings)
        if isinstance(audit, Err):
            return audit
        keys = open_key_store(settings)
        if isinstance(keys, Err):
            audit.value.close()
            return keys
        count = workers if workers is not None else settings.api.workers
        if count is None:
            count = min(os.cpu_count() or 1, DEFAULT_MAX_WORKERS)
        if registry is not None or models is not None:
            count = 0
        services = cls(
            settings, audit.value, keys.value, require_keys, registry=registry, models=models, workers=count
        )
        services.memory = MemoryStore.from_settings(settings)  # connects on first use
        if tools is not None:
            services._tools[tools.context.mode] = tools
            services._borrowed.add(tools.context.mode)
        return Ok(services)

    async def started(self) -> None:
        """Called inside the server's event loop (locks belong to a loop); starts the workers."""
        self.runs = asyncio.Semaphore(self.settings.api.max_concurrent_runs)
        self._tools_lock = asyncio.Lock()
        if self.workers > 0 and self.pool is None:
            self.pool = WorkflowPool(self.settings, self.workers)
            await asyncio.to_thread(self.pool.warm_up)

    def data_context(self, as_of: date | None) -> Result[DataContext]:
        """The data context of a request, remembered per as-of date: resolving one reads the snapshot's
        metadata and resolves paths, which a busy server should not repeat for every request."""
        known = self._contexts.get(as_of)
        if known is not None:
            return Ok(known)
        resolved = resolve_context(self.settings, as_of=as_of)
        # live without a date means "today", which changes at midnight: never remembered
        lasting = isinstance(resolved, Ok) and (as_of is not None or resolved.value.mode == "snapshot")
        if lasting and len(self._contexts) < _CONTEXTS_KEPT:
            self._contexts[as_of] = resolved.value  # type: ignore[union-attr]
        return resolved

    async def tool_context(self, context: DataContext) -> Result[ToolContext]:
        assert self._tools_lock is not None, "ApiServices.started() was not called"
        async with self._tools_lock:
            ctx = self._tools.get(context.mode)
            if ctx is None:
                opened = await open_tool_context(self.settings, context)
                if isinstance(opened, Err):
                    return opened
                ctx = self._tools[context.mode] = opened.value
        return Ok(ctx)

    async def close(self) -> None:
        await self.run_tasks.settle()  # while the workers and the key store are still there
        if self.pool is not None:
            await asyncio.to_thread(self.pool.close)
            self.pool = None
        for mode, ctx in self._tools.items():
            if mode not in self._borrowed:
                await close_tool_context(ctx)
        self._tools.clear()
        await asyncio.to_thread(self.audit.close)
        self.keys.close()
        if self.memory is not None:
            self.memory.close()
