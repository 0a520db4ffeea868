"""Statistics over a whole price panel at once (funds × sessions), vectorised with numpy.

Rules:
- Rows are funds, columns sessions; NaN is a session without a bar and is never filled: every statistic
  uses the bars present, and says how many it needs before it gives a value (NaN otherwise).
- Windows are given by their last column (inclusive) and length, so a caller can never read a column
  after the session it names (point in time).
- Returns are simple daily returns between consecutive sessions; a return next to a missing bar is NaN.
- OLS slopes are paired: a session counts only when both series have a return on it.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Matrix = npt.NDArray[np.float64]
Vector = npt.NDArray[np.float64]
Index = npt.NDArray[np.intp]


def first_bar(close: Matrix) -> Index:
    """Column of each row's first bar (the row's length when it has none)."""
    present = np.isfinite(close)
    first: Index = np.where(present.any(axis=1), present.argmax(axis=1), close.shape[1])
    return first


def daily_returns(close: Matrix, start: int, end: int) -> Matrix:
    """Returns into sessions ``start..end`` (inclusive; ``start`` ≥ 1): column k is session start+k."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return close[:, start : end + 1] / close[:, start - 1 : end] - 1.0


def window_mean(values: Matrix, end: int, length: int, first: Index, min_share: float = 0.9) -> Vector:
    """Mean of each row over the ``length`` columns ending at ``end``, over the bars present.

    NaN unless the row's first bar is at or before the window's first column (the fund has the whole
    window of history) and at least ``min_share`` of the window has bars (a missing day is skipped)."""
    start = end - length + 1
    if start < 0:
        return np.full(values.shape[0], np.nan)
    window = values[:, start : end + 1]
    present = np.isfinite(window)
    count = present.sum(axis=1)
    total = np.where(present, window, 0.0).sum(axis=1)
    ok = (first <= start) & (count >= min_share * length) & (count > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(ok, total / count, np.nan)


def row_std(values: Matrix, min_count: int) -> Vector:
    """Sample standard deviation (ddof=1) of each row over its finite values; NaN below ``min_count``."""
    present = np.isfinite(values)
    count = present.sum(axis=1)
    filled = np.where(present, values, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = filled.sum(axis=1) / count
        squares = np.where(present, (values - mean[:, None]) ** 2, 0.0).sum(axis=1)
        std = np.sqrt(squares / (count - 1))
    return np.where(count >= max(min_count, 2), std, np.nan)


def paired_ols(y: Matrix, x: Matrix, min_pairs: int) -> tuple[Vector, Vector, Vector]:
    """Slope, R² and pair count of the OLS of each row of ``y`` on the same row of ``x`` (with intercept).

    ``y`` and ``x`` broadcast to one shape (a single series against every row, or every row against a
    single series). Slope and R² are NaN with fewer than ``min_pairs`` sessions where both have a value,
    or when ``x`` is flat."""
    y, x = np.broadcast_arrays(np.atleast_2d(y), np.atleast_2d(x))
    both = np.isfinite(y) & np.isfinite(x)
    n = both.sum(axis=1)
    ys = np.where(both, y, 0.0)
    xs = np.where(both, x, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_x = xs.sum(axis=1) / n
        mean_y = ys.sum(axis=1) / n
        dx = np.where(both, xs - mean_x[:, None], 0.0)
        dy = np.where(both, ys - mean_y[:, None], 0.0)
        sxx = (dx * dx).sum(axis=1)
        syy = (dy * dy).sum(axis=1)
        sxy = (dx * dy).sum(axis=1)
        slope = sxy / sxx
        r_squared = sxy * sxy / (sxx * syy)
    ok = (n >= min_pairs) & (sxx > 0)
    return np.where(ok, slope, np.nan), np.where(ok & (syy > 0), r_squared, np.nan), n.astype(np.float64)
