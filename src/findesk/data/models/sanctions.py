"""Sanctions screening (OFAC SDN list and sanctioned digital-currency addresses)."""

from __future__ import annotations

from datetime import date

from pydantic import Field

from findesk.data.models.base import DataModel, Source


class SanctionsList(DataModel):
    name: str  # "OFAC SDN", "ETH sanctioned addresses (ultrasoundmoney)"
    list_date: date  # the date the list reflects
    stale_days: int  # days between list_date and the as-of date
    stale: bool  # stale_days beyond the configured threshold
    source: Source


class SanctionsMatch(DataModel):
    query: str
    matched_value: str  # the address or name on the list that matched
    list_name: str
    entity: str | None = None  # SDN entry name, e.g. "TORNADO CASH"
    entry_id: str | None = None  # SDN uid
    program: str | None = None  # e.g. "CYBER2"
    asset: str | None = None  # e.g. "ETH"
    list_date: date
    source: Source


class SanctionsScreen(DataModel):
    query: str
    matches: list[SanctionsMatch] = Field(default_factory=list)
    lists_checked: list[SanctionsList] = Field(default_factory=list)

    @property
    def hit(self) -> bool:
        return bool(self.matches)
