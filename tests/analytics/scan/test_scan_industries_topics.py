"""The industry deep dive and the topic briefs on synthetic data: grouping by sub-industry, medians and
breadth, a member without prices, the largest names; the headline rule and the tone of a topic."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import numpy as np

from findesk.analytics.scan.industries import deep_dive, largest
from findesk.analytics.scan.topics import TOPIC_SECTORS, topic_brief
from findesk.data.models import NewsItem
from findesk.data.models.base import Source
from findesk.data.models.funds import PricePanel
from findesk.data.models.market_scan import Constituent

SRC = Source(vendor="test", ref="x")


def _panel(closes: dict[str, list[float]]) -> PricePanel:
    n = len(next(iter(closes.values())))
    start = date(2025, 1, 1)
    days = np.array([start + timedelta(days=i) for i in range(n)], dtype="datetime64[D]")
    m = np.array(list(closes.values()), dtype=float)
    return PricePanel(tuple(closes), days, m, m, m, m, m, m, SRC)


def _member(t: str, sub: str, sector: str = "Energy") -> Constituent:
    return Constituent(ticker=t, name=f"{t} Corp", sector=sector, sub_industry=sub)


def _path(end_1m: float) -> list[float]:
    """70 bars: 100 until 21 bars before the end, then ``end_1m`` (a 1M return of end_1m - 100 %)."""
    return [100.0] * 49 + [end_1m] * 21


def test_sub_industries_medians_breadth_best_and_worst() -> None:
    members = [
        _member("AAA", "Refining"),
        _member("BBB", "Refining"),
        _member("CCC", "Refining"),
        _member("DDD", "Drilling"),
        _member("BRK.B", "Drilling"),  # listed with a dot, priced with a dash
        _member("GONE", "Drilling"),  # not in the panel
        _member("MSFT", "Software", sector="Information Technology"),
    ]
    panel = _panel(
        {
            "AAA": _path(110.0),
            "BBB": _path(104.0),
            "CCC": _path(98.0),
            "DDD": _path(95.0),
            "BRK-B": _path(90.0),
            "MSFT": _path(150.0),
        }
    )
    dive = deep_dive("XLE", "Energy", members, panel, etf_return_1m=3.5)
    assert dive.constituents == 5 and dive.status == "partial"
    assert any("GONE" in w for w in dive.warnings)
    refining, drilling = dive.sub_industries
    assert refining.sub_industry == "Refining" and refining.members == 3
    assert refining.median_return_1m == 4.0 and refining.breadth_1m == 66.7
    assert refining.best is not None and refining.best.ticker == "AAA"
    assert refining.worst is not None and refining.worst.ticker == "CCC"
    assert drilling.median_return_1m == -7.5 and drilling.breadth_1m == 0.0
    assert [p.ticker for p in dive.top_stocks] == ["AAA", "BBB", "CCC", "DDD", "BRK.B"]
    assert [p.ticker for p in dive.bottom_stocks] == ["BRK.B", "DDD", "CCC", "BBB", "AAA"]
    assert all(p.ticker != "MSFT" for p in dive.top_stocks)  # another sector


def test_a_sector_without_members_is_no_data() -> None:
    dive = deep_dive("XLU", "Utilities", [_member("AAA", "Refining")], _panel({"AAA": _path(101.0)}))
    assert dive.status == "no_data" and dive.constituents == 0 and dive.sub_industries == []


def test_largest_orders_by_size_and_puts_unknown_last() -> None:
    members = [_member(t, "x") for t in ("A", "B", "C", "D")]
    assert largest(members, {"B": 5.0, "D": 9.0}, 3) == ["D", "B", "A"]


def _item(title: str, day: int, summary: str = "") -> NewsItem:
    return NewsItem(
        id=title,
        title=title,
        summary=summary,
        url=f"https://example.com/{day}",
        publisher="example.com",
        published_at=datetime(2025, 8, day, 15, tzinfo=UTC),
        source=SRC,
    )


def test_a_topic_counts_headlines_that_name_it_and_averages_their_tone() -> None:
    items = [
        _item("Oil prices slump as OPEC+ adds supply", 20),
        _item("Crude rally extends on supply worries", 25),
        _item("Tech stocks rise", 26, summary="oil was flat"),  # only the summary names the topic
    ]
    brief = topic_brief("energy", items)
    assert brief.articles == 2
    assert [h.published for h in brief.headlines] == [date(2025, 8, 25), date(2025, 8, 20)]
    assert brief.headlines[1].tone == -1.0  # "slump"
    assert brief.tone == round(sum(h.tone for h in brief.headlines) / 2, 2)
    assert brief.headlines[0].source == "example.com: https://example.com/25"
    assert brief.sectors_exposed == ["XLE", "XLU"] == list(TOPIC_SECTORS["energy"])


def test_a_topic_without_headlines_has_no_tone_not_zero() -> None:
    brief = topic_brief("sanctions", [_item("Markets rally", 3)])
    assert brief.articles == 0 and brief.tone is None and brief.headlines == []
