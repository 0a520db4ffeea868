"""The strategy file (``strategy.yaml``): every parameter of a weekly ETF run in one place.

Rules:
- One YAML mapping with the blocks ``prep``, ``candidates``, ``signals``, ``protocol``, ``news``,
  ``review`` and ``output``; every key has a default, so an empty file (or none) is a valid strategy.
- Unknown keys are refused with the key's path, never ignored (a typo in a threshold must not
  silently run the default); a file that is not YAML, not a mapping, too big or unreadable is a
  one-line ``invalid_input``.
- ``strategy_hash`` identifies the parameters, so week-over-week history compares like with like.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from findesk.analytics.etf.params import CandidateRules, PrepParams, ProtocolParams, SignalParams
from findesk.core.result import Err, ErrorCode, Ok, Result, validation_reason

MAX_FILE_BYTES = 256_000


class NewsParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    high_effort_alpha_pct: float = Field(
        1.5, ge=0, description="A sector whose |average alpha residual| reaches this gets the deeper search."
    )
    normal_tickers: int = Field(3, ge=1, le=8, description="Stocks whose news is read for a sector.")
    high_tickers: int = Field(6, ge=1, le=8, description="… for a high-effort sector.")
    normal_limit: int = Field(8, ge=1, le=50, description="Articles kept per sector.")
    high_limit: int = Field(20, ge=1, le=50, description="… for a high-effort sector.")
    max_sectors: int = Field(12, ge=1, le=40, description="Sectors searched (largest |alpha| first).")


class ReviewParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    quality_threshold: float = Field(
        6.0, ge=0, le=10, description="Below this score the MD sends the weakest sectors back once."
    )
    max_send_back: int = Field(2, ge=1, le=10, description="Sectors sent back at most.")


class OutputParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    folder: str = Field(
        "etf-weekly", description="Where run folders are written (relative: to the working directory)."
    )


class StrategyConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field("weekly mean reversion", max_length=120)
    prep: PrepParams = Field(default_factory=PrepParams)
    candidates: CandidateRules = Field(default_factory=CandidateRules)
    signals: SignalParams = Field(default_factory=SignalParams)
    protocol: ProtocolParams = Field(default_factory=ProtocolParams)
    news: NewsParams = Field(default_factory=NewsParams)
    review: ReviewParams = Field(default_factory=ReviewParams)
    output: OutputParams = Field(default_factory=OutputParams)

    def strategy_hash(self) -> str:
        """The parameters' identity, without the output folder (where a run is written is not a parameter)."""
        body = self.model_dump(mode="json", exclude={"output"})
        return hashlib.sha256(json.dumps(body, sort_keys=True).encode()).hexdigest()[:12]


def parse_strategy(raw: object, where: str = "strategy") -> Result[StrategyConfig]:
    if raw is None:
        return Ok(StrategyConfig())
    if not isinstance(raw, dict):
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{where}: the strategy must be a mapping of blocks (prep, candidates, …)",
        )
    try:
        return Ok(StrategyConfig.model_validate(raw))
    except ValidationError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{where}: {validation_reason(exc, limit=2)}")


def load_strategy(path: str | Path) -> Result[StrategyConfig]:
    """The strategy in the YAML file at ``path``."""
    import yaml

    file = Path(path).expanduser()
    try:
        if not file.is_file():
            return Err(ErrorCode.INVALID_INPUT, f"strategy file {file} does not exist or is not a file")
        if file.stat().st_size > MAX_FILE_BYTES:
            return Err(ErrorCode.INVALID_INPUT, f"strategy file {file} is over {MAX_FILE_BYTES:,} bytes")
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return Err(ErrorCode.INVALID_INPUT, f"strategy file {file} cannot be read: {exc}")
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"strategy file {file} is not valid YAML: {exc}".split("\n")[0])
    return parse_strategy({} if raw is None else raw, where=str(file))
