"""The trading desk's unit of evidence: a scored ``Signal``, shared by the four analysts.

Rules:
- Every analyst observation is a ``Signal``: a stable id (``market.rsi``), one line stating its own
  figures, a score in [-2, +2] (negative bearish) and a weight. Debaters cite signals by id, so every
  claim in a debate points at an analyst's line, and the line at a tool result.
- Defined here, in analytics, so the pure scoring functions (``technical_signals``, ``regime_signal``,
  …) and the tools can build it without importing the agents layer; ``agents.roles.trading.models``
  re-exports it, so ``models.Signal`` is this very class.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Analyst = Literal["market", "fundamentals", "news", "social"]


class Signal(BaseModel):
    model_config = ConfigDict(extra="forbid")

    id: str  # "<analyst>.<key>", stable across runs: "market.rsi", "fundamentals.revenue_growth"
    analyst: Analyst
    text: str  # one line with its own figures: "RSI(14) 71.2: overbought"
    score: float = Field(ge=-2.0, le=2.0)  # -2 strongly bearish … +2 strongly bullish
    weight: float = Field(1.0, ge=0.0, le=3.0)
