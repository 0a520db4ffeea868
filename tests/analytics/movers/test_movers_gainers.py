"""The NASDAQ gainers screen on a hand-made session: what a leaky live screener and the offline table
both go through."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

import numpy as np
import pytest

from findesk.analytics.movers.gainers import nasdaq_gainers
from findesk.analytics.movers.models import GainerFilters


@dataclass
class Table:
    session: date
    symbols: tuple[str, ...]
    exchanges: tuple[str, ...]
    close: np.ndarray
    pct_change: np.ndarray
    volume: np.ndarray
    market_cap_usd: np.ndarray
    names: tuple[str | None, ...]
    sectors: tuple[str | None, ...]
    exchange_codes: tuple[str | None, ...] = ()
    etf_flags: tuple[bool | None, ...] = ()
    directory_date: date | None = None
    industries: tuple[str | None, ...] = field(default=())


ROWS = [
    # symbol, exchange, code, etf, name, close, pct, volume, cap
    ("AAA", "NASDAQ", "NMS", False, "Alpha Inc. Common Stock", 50.0, 9.0, 2e6, 5e9),
    ("NYQX", "NYSE", "NYQ", False, "Leaky NYSE Corp", 30.0, 40.0, 3e6, 9e9),  # the screener's leak
    ("ETFQ", "NASDAQ", "NGM", True, "Some ETF", 20.0, 30.0, 1e6, 1e9),
    ("WARTW", "NASDAQ", "NCM", False, "Spac Corp Warrant", 6.0, 80.0, 1e6, 1e9),
    ("PENY", "NASDAQ", "NCM", False, "Penny Inc", 2.0, 60.0, 5e6, 4e8),
    ("THIN", "NASDAQ", "NGM", False, "Thin Trade Inc", 12.0, 25.0, 5e4, 4e8),
    ("TINY", "NASDAQ", "NCM", False, "Tiny Cap Inc", 8.0, 20.0, 5e5, 1e8),
    ("BBB", "NASDAQ", "NCM", False, "Beta Holdings", 9.0, 15.5, 4e5, 6e8),
    ("CCC", "NASDAQ", "NGM", False, "Gamma Ltd", 14.0, -3.0, 9e5, 7e8),
    ("GHOST", "NASDAQ", None, False, "Not In Directory", 10.0, 50.0, 1e6, 1e9),
]


def table(*, with_directory: bool = True) -> Table:
    cols = list(zip(*ROWS, strict=True))
    return Table(
        session=date(2025, 8, 29),
        symbols=cols[0],
        exchanges=cols[1],
        exchange_codes=cols[2] if with_directory else (),
        etf_flags=cols[3] if with_directory else (),
        directory_date=date(2025, 8, 11) if with_directory else None,
        names=cols[4],
        close=np.array(cols[5], dtype=float),
        pct_change=np.array(cols[6], dtype=float),
        volume=np.array(cols[7], dtype=float),
        market_cap_usd=np.array(cols[8], dtype=float),
        sectors=tuple(None for _ in ROWS),
    )


def test_every_rule_drops_its_row_and_nasdaq_common_stock_ranks_by_change() -> None:
    board = nasdaq_gainers(table(), GainerFilters())
    assert [g.symbol for g in board.gainers] == ["BBB", "AAA"]
    assert board.gainers[0].exchange_code == "NCM" and board.gainers[0].rank == 1
    assert board.dropped == {
        "exchange": 1,
        "exchange_unknown": 1,
        "etf": 1,
        "warrant": 1,
        "price": 1,
        "volume": 1,
        "market_cap": 1,
    }
    assert board.universe == board.kept + sum(board.dropped.values())
    assert "2025-08-11" in board.tier_basis


def test_without_a_directory_the_tables_exchange_column_decides_and_a_warning_says_so() -> None:
    board = nasdaq_gainers(table(with_directory=False), GainerFilters(min_market_cap_usd=None))
    symbols = [g.symbol for g in board.gainers]
    assert "NYQX" not in symbols and "GHOST" in symbols and "ETFQ" in symbols  # ETF flags unknown
    assert any("no Nasdaq listing directory" in w for w in board.warnings)


@pytest.mark.parametrize("top", [1, 3])
def test_top_limits_the_list(top: int) -> None:
    board = nasdaq_gainers(table(), GainerFilters(top=top, min_market_cap_usd=None, min_volume=0))
    assert len(board.gainers) == min(top, 4)
    changes = [g.pct_change for g in board.gainers]
    assert changes == sorted(changes, reverse=True)
