"""The day's top NASDAQ gainers from one session's table of listed stocks.

Rules (pure: one session's cross-section in, a ``GainersBoard`` out; no I/O, no clock):
- The same rules for every vendor: the snapshot's all-listed-stocks table and a live screener's rows
  arrive as the same ``ListedSession`` shape and are re-filtered here, so a screener that leaks other
  exchanges (Yahoo's day gainers lists NYSE names) is held to the offline path's rules.
- Each row is screened once, in this order, and counted in ``dropped`` under the FIRST rule it fails
  (so ``universe = kept + sum(dropped)``):
  1. ``exchange``: not a NASDAQ tier. With a listing directory for the session (``exchange_codes``),
     the code must be NMS, NGM or NCM (``NASDAQ_TIERS``); a symbol the directory does not list is
     dropped as ``exchange_unknown``. Without one (sessions before the first directory) the table's own
     exchange column must say NASDAQ, and a warning says the tiers could not be checked;
  2. ``etf``: the directory flags it as an ETF;
  3. ``warrant`` / ``unit`` / ``right`` / ``preferred`` / ``note``: not a common share
     (``analytics.scan.movers.listing_type``: Nasdaq's fifth-letter codes and the name's words);
  4. ``no_data``: no close or percent change; 5. ``price``; 6. ``volume``; 7. ``market_cap`` /
     ``market_cap_unknown`` (an unknown cap is dropped while a floor is set).
- Ranked by the table's own percent change, descending, ties by symbol; a gainer's change is > 0.
- The source's standing caveats are ``notes`` (shown with the board's source); ``warnings`` are what a
  reader must know about this session's list (tiers unchecked, caps unknown, an extreme move).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date
from typing import Protocol

from findesk.analytics.movers.models import NASDAQ_TIERS, GainerFilters, GainerRow, GainersBoard
from findesk.analytics.scan.movers import REASONS as SCAN_REASONS
from findesk.analytics.scan.movers import ListedTable as ScanTable
from findesk.analytics.scan.movers import extreme_moves, floor_reason, listing_type, screen

REASONS = ("exchange", "exchange_unknown", "etf", *SCAN_REASONS)  # the scanner's rules follow


class ListedTable(ScanTable, Protocol):
    """The scanner's session view (``ListedSession``) with its listing directory's codes and ETF flags."""

    @property
    def exchange_codes(self) -> tuple[str | None, ...]: ...
    @property
    def etf_flags(self) -> tuple[bool | None, ...]: ...
    @property
    def directory_date(self) -> date | None: ...


def _known(x: float) -> bool:
    return not math.isnan(x)


def _reason(t: ListedTable, i: int, f: GainerFilters, tiers: bool) -> str | None:
    if tiers:
        code = t.exchange_codes[i]
        if code is None:
            return "exchange_unknown"
        if code not in NASDAQ_TIERS:
            return "exchange"
    elif t.exchanges[i].upper() != "NASDAQ":
        return "exchange"
    if t.etf_flags and t.etf_flags[i]:
        return "etf"
    kind = listing_type(t.symbols[i], t.names[i])
    if kind is not None:
        return kind
    return floor_reason(t, i, f.min_price, f.min_volume, f.min_market_cap_usd)


def nasdaq_gainers(
    table: ListedTable, filters: GainerFilters, *, sources: Sequence[str] = (), notes: Sequence[str] = ()
) -> GainersBoard:
    """The session's NASDAQ gainers after ``filters`` (module rules); ``notes`` are the source's caveats."""
    tiers = len(table.exchange_codes) == len(table.symbols) and len(table.symbols) > 0
    kept, dropped = screen(len(table.symbols), lambda i: _reason(table, i, filters, tiers))
    rising = sorted(
        (i for i in kept if float(table.pct_change[i]) > 0),
        key=lambda i: (-float(table.pct_change[i]), table.symbols[i]),
    )
    rows: list[GainerRow] = []
    for rank, i in enumerate(rising[: filters.top], start=1):
        close, volume, cap = float(table.close[i]), int(table.volume[i]), float(table.market_cap_usd[i])
        rows.append(
            GainerRow(
                rank=rank,
                symbol=table.symbols[i],
                name=(table.names[i] or "").strip() or None,
                exchange=table.exchanges[i],
                exchange_code=table.exchange_codes[i] if tiers else None,
                close=close,
                pct_change=float(table.pct_change[i]),
                volume=volume,
                dollar_volume=round(close * volume, 2),
                market_cap_usd=cap if _known(cap) else None,
                sector=table.sectors[i],
            )
        )
    warnings: list[str] = []
    if tiers:
        basis = (
            f"the Nasdaq Trader symbol directory of {table.directory_date.isoformat()}: NMS, NGM, NCM"
            if table.directory_date is not None
            else "the source's own exchange codes: NMS, NGM, NCM"
        )
    else:
        basis = "the table's exchange column (NASDAQ); no listing directory on or before the session"
        warnings.append(
            f"no Nasdaq listing directory on or before {table.session.isoformat()}: NASDAQ listings were "
            "told by the table's exchange column, so their tiers (NMS/NGM/NCM) and ETF flags were not checked"
        )
    if dropped.get("market_cap_unknown"):
        warnings.append(
            f"{dropped['market_cap_unknown']} NASDAQ listing(s) without a month-end market cap were dropped "
            "by the market-cap floor"
        )
    warnings += extreme_moves([(r.symbol, r.pct_change) for r in rows], table.session)
    return GainersBoard(
        session=table.session,
        filters=filters,
        universe=len(table.symbols),
        kept=len(kept),
        dropped={k: dropped[k] for k in REASONS if k in dropped},
        tier_basis=basis,
        gainers=rows,
        sources=list(sources),
        notes=list(notes),
        warnings=warnings,
    )
