"""Volume anomaly: the last session's volume against the sessions before it.

Rules:
- Pure: takes bars, returns a typed anomaly or ``None`` when there is too little history.
- The baseline is the ``window`` sessions before the last one (the last session is never part of its
  own baseline); z = (volume - mean) / sample standard deviation. A flat baseline (stdev 0) gives no z.
- ``unusual`` when |z| >= ``threshold`` (default 2.0); the ratio to the baseline mean is reported too,
  because a z-score alone hides how large the move is.
- One session, one volume (``on_quote_volume``): when the quote of the same session states a volume,
  the last bar takes it, so the briefing never shows two volumes for one day. Bars within 5 % of it are
  the same figure from another feed (only the last bar changes); a larger gap is a share basis change
  (a split after the session, already applied to adjusted bars), so every bar is rescaled by it.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from datetime import date

from pydantic import BaseModel, ConfigDict

from findesk.data.models import PriceBar

DEFAULT_WINDOW = 30
DEFAULT_THRESHOLD = 2.0
MIN_BASELINE = 10
SAME_FIGURE = 0.05  # bar volume within 5 % of the quote's: the same session from another feed


class VolumeAnomaly(BaseModel):
    model_config = ConfigDict(frozen=True)

    session_date: date
    volume: int
    baseline_sessions: int
    baseline_start: date
    baseline_end: date
    baseline_mean: float
    baseline_stdev: float
    z_score: float | None  # None when the baseline is flat
    ratio: float | None  # volume / baseline mean
    unusual: bool
    threshold: float
    note: str | None = None  # where the session's volume and the baseline come from, when they differ


def volume_anomaly(
    bars: Sequence[PriceBar], *, window: int = DEFAULT_WINDOW, threshold: float = DEFAULT_THRESHOLD
) -> VolumeAnomaly | None:
    """The last bar's volume vs the ``window`` bars before it; None without enough volume history."""
    with_volume = [b for b in sorted(bars, key=lambda b: b.date) if b.volume is not None]
    if len(with_volume) < MIN_BASELINE + 1:
        return None
    last = with_volume[-1]
    baseline = with_volume[-(window + 1) : -1]
    volumes = [float(b.volume or 0) for b in baseline]
    mean = sum(volumes) / len(volumes)
    stdev = math.sqrt(sum((v - mean) ** 2 for v in volumes) / (len(volumes) - 1))
    current = int(last.volume or 0)
    z = (current - mean) / stdev if stdev > 0 else None
    return VolumeAnomaly(
        session_date=last.date,
        volume=current,
        baseline_sessions=len(baseline),
        baseline_start=baseline[0].date,
        baseline_end=baseline[-1].date,
        baseline_mean=round(mean, 1),
        baseline_stdev=round(stdev, 1),
        z_score=round(z, 2) if z is not None else None,
        ratio=round(current / mean, 2) if mean > 0 else None,
        unusual=z is not None and abs(z) >= threshold,
        threshold=threshold,
    )


def on_quote_volume(
    bars: Sequence[PriceBar], session: date, volume: int
) -> tuple[list[PriceBar], str | None]:
    """``bars`` with the last session's volume set to the quote's ``volume`` and a note saying so;
    unchanged (note None) when the last bar is another session or has no volume."""
    ordered = sorted(bars, key=lambda b: b.date)
    last = ordered[-1] if ordered else None
    if last is None or last.date != session or not last.volume or last.volume == volume:
        return ordered, None
    ratio = volume / last.volume
    if abs(ratio - 1.0) <= SAME_FIGURE:
        note = (
            f"the {session.isoformat()} volume is the quote's ({volume:,}); the daily bars give "
            f"{last.volume:,} ({(ratio - 1.0) * 100:+.2f}% apart, another feed) and supply the baseline"
        )
        return [*ordered[:-1], last.model_copy(update={"volume": volume})], note
    note = (
        f"the daily bars' volumes are on another share basis than the quote ({last.volume:,} vs {volume:,} "
        f"on {session.isoformat()}); every bar's volume is multiplied by {ratio:.4g} to the quote's basis"
    )
    scaled = [
        b.model_copy(update={"volume": None if b.volume is None else round(b.volume * ratio)})
        for b in ordered
    ]
    scaled[-1] = scaled[-1].model_copy(update={"volume": volume})
    return scaled, note
