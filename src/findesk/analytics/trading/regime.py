"""The macro regime the market analyst reads: six components each cast one vote (+1 risk-on, 0, -1
risk-off), the votes are summed, and the sum is labelled.

Votes (every figure as of the run's date; a FRED value older than ``MAX_STALE_DAYS`` does not vote):
- ``vix`` (FRED VIXCLS): < 16 → +1 (calm), ≥ 25 → -1 (stressed), otherwise 0.
- ``credit`` (FRED BAMLH0A0HYM2, ICE BofA US high-yield option-adjusted spread, percent): level ≥ 6.0
  or a widening of ≥ 0.75 pp over the last month → -1; level ≤ 4.0 with a change of at most +0.25 pp
  → +1; otherwise 0. The month's change is against the last value at least 30 days older (level
  alone when there is none).
- ``curve`` (FRED T10Y2Y, 10-year minus 2-year Treasury, pp): < 0 (inverted) → -1, ≥ 0.5 → +1,
  otherwise 0.
- ``breadth``: the share of the 11 Select Sector SPDRs above their own 50-day average ("sector
  breadth", not the S&P 500's members): ≥ 70 % → +1, ≤ 30 % → -1, otherwise 0; it needs at least
  ``MIN_BREADTH_FUNDS`` funds with 50 sessions.
- ``rotation``: the mean 1-month (21-session) return of the cyclical SPDRs (XLY XLK XLF XLI) minus
  that of the defensive ones (XLP XLU XLV): ≥ +1.0 pp → +1, ≤ -1.0 pp → -1, otherwise 0; it needs at
  least two funds on each side.
- ``trend``: SPY's close vs its 200-day average: ≥ +1 % → +1, ≤ -1 % → -1, otherwise 0.

Label: the score is the sum of the votes cast (-6 … +6). Fewer than ``MIN_COMPONENTS`` votes →
``unknown``; score ≥ +2 → ``risk-on``; score ≤ -2 → ``risk-off``; otherwise ``transition``.
A component whose source failed or is too short is left out of the vote with a warning saying why;
its figure stays ``None``, never a made-up value.

Signal (``regime_signal``, id ``market.regime``): score = the regime score / 2, clamped to [-2, +2],
weight 1; an unknown regime scores 0 with weight 0 (it states why, but does not count).

Pure: the tool reads the series and hands them in as (date, value) observations.
"""

from __future__ import annotations

import math
from datetime import date, timedelta
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.trading.signals import Signal

Obs = tuple[date, float]
RegimeLabel = Literal["risk-on", "risk-off", "transition", "unknown"]

SECTOR_SPDRS = ("XLB", "XLC", "XLE", "XLF", "XLI", "XLK", "XLP", "XLRE", "XLU", "XLV", "XLY")
CYCLICAL = ("XLY", "XLK", "XLF", "XLI")
DEFENSIVE = ("XLP", "XLU", "XLV")

VIX_CALM, VIX_STRESSED = 16.0, 25.0
HY_WIDE, HY_TIGHT, HY_WIDENING, HY_STABLE = 6.0, 4.0, 0.75, 0.25
CURVE_STEEP = 0.5
BREADTH_HIGH, BREADTH_LOW, BREADTH_SMA, MIN_BREADTH_FUNDS = 70.0, 30.0, 50, 6
ROTATION_PP, MONTH_SESSIONS = 1.0, 21
TREND_PCT, TREND_SMA = 1.0, 200
RISK_ON, RISK_OFF, MIN_COMPONENTS = 2, -2, 3
MAX_STALE_DAYS = 10
_DIGITS = 4
# the thresholds above by name: a tool result carries them, so a component line's threshold traces
RULES: dict[str, float] = {
    "vix_calm": VIX_CALM,
    "vix_stressed": VIX_STRESSED,
    "hy_wide_pct": HY_WIDE,
    "hy_tight_pct": HY_TIGHT,
    "hy_widening_pp": HY_WIDENING,
    "hy_stable_pp": HY_STABLE,
    "curve_steep_pp": CURVE_STEEP,
    "breadth_high_pct": BREADTH_HIGH,
    "breadth_low_pct": BREADTH_LOW,
    "rotation_pp": ROTATION_PP,
    "trend_pct": TREND_PCT,
    "sector_spdrs": len(SECTOR_SPDRS),
    "components": 6,
}


class Regime(BaseModel):
    model_config = ConfigDict(extra="forbid")

    label: RegimeLabel
    score: float  # -6 … +6: the sum of the components' votes
    vix: float | None = None
    vix_date: date | None = None
    hy_spread_pct: float | None = None  # ICE BofA US High Yield OAS (FRED BAMLH0A0HYM2), percent
    curve_10y2y_pp: float | None = None  # FRED T10Y2Y, percentage points
    breadth_pct: float | None = None  # share of the breadth basis above their 50-day average, percent
    rotation_pp: float | None = None  # 1M return of cyclical minus defensive sector SPDRs, pp
    spy_vs_sma200_pct: float | None = None
    components: list[str] = Field(default_factory=list)  # one line per vote, with its figure
    # the figures behind the votes, so every number a component line states is a value here
    hy_change_1m_pp: float | None = None
    hy_date: date | None = None
    curve_date: date | None = None
    breadth_basis: str | None = None  # what the breadth counts ("11 Select Sector SPDRs")
    breadth_above: int | None = None
    breadth_members: int | None = None
    cyclical_1m_pct: float | None = None
    defensive_1m_pct: float | None = None
    spy_close: float | None = None
    spy_sma200: float | None = None
    spy_session: date | None = None
    votes: dict[str, int] = Field(default_factory=dict)  # component -> its vote
    warnings: list[str] = Field(default_factory=list)  # components left out, and why


class RegimeInputs(BaseModel):
    """The observations each component reads, as of ``as_of`` (later ones are ignored here too)."""

    model_config = ConfigDict(extra="forbid")

    as_of: date
    vix: list[Obs] = Field(default_factory=list)
    hy_spread: list[Obs] = Field(default_factory=list)
    curve: list[Obs] = Field(default_factory=list)
    spy: list[Obs] = Field(default_factory=list)  # SPY daily closes
    sectors: dict[str, list[Obs]] = Field(default_factory=dict)  # sector SPDR -> daily closes
    unavailable: dict[str, str] = Field(default_factory=dict)  # source -> why it could not be read


def _r(value: float) -> float:
    return round(float(value), _DIGITS)


def _known(obs: list[Obs], as_of: date) -> list[Obs]:
    return sorted((d, v) for d, v in obs if d <= as_of and math.isfinite(v))


def _vote(value: float, high: float, low: float) -> int:
    return 1 if value >= high else -1 if value <= low else 0


def _signed(vote: int) -> str:
    return f"{vote:+d}" if vote else "0"


class _Tally:
    def __init__(self, inputs: RegimeInputs) -> None:
        self.inputs = inputs
        self.fields: dict[str, object] = {}
        self.votes: dict[str, int] = {}
        self.lines: list[str] = []
        self.warnings: list[str] = []

    def cast(self, key: str, vote: int, line: str) -> None:
        self.votes[key] = vote
        self.lines.append(f"{line} ({_signed(vote)})")

    def skip(self, key: str, why: str, source: str | None = None) -> None:
        reason = self.inputs.unavailable.get(source) if source else None
        self.warnings.append(f"{key} left out of the regime vote: {reason or why}")

    def latest(self, key: str, obs: list[Obs], source: str) -> Obs | None:
        known = _known(obs, self.inputs.as_of)
        if not known:
            self.skip(key, f"no {source} observation on or before {self.inputs.as_of}", source)
            return None
        day, value = known[-1]
        if (self.inputs.as_of - day).days > MAX_STALE_DAYS:
            self.skip(key, f"the last {source} observation ({day}) is over {MAX_STALE_DAYS} days old")
            return None
        return day, value


def _vix(t: _Tally) -> None:
    got = t.latest("vix", t.inputs.vix, "VIXCLS")
    if got is None:
        return
    day, vix = got
    t.fields |= {"vix": _r(vix), "vix_date": day}
    if vix < VIX_CALM:
        t.cast("vix", 1, f"VIX {vix:.2f} on {day} below {VIX_CALM:g}: calm")
    elif vix >= VIX_STRESSED:
        t.cast("vix", -1, f"VIX {vix:.2f} on {day} at or above {VIX_STRESSED:g}: stressed")
    else:
        t.cast("vix", 0, f"VIX {vix:.2f} on {day}: between calm and stressed")


def _credit(t: _Tally) -> None:
    got = t.latest("credit", t.inputs.hy_spread, "BAMLH0A0HYM2")
    if got is None:
        return
    day, level = got
    earlier = [v for d, v in _known(t.inputs.hy_spread, t.inputs.as_of) if d <= day - timedelta(days=30)]
    change = _r(level - earlier[-1]) if earlier else None
    t.fields |= {"hy_spread_pct": _r(level), "hy_date": day, "hy_change_1m_pp": change}
    moved = f", {change:+.2f} pp over the month" if change is not None else " (no value a month earlier)"
    line = f"high-yield spread {level:.2f}% on {day}{moved}"
    if level >= HY_WIDE or (change is not None and change >= HY_WIDENING):
        t.cast("credit", -1, f"{line}: credit stress")
    elif level <= HY_TIGHT and (change is None or change <= HY_STABLE):
        t.cast("credit", 1, f"{line}: easy credit")
    else:
        t.cast("credit", 0, f"{line}: neither tight nor stressed")


def _curve(t: _Tally) -> None:
    got = t.latest("curve", t.inputs.curve, "T10Y2Y")
    if got is None:
        return
    day, curve = got
    t.fields |= {"curve_10y2y_pp": _r(curve), "curve_date": day}
    if curve < 0:
        t.cast("curve", -1, f"10y-2y curve {curve:+.2f} pp on {day}: inverted")
    elif curve >= CURVE_STEEP:
        t.cast("curve", 1, f"10y-2y curve {curve:+.2f} pp on {day}: positively sloped")
    else:
        t.cast("curve", 0, f"10y-2y curve {curve:+.2f} pp on {day}: flat")


def _closes(t: _Tally, symbol: str) -> list[float]:
    return [v for _d, v in _known(t.inputs.sectors.get(symbol, []), t.inputs.as_of)]


def _breadth(t: _Tally) -> None:
    measured = above = 0
    for symbol in SECTOR_SPDRS:
        closes = _closes(t, symbol)
        if len(closes) >= BREADTH_SMA:
            measured += 1
            above += closes[-1] > sum(closes[-BREADTH_SMA:]) / BREADTH_SMA
    if measured < MIN_BREADTH_FUNDS:
        why = (
            f"{measured} of {len(SECTOR_SPDRS)} sector SPDRs have {BREADTH_SMA} sessions by {t.inputs.as_of}"
        )
        t.skip("breadth", why, "sectors")
        return
    pct = _r(above / measured * 100.0)
    basis = f"{measured} Select Sector SPDRs"
    t.fields |= {
        "breadth_pct": pct,
        "breadth_above": above,
        "breadth_members": measured,
        "breadth_basis": basis,
    }
    line = f"sector breadth: {above} of {measured} sector SPDRs above their 50-day average ({pct:.2f}%)"
    vote = _vote(pct, BREADTH_HIGH, BREADTH_LOW)
    t.cast("breadth", vote, line + (": broad" if vote > 0 else ": narrow" if vote < 0 else ": mixed"))


def _month_return(closes: list[float]) -> float | None:
    if len(closes) <= MONTH_SESSIONS or closes[-MONTH_SESSIONS - 1] == 0:
        return None
    return (closes[-1] / closes[-MONTH_SESSIONS - 1] - 1.0) * 100.0


def _side_return(t: _Tally, funds: tuple[str, ...]) -> tuple[float | None, list[str]]:
    got = {s: r for s in funds if (r := _month_return(_closes(t, s))) is not None}
    if len(got) < 2:
        return None, list(got)
    return sum(got.values()) / len(got), list(got)


def _rotation(t: _Tally) -> None:
    cyc, cyc_funds = _side_return(t, CYCLICAL)
    dfn, dfn_funds = _side_return(t, DEFENSIVE)
    if cyc is None or dfn is None:
        t.skip("rotation", f"too few sector SPDRs with a month of history by {t.inputs.as_of}", "sectors")
        return
    spread = _r(cyc - dfn)
    t.fields |= {"rotation_pp": spread, "cyclical_1m_pct": _r(cyc), "defensive_1m_pct": _r(dfn)}
    line = (
        f"rotation: cyclicals ({' '.join(cyc_funds)}) {cyc:+.2f}% over the month vs defensives "
        f"({' '.join(dfn_funds)}) {dfn:+.2f}%, {spread:+.2f} pp"
    )
    vote = _vote(spread, ROTATION_PP, -ROTATION_PP)
    verdict = ": into cyclicals" if vote > 0 else ": into defensives" if vote < 0 else ": no clear rotation"
    t.cast("rotation", vote, line + verdict)


def _trend(t: _Tally) -> None:
    known = _known(t.inputs.spy, t.inputs.as_of)
    if len(known) < TREND_SMA:
        t.skip("trend", f"SPY has {len(known)} sessions by {t.inputs.as_of}, {TREND_SMA} needed", "spy")
        return
    day, close = known[-1]
    sma = sum(v for _d, v in known[-TREND_SMA:]) / TREND_SMA
    gap = _r((close / sma - 1.0) * 100.0)
    t.fields |= {"spy_vs_sma200_pct": gap, "spy_close": _r(close), "spy_sma200": _r(sma), "spy_session": day}
    line = f"SPY {close:.2f} on {day} is {gap:+.2f}% vs its 200-day average {sma:.2f}"
    vote = _vote(gap, TREND_PCT, -TREND_PCT)
    t.cast(
        "trend", vote, line + (": uptrend" if vote > 0 else ": downtrend" if vote < 0 else ": at the average")
    )


def regime(inputs: RegimeInputs) -> Regime:
    """The regime from the components that could vote (rules in the module docstring)."""
    tally = _Tally(inputs)
    for component in (_vix, _credit, _curve, _breadth, _rotation, _trend):
        component(tally)
    score = sum(tally.votes.values())
    label: RegimeLabel
    if len(tally.votes) < MIN_COMPONENTS:
        label = "unknown"
        tally.warnings.append(
            f"regime unknown: {len(tally.votes)} of 6 components could vote, {MIN_COMPONENTS} needed"
        )
    elif score >= RISK_ON:
        label = "risk-on"
    elif score <= RISK_OFF:
        label = "risk-off"
    else:
        label = "transition"
    return Regime.model_validate(
        {
            **tally.fields,
            "label": label,
            "score": float(score),
            "components": tally.lines,
            "votes": tally.votes,
            "warnings": tally.warnings,
        }
    )


def regime_signal(r: Regime) -> Signal:
    """The regime as one scored market signal (rules in the module docstring)."""
    n = len(r.votes)
    if r.label == "unknown":
        text = f"macro regime unknown: {n} of 6 components could vote"
        return Signal(id="market.regime", analyst="market", text=text, score=0.0, weight=0.0)
    score = max(-2.0, min(2.0, r.score / 2.0))
    text = f"macro regime {r.label} (score {r.score:+g} from {n} components): " + ", ".join(_votes(r))
    return Signal(id="market.regime", analyst="market", text=text, score=score, weight=1.0)


def _votes(r: Regime) -> list[str]:
    """Each vote in a few words with its figure (the whole line of each is in ``r.components``): the
    signal is what every debater and manager reads and cites, so it is kept short."""
    figure: dict[str, str | None] = {
        "vix": None if r.vix is None else f"VIX {r.vix:.2f}",
        "credit": None if r.hy_spread_pct is None else f"HY spread {r.hy_spread_pct:.2f}%",
        "curve": None if r.curve_10y2y_pp is None else f"10y-2y {r.curve_10y2y_pp:+.2f} pp",
        "breadth": None if r.breadth_pct is None else f"breadth {r.breadth_pct:.2f}%",
        "rotation": None if r.rotation_pp is None else f"rotation {r.rotation_pp:+.2f} pp",
        "trend": None if r.spy_vs_sma200_pct is None else f"SPY {r.spy_vs_sma200_pct:+.2f}% vs 200-day",
    }
    return [f"{figure.get(k) or k} ({_signed(v)})" for k, v in r.votes.items()]
