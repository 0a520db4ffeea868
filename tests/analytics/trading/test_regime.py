"""The macro regime's votes on constructed inputs: a calm market reads risk-on, a stressed one
risk-off, a missing source is left out with a warning (never a made-up value), too few votes is
unknown, and an observation after the run's date or too old to be current never votes."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from findesk.analytics.trading.regime import (
    CYCLICAL,
    SECTOR_SPDRS,
    Obs,
    RegimeInputs,
    regime,
    regime_signal,
)

DAY = date(2024, 5, 10)


def _daily(values: list[float], end: date = DAY) -> list[Obs]:
    """One observation a day ending at ``end`` (calendar days: the rules count observations)."""
    return [(end - timedelta(days=len(values) - 1 - i), v) for i, v in enumerate(values)]


def _ramp(start: float, end: float, n: int) -> list[float]:
    return [start + (end - start) * i / (n - 1) for i in range(n)]


def _inputs(calm: bool, **overrides: object) -> RegimeInputs:
    if calm:
        vix, hy, curve = _daily([13.0] * 40), _daily(_ramp(3.4, 3.2, 40)), _daily([0.9] * 40)
        spy = _daily(_ramp(400.0, 500.0, 260))
        sectors = {s: _daily(_ramp(50.0, 60.0 if s in CYCLICAL else 52.0, 80)) for s in SECTOR_SPDRS}
    else:
        vix, hy, curve = _daily([35.0] * 40), _daily(_ramp(4.5, 7.0, 40)), _daily([-0.4] * 40)
        spy = _daily(_ramp(500.0, 400.0, 260))
        sectors = {s: _daily(_ramp(60.0, 45.0 if s in CYCLICAL else 58.0, 80)) for s in SECTOR_SPDRS}
    data: dict[str, object] = {
        "as_of": DAY,
        "vix": vix,
        "hy_spread": hy,
        "curve": curve,
        "spy": spy,
        "sectors": sectors,
    }
    return RegimeInputs.model_validate({**data, **overrides})


def test_a_calm_market_reads_risk_on_and_a_stressed_one_risk_off() -> None:
    calm, stressed = regime(_inputs(True)), regime(_inputs(False))
    assert calm.label == "risk-on" and calm.score == 6.0 and set(calm.votes.values()) == {1}
    assert stressed.label == "risk-off" and stressed.score == -6.0
    assert calm.vix == 13.0 and calm.vix_date == DAY and calm.curve_10y2y_pp == 0.9
    assert stressed.hy_spread_pct == 7.0 and stressed.hy_change_1m_pp is not None
    assert stressed.hy_change_1m_pp > 0.75
    assert calm.breadth_pct == 100.0 and calm.breadth_above == 11 and calm.breadth_members == 11
    assert stressed.breadth_pct == 0.0
    assert calm.rotation_pp is not None and calm.rotation_pp > 1.0
    assert stressed.spy_vs_sma200_pct is not None and stressed.spy_vs_sma200_pct < -1.0
    assert len(calm.components) == 6 and not calm.warnings
    assert any(line.startswith("VIX 13.00") and line.endswith("(+1)") for line in calm.components)
    signal = regime_signal(stressed)
    assert signal.id == "market.regime" and signal.analyst == "market"
    assert signal.score == -2.0 and signal.weight == 1.0 and "risk-off" in signal.text


def test_mixed_votes_read_transition() -> None:
    mixed = regime(_inputs(True, vix=_daily([35.0] * 40), curve=_daily([-0.4] * 40)))
    assert mixed.votes["vix"] == -1 and mixed.votes["curve"] == -1
    assert mixed.score == 2.0 and mixed.label == "risk-on"
    worse = regime(
        _inputs(True, vix=_daily([35.0] * 40), curve=_daily([-0.4] * 40), spy=_daily([450.0] * 260))
    )
    assert worse.score == 1.0 and worse.label == "transition"
    assert regime_signal(worse).score == pytest.approx(0.5)


def test_a_missing_source_is_left_out_with_its_reason() -> None:
    got = regime(
        _inputs(False, vix=[], sectors={}, unavailable={"VIXCLS": "FRED VIXCLS unavailable: timeout"})
    )
    assert got.vix is None and got.breadth_pct is None and got.rotation_pp is None
    assert set(got.votes) == {"credit", "curve", "trend"} and got.label == "risk-off"
    assert any("vix left out" in w and "timeout" in w for w in got.warnings)
    assert any(w.startswith("breadth left out") for w in got.warnings)
    assert any(w.startswith("rotation left out") for w in got.warnings)


def test_too_few_votes_is_unknown_and_does_not_count() -> None:
    got = regime(RegimeInputs(as_of=DAY, vix=_daily([13.0] * 5)))
    assert got.label == "unknown" and got.votes == {"vix": 1}
    assert any("regime unknown" in w for w in got.warnings)
    signal = regime_signal(got)
    assert signal.weight == 0.0 and signal.score == 0.0


def test_later_and_stale_observations_never_vote() -> None:
    calm = _inputs(True)
    later = DAY + timedelta(days=3)
    planted = calm.model_copy(
        update={
            "vix": [*calm.vix, (later, 80.0)],
            "spy": [*calm.spy, (later, 1.0)],
            "hy_spread": [*calm.hy_spread, (later, 20.0)],
        }
    )
    assert regime(planted) == regime(calm)
    stale = regime(_inputs(True, vix=_daily([13.0] * 40, end=DAY - timedelta(days=30))))
    assert "vix" not in stale.votes and stale.vix is None
    assert any("over 10 days old" in w for w in stale.warnings)
