"""What one MCP server process holds open: settings, the audit log, the key store (HTTP), warm tool
contexts and the tool list; and a call's access check against its key's tier.

Rules:
- Opened once (``Desk.open`` returns ``Err`` with the reason, never raises), closed at shutdown.
- One tool context per data mode, opened on first use and shared by every call (warm runs); the as-of
  date is per call, as for ``findesk serve``.
- Access is ``core.access``'s, as the HTTP API applies it: a call of a keyed caller is admitted against
  its tier (requests per minute; a workflow run also against the daily cost cap, reserving its model
  budget), and refused with ``limit_reached`` and when to retry. The run's end settles the reservation to
  what its model calls cost. The local caller (stdio) has no limits.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.access import Admission, ApiKey, KeyStore, admit, open_key_store, record_cost, tier_of
from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog, open_audit_log
from findesk.core.llm.factory import reservable_budget_usd
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext, resolve_context
from findesk.interfaces.mcp import catalog
from findesk.tools.base import ToolContext, ToolRegistry
from findesk.tools.catalog import close_tool_context, default_registry, open_tool_context

log = logging.getLogger("findesk.mcp")
DataMode = Literal["snapshot", "live"]
_CONTEXTS_KEPT = 1000  # distinct as-of dates remembered


@dataclass
class Desk:
    settings: Settings
    audit: AuditLog
    keys: KeyStore | None  # the HTTP transport's; None over stdio (local and trusted)
    remote: bool  # HTTP: workflow inputs naming local files are refused and left out of the schemas
    data_mode: DataMode | None = None  # --snapshot / --live; None: the settings'
    tools: ToolRegistry = field(default_factory=default_registry)
    _catalog: dict[str, catalog.Entry] | None = None
    _contexts: dict[str | None, DataContext] = field(default_factory=dict)
    _open: dict[str, ToolContext] = field(default_factory=dict)
    _lock: asyncio.Lock | None = None

    @classmethod
    def open(cls, settings: Settings, *, remote: bool, data_mode: DataMode | None = None) -> Result[Desk]:
        audit = open_audit_log(settings)
        if isinstance(audit, Err):
            return audit
        keys: KeyStore | None = None
        if remote:
            opened = open_key_store(settings)
            if isinstance(opened, Err):
                audit.value.close()
                return opened
            keys = opened.value
        closed = audit.value.close_interrupted_runs()  # as `findesk serve` does at start-up
        if isinstance(closed, Err):
            log.warning("could not close runs left running: %s", closed.reason)
        return Ok(cls(settings, audit.value, keys, remote, data_mode))

    def catalog(self) -> dict[str, catalog.Entry]:
        """The tool list, built on first use (listing the workflows imports them)."""
        if self._catalog is None:
            self._catalog = catalog.build(self.tools, remote=self.remote)
        return self._catalog

    def data_context(self, as_of: str | None) -> Result[DataContext]:
        """A call's data context, remembered per as-of date (live without a date is today: never kept)."""
        known = self._contexts.get(as_of)
        if known is not None:
            return Ok(known)
        resolved = resolve_context(self.settings, mode=self.data_mode, as_of=as_of)
        lasting = isinstance(resolved, Ok) and (as_of is not None or resolved.value.mode == "snapshot")
        if lasting and len(self._contexts) < _CONTEXTS_KEPT:
            self._contexts[as_of] = resolved.value  # type: ignore[union-attr]
        return resolved

    async def tool_context(self, context: DataContext) -> Result[ToolContext]:
        """The warm tool context of the call's data mode, with the call's as-of date."""
        if self._lock is None:
            self._lock = asyncio.Lock()  # made in the serving loop: a lock belongs to one loop
        async with self._lock:
            ctx = self._open.get(context.mode)
            if ctx is None:
                opened = await open_tool_context(self.settings, context)
                if isinstance(opened, Err):
                    return opened
                ctx = self._open[context.mode] = opened.value
        return Ok(ctx.with_context(context))

    async def admit(
        self, key: ApiKey, *, costly: bool, run_id: str | None = None, reserve_usd: float = 0.0
    ) -> Result[Admission]:
        """Admit one call of ``key`` against its tier, as the HTTP API does."""
        if self.keys is None:
            return Err(ErrorCode.NOT_CONFIGURED, "this server has no key store")
        tier = tier_of(key, self.settings.api.tiers)
        if isinstance(tier, Err):
            return tier
        return await asyncio.to_thread(
            admit,
            self.keys,
            key,
            tier.value,
            now=datetime.now(UTC),
            costly=costly,
            run_id=run_id,
            reserve_usd=reserve_usd,
        )

    async def settle(self, admission: Admission, run_id: str, cost_usd: float) -> None:
        """Replace a run's reservation with what its model calls cost; if that cannot be written, the
        reservation stays charged in full."""
        if self.keys is None:
            return
        done = await asyncio.to_thread(record_cost, self.keys, admission.request_id, run_id, cost_usd)
        if isinstance(done, Err):
            log.warning("run %s: its cost of $%.4f was not recorded: %s", run_id, cost_usd, done.reason)

    async def reserve_usd(self, mode: RequestedMode) -> float:
        """A run's model budget, reserved against its key's cap (nothing if it cannot reach a model)."""
        return await reservable_budget_usd(self.settings.llm, deterministic=mode == "deterministic")

    def budgeted(self, admission: Admission | None) -> Settings:
        """The run's settings with its model budget cut to its reservation."""
        if admission is None:
            return self.settings
        budget = admission.reserved_usd
        if budget >= self.settings.llm.budget_usd or budget <= 0:
            return self.settings
        llm = self.settings.llm.model_copy(update={"budget_usd": budget})
        return self.settings.model_copy(update={"llm": llm})

    async def close(self) -> None:
        for ctx in self._open.values():
            await close_tool_context(ctx)
        self._open.clear()
        await asyncio.to_thread(self.audit.close)
        if self.keys is not None:
            self.keys.close()
