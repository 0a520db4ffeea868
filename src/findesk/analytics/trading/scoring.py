"""The trading desk's scoring rules: debate turns, the research manager's rating, the trader's plan, the
risk team's proposals and the risk manager's sign-off. Every threshold comes from ``DeskParams``.

Rules (copied into the README's "Trading desk scoring"):
1. Debate turn. The bull's evidence is the signals with score > 0, the bear's those with score < 0,
   ranked by |score × weight| (ties by id). A turn cites the ``CITES_PER_TURN`` strongest signals its
   side has not cited yet. Every turn after the debate's first answers the other side's last turn:
   it rebuts that turn's strongest cited point (largest |score × weight| among the cited signals of the
   other side's sign) with the own side's strongest signal of the same analyst, else the own side's
   strongest signal, cited first. Nothing new to cite → the side restates its strongest signal; no
   evidence at all → no citation and score 0. The turn's score is the weighted mean Σ s·w / Σ w of its
   cited signals' scores. The argument is composed from the cited signals' texts, verbatim: it states no
   figure of its own.
2. Research manager. net = Σ wᵢ·scoreᵢ / Σ wᵢ over the analysts with data (status ≠ no_data, weights
   ``decision.weights``) + ``tilt`` × (the bull's last score + the bear's last score) / 2, clamped to
   [-2, 2] and rounded to 2 decimals; net ≥ buy → BUY, ≥ overweight → OVERWEIGHT, ≤ sell → SELL,
   ≤ underweight → UNDERWEIGHT, else HOLD. Fewer than ``min_analysts`` analysts with data → HOLD.
3. Trader. BUY/OVERWEIGHT → long; UNDERWEIGHT/SELL → short when ``allow_short``, else flat with size 0
   (reduce/exit); HOLD → flat, size 0. Size = ``size_pct[rating]``; entry = the last close; stop =
   entry ∓ ``stop_atr`` × ATR(14), target = entry ± ``target_atr`` × ATR(14); size ≤ the risk cap
   ``risk_per_trade_pct`` × entry / |entry − stop| (the loss at the stop is at most that share of
   capital) and ≤ ``max_position_pct``; risk/reward = |target − entry| / |entry − stop|. No ATR → no
   stop or target and the size halved. No close → flat, size 0.
4. Risk team. Aggressive proposes ``aggressive_x`` × the trader's size, conservative
   ``conservative_x`` × (halved again in a risk-off regime), neutral the trader's size; each capped by
   ``max_position_pct``. A flat plan → 0 for everyone.
5. Risk manager. Size = Σ wᵢ·proposalᵢ / Σ wᵢ over each side's last proposal (``risk.weights``), capped
   by the risk cap and ``max_position_pct``. A long rating (BUY/OVERWEIGHT) is downgraded one notch when
   the regime is risk-off and ATR% ≥ ``high_vol_atr_pct``, and its size capped at the new rating's
   ``size_pct``. HOLD or flat → size 0.
Rounding: prices, percents, scores and ratios to 2 decimals (sizes and caps rounded down, so a cap is
never exceeded), so the same inputs give the same output byte for byte. Pure: no I/O.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from findesk.analytics.trading.params import DecisionParams, DeskParams, PlanParams, weighted_score

Rating = Literal["BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"]
Direction = Literal["long", "short", "flat"]
Side = Literal["bull", "bear"]

RATINGS: tuple[Rating, ...] = ("SELL", "UNDERWEIGHT", "HOLD", "OVERWEIGHT", "BUY")  # bearish → bullish
CITES_PER_TURN = 2  # fresh signals a debate turn adds (the rebuttal's counter-evidence comes on top)
_OTHER: dict[Side, Side] = {"bull": "bear", "bear": "bull"}


class SignalLike(Protocol):
    """What scoring reads of an analyst's signal (``models.Signal`` fits)."""

    @property
    def id(self) -> str: ...
    @property
    def analyst(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def score(self) -> float: ...
    @property
    def weight(self) -> float: ...


class AnalystLike(Protocol):
    """What the manager reads of an analyst (``inputs.AnalystDigest`` fits)."""

    @property
    def status(self) -> str: ...
    @property
    def score(self) -> float: ...


def r2(x: float) -> float:
    """Two decimals, with -0.0 written as 0.0 (so JSON output is byte-stable)."""
    return round(x, 2) + 0.0


def floor2(x: float) -> float:
    """Two decimals rounded down: a capped size never exceeds its cap."""
    return math.floor(round(x * 100, 6)) / 100 + 0.0


def strength(s: SignalLike) -> float:
    return abs(s.score * s.weight)


def _ranked(signals: Sequence[SignalLike]) -> list[SignalLike]:
    return sorted(signals, key=lambda s: (-strength(s), s.id))


def side_signals(side: Side, signals: Sequence[SignalLike]) -> list[SignalLike]:
    """A side's evidence, strongest first: bullish signals (score > 0) for the bull, bearish for the bear."""
    return _ranked([s for s in signals if (s.score > 0 if side == "bull" else s.score < 0)])


# --- 1. debate turns --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TurnPlan:
    cites: tuple[str, ...]
    rebuts: str | None
    score: float
    argument: str


def cited_score(cites: Sequence[str], signals: Sequence[SignalLike]) -> float:
    """Σ s·w / Σ w of the cited signals (unknown ids ignored), 2 decimals; 0 without any."""
    by_id = {s.id: s for s in signals}
    return r2(weighted_score([(by_id[c].score, by_id[c].weight) for c in cites if c in by_id]))


def strongest_point(side: Side, cites: Sequence[str], signals: Sequence[SignalLike]) -> SignalLike | None:
    """The strongest point of a ``side`` turn that cited ``cites``: its cited signal of the side's sign with
    the largest |score × weight| (any cited signal when none has the side's sign)."""
    by_id = {s.id: s for s in signals}
    cited = [by_id[c] for c in dict.fromkeys(cites) if c in by_id]
    own = side_signals(side, cited)
    ranked = own or _ranked(cited)
    return ranked[0] if ranked else None


def _quote(s: SignalLike) -> str:
    return f"[{s.id}] {s.text.strip().rstrip('.;')}"


def debate_turn(
    side: Side,
    signals: Sequence[SignalLike],
    own_cited: Collection[str],
    other_last: Sequence[str] | None,
    *,
    per_turn: int = CITES_PER_TURN,
) -> TurnPlan:
    """One debater's turn by rule 1. ``own_cited``: the ids this side cited in its earlier turns;
    ``other_last``: the ids the other side's last turn cited (None: this is the debate's first turn)."""
    mine = side_signals(side, signals)
    other = _OTHER[side]
    point = strongest_point(other, other_last, signals) if other_last is not None else None
    counter: SignalLike | None = None
    if point is not None and mine:
        same = [s for s in mine if s.analyst == point.analyst]
        counter = (same or mine)[0]
    fresh = [s for s in mine if s.id not in own_cited and (counter is None or s.id != counter.id)][:per_turn]
    parts: list[str] = []
    if point is not None:
        if counter is not None:
            parts.append(f"Answering the {other}'s strongest point, {_quote(point)}: {_quote(counter)}.")
        else:
            parts.append(f"The {other}'s strongest point, {_quote(point)}, finds no {side}ish answer.")
    chosen = ([counter] if counter is not None else []) + fresh
    if fresh:
        lead = "Further" if counter is not None else f"The {side} case"
        parts.append(f"{lead}: " + "; ".join(_quote(s) for s in fresh) + ".")
    elif mine and counter is None:
        chosen = [mine[0]]
        parts.append(f"No further {side}ish evidence; the case rests on {_quote(mine[0])}.")
    elif not mine:
        parts.append(f"No analyst signal supports the {side} case.")
    cites = tuple(s.id for s in chosen)
    return TurnPlan(
        cites=cites,
        rebuts=point.id if point is not None else None,
        score=cited_score(cites, signals),
        argument=" ".join(parts),
    )


# --- 2. research manager ----------------------------------------------------------------------------


@dataclass(frozen=True)
class ManagerCall:
    rating: Rating
    net: float
    with_data: tuple[str, ...]  # analysts counted (status ≠ no_data)
    thin: bool  # fewer than min_analysts with data: held at HOLD


def rating_for(net: float, p: DecisionParams) -> Rating:
    """The thresholds, inclusive at their edges."""
    if net >= p.buy:
        return "BUY"
    if net >= p.overweight:
        return "OVERWEIGHT"
    if net <= p.sell:
        return "SELL"
    if net <= p.underweight:
        return "UNDERWEIGHT"
    return "HOLD"


def manager_call(
    analysts: Mapping[str, AnalystLike], bull_last: float | None, bear_last: float | None, p: DecisionParams
) -> ManagerCall:
    """Rule 2: the net score and the rating. A missing debate side adds nothing to the tilt."""
    with_data = tuple(sorted(n for n, a in analysts.items() if a.status != "no_data"))
    base = weighted_score([(analysts[n].score, p.weights.get(n, 0.0)) for n in with_data])
    tilt = p.tilt * ((bull_last or 0.0) + (bear_last or 0.0)) / 2
    net = r2(max(-2.0, min(2.0, base + tilt)))
    thin = len(with_data) < p.min_analysts
    return ManagerCall(rating="HOLD" if thin else rating_for(net, p), net=net, with_data=with_data, thin=thin)


def notches(a: str, b: str) -> int:
    """How many rating notches apart two ratings are (a rating outside the vocabulary: far apart)."""
    if a not in RATINGS or b not in RATINGS:
        return len(RATINGS)
    return abs(RATINGS.index(a) - RATINGS.index(b))


def downgrade(rating: Rating) -> Rating:
    """One notch less bullish (SELL stays SELL)."""
    return RATINGS[max(0, RATINGS.index(rating) - 1)]


# --- 3. trader --------------------------------------------------------------------------------------


def direction_for(rating: str, allow_short: bool) -> Direction:
    if rating in ("BUY", "OVERWEIGHT"):
        return "long"
    if rating in ("UNDERWEIGHT", "SELL"):
        return "short" if allow_short else "flat"
    return "flat"


def risk_cap(entry: float | None, stop: float | None, p: PlanParams) -> float:
    """The largest size (% of capital) whose loss at the stop is at most ``risk_per_trade_pct`` of capital,
    and at most ``max_position_pct``; without a stop only the latter applies."""
    cap = p.max_position_pct
    if entry is not None and stop is not None and entry != stop:
        cap = min(cap, p.risk_per_trade_pct * entry / abs(entry - stop))
    return floor2(cap)


@dataclass(frozen=True)
class PlanFigures:
    direction: Direction
    entry: float | None
    size: float  # % of capital
    wanted: float  # the rating's size before the caps (halved without ATR)
    cap: float  # the risk cap that applies
    stop: float | None
    target: float | None
    stop_atr: float | None
    target_atr: float | None
    risk_reward: float | None
    horizon_days: int
    no_atr: bool  # a position without ATR: no levels, size halved
    no_price: bool  # no close at the run's date: no plan


def plan_figures(rating: str, close: float | None, atr: float | None, p: PlanParams) -> PlanFigures:
    """Rule 3."""
    direction = direction_for(rating, p.allow_short)
    entry = r2(close) if close is not None and close > 0 else None
    if entry is None:
        direction = "flat"
    usable_atr = atr is not None and atr > 0 and entry is not None and p.stop_atr * atr < entry
    no_atr = direction != "flat" and not usable_atr
    stop = target = rr = None
    if direction != "flat" and usable_atr and entry is not None and atr is not None:
        sign = 1.0 if direction == "long" else -1.0
        stop = r2(entry - sign * p.stop_atr * atr)
        target = r2(max(0.01, entry + sign * p.target_atr * atr))
        rr = r2(abs(target - entry) / abs(entry - stop)) if entry != stop else None
    wanted = 0.0 if direction == "flat" else p.size_pct.get(rating, 0.0) * (0.5 if no_atr else 1.0)
    cap = risk_cap(entry, stop, p)
    size = floor2(min(wanted, cap)) if direction != "flat" else 0.0
    return PlanFigures(
        direction=direction,
        entry=entry,
        size=size,
        wanted=r2(wanted),
        cap=cap,
        stop=stop,
        target=target,
        stop_atr=p.stop_atr if stop is not None else None,
        target_atr=p.target_atr if target is not None else None,
        risk_reward=rr,
        horizon_days=p.horizon_days,
        no_atr=no_atr,
        no_price=entry is None,
    )


# --- 4. risk team -----------------------------------------------------------------------------------


def risk_proposal(side: str, plan_size: float, regime: str, p: DeskParams) -> float:
    """Rule 4: the size (% of capital) a risk analyst argues for."""
    if plan_size <= 0:
        return 0.0
    if side == "aggressive":
        x = p.risk.aggressive_x
    elif side == "conservative":
        x = p.risk.conservative_x * (0.5 if regime == "risk-off" else 1.0)
    else:
        x = 1.0
    return floor2(min(plan_size * x, p.plan.max_position_pct))


# --- 5. risk manager --------------------------------------------------------------------------------


def high_vol_risk_off(regime: str, atr_pct: float | None, p: DeskParams) -> bool:
    return regime == "risk-off" and atr_pct is not None and atr_pct >= p.risk.high_vol_atr_pct


@dataclass(frozen=True)
class FinalFigures:
    rating: Rating
    direction: Direction
    size: float
    mean: float | None  # the weighted mean of the proposals before the caps (None: no proposal)
    cap: float
    downgraded: bool


def final_figures(
    rating: Rating,
    plan_direction: Direction,
    plan_size: float,
    proposals: Mapping[str, float],
    cap: float,
    regime: str,
    atr_pct: float | None,
    p: DeskParams,
) -> FinalFigures:
    """Rule 5. ``proposals``: each risk side's last proposed size; ``cap``: the plan's risk cap."""
    downgraded = rating in ("BUY", "OVERWEIGHT") and high_vol_risk_off(regime, atr_pct, p)
    final = downgrade(rating) if downgraded else rating
    direction = direction_for(final, p.plan.allow_short)
    if plan_direction != direction:
        direction = "flat"  # the risk manager reduces or exits; it never opens what the trader did not plan
    pairs = [(v, p.risk.weights.get(k, 0.0)) for k, v in sorted(proposals.items())]
    total = sum(w for _v, w in pairs)
    mean = r2(sum(v * w for v, w in pairs) / total) if total > 0 else None
    size = mean if mean is not None else plan_size
    limit = min(cap, p.plan.max_position_pct)
    if downgraded:
        limit = min(limit, p.plan.size_pct.get(final, 0.0))
    size = 0.0 if direction == "flat" or final == "HOLD" else floor2(min(size, limit))
    return FinalFigures(
        rating=final, direction=direction, size=size, mean=mean, cap=floor2(limit), downgraded=downgraded
    )
