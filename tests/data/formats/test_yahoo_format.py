"""Yahoo chart/search parsers on the real recorded responses in the snapshot (``http/yahoo/``), plus
the hand-written error body in ``tests/fixtures/yahoo/``."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats.yahoo import Chart, chart_bars, chart_quote, parse_chart, parse_search_news
from findesk.data.models import Source

FIXTURES = Path(__file__).parents[2] / "fixtures" / "yahoo"
SRC = Source(vendor="yahoo", ref="https://query1.finance.yahoo.com/v8/finance/chart/X")


def recorded(snapshot_dir: Path, name: str) -> Any:
    return json.loads((snapshot_dir / "http/yahoo" / name).read_text())["response"]["bodyJson"]


def chart(snapshot_dir: Path, name: str) -> Chart:
    got = parse_chart(recorded(snapshot_dir, name))
    assert isinstance(got, Ok), got
    return got.value


def test_single_day_chart(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL.json")
    assert c.symbol == "AAPL" and c.currency == "USD" and c.instrument_type == "EQUITY"
    [row] = c.rows
    assert row.day == date(2022, 2, 22)  # 1645540200 = 09:30 New York
    assert row.close == 164.32000732421875
    assert row.adjclose == 161.6998748779297
    assert row.volume == 91162800
    assert c.market_day == date(2025, 3, 24)  # regularMarketTime 1742824293


def test_bars_use_adjclose_and_rescale_the_range(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL-2020-08-31-to-2020-11-07.json")
    got = chart_bars(c, date(2020, 8, 31), date(2020, 11, 7), date(2020, 12, 31), SRC)
    assert isinstance(got, Ok)
    b = got.value
    assert b.adjusted and len(b.bars) == 49
    first = b.bars[0]
    assert first.date == date(2020, 8, 31)
    raw = c.rows[0]
    assert raw.close == 129.0399932861328  # the first day after the 4:1 split, split-adjusted
    assert raw.adjclose is not None and first.close == pytest.approx(raw.adjclose)
    assert first.high is not None and raw.high is not None
    assert first.high / first.close == pytest.approx(raw.high / raw.close)
    assert all(x.low is not None and x.high is not None and x.low <= x.close <= x.high for x in b.bars)


def test_bars_stop_at_as_of(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL-2020-08-31-to-2020-11-07.json")
    got = chart_bars(c, date(2020, 9, 1), date(2020, 11, 7), date(2020, 10, 1), SRC)
    assert isinstance(got, Ok)
    assert got.value.bars[-1].date == date(2020, 10, 1) and got.value.end == date(2020, 10, 1)


def test_split_is_smoothed_in_split_adjusted_closes(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "historical-via-chart-NVDA-split-2021-02-01-to-2022-01-31.csv.json")
    by_day = {r.day: r for r in c.rows}
    before, after = by_day[date(2021, 7, 19)], by_day[date(2021, 7, 20)]  # 4:1 split on 07-20
    assert before.close is not None and after.close is not None
    assert 0.8 < after.close / before.close < 1.2


def test_quote_in_the_past_is_the_last_bar_close(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL-2020-08-31-to-2020-11-07.json")
    got = chart_quote(c, date(2020, 9, 5), SRC)  # a Saturday
    assert isinstance(got, Ok)
    q = got.value
    assert q.session_date == date(2020, 9, 4)
    assert q.price == 120.95999908447266  # close, not adjclose
    assert q.previous_close == 120.87999725341797
    assert q.change_pct == pytest.approx((120.96 / 120.88 - 1) * 100, abs=1e-3)


def test_quote_uses_meta_when_its_session_is_visible(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL.json")
    got = chart_quote(c, date(2025, 3, 24), SRC)
    assert isinstance(got, Ok)
    q = got.value
    assert q.price == 220.003 and q.session_date == date(2025, 3, 24)
    assert q.day_high == 221.021 and q.day_low == 218.58 and q.volume == 5800260
    assert q.previous_close is None  # the only bar is from 2022: not a previous close


def test_quote_ignores_meta_after_as_of(snapshot_dir: Path) -> None:
    c = chart(snapshot_dir, "chart-AAPL.json")
    got = chart_quote(c, date(2022, 2, 23), SRC)
    assert isinstance(got, Ok) and got.value.price == 164.32000732421875
    assert got.value.session_date == date(2022, 2, 22)
    early = chart_quote(c, date(2022, 2, 1), SRC)
    assert isinstance(early, Err) and early.code is ErrorCode.NO_DATA


def test_chart_error_not_found_is_typed() -> None:
    body = json.loads((FIXTURES / "chart_error_not_found_handwritten.json").read_text())
    got = parse_chart(body)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "delisted" in got.reason


@pytest.mark.parametrize(
    ("body", "code"),
    [
        ({"chart": {"result": [], "error": None}}, ErrorCode.NO_DATA),
        ({"chart": {"result": None, "error": None}}, ErrorCode.NO_DATA),
        ({"finance": {"error": "x"}}, ErrorCode.BAD_RESPONSE),
        ([1, 2, 3], ErrorCode.BAD_RESPONSE),
        ({"chart": {"result": [{"meta": {}}], "error": None}}, ErrorCode.BAD_RESPONSE),
        ({"chart": {"result": [{"meta": {"symbol": "A"}, "timestamp": ["x"]}]}}, ErrorCode.BAD_RESPONSE),
        (
            {"chart": {"result": None, "error": {"code": "Bad Request", "description": "x"}}},
            ErrorCode.INVALID_INPUT,
        ),
    ],
)
def test_bad_chart_bodies(body: Any, code: ErrorCode) -> None:
    got = parse_chart(body)
    assert isinstance(got, Err) and got.code is code


def test_search_news_point_in_time(snapshot_dir: Path) -> None:
    body = recorded(snapshot_dir, "search-AAPL.json")
    every = parse_search_news(body, date(2025, 12, 31), SRC)
    assert isinstance(every, Ok) and len(every.value) == 4
    first = every.value[-1]
    stamps = sorted(n["providerPublishTime"] for n in body["news"])
    assert first.published_at == datetime.fromtimestamp(stamps[0], UTC)
    assert [n.published_at for n in every.value] == sorted(
        (n.published_at for n in every.value), reverse=True
    )
    video = next(n for n in every.value if n.id == "57ea9c09-0c99-3adf-9062-fecfdbe472cc")
    assert video.publisher == "Yahoo Finance Video" and video.tickers == ["AAPL"]
    assert video.url == "https://finance.yahoo.com/video/why-trump-could-move-fast-002000706.html"
    # 1740442800 = 2025-02-25 00:20 UTC = 2025-02-24 19:20 New York: visible on the 24th
    cutoff = parse_search_news(body, date(2025, 2, 24), SRC)
    assert isinstance(cutoff, Ok)
    assert cutoff.value == [video]  # the next one (1740462887) is 00:54 New York on the 25th
    none = parse_search_news(body, date(2020, 1, 1), SRC)
    assert isinstance(none, Ok) and none.value == []


def test_search_bad_body() -> None:
    got = parse_search_news({"news": "nope"}, date(2025, 1, 1), SRC)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
