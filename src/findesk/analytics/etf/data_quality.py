"""Data-quality checks of one fund's recent bars: bad ticks and extreme weeks that must not be ranked.

The adjusted ETF panel holds artefacts (snapshot README, caveat 3): reverse splits Yahoo did not adjust
for (CLSM 2025-10-27 +706 % on a recorded 8:1 split, NVDS 2023-08-09 -79 % on 1:5), one-day bad prints
(DFEN 2024-06-03 -64 % then +184 % the next day) and unrecorded splits (SMST 2024-11-18 +272 % while its
mirror fund MSTX rose 26 %). Next to them sit real extreme days (SOXL +55 % / SOXS -56 % on 2025-04-09
when SPY rose 10.5 %; UVXY/UVIX 2024-08-05; YINN/YANG 2022-03-16 when FXI rose 21 %).

Rules, for each daily move in the ``bad_tick_window`` sessions up to the week's end (never later):
- A move is suspect when it is beyond ``bad_tick_move_pct``, or when a split is recorded that day and
  the price ratio matches the split ratio (an unadjusted split of any size).
- Suspect on a recorded split: an artefact (prices not adjusted for it).
- Otherwise it is real when the market or a peer explains it: the fund's OLS slope on SPY (or on its
  most correlated fund in the panel, |correlation| ≥ ``PEER_MIN_CORRELATION``) over the
  ``lookback`` daily returns before the move, times that series' move the same day, has the move's
  sign and accounts for at least half of it (|move − expected| ≤ ``EXPLAINED_SHARE`` × |move|).
- Otherwise it is an artefact when the session before or after (up to the week's end only) undoes at
  least half of it (the two log moves sum to at most ``REVERSAL_SHARE`` of the suspect one's size);
  else it is a jump with no market or peer context, also an artefact: a screener cannot tell it from
  a bad print.
- Peers make the README's "MSOX cluster" real moves: MSOX (2x cannabis) moved with MSOS (r = 0.99) on
  each of those days (2024-11-06 -54.7 % with MSOS -27.7 %; 2025-12-12 +107.9 % with MSOS +54.3 %).
- The week itself: a week's return beyond ``bad_tick_move_pct`` that neither SPY's nor a peer's week
  explains (same slopes, over the lookback ending at the week's start) is flagged ``extreme_week``.
Each finding is one reason string naming the date(s) and move(s); the caller does not rank the fund.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from findesk.analytics.etf.panel_stats import Matrix, Vector, paired_ols

PEER_MIN_CORRELATION = 0.8  # a peer this correlated tracks the same index or its mirror
EXPLAINED_SHARE = 0.5  # the context must account for at least half of the move
REVERSAL_SHARE = 0.5  # the adjacent session undoes at least half of the move (log terms)
SPLIT_MATCH = 0.1  # |log(price ratio / split ratio)| within this: the split was not adjusted for
MIN_PAIRS = 40  # daily returns a context slope needs


@dataclass(frozen=True)
class Window:
    """The panel's daily returns up to the week's end, and what the checks may look at.

    ``returns`` column k is the return into session ``first + k``; its last column is the week's end.
    ``splits`` is aligned with it. ``dates`` are those sessions as ISO strings (for the reasons)."""

    returns: Matrix
    splits: Matrix
    dates: Sequence[str]
    tickers: Sequence[str]  # the panel's rows
    spy: int  # SPY's row
    lookback: int  # daily returns in a context regression
    threshold: float  # a suspect move, as a fraction (0.5 for 50 %)


def _pct(move: float, digits: int = 1) -> str:
    return f"{move * 100:+.{digits}f}%"


def _explains(expected: float, move: float) -> bool:
    if not math.isfinite(expected) or expected * move <= 0:
        return False
    return abs(move - expected) <= EXPLAINED_SHARE * abs(move)


def context(window: Window, row: int, before: int, moves: Vector) -> str | None:
    """What explains ``moves[row]`` (SPY or a peer), from slopes over the ``lookback`` returns that end
    at column ``before`` (excluded); ``moves`` holds every fund's move over the same span. None: nothing."""
    start = max(0, before - window.lookback)
    history = window.returns[:, start:before]
    if history.shape[1] < MIN_PAIRS:
        return None
    slopes, r_squared, _ = paired_ols(history[row], history, MIN_PAIRS)
    move = float(moves[row])
    market = float(slopes[window.spy] * moves[window.spy])
    if _explains(market, move):
        return f"SPY {_pct(float(moves[window.spy]), 2)}, beta {slopes[window.spy]:.2f}"
    usable = np.isfinite(r_squared) & np.isfinite(moves) & (r_squared >= PEER_MIN_CORRELATION**2)
    usable[[row, window.spy]] = False
    if not usable.any():
        return None
    peer = int(np.argmax(np.where(usable, r_squared, -1.0)))
    if _explains(float(slopes[peer] * moves[peer]), move):
        return f"{window.tickers[peer]} {_pct(float(moves[peer]))}, slope {slopes[peer]:.2f}"
    return None


def _split_artefact(window: Window, row: int, col: int) -> str | None:
    ratio = float(window.splits[row, col])
    move = float(window.returns[row, col])
    if not (math.isfinite(ratio) and ratio > 0 and ratio != 1 and math.isfinite(move)):
        return None
    gross = 1.0 + move
    matches = gross > 0 and min(abs(math.log(gross / ratio)), abs(math.log(gross * ratio))) <= SPLIT_MATCH
    if matches or abs(move) > window.threshold:
        return f"bad_tick: {window.dates[col]} {_pct(move)} on a recorded {ratio:g} split not adjusted for"
    return None


def _reversal(window: Window, row: int, col: int) -> int | None:
    """The adjacent column (before or after, within the window) whose move undoes most of this one."""
    log_move = math.log1p(float(window.returns[row, col]))
    for other in (col + 1, col - 1):
        if not 0 <= other < window.returns.shape[1]:
            continue
        adjacent = float(window.returns[row, other])
        if not (math.isfinite(adjacent) and adjacent > -1):
            continue
        if abs(log_move + math.log1p(adjacent)) <= REVERSAL_SHARE * abs(log_move):
            return other
    return None


def bad_ticks(window: Window, row: int, checked: int) -> list[str]:
    """Artefacts among ``row``'s moves in the last ``checked`` columns of the window."""
    moves = window.returns[row]
    last = moves.shape[0] - 1
    first = max(0, last - checked + 1)
    reasons: list[str] = []
    seen: set[int] = set()
    for col in range(first, last + 1):
        move = float(moves[col])
        if col in seen or not math.isfinite(move):
            continue
        split = _split_artefact(window, row, col)
        if split:
            reasons.append(split)
            continue
        if abs(move) <= window.threshold or context(window, row, col, window.returns[:, col]):
            continue
        other = _reversal(window, row, col)
        if other is not None:
            seen.add(other)
            a, b = sorted((col, other))
            reasons.append(
                f"bad_tick: {window.dates[a]} {_pct(float(moves[a]))} then "
                f"{window.dates[b]} {_pct(float(moves[b]))} (reversal)"
            )
        else:
            spy_move = float(window.returns[window.spy, col])
            reasons.append(
                f"bad_tick: {window.dates[col]} {_pct(move)} with no market or peer context "
                f"(SPY {_pct(spy_move, 2)})"
            )
    return reasons


def extreme_week(window: Window, row: int, start_col: int, week_moves: Vector) -> str | None:
    """``extreme_week`` when the week's move (``week_moves[row]``, from the close of column
    ``start_col``) is beyond the threshold and neither SPY's week nor a peer's explains it."""
    move = float(week_moves[row])
    if not math.isfinite(move) or abs(move) <= window.threshold:
        return None
    if context(window, row, start_col + 1, week_moves):
        return None
    return (
        f"extreme_week: {_pct(move)} to {window.dates[-1]} with no market or peer context "
        f"(SPY {_pct(float(week_moves[window.spy]), 2)})"
    )


def suspects(window: Window, checked: int) -> npt.NDArray[np.intp]:
    """Rows with a move beyond the threshold or a recorded split in the last ``checked`` columns."""
    tail = window.returns[:, -checked:]
    big = np.abs(np.nan_to_num(tail)) > window.threshold
    split = np.nan_to_num(window.splits[:, -checked:]) > 0
    return np.flatnonzero((big | split).any(axis=1))
