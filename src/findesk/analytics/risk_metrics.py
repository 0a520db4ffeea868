"""Return and risk statistics of dated value series: returns, volatility, Sharpe, drawdown, correlation.

Pure: series come in as ``(date, value)`` points sorted by date; nothing is read here.

Rules (each result states its basis, so a sentence quoting it can say how it was computed):
- Returns are simple period returns between consecutive observations (daily closes give daily returns).
  A series of rates (a yield in percent) is compared by its changes instead (``changes``), since a
  return on a yield is not meaningful.
- Volatility is the sample standard deviation of the period returns times sqrt(``PERIODS_PER_YEAR``)
  (252 trading days), in percent.
- Sharpe is the annualized mean excess return over the annualized volatility; the risk-free rate is
  an argument (percent a year, converted to a per-period rate by dividing by 252) and is stated.
- Max drawdown is the largest peak-to-trough fall of the values, in percent, with both dates.
- Correlation is Pearson's over observations present in both series on the same date (inner join);
  fewer than ``MIN_POINTS`` paired changes, or a flat series, gives ``None`` with the reason.
- A condition such as ``DGS10>4.5`` starts the window at the latest crossing at or before the end:
  the first date of the most recent run of observations on which the condition held.
"""

from __future__ import annotations

import itertools
import math
import operator
import re
from collections.abc import Callable, Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict

Point = tuple[date, float]
PERIODS_PER_YEAR = 252
MIN_POINTS = 5  # paired changes needed for a correlation worth quoting
VOL_BASIS = "sample standard deviation of daily returns x sqrt(252), in percent"

_OPS: dict[str, Callable[[float, float], bool]] = {
    ">=": operator.ge,
    "<=": operator.le,
    ">": operator.gt,
    "<": operator.lt,
}
_CONDITION = re.compile(r"^\s*([A-Za-z0-9_]{1,40})\s*(>=|<=|>|<)\s*(-?\d+(?:\.\d+)?)\s*$")


class Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Drawdown(Model):
    depth_pct: float  # negative, e.g. -12.5
    peak: date
    trough: date


class Condition(Model):
    series: str
    op: str
    value: float

    def holds(self, x: float) -> bool:
        return _OPS[self.op](x, self.value)

    def text(self) -> str:
        return f"{self.series}{self.op}{self.value:g}"


def parse_condition(text: str) -> Condition | None:
    """``"DGS10>4.5"`` -> Condition; anything else (words, two operators, no number) -> None."""
    match = _CONDITION.fullmatch(text)
    if match is None:
        return None
    return Condition(series=match.group(1).upper(), op=match.group(2), value=float(match.group(3)))


def clean(points: Sequence[Point]) -> list[Point]:
    """Finite values only, sorted by date, one value per date (the last one given)."""
    by_day = {d: v for d, v in points if isinstance(v, float | int) and math.isfinite(v)}
    return sorted(by_day.items())


def returns(points: Sequence[Point]) -> list[Point]:
    """Simple returns (fraction) dated at the later observation; a zero base is skipped."""
    out: list[Point] = []
    for (_, a), (d, b) in itertools.pairwise(points):
        if a != 0:
            out.append((d, b / a - 1))
    return out


def changes(points: Sequence[Point]) -> list[Point]:
    """Differences between consecutive observations, dated at the later one."""
    return [(d, b - a) for (_, a), (d, b) in itertools.pairwise(points)]


def total_return_pct(points: Sequence[Point]) -> float | None:
    if len(points) < 2 or points[0][1] == 0:
        return None
    return (points[-1][1] / points[0][1] - 1) * 100


def _stdev(xs: Sequence[float]) -> float | None:
    if len(xs) < 2:
        return None
    mean = sum(xs) / len(xs)
    return math.sqrt(sum((x - mean) ** 2 for x in xs) / (len(xs) - 1))


def annualized_volatility_pct(period_returns: Sequence[float]) -> float | None:
    sd = _stdev(period_returns)
    return None if sd is None else sd * math.sqrt(PERIODS_PER_YEAR) * 100


def sharpe_ratio(period_returns: Sequence[float], risk_free_pct: float) -> float | None:
    """Annualized Sharpe ratio; ``None`` with fewer than two returns or no variation."""
    sd = _stdev(period_returns)
    if sd is None or sd == 0:
        return None
    excess = [r - risk_free_pct / 100 / PERIODS_PER_YEAR for r in period_returns]
    return sum(excess) / len(excess) / sd * math.sqrt(PERIODS_PER_YEAR)


def max_drawdown(points: Sequence[Point]) -> Drawdown | None:
    """The largest fall from a running peak; ``None`` for fewer than two points or non-positive values."""
    if len(points) < 2 or any(v <= 0 for _, v in points):
        return None
    peak_day, peak = points[0]
    worst = Drawdown(depth_pct=0.0, peak=peak_day, trough=peak_day)
    for d, v in points:
        if v > peak:
            peak_day, peak = d, v
        depth = (v / peak - 1) * 100
        if depth < worst.depth_pct:
            worst = Drawdown(depth_pct=depth, peak=peak_day, trough=d)
    return worst


def paired(a: Sequence[Point], b: Sequence[Point]) -> list[tuple[date, float, float]]:
    """Observations of both series on the same date, in date order."""
    other = dict(b)
    return [(d, x, other[d]) for d, x in a if d in other]


def correlation(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    """Pearson's r; ``None`` for fewer than ``MIN_POINTS`` pairs or a flat series."""
    if len(xs) != len(ys) or len(xs) < MIN_POINTS:
        return None
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    sxy = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True))
    sxx = sum((x - mx) ** 2 for x in xs)
    syy = sum((y - my) ** 2 for y in ys)
    if sxx == 0 or syy == 0:
        return None
    return max(-1.0, min(1.0, sxy / math.sqrt(sxx * syy)))


def rolling_correlation(pairs: Sequence[tuple[date, float, float]], window: int) -> list[Point]:
    """Correlation over each trailing run of ``window`` paired changes, dated at its last one."""
    out: list[Point] = []
    for end in range(window, len(pairs) + 1):
        chunk = pairs[end - window : end]
        r = correlation([x for _, x, _ in chunk], [y for _, _, y in chunk])
        if r is not None:
            out.append((chunk[-1][0], r))
    return out


def latest_crossing(points: Sequence[Point], condition: Condition, end: date) -> date | None:
    """First date of the most recent run of observations up to ``end`` on which ``condition`` held
    (whether or not it still holds at ``end``); ``None`` when it never held."""
    last: date | None = None
    run: date | None = None
    for d, v in points:
        if d > end:
            break
        if condition.holds(v):
            run = run or d
            last = run
        else:
            run = None
    return last
