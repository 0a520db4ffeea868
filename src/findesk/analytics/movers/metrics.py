"""The movers metrics computed independently with numpy, and the check that a sandboxed program's
output agrees with them.

Rules (pure: a payload in, figures out; no I/O):
- Over the payload's sessions d0..dn (n+1 closes):
  - ``total_return_pct`` = (close_n / close_0 − 1) × 100;
  - ``annualized_volatility_pct`` = the sample standard deviation (ddof 1) of the daily simple returns
    × √252 × 100; None with fewer than 2 returns;
  - ``volume_spike_ratio`` = volume_n / the mean volume of d0..d(n−1) (sessions with a volume); None
    when either is unknown or the mean is 0;
  - ``intraday_range_pct`` = (high_n − low_n) / close_n × 100; None when the source has no high/low
    (the all-listed-stocks table has none);
  - ``spy_return_pct`` = SPY's return over the same sessions; ``relative_return_pct`` = the symbol's
    return minus SPY's, in percentage points; both None without SPY.
- ``check`` compares a program's figures with these: each metric within ``TOLERANCE`` (relative, or
  absolute near zero); a missing, extra, non-numeric or different figure is named.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from findesk.analytics.movers.models import METRIC_NAMES, MoverMetrics, MoverPayload

TRADING_DAYS = 252
TOLERANCE = 1e-6


def _round(x: float | None, digits: int = 6) -> float | None:
    return None if x is None or not math.isfinite(x) else round(float(x), digits)


def compute_metrics(p: MoverPayload) -> MoverMetrics:
    close = np.asarray(p.close, dtype=np.float64)
    total = (close[-1] / close[0] - 1.0) * 100.0
    returns = close[1:] / close[:-1] - 1.0
    vol = float(np.std(returns, ddof=1) * math.sqrt(TRADING_DAYS) * 100.0) if returns.size >= 2 else None
    prior = [v for v in p.volume[:-1] if v is not None]
    last_volume = p.volume[-1]
    mean_prior = float(np.mean(prior)) if prior else 0.0
    spike = last_volume / mean_prior if last_volume is not None and mean_prior > 0 else None
    high, low = p.high[-1], p.low[-1]
    intraday = (high - low) / close[-1] * 100.0 if high is not None and low is not None else None
    spy = relative = None
    if p.spy_close is not None:
        spy = (p.spy_close[-1] / p.spy_close[0] - 1.0) * 100.0
        relative = total - spy
    return MoverMetrics(
        total_return_pct=_round(float(total)) or 0.0,
        annualized_volatility_pct=_round(vol),
        volume_spike_ratio=_round(spike),
        intraday_range_pct=_round(intraday),
        spy_return_pct=_round(spy),
        relative_return_pct=_round(relative),
    )


def _close(a: float, b: float) -> bool:
    return math.isclose(a, b, rel_tol=TOLERANCE, abs_tol=TOLERANCE)


def check(claimed: dict[str, Any], expected: MoverMetrics) -> list[str]:
    """What in a program's figures disagrees with the independent computation (empty: all agree)."""
    problems: list[str] = []
    want = expected.model_dump()
    for name in METRIC_NAMES:
        value, target = claimed.get(name), want[name]
        if target is None:
            if value is not None:
                problems.append(f"{name}: the program gave {value!r} where the data allows no figure")
            continue
        if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
            problems.append(f"{name}: missing or not a number ({value!r}); expected {target:g}")
        elif not _close(float(value), target):
            problems.append(f"{name}: the program gave {value:g}, numpy gives {target:g}")
    extra = sorted(set(claimed) - set(METRIC_NAMES))
    if extra:
        problems.append(f"unexpected figures: {', '.join(extra[:5])}")
    return problems
