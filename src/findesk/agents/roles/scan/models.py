"""The typed outputs of the market scanner's roles.

Rules:
- Each phase's report carries the board its tools built (code's figures) and prose (``summary``); a
  model writes only the prose and the synthesis's words, never a board's figure.
- ``SynthesisReport.stocks_to_investigate`` holds 8 to 10 distinct candidates, each named in phase 1-2
  boards (a ticker no tool returned is refused). Candidates are ideas to research, never advice.
- A phase whose source was absent says ``no_data`` with the reason; the synthesis still runs on the rest.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

from findesk.analytics.scan.models import Candidate as Candidate
from findesk.analytics.scan.models import Conviction as Conviction
from findesk.analytics.scan.models import GeoBoard as GeoBoard
from findesk.analytics.scan.models import IndustryBoard as IndustryBoard
from findesk.analytics.scan.models import MoversBoard as MoversBoard
from findesk.analytics.scan.models import SectorBoard as SectorBoard
from findesk.analytics.scan.models import Status as Status
from findesk.analytics.scan.models import Theme as Theme

Phase = Literal["geopolitical", "movers", "sectors", "industries", "synthesis"]
MIN_CANDIDATES = 8
MAX_CANDIDATES = 10


class _Report(BaseModel):
    model_config = ConfigDict(extra="forbid")

    status: Status
    summary: str  # prose, only figures the board gave
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class GeopoliticalReport(_Report):
    phase: Literal["geopolitical"] = "geopolitical"
    board: GeoBoard | None = None


class MoversReport(_Report):
    phase: Literal["movers"] = "movers"
    board: MoversBoard | None = None


class SectorReport(_Report):
    phase: Literal["sectors"] = "sectors"
    board: SectorBoard | None = None


class IndustryReport(_Report):
    phase: Literal["industries"] = "industries"
    board: IndustryBoard | None = None


class SynthesisReport(BaseModel):
    model_config = ConfigDict(extra="forbid")

    phase: Literal["synthesis"] = "synthesis"
    executive_summary: str
    macro_context: str
    key_themes: list[Theme] = Field(default_factory=list, max_length=6)
    stocks_to_investigate: list[Candidate] = Field(min_length=MIN_CANDIDATES, max_length=MAX_CANDIDATES)
    sources: list[str] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)

    @field_validator("stocks_to_investigate")
    @classmethod
    def _distinct(cls, value: list[Candidate]) -> list[Candidate]:
        seen = [c.ticker.upper() for c in value]
        dupes = sorted({t for t in seen if seen.count(t) > 1})
        if dupes:
            raise ValueError(f"stocks_to_investigate names {', '.join(dupes)} more than once")
        return value
