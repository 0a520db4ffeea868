"""Listing tiers on the all-listed-stocks session, on the real snapshot: each row's Yahoo-style code
(NMS/NGM/NCM for Nasdaq's tiers, NYQ, ASE, ...) and ETF flag come from the latest Nasdaq Trader
directory dated on or before the session (recomputed here straight from the raw pipe files, and
checked against the snapshot's own derived map), a session before the first directory has none and
says so, and ``day_gainers`` in snapshot mode is the very same table."""

from __future__ import annotations

import asyncio
import csv
import dataclasses
from datetime import date
from pathlib import Path

import numpy as np
import pytest

from findesk.core.config import Settings
from findesk.core.result import Ok
from findesk.data.context import resolve_context
from findesk.data.models.market_scan import NASDAQ_CODES, ListedSession
from findesk.data.registry import build_router
from findesk.data.router import DataRouter
from findesk.data.vendors.base import Category
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.nasdaq_directory import Directories, parse_directory

FRIDAY = date(2025, 8, 29)
DIRECTORY = "reference/nasdaqtrader"
DERIVED_MAP = "reference/ticker_exchange_map_from_nasdaqtraded_2024-08-01.csv"
# the independent reading of the raw files: Nasdaq's Market Category, the other venues' letter
TIER = {"Q": "NMS", "G": "NGM", "S": "NCM"}
VENUE = {"N": "NYQ", "A": "ASE", "P": "PCX", "Z": "BTS", "V": "IEX"}


@pytest.fixture(scope="module")
def vendor(snapshot_dir: Path) -> SnapshotVendor:
    return SnapshotVendor(snapshot_dir)


@pytest.fixture(scope="module")
def router(vendor: SnapshotVendor) -> DataRouter:
    return DataRouter({Category.UNIVERSE: [vendor], Category.DAY_GAINERS: [vendor]})


def _session(router: DataRouter, day: date) -> ListedSession:
    got = asyncio.run(router.listed_session(day, day))
    assert isinstance(got, Ok), got
    return got.value


def _rows(path: Path) -> list[dict[str, str]]:
    """A pipe-delimited directory file's rows, without the "File Creation Time" trailer."""
    with path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="|", quoting=csv.QUOTE_NONE))
    return [r for r in rows if not next(iter(r.values())).startswith("File Creation Time")]


def _flag(cell: str) -> bool | None:
    return {"Y": True, "N": False}.get(cell)


def _expected_2025(root: Path) -> dict[str, tuple[str | None, bool | None]]:
    out: dict[str, tuple[str | None, bool | None]] = {}
    for r in _rows(root / DIRECTORY / "nasdaqlisted_2025-08-11.txt"):
        if r["Test Issue"] != "Y":
            out[r["Symbol"]] = (TIER.get(r["Market Category"]), _flag(r["ETF"]))
    for r in _rows(root / DIRECTORY / "otherlisted_2025-08-11.txt"):
        if r["Test Issue"] != "Y":
            out.setdefault(r["ACT Symbol"], (VENUE.get(r["Exchange"]), _flag(r["ETF"])))
    return out


def _expected_traded(path: Path) -> dict[str, tuple[str | None, bool | None]]:
    out: dict[str, tuple[str | None, bool | None]] = {}
    for r in _rows(path):
        if r["Test Issue"] == "Y":
            continue
        venue, category = r["Listing Exchange"], r["Market Category"].strip()
        code = TIER.get(category) if venue == "Q" else VENUE.get(venue)
        out.setdefault(r["Symbol"], (code, _flag(r["ETF"])))
    return out


@pytest.fixture(scope="module")
def friday(router: DataRouter) -> ListedSession:
    return _session(router, FRIDAY)


# ---- the default session: the 2025-08-11 directory (nasdaqlisted + otherlisted) ----------------------


def test_friday_uses_the_2025_08_11_directory_for_every_row(
    friday: ListedSession, snapshot_dir: Path
) -> None:
    assert friday.directory_date == date(2025, 8, 11)
    assert len(friday.exchange_codes) == len(friday.etf_flags) == len(friday.symbols) == 6617
    expected = _expected_2025(snapshot_dir)
    for i, symbol in enumerate(friday.symbols):
        code, etf = expected.get(symbol, (None, None))
        assert (friday.exchange_codes[i], friday.etf_flags[i]) == (code, etf), symbol
    unlisted = [s for s in friday.symbols if s not in expected]
    assert unlisted and all(friday.exchange_codes[friday.row(s) or 0] is None for s in unlisted)
    note = next(n for n in friday.notes if "Nasdaq Trader symbol directory of 2025-08-11" in n)
    assert "nasdaqlisted_2025-08-11.txt" in note and "otherlisted_2025-08-11.txt" in note
    assert f"{len(unlisted)} of the session's symbols are not in that directory" in note


@pytest.mark.parametrize(
    ("symbol", "code", "exchange"),
    [
        ("AAPL", "NMS", "NASDAQ"),  # Global Select (Market Category Q)
        ("SOUN", "NGM", "NASDAQ"),  # Global Market (G)
        ("ABAT", "NCM", "NASDAQ"),  # Capital Market (S)
        ("MP", "NYQ", "NYSE"),  # otherlisted, Exchange N
        ("U", "NYQ", "NYSE"),
    ],
)
def test_known_listings(friday: ListedSession, symbol: str, code: str, exchange: str) -> None:
    i = friday.row(symbol)
    assert i is not None
    assert (friday.exchange_codes[i], friday.exchanges[i], friday.etf_flags[i]) == (code, exchange, False)


def test_codes_agree_with_the_tables_exchange_column(friday: ListedSession) -> None:
    venue = {"NMS": "NASDAQ", "NGM": "NASDAQ", "NCM": "NASDAQ", "NYQ": "NYSE", "ASE": "AMEX"}
    pairs = [(e, c) for e, c in zip(friday.exchanges, friday.exchange_codes, strict=True) if c is not None]
    agree = sum(venue[c] == e for e, c in pairs)
    assert agree / len(pairs) > 0.999  # a transfer between 08-11 and 08-29 may differ (LXFR, TFIN)
    assert sum(c in NASDAQ_CODES for _, c in pairs) > 3900


def test_the_existing_columns_are_unchanged(friday: ListedSession) -> None:
    i = friday.row("NVDA")
    assert i is not None and (friday.close[i], friday.exchanges[i]) == (174.18, "NASDAQ")
    assert friday.exchange_codes[i] == "NMS"


# ---- point in time: which directory ------------------------------------------------------------------


def test_a_session_before_the_first_directory_has_no_codes_and_says_so(router: DataRouter) -> None:
    march = _session(router, date(2024, 3, 1))
    assert march.session == date(2024, 3, 1) and len(march) > 6000
    assert march.exchange_codes == () and march.etf_flags == () and march.directory_date is None
    note = next(n for n in march.notes if "no Nasdaq Trader symbol directory" in n)
    assert "2024-08-01" in note and "exchange column" in note
    assert _session(router, date(2024, 7, 31)).exchange_codes == ()


def test_september_2024_uses_the_2024_08_01_nasdaqtraded_directory(
    router: DataRouter, snapshot_dir: Path
) -> None:
    sept = _session(router, date(2024, 9, 3))
    assert sept.directory_date == date(2024, 8, 1)
    assert any("nasdaqtraded_2024-08-01.txt" in n for n in sept.notes)
    expected = _expected_traded(snapshot_dir / DIRECTORY / "nasdaqtraded_2024-08-01.txt")
    for i, symbol in enumerate(sept.symbols):
        assert (sept.exchange_codes[i], sept.etf_flags[i]) == expected.get(symbol, (None, None)), symbol
    # the snapshot's own derived map of that directory agrees on every symbol the session has
    with (snapshot_dir / DERIVED_MAP).open(encoding="utf-8", newline="") as fh:
        derived = {r["symbol"]: r for r in csv.DictReader(fh)}
    checked = 0
    for i, symbol in enumerate(sept.symbols):
        row = derived.get(symbol)
        if row is not None and row["test_issue"] == "False":
            assert sept.exchange_codes[i] == row["yahoo_style_exchange_code"], symbol
            assert sept.etf_flags[i] == (row["is_etf"] == "True"), symbol
            checked += 1
    assert checked > 6000


def test_the_directory_day_itself_counts(router: DataRouter) -> None:
    assert _session(router, date(2024, 8, 1)).directory_date == date(2024, 8, 1)


def test_the_later_2026_directory_is_never_used_for_2025(router: DataRouter) -> None:
    dec = _session(router, date(2025, 12, 31))
    assert dec.directory_date == date(2025, 8, 11)


# ---- the directory reader ----------------------------------------------------------------------------


def test_directory_dates_and_pairing(snapshot_dir: Path, vendor: SnapshotVendor) -> None:
    dirs = Directories(vendor.files)
    assert dirs.days() == [date(2024, 8, 1), date(2025, 8, 11), date(2026, 5, 12)]
    assert dirs.on_or_before(date(2024, 7, 31)) is None
    aug = dirs.on_or_before(date(2025, 8, 11))
    assert aug is not None and [r.rsplit("/", 1)[-1] for r in aug.rels] == [
        "nasdaqlisted_2025-08-11.txt",
        "otherlisted_2025-08-11.txt",
    ]
    assert dirs.on_or_before(date(2025, 8, 11)) is aug  # parsed once


def test_parse_skips_the_trailer_and_test_issues() -> None:
    text = (
        "ACT Symbol|Security Name|Exchange|CQS Symbol|ETF|Round Lot Size|Test Issue|NASDAQ Symbol\n"
        "A|Agilent Technologies, Inc. Common Stock|N|A|N|100|N|A\n"
        "SPY|SPDR S&P 500 ETF Trust|P|SPY|Y|100|N|SPY\n"
        "MTEST|NYSE Texas, Inc. TEST Common Stock|M|MTEST|N|100|Y|MTEST\n"
        "XTX|A listing on a venue Yahoo has no code for|M|XTX|N|100|N|XTX\n"
        "File Creation Time: 0811202518:01||||||\n"
    )
    assert parse_directory(text, "otherlisted") == {
        "A": ("NYQ", False),
        "SPY": ("PCX", True),
        "XTX": (None, False),
    }
    with pytest.raises(ValueError, match="Market Category"):
        parse_directory("Symbol|ETF|Test Issue\nA|N|N\n", "nasdaqlisted")


def test_a_mismatched_tuple_is_refused(friday: ListedSession) -> None:
    with pytest.raises(ValueError, match="exchange_codes"):
        dataclasses.replace(friday, exchange_codes=("NMS",))


# ---- day_gainers in snapshot mode --------------------------------------------------------------------


def _same(a: ListedSession, b: ListedSession) -> None:
    for f in dataclasses.fields(ListedSession):
        x, y = getattr(a, f.name), getattr(b, f.name)
        if isinstance(x, np.ndarray):
            assert np.array_equal(x, y, equal_nan=True), f.name
        else:
            assert x == y, f.name


def test_day_gainers_is_the_listed_session_table(router: DataRouter, friday: ListedSession) -> None:
    got = asyncio.run(router.day_gainers(FRIDAY, FRIDAY))
    assert isinstance(got, Ok), got
    _same(got.value, friday)


def test_snapshot_mode_routes_day_gainers_to_the_snapshot(snapshot_dir: Path) -> None:
    settings = Settings(snapshot_dir=snapshot_dir)
    ctx = resolve_context(settings, mode="snapshot", as_of=FRIDAY)
    assert isinstance(ctx, Ok)
    built = build_router(settings, ctx.value)
    assert isinstance(built, Ok), built
    router = built.value
    assert router.chain_names(Category.DAY_GAINERS) == ["snapshot"]
    gainers = asyncio.run(router.day_gainers(FRIDAY, FRIDAY))
    listed = asyncio.run(router.listed_session(FRIDAY, FRIDAY))
    assert isinstance(gainers, Ok) and isinstance(listed, Ok)
    _same(gainers.value, listed.value)
    asyncio.run(router.aclose())
