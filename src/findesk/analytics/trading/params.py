"""The trading desk's documented thresholds: every stance, rating, size and level the deterministic desk
produces follows from these numbers (the README's "Trading desk scoring" lists them).

Rules: plain data, no I/O; a run's parameters are part of its audit (the report carries them), so the
same data and the same parameters give the same decision byte for byte.
"""

from __future__ import annotations

from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator


class _Params(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class StanceParams(_Params):
    # an analyst's (or a debater's) score at or above +band is bullish, at or below -band bearish
    band: float = Field(0.5, gt=0.0, le=2.0)


class DecisionParams(_Params):
    """The research manager: net = Σ weight·analyst score / Σ weight (analysts with data only), plus a
    debate tilt of ``tilt`` × (the bull's last score + the bear's last score) / 2, clamped to [-2, 2]."""

    weights: dict[str, float] = Field(
        default_factory=lambda: {"market": 1.0, "fundamentals": 1.0, "news": 0.75, "social": 0.25}
    )
    tilt: float = Field(0.25, ge=0.0, le=1.0)
    buy: float = Field(0.9, le=2.0)  # net ≥ buy → BUY
    overweight: float = 0.3  # net ≥ overweight → OVERWEIGHT
    underweight: float = -0.3  # net ≤ underweight → UNDERWEIGHT
    sell: float = Field(-0.9, ge=-2.0)  # net ≤ sell → SELL; otherwise HOLD
    # fewer analysts with data → HOLD (no conviction on thin evidence)
    min_analysts: int = Field(2, ge=0, le=4)

    @model_validator(mode="after")
    def _ordered(self) -> Self:
        if not self.sell < self.underweight < self.overweight < self.buy:
            raise ValueError("the rating thresholds must rise: sell < underweight < overweight < buy")
        if set(self.weights) != {"market", "fundamentals", "news", "social"} or any(
            w < 0 for w in self.weights.values()
        ):
            raise ValueError("weights name the analysts market, fundamentals, news, social, each ≥ 0")
        return self


class PlanParams(_Params):
    """The trader: size by rating, stop and target in ATRs from the last close, capped so that the loss
    at the stop is at most ``risk_per_trade_pct`` of capital."""

    size_pct: dict[str, float] = Field(
        default_factory=lambda: {"BUY": 5.0, "OVERWEIGHT": 2.5, "HOLD": 0.0, "UNDERWEIGHT": 2.5, "SELL": 5.0}
    )
    allow_short: bool = False  # long-only by default: UNDERWEIGHT/SELL mean reduce/exit, size 0
    stop_atr: float = Field(2.0, gt=0.0, le=20.0)
    target_atr: float = Field(3.0, gt=0.0, le=50.0)
    risk_per_trade_pct: float = Field(1.0, gt=0.0, le=100.0)
    max_position_pct: float = Field(10.0, ge=0.0, le=100.0)
    horizon_days: int = Field(20, ge=1, le=260)  # sessions

    @model_validator(mode="after")
    def _sizes(self) -> Self:
        ratings = {"BUY", "OVERWEIGHT", "HOLD", "UNDERWEIGHT", "SELL"}
        if set(self.size_pct) - ratings or any(not 0.0 <= v <= 100.0 for v in self.size_pct.values()):
            raise ValueError("size_pct maps ratings (BUY … SELL) to a size between 0 and 100 % of capital")
        return self


class RiskParams(_Params):
    """The risk team and manager. Aggressive argues ``aggressive_x`` × the trader's size, conservative
    ``conservative_x`` (halved again in a risk-off regime), neutral the trader's size; the manager takes
    the weighted mean, capped by the plan's risk cap and ``PlanParams.max_position_pct``, and downgrades
    a long rating one notch when the regime is risk-off and ATR% ≥ ``high_vol_atr_pct``."""

    aggressive_x: float = Field(1.5, ge=0.0, le=10.0)
    conservative_x: float = Field(0.5, ge=0.0, le=10.0)
    weights: dict[str, float] = Field(
        default_factory=lambda: {"aggressive": 0.25, "conservative": 0.35, "neutral": 0.4}
    )
    high_vol_atr_pct: float = Field(4.0, gt=0.0)

    @model_validator(mode="after")
    def _weights(self) -> Self:
        if (
            set(self.weights) != {"aggressive", "conservative", "neutral"}
            or any(w < 0 for w in self.weights.values())
            or sum(self.weights.values()) <= 0
        ):
            raise ValueError("weights name aggressive, conservative and neutral, each ≥ 0, not all 0")
        return self


class DeskParams(_Params):
    stance: StanceParams = Field(default_factory=StanceParams)
    decision: DecisionParams = Field(default_factory=DecisionParams)
    plan: PlanParams = Field(default_factory=PlanParams)
    risk: RiskParams = Field(default_factory=RiskParams)


def stance_of(score: float, band: float) -> str:
    """bullish / bearish / neutral for a score and the stance band."""
    if score >= band:
        return "bullish"
    if score <= -band:
        return "bearish"
    return "neutral"


def weighted_score(pairs: list[tuple[float, float]]) -> float:
    """Σ w·s / Σ w over (score, weight) pairs, clamped to [-2, 2]; 0 with no weight."""
    total = sum(w for _s, w in pairs)
    if total <= 0:
        return 0.0
    return max(-2.0, min(2.0, sum(s * w for s, w in pairs) / total))
