"""The look-ahead audit of data reads: a DataRouter that refuses to hand a backtest anything later than
the session it decides on.

Rules:
- One ``AuditedRouter`` per session: it shares the real router's vendor chains (nothing is loaded
  twice) and checks every public data method. A call is a violation when its ``as_of`` (or ``end``)
  is after the session, or when anything it returns is dated after the session: bar dates, a quote's
  session, filing dates, facts' filing dates, macro observation dates, news and posts by publish time
  (New York calendar day), transcripts by conference time, fundamentals by ``visible_from``, index lists
  by list date, panels by their last session. Static identity tables (company names, fund profiles)
  carry no point-in-time key and are checked on their ``as_of`` only.
- A violation raises ``LookAheadError`` naming the method, the session and the date read, and is also
  kept in ``violations``: a tool that catches exceptions (tools turn them into ``unavailable``) cannot
  hide it, because the backtest checks ``violations`` after every session and fails the run. It is an
  error, never a warning.
- Every call is counted in ``reads`` (method, latest date seen) so a test can prove what was read.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any
from zoneinfo import ZoneInfo

from findesk.analytics.backtest.history import LookAheadError
from findesk.core.result import Ok, Result
from findesk.data.router import DataRouter

NEW_YORK = ZoneInfo("America/New_York")
# methods that take ``(…, as_of)`` and return nothing later than as_of by contract; checked on
# both the arguments and (where a date exists) the items returned
_NOT_AUDITED = frozenset({"aclose", "chain_names"})


class DataLookAheadError(LookAheadError):
    """A data read during a backtest's session decision that returned or asked for a later date."""

    def __init__(self, session: date, method: str, wanted: date, what: str) -> None:
        super().__init__(session, wanted, what)
        self.method = method
        Exception.__init__(
            self,
            f"look-ahead: router.{method} {what} while deciding on session {session.isoformat()}; "
            "a backtest may read nothing after the session it decides on",
        )


@dataclass(frozen=True)
class Read:
    method: str
    latest: date | None  # the latest date in the answer (None: no dated item, or an error)


def _day(value: date | datetime) -> date:
    if isinstance(value, datetime):
        # a timestamp counts on its New York calendar day: an article at 21:00 New York on the session
        # is that session's (after the close, but the desk decides at the close of the day it reads)
        return value.astimezone(NEW_YORK).date() if value.tzinfo else value.date()
    return value


def dates_in(value: Any) -> list[date]:
    """The point-in-time dates of a router answer (see the module rules)."""
    found: list[date] = []
    items: Iterable[Any] = value if isinstance(value, list) else [value]
    for item in items:
        found.extend(_item_dates(item))
    return found


def _item_dates(item: Any) -> list[date]:
    name = type(item).__name__
    if name == "PriceBars":
        return [b.date for b in item.bars]
    if name == "PricePanel":
        return [item.day(len(item.dates) - 1)] if len(item.dates) else []
    if name == "Quote":
        return [item.session_date]
    if name in ("Filing", "MaterialEvent"):
        return [item.filing_date]
    if name == "FilingDocument":
        filing = getattr(item, "filing", None)
        return [filing.filing_date] if filing is not None else []
    if name == "Fact":
        return [item.filed]
    if name == "MacroSeries":
        return [o.date for o in item.observations]
    if name in ("NewsItem", "SocialPost"):
        return [_day(item.published_at)]
    if name == "Transcript":
        return [_day(item.conference_at)]
    if name == "EarningsCalendar":
        # next_event is a scheduled date known at recording time: its recording date is the key
        held = [item.last_event.day] if item.last_event is not None else []
        return [item.recorded_on, *held]
    if name == "QuarterlyFundamentals":
        return [q.visible_from for q in item.quarters]
    if name == "IndexPeers":
        return [item.list_date]
    return []


class AuditedRouter(DataRouter):
    """The router a backtest's per-session decision reads through (see the module rules)."""

    def __init__(self, inner: DataRouter, session: date) -> None:
        super().__init__(inner.chains)
        self.chains = inner.chains  # the same lists: vendors are shared, never copied
        self.session = session
        self.reads: list[Read] = []
        self.violations: list[DataLookAheadError] = []
        for name, member in inspect.getmembers(DataRouter, inspect.iscoroutinefunction):
            if not name.startswith("_") and name not in _NOT_AUDITED:
                setattr(self, name, self._audited(name, getattr(super(), name), member))

    def _audited(
        self, name: str, bound: Callable[..., Awaitable[Result[Any]]], unbound: Callable[..., Any]
    ) -> Callable[..., Awaitable[Result[Any]]]:
        signature = inspect.signature(unbound)

        @functools.wraps(bound)
        async def call(*args: Any, **kwargs: Any) -> Result[Any]:
            given = signature.bind_partial(self, *args, **kwargs).arguments
            for arg in ("as_of", "end"):
                asked = given.get(arg)
                if isinstance(asked, date) and asked > self.session:
                    self._violate(name, asked, f"asked for {arg}={asked.isoformat()}")
            result = await bound(*args, **kwargs)
            latest: date | None = None
            if isinstance(result, Ok):
                seen = dates_in(result.value)
                latest = max(seen) if seen else None
                if latest is not None and latest > self.session:
                    self._violate(name, latest, f"was answered with data dated {latest.isoformat()}")
            self.reads.append(Read(name, latest))
            return result

        return call

    def _violate(self, method: str, wanted: date, what: str) -> None:
        error = DataLookAheadError(self.session, method, wanted, what)
        self.violations.append(error)
        raise error

    def check(self) -> None:
        """Raise the first violation seen, if any (one a tool caught and turned into an error too)."""
        if self.violations:
            raise self.violations[0]

    async def aclose(self) -> None:
        """Nothing: the vendors belong to the router this one wraps."""
