"""The snapshot news-feed parsers on real recorded rows (read straight from the snapshot files)."""

from __future__ import annotations

import csv
import gzip
import json
from datetime import UTC, datetime
from pathlib import Path

from findesk.data.formats import news_feeds
from findesk.data.models import Source

SRC = Source(vendor="snapshot", ref="test")


def test_tradingview_groups_copies_of_a_story_and_keeps_every_ticker(snapshot_dir: Path) -> None:
    path = snapshot_dir / "news/tradingview_news_10tickers_2025-04-09_2025-05-25.csv.gz"
    with gzip.open(path, "rt", encoding="utf-8", newline="") as fh:
        pairs = news_feeds.tradingview(csv.DictReader(fh), SRC)
    stories = {item.id: item for _, item in pairs}
    assert len(stories) == 1355  # the README's count of unique stories
    tech = next(
        i for i in stories.values() if i.url == "https://www.tradingview.com/news/DJN_DN20250525000348:0/"
    )
    assert tech.title == "Tech Stocks Had a Crazy Few Days. Another Big Week Is Ahead. — Barrons.com"
    assert tech.publisher == "Dow Jones Newswires"
    assert tech.published_at == datetime(2025, 5, 25, 7, 0, tzinfo=UTC)
    assert {"NVDA", "AAPL"} <= set(tech.tickers)
    assert sum(1 for t, i in pairs if i.id == tech.id) == len(tech.tickers)


def test_finance_news_drops_bot_wall_descriptions(snapshot_dir: Path) -> None:
    with (snapshot_dir / "news/finance_news_2025-05-01_2025-08-26.csv").open(
        encoding="utf-8", newline=""
    ) as fh:
        pairs = news_feeds.finance_news(csv.DictReader(fh), SRC)
    items = {i.url: i for _, i in pairs}
    assert len(items) == 89  # 99 rows, 10 with an empty ticker list are filed under no ticker
    zacks = items[
        "https://www.zacks.com/stock/news/2630901/msft-meta-aapl-amzn-one-chart-stands-above-the-others"
        "?cid=CS-ZC-FT-video_blog-2630901"
    ]
    assert zacks.summary is None  # the scraped "Pardon Our Interruption" page is not a summary
    assert zacks.tickers == ["AAPL", "AMZN", "META", "METV", "MSFT"]
    assert zacks.published_at == datetime(2025, 7, 28, 22, 54, tzinfo=UTC)


def test_alphavantage_time_and_crypto_entries(snapshot_dir: Path) -> None:
    assert news_feeds.alphavantage_time("20240103T165940Z") == datetime(2024, 1, 3, 16, 59, 40, tzinfo=UTC)
    assert news_feeds.alphavantage_time("20240103T165818") == datetime(2024, 1, 3, 16, 58, 18, tzinfo=UTC)
    assert news_feeds.alphavantage_time("yesterday") is None
    body = json.loads(
        (
            snapshot_dir / "news/alphavantage_news_sentiment/NEWS_SENTIMENT_2024-01-03_laurittab.json"
        ).read_text()
    )
    pairs = news_feeds.alphavantage(body, SRC)
    assert all(":" not in ticker for ticker, _ in pairs)  # CRYPTO:BTC is not filed
    assert not [i for _, i in pairs if "Matrixport" in i.title]  # its only ticker is CRYPTO:BTC


def test_clip_cuts_at_a_word() -> None:
    assert news_feeds.clip("a" * 10 + " " + "b" * 10, limit=15) == "a" * 10 + " …"
    assert news_feeds.clip("  nan ") is None and news_feeds.clip("short") == "short"
