"""Macro series (FRED)."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class MacroObservation(DataModel):
    date: date  # observation period start (FRED convention)
    value: float | None  # None where the source has a missing observation


class MacroSeries(DataModel):
    series_id: str
    title: str | None = None
    units: str | None = None
    frequency: str | None = None  # "D", "W", "M", "Q"
    # Monthly/quarterly observations are published after their period; only observations whose
    # period + release lag is <= as_of are included. The lag used is stated here.
    release_lag_days: int = 0
    observations: list[MacroObservation] = Field(default_factory=list)
    source: Source
