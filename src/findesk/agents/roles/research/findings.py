"""What every research specialist returns: findings with citations, structured data, charts and
warnings (``SpecialistReport``), and the subjects the coordinator routed to it (``SpecialistInput``).

Rules:
- A finding's figures come from its tool results (rule 1 of the architecture); ``quantity`` names the
  measured thing in a canonical form (``"NVDA revenue 2025-07-27 quarter"``) so the coordinator can
  find two specialists reporting the same quantity and compare their values.
- Every finding cites at least one tool result: the agent, the tool and the source as the tool's
  result cited it (a URL, a filing, a snapshot file). A finding without a citation is a warning, not a
  fact.
- Data that is missing is said ("data unavailable: …") in ``warnings``; nothing is estimated.
"""

from __future__ import annotations

from datetime import date
from typing import Any, Literal

from pydantic import BaseModel, Field

SpecialistName = Literal["equity", "macro", "crypto", "compliance"]
SPECIALISTS: tuple[SpecialistName, ...] = ("equity", "macro", "crypto", "compliance")


class Citation(BaseModel):
    agent: str  # "equity"
    tool: str  # "get_price_history"
    source: str  # the source as the tool's result cites it (URL, filing, snapshot file)

    def key(self) -> tuple[str, str, str]:
        return (self.agent, self.tool, self.source)


class Finding(BaseModel):
    text: str  # one or two sentences; every number in it comes from a tool result
    citations: list[Citation] = Field(default_factory=list)
    quantity: str | None = None  # canonical name of the measured quantity, for conflict checks
    value: float | None = None
    unit: str | None = None  # "USD", "%", "ratio", "score"
    observed: date | None = None  # the date the figure describes (newest data wins a conflict)


class Chart(BaseModel):
    title: str
    png_base64: str  # a PNG, base64
    tools: list[str] = Field(default_factory=list)  # the tool results it was drawn from


class Subjects(BaseModel):
    """What the coordinator found in the question (by rules, or a model's proposal checked by them)."""

    tickers: list[str] = Field(default_factory=list)  # US listings, upper case
    # Which of the tickers are indexes or ETFs (priced by the macro desk, not analysed as companies);
    # None when not told (a hand-made or model-proposed input): every desk then takes every ticker.
    market: list[str] | None = None
    compared: bool = False  # companies compared with market assets or series: the macro desk prices them too
    series: list[str] = Field(default_factory=list)  # FRED series ids
    tokens: list[str] = Field(default_factory=list)  # CoinGecko ids ("bitcoin")
    addresses: list[str] = Field(default_factory=list)  # 0x… wallet or contract addresses
    protocols: list[str] = Field(default_factory=list)  # DeFi protocols (DefiLlama slugs)
    names: list[str] = Field(default_factory=list)  # persons/entities to screen against sanctions lists
    themes: list[str] = Field(default_factory=list)  # e.g. "data-center revenue", "correlation"
    window_days: int | None = None  # "30-day correlation", "last 90 days"
    quarters: int | None = None  # "last three quarters"
    threshold: str | None = None  # "DGS10>4.5": a condition on a macro series, as SERIES<op>VALUE


class SpecialistInput(BaseModel):
    question: str = Field(min_length=1, max_length=2000)
    as_of: date
    subjects: Subjects = Field(default_factory=Subjects)
    template: str | None = None  # a procedural template from memory: the desk runs its variant


class SpecialistReport(BaseModel):
    agent: SpecialistName
    findings: list[Finding] = Field(default_factory=list)
    data: dict[str, Any] = Field(default_factory=dict)  # structured figures (tables, scores, paths)
    charts: list[Chart] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
