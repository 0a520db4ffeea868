"""The movers screen on a synthetic session: each listing rule, the order reasons are counted in, the
market-cap floor's treatment of unknown caps, and the ranking of the three lists."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

import numpy as np
import pytest

from findesk.analytics.scan.models import MoverFilters
from findesk.analytics.scan.movers import listing_type, movers_board

NAN = float("nan")


@dataclass(frozen=True)
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
    industries: tuple[str | None, ...]


def _table(rows: Sequence[tuple[str, str | None, float, float, float, float]]) -> Table:
    return Table(
        session=date(2025, 8, 29),
        symbols=tuple(r[0] for r in rows),
        exchanges=tuple("NASDAQ" for _ in rows),
        close=np.array([r[2] for r in rows]),
        pct_change=np.array([r[3] for r in rows]),
        volume=np.array([r[4] for r in rows]),
        market_cap_usd=np.array([r[5] for r in rows]),
        names=tuple(r[1] for r in rows),
        sectors=tuple(None for _ in rows),
        industries=tuple(None for _ in rows),
    )


@pytest.mark.parametrize(
    ("symbol", "name", "kind"),
    [
        ("AACBW", "Some Acquisition Corp Warrant", "warrant"),
        ("AACBU", "Some Acquisition Corp Unit", "unit"),
        ("AACBR", "Some Acquisition Corp Right", "right"),
        ("PSNYW", "Polestar Automotive Holding UK PLC Class C-1 ADS (ADW)", "warrant"),  # by suffix alone
        ("BCTXZ", "BriaCell Therapeutics Corp. Warrant", "warrant"),  # by name alone (Z suffix)
        ("CORZZ", "Core Scientific Inc. Tranche 2 Warrants", "warrant"),
        (
            "ACGLN",
            "Arch Capital Group Ltd. Depositary Shares ... 4.550% Non-Cumulative Preferred Share",
            "preferred",
        ),
        ("AFGB", "American Financial Group Inc. 5.875% Subordinated Debentures due 2059", "note"),
        ("ABLLL", "Abacus Global Management Inc. 9.875% Fixed Rate Senior Notes due 2028", "note"),
        # common equity whose names carry the same words
        ("ET", "Energy Transfer LP Common Units", None),
        ("AB", "AllianceBernstein Holding L.P.  Units", None),
        ("MVO", "MV Oil Trust Units of Beneficial Interests", None),
        ("OZ", "Belpointe PREP LLC Class A Units", None),
        ("AMX", "America Movil ADS (each representing the right to receive twenty Series B Shares)", None),
        ("CIB", "Grupo Cibest S.A. American Depositary Shares each representing four Preferred Shares", None),
        ("NVDA", "NVIDIA Corporation Common Stock", None),
        ("SNOW", "Snowflake Inc. Class A Common Stock", None),  # four letters ending in W: not a warrant
        ("XYZ", None, None),
    ],
)
def test_listing_types(symbol: str, name: str | None, kind: str | None) -> None:
    assert listing_type(symbol, name) == kind


def test_each_row_is_counted_under_its_first_failed_rule() -> None:
    table = _table(
        [
            ("GOOD", "Good Inc. Common Stock", 20.0, 5.0, 1e6, 1e9),
            ("DOWN", "Down Inc. Common Stock", 30.0, -4.0, 2e6, 2e9),
            ("BIGV", "Big Volume Inc.", 100.0, 0.5, 5e6, 5e10),
            ("ABCDW", "Abc Corp Warrant", 1.0, 90.0, 10.0, NAN),  # warrant, though also penny and thin
            ("PENY", "Penny Inc.", 2.0, 50.0, 1e7, 1e9),
            ("THIN", "Thin Inc.", 50.0, 40.0, 5_000.0, 1e9),
            ("TINY", "Tiny Inc.", 10.0, 30.0, 1e6, 1e8),
            ("NOCP", "No Cap Inc.", 10.0, 60.0, 1e6, NAN),
            ("NOPX", "No Price Inc.", NAN, NAN, 1e6, 1e9),
        ]
    )
    board = movers_board(table, MoverFilters(), sources=["test"], notes=["a relabelled scrape"])
    assert board.universe == 9 and board.kept == 3
    assert board.dropped == {
        "warrant": 1,
        "no_data": 1,
        "price": 1,
        "volume": 1,
        "market_cap": 1,
        "market_cap_unknown": 1,
    }
    assert board.universe == board.kept + sum(board.dropped.values())
    assert [r.symbol for r in board.gainers] == ["GOOD", "BIGV"]
    assert [r.symbol for r in board.losers] == ["DOWN"]
    assert [r.symbol for r in board.most_active] == ["BIGV", "DOWN", "GOOD"]  # by close × volume
    assert board.most_active[0].dollar_volume == 5e8
    assert board.warnings[0] == "a relabelled scrape"
    assert any("1 listing(s) without a month-end market cap" in w for w in board.warnings)


def test_without_a_cap_floor_unknown_caps_are_kept_and_shown_as_none() -> None:
    table = _table(
        [("NOCP", "No Cap Inc.", 10.0, 60.0, 1e6, NAN), ("TINY", "Tiny Inc.", 10.0, 30.0, 1e6, 1e8)]
    )
    board = movers_board(table, MoverFilters(min_market_cap_usd=None))
    assert [r.symbol for r in board.gainers] == ["NOCP", "TINY"]
    assert board.gainers[0].market_cap_usd is None and board.dropped == {}


def test_ties_are_broken_by_symbol_and_top_caps_the_lists() -> None:
    rows = [(s, f"{s} Inc.", 10.0, 5.0, 1e6, 1e9) for s in ("CCC", "AAA", "BBB")]
    board = movers_board(_table(rows), MoverFilters(top=2))
    assert [r.symbol for r in board.gainers] == ["AAA", "BBB"]
    assert len(board.most_active) == 2


def test_a_huge_move_is_named_in_a_warning() -> None:
    board = movers_board(_table([("JUMP", "Jump Inc.", 10.0, 246.6, 1e7, 1e9)]), MoverFilters())
    assert any(w.startswith("JUMP moved +246.6%") for w in board.warnings)
