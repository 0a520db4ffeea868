"""Quarterly fundamentals (income statement and balance sheet lines) and index peers.

Rules:
- A quarter carries the date it is treated as known (``visible_from``) and how that date was set
  (``visibility``): a source without report dates gets a stated, conservative lag after quarter end,
  and a quarter is returned only when ``visible_from <= as_of``.
- Every figure is the source's own number (USD, shares, USD/share); a line the source leaves empty
  is ``None``, never zero.
"""

from __future__ import annotations

from datetime import date

from findesk.data.models.base import DataModel, Source


class FundamentalQuarter(DataModel):
    quarter_end: date  # the source's period label (yfinance: the calendar month-end of the fiscal quarter)
    visible_from: date  # first day the quarter counts as reported
    total_revenue: float | None = None
    gross_profit: float | None = None
    operating_income: float | None = None
    net_income: float | None = None
    ebitda: float | None = None
    diluted_eps: float | None = None
    diluted_shares: float | None = None  # diluted average shares of the quarter
    shares_outstanding: float | None = None  # ordinary shares at quarter end
    total_debt: float | None = None
    cash: float | None = None  # cash, cash equivalents and short-term investments
    stockholders_equity: float | None = None  # at quarter end (for ROE and debt/equity)


class QuarterlyFundamentals(DataModel):
    symbol: str
    quarters: list[FundamentalQuarter]  # visible at as_of, newest first
    hidden_quarters: int = 0  # quarters in the source that were not yet reported at as_of
    visibility: str  # how ``visible_from`` was set, in one sentence
    source: Source


class Peer(DataModel):
    symbol: str
    name: str
    sub_industry: str


class IndexPeers(DataModel):
    symbol: str
    name: str
    sector: str
    sub_industry: str
    list_date: date  # the constituents list used (latest dated on or before as_of)
    peers: list[Peer]  # same GICS sub-industry, the company itself excluded
    source: Source
