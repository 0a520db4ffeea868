"""Earnings-call transcripts."""

from __future__ import annotations

from datetime import datetime

from findesk.data.models.base import DataModel, Source


class Transcript(DataModel):
    ticker: str
    company_name: str | None = None
    fiscal_year: int  # the company's fiscal year and quarter, as the call names them
    fiscal_quarter: int
    conference_at: datetime  # timezone-aware; the point-in-time key
    text: str
    source: Source
