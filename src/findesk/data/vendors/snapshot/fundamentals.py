"""Snapshot fundamentals: the yfinance quarterly statements file and the S&P 500 constituents lists.

Rules:
- The quarterly file has no report dates, so a quarter counts as reported ``REPORT_LAG_DAYS`` after
  its period label (the SEC's 10-K deadline for large accelerated filers; 10-Qs are due in 40 days):
  conservative, a quarter is never shown before it could have been filed. Its month-end labels
  (NVDA's quarter ended 2025-07-27 reads 2025-07-31) only push that date later.
- Peers and the constituents list come from the latest constituents list dated on or before
  ``as_of``; none dated then is ``no_data`` naming the earliest list, never a later list. Each list
  is parsed once per process. The lists write share classes with a dot (BRK.B); their symbols
  are read as findesk writes them (``normalize_ticker``: BRK-B).
- Empty cells are ``None``; the file is read once per process (``Lazy``).
"""

from __future__ import annotations

import csv
import gzip
import io
import math
import threading
from datetime import date, timedelta

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.sec import normalize_ticker
from findesk.data.models.fundamentals import (
    FundamentalQuarter,
    IndexPeers,
    Peer,
    QuarterlyFundamentals,
)
from findesk.data.models.market_scan import Constituent, IndexConstituents
from findesk.data.vendors.snapshot.files import Lazy, SnapshotFiles

QUARTERLY = "fundamentals/yfinance_quarterly_sp500_2024Q3-2025Q3.csv.gz"
CONSTITUENTS = "reference/sp500_constituents/constituents_*.csv"
REPORT_LAG_DAYS = 60
VISIBILITY = (
    f"the source has no report dates: a quarter counts as reported {REPORT_LAG_DAYS} days after its "
    "quarter-end label (conservative: the SEC 10-K deadline for large filers; 10-Qs are due in 40 days)"
)
# model field -> the file's column
_COLUMNS = {
    "total_revenue": "Total Revenue",
    "gross_profit": "Gross Profit",
    "operating_income": "Operating Income",
    "net_income": "Net Income",
    "ebitda": "EBITDA",
    "diluted_eps": "Diluted EPS",
    "diluted_shares": "Diluted Average Shares",
    "shares_outstanding": "Ordinary Shares Number",
    "total_debt": "Total Debt",
    "cash": "Cash Cash Equivalents And Short Term Investments",
    "stockholders_equity": "Stockholders Equity",
}

Row = dict[str, float | None]


def _number(text: str | None) -> float | None:
    if text is None or not text.strip():
        return None
    value = float(text)
    return value if math.isfinite(value) else None


def _added(cell: str | None) -> date | None:
    """A list's "Date added" (ISO; some rows carry a note after the date), None when unreadable."""
    text = (cell or "").strip()[:10]
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None


class FundamentalsStore:
    def __init__(self, files: SnapshotFiles) -> None:
        self.files = files
        self._quarters = Lazy(self._read_quarters)
        self._lists: dict[str, list[dict[str, str]]] = {}  # constituents list path -> its rows
        self._members: dict[str, list[Constituent]] = {}  # constituents list path -> its members
        self._lists_lock = threading.Lock()

    def _read_quarters(self) -> dict[str, list[tuple[date, Row]]]:
        by_symbol: dict[str, list[tuple[date, Row]]] = {}
        if not self.files.exists(QUARTERLY):
            return by_symbol
        with gzip.open(self.files.path(QUARTERLY), "rt", encoding="utf-8", newline="") as fh:
            for raw in csv.DictReader(fh):
                row = {field: _number(raw.get(column)) for field, column in _COLUMNS.items()}
                by_symbol.setdefault(raw["ticker"].strip().upper(), []).append(
                    (date.fromisoformat(raw["date"][:10]), row)
                )
        return by_symbol

    def quarterly(self, symbol: str, as_of: date) -> Result[QuarterlyFundamentals]:
        rows = self._quarters.get().get(symbol)
        if not rows:
            return Err(
                ErrorCode.NOT_FOUND,
                f"{symbol} is not in the quarterly fundamentals file (S&P 500 members only)",
                "snapshot",
            )
        quarters = [
            FundamentalQuarter(quarter_end=end, visible_from=end + timedelta(days=REPORT_LAG_DAYS), **row)
            for end, row in rows
            if any(v is not None for v in row.values())  # yfinance lists empty early quarters
        ]
        visible = sorted((q for q in quarters if q.visible_from <= as_of), key=lambda q: q.quarter_end)
        if not visible:
            return Err(
                ErrorCode.NO_DATA,
                f"no quarter of {symbol} counts as reported by {as_of.isoformat()} ({VISIBILITY})",
                "snapshot",
            )
        return Ok(
            QuarterlyFundamentals(
                symbol=symbol,
                quarters=visible[::-1],
                hidden_quarters=len(quarters) - len(visible),
                visibility=VISIBILITY,
                source=self.files.source(QUARTERLY),
            )
        )

    def _latest_list(self, as_of: date) -> Result[tuple[date, str, list[dict[str, str]]]]:
        """The latest constituents list dated on or before ``as_of``: its date, path and rows."""
        dated = [
            (date.fromisoformat(rel.rsplit("_", 1)[1][:10]), rel) for rel in self.files.glob(CONSTITUENTS)
        ]
        usable = [(d, rel) for d, rel in dated if d <= as_of]
        if not usable:
            earliest = f"; the earliest is dated {min(dated)[0]}" if dated else ""
            return Err(
                ErrorCode.NO_DATA,
                f"no S&P 500 constituents list is dated on or before {as_of}{earliest}",
                "snapshot",
            )
        list_date, rel = max(usable)
        with self._lists_lock:
            rows = self._lists.get(rel)
            if rows is None:
                text = self.files.path(rel).read_text(encoding="utf-8")
                rows = self._lists[rel] = list(csv.DictReader(io.StringIO(text)))
        return Ok((list_date, rel, rows))

    def constituents(self, as_of: date) -> Result[IndexConstituents]:
        found = self._latest_list(as_of)
        if isinstance(found, Err):
            return found
        list_date, rel, rows = found.value
        with self._lists_lock:  # the models are immutable: one list of them per file and process
            members = self._members.get(rel)
            if members is None:
                members = self._members[rel] = [
                    Constituent(
                        ticker=normalize_ticker(m["Symbol"]),
                        name=m["Security"].strip(),
                        sector=m["GICS Sector"].strip(),
                        sub_industry=m["GICS Sub-Industry"].strip(),
                        date_added=_added(m.get("Date added")),
                    )
                    for m in rows
                ]
        note = (
            f"the list dated {list_date} (the latest on or before {as_of}); index changes after that "
            "date are not in it"
        )
        return Ok(
            IndexConstituents(list_date=list_date, members=list(members), source=self.files.source(rel, note))
        )

    def peers(self, symbol: str, as_of: date) -> Result[IndexPeers]:
        found = self._latest_list(as_of)
        if isinstance(found, Err):
            return found
        list_date, rel, members = found.value
        own = next((m for m in members if normalize_ticker(m["Symbol"]) == symbol), None)
        if own is None:
            return Err(
                ErrorCode.NOT_FOUND,
                f"{symbol} is not in the S&P 500 constituents list of {list_date.isoformat()}",
                "snapshot",
            )
        sub = own["GICS Sub-Industry"]
        peers = [
            Peer(symbol=normalize_ticker(m["Symbol"]), name=m["Security"], sub_industry=sub)
            for m in members
            if m["GICS Sub-Industry"] == sub and normalize_ticker(m["Symbol"]) != symbol
        ]
        return Ok(
            IndexPeers(
                symbol=symbol,
                name=own["Security"],
                sector=own["GICS Sector"],
                sub_industry=sub,
                list_date=list_date,
                peers=peers,
                source=self.files.source(rel),
            )
        )
