"""Market movers: top gainers, losers and most active of one session's all-listed-stocks table.

Rules (pure: one session's cross-section in, a ``MoversBoard`` out; no I/O, no clock):
- The table is the Nasdaq screener's, unadjusted, as reported that evening; ``pct_change`` is the
  screener's own percent change, ranked as given (never recomputed from two closes).
- Each row is screened once, in this order, and counted in ``dropped`` under the FIRST rule it fails
  (so ``universe = kept + sum(dropped)``):
  1. listing type (when ``drop_derivative_listings``):
     - ``warrant`` / ``unit`` / ``right``: a 5-letter symbol whose fifth letter is ``W`` / ``U`` / ``R``
       (Nasdaq's fifth-letter codes), or a name with the word "Warrant(s)" (any case; catches the
       ``Z``-suffixed warrants), "Right(s)" (capitalised: "the right to receive" in an ADR's name is
       not a rights issue) or "Unit(s)" (capitalised) unless the name marks an equity unit: a
       partnership's or trust's units ("Common Units", "L.P.", "Partners", "Beneficial Interest",
       "Depositary", "Class A Units") are shares of the business, not SPAC units;
     - ``preferred``: "Preferred" in the name, unless it is an American depositary share or ADR (a
       foreign company's ordinary listing that may represent preferred shares, e.g. AVAL, CIB);
     - ``note``: "Note(s)" or "Debenture(s)" in the name (exchange-listed debt);
  2. ``no_data``: no close or no percent change that session (it cannot be priced or ranked);
  3. ``price``: close below ``min_price``;
  4. ``volume``: volume unknown or below ``min_volume``;
  5. ``market_cap``: market cap below ``min_market_cap_usd``; ``market_cap_unknown``: no month-end
     market cap on or before the session while a floor is set. Unknown caps are DROPPED, not kept:
     the floor exists to keep micro-caps out, and the rows without a cap are mostly new or tiny
     listings; how many were dropped for it is in ``dropped`` and a warning. With no floor
     (``min_market_cap_usd=None``) neither rule applies and unknown caps are shown as ``None``.
- Lists (``top`` rows each): ``gainers`` by ``pct_change`` descending, ``losers`` ascending,
  ``most_active`` by dollar volume (close × volume) descending; ties broken by symbol, so the board
  is deterministic. A gainer must have ``pct_change > 0`` and a loser ``< 0`` (a flat day has none).
- Figures are copied from the table (close, percent, volume) or computed once (dollar volume, rounded
  to the cent); ``pct_change`` keeps the table's decimals so a reader can match the table exactly.
- Caveats are warnings, not silence: the source's notes (relabelled or lagged scrapes, a session that
  is not the one asked for) are passed on by the tool; here, rows with no name (so the name rules
  could not apply) and moves beyond ``EXTREME_MOVE_PCT`` (often reverse splits or bad ticks) are
  named.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Sequence
from datetime import date
from typing import Protocol

import numpy as np
import numpy.typing as npt

from findesk.analytics.scan.models import MoverFilters, MoverRow, MoversBoard

EXTREME_MOVE_PCT = 100.0  # a move of 100 % or more in a day is named in a warning: check it
FIFTH_LETTER = {"W": "warrant", "U": "unit", "R": "right"}  # Nasdaq's fifth-letter codes
_WARRANT = re.compile(r"\bwarrants?\b", re.IGNORECASE)
_RIGHT = re.compile(r"\bRights?\b")
_UNIT = re.compile(r"\bUnits?\b")
_EQUITY_UNIT = re.compile(
    r"\b(?:common|partners?|partnership|L\.?P\.?|beneficial|depositary|class [a-z])\b", re.IGNORECASE
)
_PREFERRED = re.compile(r"\bpreferred\b", re.IGNORECASE)
_ADR = re.compile(r"\bamerican depositary\b|\bADRs?\b|\bADSs?\b", re.IGNORECASE)
_NOTE = re.compile(r"\b(?:notes?|debentures?)\b", re.IGNORECASE)
REASONS = (
    "warrant",
    "unit",
    "right",
    "preferred",
    "note",
    "no_data",
    "price",
    "volume",
    "market_cap",
    "market_cap_unknown",
)

FloatArray = npt.NDArray[np.float64]


class ListedTable(Protocol):
    """What the movers need of a session's cross-section (``data.models.market_scan.ListedSession``)."""

    @property
    def session(self) -> date: ...
    @property
    def symbols(self) -> tuple[str, ...]: ...
    @property
    def exchanges(self) -> tuple[str, ...]: ...
    @property
    def close(self) -> FloatArray: ...
    @property
    def pct_change(self) -> FloatArray: ...
    @property
    def volume(self) -> FloatArray: ...
    @property
    def market_cap_usd(self) -> FloatArray: ...
    @property
    def names(self) -> tuple[str | None, ...]: ...
    @property
    def sectors(self) -> tuple[str | None, ...]: ...
    @property
    def industries(self) -> tuple[str | None, ...]: ...


def listing_type(symbol: str, name: str | None) -> str | None:
    """``warrant`` / ``unit`` / ``right`` / ``preferred`` / ``note`` when the listing is not a common
    share by the module's rules, else None."""
    if len(symbol) == 5 and symbol[-1] in FIFTH_LETTER:
        return FIFTH_LETTER[symbol[-1]]
    if not name:
        return None
    if _WARRANT.search(name):
        return "warrant"
    if _RIGHT.search(name):
        return "right"
    if _UNIT.search(name) and not _EQUITY_UNIT.search(name):
        return "unit"
    if _PREFERRED.search(name) and not _ADR.search(name):
        return "preferred"
    if _NOTE.search(name):
        return "note"
    return None


def _known(x: float) -> bool:
    return not math.isnan(x)


def _reason(table: ListedTable, i: int, filters: MoverFilters) -> str | None:
    """The first rule row ``i`` fails (module order), or None when it is kept."""
    if filters.drop_derivative_listings:
        kind = listing_type(table.symbols[i], table.names[i])
        if kind is not None:
            return kind
    return floor_reason(table, i, filters.min_price, filters.min_volume, filters.min_market_cap_usd)


def screen(rows: int, reason: Callable[[int], str | None]) -> tuple[list[int], dict[str, int]]:
    """The rows kept (``reason`` is None) and, per first rule failed, how many were dropped."""
    dropped: dict[str, int] = {}
    kept: list[int] = []
    for i in range(rows):
        why = reason(i)
        if why is None:
            kept.append(i)
        else:
            dropped[why] = dropped.get(why, 0) + 1
    return kept, dropped


def extreme_moves(moves: Iterable[tuple[str, float]], session: date) -> list[str]:
    """A warning for each (symbol, % change) of ``EXTREME_MOVE_PCT`` or more either way."""
    return [
        f"{symbol} moved {pct:+g}% on {session.isoformat()}: a move this large is often a reverse split or "
        "a bad tick; check it before reading it as news"
        for symbol, pct in moves
        if abs(pct) >= EXTREME_MOVE_PCT
    ]


def floor_reason(
    table: ListedTable, i: int, min_price: float, min_volume: int, min_market_cap_usd: float | None
) -> str | None:
    """The first of rules 2-5 (no data, price, volume, market cap) row ``i`` fails, or None; shared with
    the movers analyzer's NASDAQ gainers screen."""
    close, pct, volume = float(table.close[i]), float(table.pct_change[i]), float(table.volume[i])
    if not (_known(close) and _known(pct)):
        return "no_data"
    if close < min_price:
        return "price"
    if not _known(volume) or volume < min_volume:
        return "volume"
    if min_market_cap_usd is not None:
        cap = float(table.market_cap_usd[i])
        if not _known(cap):
            return "market_cap_unknown"
        if cap < min_market_cap_usd:
            return "market_cap"
    return None


def _row(table: ListedTable, i: int) -> MoverRow:
    close, volume, cap = float(table.close[i]), int(table.volume[i]), float(table.market_cap_usd[i])
    return MoverRow(
        symbol=table.symbols[i],
        name=(table.names[i] or "").strip() or None,
        exchange=table.exchanges[i],
        close=close,
        pct_change=float(table.pct_change[i]),
        volume=volume,
        dollar_volume=round(close * volume, 2),
        market_cap_usd=cap if _known(cap) else None,
        sector=table.sectors[i],
        industry=table.industries[i],
    )


def movers_board(
    table: ListedTable, filters: MoverFilters, *, sources: Sequence[str] = (), notes: Sequence[str] = ()
) -> MoversBoard:
    """The session's movers after ``filters`` (module rules); ``notes`` are the source's caveats."""
    kept, dropped = screen(len(table.symbols), lambda i: _reason(table, i, filters))
    rows = [_row(table, i) for i in kept]
    gainers = sorted((r for r in rows if r.pct_change > 0), key=lambda r: (-r.pct_change, r.symbol))
    losers = sorted((r for r in rows if r.pct_change < 0), key=lambda r: (r.pct_change, r.symbol))
    active = sorted(rows, key=lambda r: (-r.dollar_volume, r.symbol))
    top = filters.top
    warnings = list(notes)
    if dropped.get("market_cap_unknown"):
        warnings.append(
            f"{dropped['market_cap_unknown']} listing(s) without a month-end market cap on or before "
            f"{table.session.isoformat()} were dropped by the market-cap floor"
        )
    unnamed = sum(1 for n in table.names if not (n or "").strip())
    if unnamed and filters.drop_derivative_listings:
        warnings.append(f"{unnamed} listing(s) have no name: only their symbol suffix was screened")
    shown = {r.symbol: r for r in (*gainers[:top], *losers[:top], *active[:top])}
    warnings += extreme_moves([(r.symbol, r.pct_change) for r in shown.values()], table.session)
    return MoversBoard(
        session=table.session,
        filters=filters,
        universe=len(table.symbols),
        kept=len(kept),
        dropped={k: dropped[k] for k in REASONS if k in dropped},
        gainers=gainers[:top],
        losers=losers[:top],
        most_active=active[:top],
        sources=list(sources),
        warnings=warnings,
    )
