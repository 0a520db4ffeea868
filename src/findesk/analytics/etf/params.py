"""The strategy parameters the analytics read (the ``prep`` and ``candidates`` blocks of
``strategy.yaml``); every threshold has a default a weekly mean-reversion screen would use."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PrepParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    beta_lookback: int = Field(
        120, ge=20, le=1000, description="Sessions of daily returns in the beta regression."
    )
    min_history: int = Field(
        60, ge=20, le=1000, description="Fewer sessions up to the week's end: not ranked."
    )
    sigma_lookback: int = Field(60, ge=10, le=1000, description="Sessions in the daily-return sigma.")
    rsi_period: int = Field(14, ge=2, le=100)
    bollinger_period: int = Field(20, ge=5, le=200)
    bollinger_k: float = Field(2.0, gt=0, le=5)
    atr_period: int = Field(14, ge=2, le=100)
    volume_average_days: int = Field(20, ge=5, le=200)
    # a daily move beyond this (percent) is a suspect tick; with a split on the day or a reversal of
    # it the next session it is an artefact and the fund is not ranked that week
    bad_tick_move_pct: float = Field(50.0, gt=5, le=1000)
    bad_tick_window: int = Field(
        30, ge=5, le=400, description="Sessions before the week's end checked for bad ticks."
    )


class CandidateRules(BaseModel):
    model_config = ConfigDict(extra="forbid")

    max_weekly_return_pct: float = Field(
        -3.0, description="Candidates fell at least this much in the week (%)."
    )
    max_rsi: float | None = Field(
        None, ge=0, le=100, description="Optionally also require RSI(14) at or below this."
    )
    min_avg_dollar_volume: float = Field(
        5_000_000, ge=0, description="20-day average dollar volume floor (USD)."
    )
    min_price: float = Field(5.0, ge=0)
    include_leveraged: bool = False
    include_inverse: bool = False
    exclude_sectors: list[str] = Field(default_factory=list)
    only_sectors: list[str] = Field(default_factory=list, description="When set, only these sectors.")
    rank_by: str = Field("alpha_residual", pattern="^(alpha_residual|pct_return|rsi_14|move_sigmas)$")
    max_candidates: int = Field(30, ge=1, le=200)


class SignalParams(BaseModel):
    """The quant signal's thresholds (``analytics.etf.quant.signal``)."""

    model_config = ConfigDict(extra="forbid")

    oversold_rsi: float = Field(30.0, ge=0, le=100)
    stretched_rsi: float = Field(40.0, ge=0, le=100)
    stretched_below_sma50_pct: float = Field(-5.0, le=0)
    breakdown_sigmas: float = Field(-2.0, le=0)


class ProtocolParams(BaseModel):
    """The epistemic-honesty protocol's thresholds (``analytics.etf.protocol``)."""

    model_config = ConfigDict(extra="forbid")

    beta_alpha_pct: float = Field(
        0.5, ge=0, description="No news and |alpha| below this: a market-wide (beta) move."
    )
    unexplained_alpha_pct: float = Field(
        1.5, ge=0, description="No news and |alpha| above this: unexplained alpha, RED."
    )
    data_constrained_share: float = Field(
        0.5,
        ge=0,
        le=1,
        description="This share of sectors or more with weak or no evidence: the MD's data-constrained note.",
    )
    strong_min_items: int = Field(3, ge=1, description="Articles in the week for strong evidence.")
    strong_min_publishers: int = Field(2, ge=1, description="Distinct publishers for strong evidence.")
