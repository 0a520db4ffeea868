"""The scanner's tools on the real snapshot: movers equal an independent screen of the table at
2025-08-29, sector returns equal the fund bars, topic news stays inside its window, the industry deep
dive reads the constituents list of its date, and a later date is refused."""

from __future__ import annotations

import math
from datetime import date
from pathlib import Path
from typing import Any

import pyarrow.compute as pc
import pyarrow.csv as pcsv
import pyarrow.parquet as pq

from findesk.analytics.scan.models import GeoBoard, IndustryBoard, MoversBoard, SectorBoard
from findesk.tools.catalog import default_registry

DAY = date(2025, 8, 29)
EARLY = date(2024, 5, 10)
MARKET = "prices/market"


def _independent_screen(snapshot: Path, day: date) -> list[dict[str, Any]]:
    """The documented default screen, written separately from the code under test: the table's rows
    of ``day``, names from the metadata file, caps from the latest month-end on or before ``day``."""
    table = pq.read_table(
        snapshot / MARKET / "us_listed_stocks_daily_close_pctchange_volume_2024-01-02_2025-12-31.parquet"
    )
    rows = table.filter(pc.equal(pc.cast(table["date"], "string"), day.isoformat())).to_pylist()
    meta = pcsv.read_csv(snapshot / "reference/us_listed_stocks_metadata_sector_industry_2023-2025.csv")
    names = dict(zip(meta["symbol"].to_pylist(), meta["name"].to_pylist(), strict=True))
    caps_t = pcsv.read_csv(snapshot / MARKET / "us_listed_stocks_monthend_marketcap_2023-01_2025-12.csv.gz")
    month_ends = sorted({str(d) for d in caps_t["date"].to_pylist() if str(d) <= day.isoformat()})
    last = caps_t.filter(pc.equal(pc.cast(caps_t["date"], "string"), month_ends[-1]))
    caps = dict(zip(last["symbol"].to_pylist(), last["market_cap_usd"].to_pylist(), strict=True))

    def derivative(symbol: str, name: str) -> bool:
        words = name.replace(",", " ").replace("(", " ").replace(")", " ").split()
        lower = [w.lower() for w in words]
        if len(symbol) == 5 and symbol.endswith(("W", "U", "R")):
            return True
        if "warrant" in lower or "warrants" in lower or "Right" in words or "Rights" in words:
            return True
        equity_unit = {
            "common",
            "partners",
            "partner",
            "partnership",
            "l.p.",
            "lp",
            "beneficial",
            "depositary",
        }
        if ("Unit" in words or "Units" in words) and not (equity_unit & set(lower) or "Class" in words):
            return True
        if "preferred" in lower and not ("american depositary" in name.lower() or "ADR" in words):
            return True
        return bool({"note", "notes", "debenture", "debentures"} & set(lower))

    kept = []
    for r in rows:
        cap = caps.get(r["symbol"])
        if derivative(r["symbol"], names.get(r["symbol"]) or ""):
            continue
        if r["close"] is None or r["pct_change"] is None or math.isnan(r["close"]):
            continue
        if r["close"] < 5 or (r["volume"] or 0) < 100_000 or not cap or cap < 300e6:
            continue
        kept.append(r)
    return kept


def test_gainers_equal_an_independent_screen_of_the_table(call: Any, snapshot_dir: Path) -> None:
    out = call("get_market_movers", at=DAY)
    assert out.ok, out.summary
    board = out.result.value
    assert isinstance(board, MoversBoard) and board.session == DAY
    kept = _independent_screen(snapshot_dir, DAY)
    expected = sorted(
        (r for r in kept if r["pct_change"] > 0), key=lambda r: (-r["pct_change"], r["symbol"])
    )[:10]
    got = [(g.symbol, g.close, g.pct_change, g.volume) for g in board.gainers]
    assert got == [(r["symbol"], r["close"], r["pct_change"], r["volume"]) for r in expected]
    assert board.gainers[0].symbol == "NEO" and board.gainers[0].pct_change == 21.775
    losers = sorted((r for r in kept if r["pct_change"] < 0), key=lambda r: (r["pct_change"], r["symbol"]))[
        :10
    ]
    assert [r.symbol for r in board.losers] == [r["symbol"] for r in losers]
    assert board.kept == len(kept) and board.universe == 6617
    assert board.universe == board.kept + sum(board.dropped.values())
    assert board.most_active[0].symbol == "NVDA"  # the session's largest dollar volume
    # a 246 % jump of a $4M company (IPDN) is screened out by the cap floor, not shown as news
    assert "IPDN" not in {r.symbol for r in board.gainers}
    assert "NEO" in out.summary and "+21.775%" in out.summary


def test_an_earlier_session_and_a_later_date(call: Any) -> None:
    early = call("get_market_movers", at=EARLY)
    assert early.ok and early.result.value.session == EARLY
    assert early.result.value.gainers[0].symbol == "NVAX"  # +98.658 % that day
    weekend = call("get_market_movers", at=date(2025, 8, 31))  # a Sunday: the Friday's session
    assert weekend.ok and weekend.result.value.session == DAY
    later = call("get_market_movers", at=DAY, date="2025-09-02")
    assert not later.ok and later.error_code == "invalid_input"
    loose = call("get_market_movers", at=DAY, min_market_cap_usd=None, top=5)
    assert loose.ok and loose.result.value.gainers[0].symbol != "NEO"  # small caps come back


def test_sector_returns_match_the_fund_bars(call: Any) -> None:
    out = call("get_sector_performance", at=DAY)
    assert out.ok, out.summary
    board = out.result.value
    assert isinstance(board, SectorBoard) and board.session == DAY
    assert len(board.sectors) == 11 and [f.ticker for f in board.indexes] == ["SPY", "QQQ", "DIA", "IWM"]
    tech = call("get_technicals", at=DAY, symbol="XLK")  # the same adjusted bars, read another way
    assert tech.ok
    xlk = next(f for f in board.sectors if f.ticker == "XLK")
    assert xlk.returns["1M"] == round(tech.result.value.technicals.return_1m_pct, 2)
    assert board.leaders == ["XLV", "XLB", "XLY"] and board.laggards == ["XLU", "XLK", "XLI"]
    assert sorted(f.rank_1m for f in board.sectors if f.rank_1m) == list(range(1, 12))
    early = call("get_sector_performance", at=EARLY)
    assert early.ok and early.result.value.leaders[0] == "XLU"  # utilities led in spring 2024


def test_topic_news_stays_in_its_window_and_says_what_was_searched(call: Any) -> None:
    out = call("get_topic_news", at=DAY)
    assert out.ok, out.summary
    board = out.result.value
    assert isinstance(board, GeoBoard) and board.since == date(2025, 7, 30)
    assert [t.topic for t in board.topics] == ["conflicts", "trade", "sanctions", "energy", "rates"]
    rates = board.topics[-1]
    assert rates.articles >= 1 and rates.tone is not None
    assert any("Powell" in h.title for h in rates.headlines)
    for t in board.topics:
        assert all(board.since <= h.published <= DAY for h in t.headlines)
    assert any(w.startswith("news feeds searched") for w in board.warnings)
    one = call("get_topic_news", at=DAY, topic="trade", days=120)
    assert one.ok and [t.topic for t in one.result.value.topics] == ["trade"]
    assert one.result.value.topics[0].articles > 0  # the April-May 2025 tariff news
    assert not call("get_topic_news", at=DAY, topic="weather").ok
    tool = default_registry().get("get_topic_news")
    assert tool is not None and tool.third_party == "passage"  # screened like every news tool


def test_industry_deep_dive_reads_the_list_of_its_date(call: Any) -> None:
    out = call("get_industry_performance", at=DAY, sectors=["XLE", "information technology"])
    assert out.ok, out.summary
    board = out.result.value
    assert isinstance(board, IndustryBoard) and board.constituents_list == date(2025, 8, 12)
    energy, tech = board.sectors
    assert (energy.etf, energy.sector, tech.etf) == ("XLE", "Energy", "XLK")
    assert energy.status == "ok" and energy.constituents == 22
    assert energy.top_stocks[0].ticker == "APA"
    best = energy.sub_industries[0]
    assert best.sub_industry == "Oil & Gas Refining & Marketing" and best.breadth_1m == 100.0
    assert all(h.published <= DAY for h in tech.headlines)
    early = call("get_industry_performance", at=EARLY, sectors=["Energy"])
    assert early.ok and early.result.value.constituents_list == date(2023, 12, 31)
    dive = early.result.value.sectors[0]
    assert dive.status == "partial" and any("HES" in w and "PXD" in w for w in dive.warnings)
    bad = call("get_industry_performance", at=DAY, sectors=["Crypto"])
    assert not bad.ok and bad.error_code == "invalid_input" and "XLK (Information Technology)" in bad.summary
    assert not call("get_industry_performance", at=DAY, sectors=["XLE", "XLK", "XLU", "XLB"]).ok
