"""Reference name tables read from the snapshot for question routing: US tickers with their SEC
company names, which of them are ETFs, CoinGecko coins (id, symbol, name) and the FRED series ids.

Rules this module keeps:
- Only reference lists are read (the SEC ticker files, the Nasdaq Trader ETF map, CoinGecko's
  ``coins/list``, the names of the files under ``fred/``); no prices, no filings, nothing dated, so
  the tables carry no point-in-time risk.
- A missing or unreadable file is named in ``missing``, never an exception: the router then works
  with what it has and says so.
- The parsers are the data layer's own (``formats.sec``, ``formats.coingecko``); the parsed tables
  are kept on disk between processes (``SnapshotFiles.cached``) and once per process in memory.
"""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass, field
from pathlib import Path

from findesk.core.result import Ok
from findesk.data.formats import coingecko
from findesk.data.formats import sec as sec_fmt
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import ETF_MAP, TICKERS_CSV, TICKERS_JSON

COINS_LIST = "crypto/coingecko/coins_list.json"
FRED_DIR = "fred"
_FRED_NOT_SERIES = frozenset({"metadata", "series_coverage"})


@dataclass(frozen=True)
class NameTables:
    tickers: dict[str, str] = field(default_factory=dict)  # ticker -> SEC company name ("" if none)
    etfs: frozenset[str] = frozenset()
    coins: tuple[tuple[str, str, str], ...] = ()  # (id, symbol, name) as CoinGecko lists them
    fred: frozenset[str] = frozenset()
    missing: tuple[str, ...] = ()  # the reference files that could not be read


def _tickers(files: SnapshotFiles, missing: list[str]) -> dict[str, str]:
    out: dict[str, str] = {}
    # the newer exchange table first: its names win, as in ``SecStore``
    if files.exists(TICKERS_CSV):
        got = sec_fmt.parse_company_tickers_exchange(files.path(TICKERS_CSV).read_text(encoding="utf-8"))
        if isinstance(got, Ok):
            out.update((t, e.name or "") for t, e in got.value.items())
        else:
            missing.append(f"{TICKERS_CSV} ({got.reason})")
    else:
        missing.append(TICKERS_CSV)
    if files.exists(TICKERS_JSON):
        older = sec_fmt.parse_company_tickers(files.read_json(TICKERS_JSON))
        if isinstance(older, Ok):
            for ticker, entry in older.value.items():
                out.setdefault(ticker, entry.name or "")
        else:
            missing.append(f"{TICKERS_JSON} ({older.reason})")
    else:
        missing.append(TICKERS_JSON)
    return out


def _etfs(files: SnapshotFiles, missing: list[str]) -> frozenset[str]:
    if not files.exists(ETF_MAP):
        missing.append(ETF_MAP)
        return frozenset()
    rows = csv.DictReader(io.StringIO(files.path(ETF_MAP).read_text(encoding="utf-8")))
    return frozenset(
        sec_fmt.normalize_ticker(row["symbol"])
        for row in rows
        if row.get("is_etf") == "True" and row.get("symbol")
    )


def _coins(files: SnapshotFiles, missing: list[str]) -> tuple[tuple[str, str, str], ...]:
    if not files.exists(COINS_LIST):
        missing.append(COINS_LIST)
        return ()
    parsed = coingecko.parse_coins_list(files.read_json(COINS_LIST))
    if not isinstance(parsed, Ok):
        missing.append(f"{COINS_LIST} ({parsed.reason})")
        return ()
    return tuple((c.id, c.symbol, c.name) for c in parsed.value)


def _build(files: SnapshotFiles) -> NameTables:
    missing: list[str] = []
    try:
        tickers = _tickers(files, missing)
        etfs = _etfs(files, missing)
        coins = _coins(files, missing)
    except (OSError, ValueError) as exc:  # a damaged file: route with nothing rather than fail
        return NameTables(missing=(f"reference tables ({type(exc).__name__}: {exc})",))
    fred = frozenset(
        Path(rel).stem for rel in files.glob(f"{FRED_DIR}/*.csv") if Path(rel).stem not in _FRED_NOT_SERIES
    )
    if not fred:
        missing.append(f"{FRED_DIR}/*.csv")
    return NameTables(tickers=tickers, etfs=etfs, coins=coins, fred=fred, missing=tuple(missing))


@functools.lru_cache(maxsize=4)
def load_name_tables(root: Path | None, cache_dir: Path | None = None) -> NameTables:
    """The name tables of the snapshot at ``root`` (empty, with ``missing`` said, without one)."""
    if root is None or not root.is_dir():
        return NameTables(missing=(f"snapshot directory ({root or 'not configured'})",))
    files = SnapshotFiles(root, cache_dir)
    sources = [TICKERS_CSV, TICKERS_JSON, ETF_MAP, COINS_LIST, FRED_DIR]
    return files.cached("name_tables", sources, lambda: _build(files), expect=NameTables)
