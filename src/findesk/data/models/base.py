"""Shared pieces of the data models: where a value came from.

Rule: ``Source.ref`` is enough to find the value again: a path relative to the snapshot directory
(``prices/market/...parquet``) or the URL that was requested.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict


class DataModel(BaseModel):
    """Base for all data models: immutable, strict about unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Source(DataModel):
    vendor: str  # "snapshot", "sec_edgar", "yahoo", "fred", ...
    ref: str  # snapshot-relative path or requested URL
    retrieved_at: datetime | None = None  # when a live vendor fetched it; None for recorded data
    note: str | None = None  # e.g. "derived: high/low rescaled from the adjusted panel"

    def cite(self) -> str:
        return f"{self.vendor}:{self.ref}"
