"""Planting later data into a temporary copy of the snapshot: the point-in-time tests' kit.

``mirror`` symlinks the real snapshot into a folder with real copies of the files a test writes;
``plant`` writes later prices, filings, 8-K events, XBRL facts, posts, news and an earnings call for AAPL
dated ``PLANT_DAY`` (a Saturday after the default as-of date) into those copies. Any answer as of an
earlier date must equal the untouched snapshot's.
"""

from __future__ import annotations

import csv
import gzip
import io
import json
from datetime import date
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

MOVERS = "prices/market/us_listed_stocks_daily_close_pctchange_volume_2024-01-02_2025-12-31.parquet"
SP500 = "prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz"
INDEX = "sec/filings/index.csv"
PLANTED_DOC = "sec/filings/AAPL/10-K_2025-08-30.htm"
SUBMISSIONS = "sec/submissions/CIK0000320193.json"
FACTS = "sec/companyfacts/CIK0000320193.json"
REDDIT = "social/reddit/reddit_posts_2025-07-28_2025-08-27.csv.gz"
NEWS = "news/finance_news_2025-05-01_2025-08-26.csv"
STOCKTWITS = "social/stocktwits/streams_symbol_AAPL_2020-04-24.json"
CALLS = "transcripts/index.csv"
PLANTED_CALL = "transcripts/AAPL/2026Q1_2025-08-30.txt"
PLANTED = {
    MOVERS,
    SP500,
    INDEX,
    PLANTED_DOC,
    SUBMISSIONS,
    FACTS,
    REDDIT,
    NEWS,
    STOCKTWITS,
    CALLS,
    PLANTED_CALL,
}

PLANT_DAY = date(2025, 8, 30)  # a Saturday after the default as-of date
EARLIER = [date(2024, 12, 31), date(2025, 6, 30), date(2025, 8, 29)]
LATER = date(2025, 8, 31)


def mirror(src: Path, dst: Path, written: set[str]) -> None:
    """Symlink ``src`` into ``dst``, with real folders on the way to the files the test writes."""
    real_dirs = {str(Path(p).parents[i]) for p in written for i in range(len(Path(p).parents) - 1)}

    def build(rel: Path) -> None:
        (dst / rel).mkdir(exist_ok=True)
        for child in (src / rel).iterdir():
            child_rel = rel / child.name
            if str(child_rel) in real_dirs:
                build(child_rel)
            elif str(child_rel) not in written:
                (dst / child_rel).symlink_to(child)

    build(Path())


def plant(src: Path, dst: Path) -> None:
    movers = pq.read_table(src / MOVERS)
    row = {
        "date": [PLANT_DAY.isoformat()],
        "exchange": ["nasdaq"],
        "symbol": ["AAPL"],
        "close": [999.99],
        "pct_change": [330.0],
        "volume": [1],
    }
    extra = pa.table({name: row[name] for name in movers.column_names}).cast(movers.schema)
    pq.write_table(pa.concat_tables([movers, extra]), dst / MOVERS)

    panel = gzip.decompress((src / SP500).read_bytes()).decode()
    panel += f"{PLANT_DAY},AAPL,990.0,1000.0,980.0,999.99,1\n"
    (dst / SP500).write_bytes(gzip.compress(panel.encode(), compresslevel=1))

    index = (src / INDEX).read_bytes().decode()
    index += (
        f"AAPL,320193,10-K,{PLANT_DAY},{PLANT_DAY},0000320193-25-999999,aapl-planted.htm,{PLANTED_DOC},html,"
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325999999/aapl-planted.htm\n"
    )
    (dst / INDEX).write_bytes(index.encode())
    (dst / PLANTED_DOC).write_text(
        "<html><body><p>Item 1. Business</p><p>PLANTED business text that is long enough.</p>"
        "<p>Item 1A. Risk Factors</p><p>PLANTED RISK: the company is insolvent.</p>"
        "<p>Item 7. Management's Discussion and Analysis</p><p>PLANTED MD&amp;A.</p></body></html>"
    )

    subs = json.loads((src / SUBMISSIONS).read_text())
    recent = subs["filings"]["recent"]
    planted = {
        "accessionNumber": "0000320193-25-999998",
        "filingDate": PLANT_DAY.isoformat(),
        "reportDate": PLANT_DAY.isoformat(),
        "acceptanceDateTime": f"{PLANT_DAY}T12:00:00.000Z",
        "form": "8-K",
        "items": "1.03",
        "primaryDocument": "planted8k.htm",
    }
    for key, values in recent.items():
        values.insert(0, planted.get(key, 0 if isinstance(values[0], int) else ""))
    (dst / SUBMISSIONS).write_text(json.dumps(subs))

    facts = json.loads((src / FACTS).read_text())
    facts["facts"]["us-gaap"]["Revenues"]["units"]["USD"].append(
        {"start": "2025-06-29", "end": "2025-08-30", "val": 9.99e12, "accn": "0000320193-25-999999",
         "fy": 2025, "fp": "Q4", "form": "10-K", "filed": PLANT_DAY.isoformat()}
    )  # fmt: skip
    (dst / FACTS).write_text(json.dumps(facts))

    reddit = gzip.decompress((src / REDDIT).read_bytes()).decode()
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(
        [
            "planted1",
            PLANT_DAY,
            "PLANTED $AAPL buyout confirmed",
            5,
            0.9,
            1,
            0,
            "planter",
            "stocks",
            "['AAPL']",
            "x",
        ]
    )
    (dst / REDDIT).write_bytes(gzip.compress((reddit + out.getvalue()).encode(), compresslevel=1))

    news = (src / NEWS).read_bytes()  # bytes: fields contain \r\n that text mode would rewrite
    out = io.StringIO()
    csv.writer(out, lineterminator="\n").writerow(
        ["PLANTED Apple headline", "https://example.com/planted", "PLANTED", "example.com", "['aapl']", "[]",
         f"{PLANT_DAY} 14:00:00+00:00", PLANT_DAY, "planted"]
    )  # fmt: skip
    (dst / NEWS).write_bytes(news + out.getvalue().encode())

    calls = (src / CALLS).read_bytes().decode()
    calls += f"AAPL,2026,1,{PLANT_DAY} 17:00:00,NASDAQ,Apple Inc.,30,{PLANTED_CALL},planted\n"
    (dst / CALLS).write_bytes(calls.encode())
    (dst / PLANTED_CALL).write_text("PLANTED call: record quarter.")

    twits = json.loads((src / STOCKTWITS).read_text())
    fake = json.loads(json.dumps(twits["messages"][0]))
    fake.update(id=999999999, body="PLANTED $AAPL to the moon", created_at="2020-04-25T15:00:00Z")
    twits["messages"].insert(0, fake)
    (dst / STOCKTWITS).write_text(json.dumps(twits))
