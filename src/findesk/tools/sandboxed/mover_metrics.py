"""The reviewed movers analysis, run inside the sandbox on ``payload.json`` (``MoverPayload``).

It prints one JSON object of figures on stdout: ``total_return_pct``, ``annualized_volatility_pct``
(sample stdev of daily simple returns × √252), ``volume_spike_ratio`` (last volume / mean of the
earlier sessions' volumes), ``intraday_range_pct`` ((high − low) / close of the last session),
``spy_return_pct`` and ``relative_return_pct`` (percentage points); ``null`` where the data allows no
figure. numpy only (pandas is installed for model-written programs, but takes a second to import).
It reads nothing but the payload and writes nothing but stdout. The workflow checks every
figure against ``analytics.movers.metrics`` (numpy, outside the sandbox).
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np


def _num(x: Any) -> float | None:
    if x is None:
        return None
    value = float(x)
    return round(value, 6) if math.isfinite(value) else None


def analyze(p: dict[str, Any]) -> dict[str, float | None]:
    close = np.asarray(p["close"], dtype=np.float64)
    total = (close[-1] / close[0] - 1.0) * 100.0
    returns = close[1:] / close[:-1] - 1.0
    vol = float(np.std(returns, ddof=1) * math.sqrt(252) * 100.0) if returns.size >= 2 else None
    prior = [float(v) for v in p["volume"][:-1] if v is not None]
    last_volume = p["volume"][-1]
    spike = None
    if last_volume is not None and prior and float(np.mean(prior)) > 0:
        spike = float(last_volume) / float(np.mean(prior))
    high, low = p["high"][-1], p["low"][-1]
    intraday = None if high is None or low is None else (high - low) / close[-1] * 100.0
    spy = relative = None
    if p.get("spy_close") is not None:
        spy_close = np.asarray(p["spy_close"], dtype=np.float64)
        spy = (spy_close[-1] / spy_close[0] - 1.0) * 100.0
        relative = total - spy
    return {
        "total_return_pct": _num(total),
        "annualized_volatility_pct": _num(vol),
        "volume_spike_ratio": _num(spike),
        "intraday_range_pct": _num(intraday),
        "spy_return_pct": _num(spy),
        "relative_return_pct": _num(relative),
    }


def main() -> None:
    payload = json.loads(Path("payload.json").read_text(encoding="utf-8"))
    print(json.dumps(analyze(payload)))


if __name__ == "__main__":
    main()
