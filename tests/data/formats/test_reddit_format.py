"""Reddit export schemas and listing parsers (exports read from the real snapshot files)."""

from __future__ import annotations

import csv
from datetime import UTC, datetime
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import reddit
from findesk.data.models import Source

SRC = Source(vendor="snapshot", ref="test")


def test_export_schemas_are_recognised() -> None:
    assert (
        reddit.export_schema(["title", "score", "id", "url", "comms_num", "created", "body", "timestamp"])
        == "wsb_2022"
    )
    assert (
        reddit.export_schema(
            ["title", "selftext", "author", "created_utc", "score", "subreddit", "tickers_mentioned"]
        )
        == "tickers_mentioned"
    )
    got = reddit.parse_export([], ["a", "b"], SRC)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


def test_wsb_export_uses_epoch_time_and_separates_comments(snapshot_dir: Path) -> None:
    path = snapshot_dir / "social/reddit/wsb_posts_2022-01-18_2022-01-21.csv"
    with path.open(encoding="utf-8", newline="") as fh:
        reader = csv.DictReader(fh)
        got = reddit.parse_export(reader, reader.fieldnames or [], SRC)
    assert isinstance(got, Ok)
    posts, has_column = got.value
    assert not has_column and len(posts) == 1892
    first = next(p for p in posts if p.id == "reddit:s9i9bw")
    # created 1642792067 = 19:07:47 UTC; the export's "timestamp" column (11:07:47) is local time
    assert first.published_at == datetime(2022, 1, 21, 19, 7, 47, tzinfo=UTC)
    comments = [p for p in posts if p.id.startswith("reddit:t1_")]
    assert len(comments) == 979 and all(p.title is None and p.url is None for p in comments)
    tweet = [p for p in posts if p.link_url and p.link_url.startswith("https://twitter.com/elonmusk/")]
    assert len(tweet) == 2


def test_listing_rejects_other_kinds() -> None:
    got = reddit.parse_listing({"kind": "t2", "data": {}}, SRC)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    about = reddit.parse_about({"kind": "Listing", "data": {}})
    assert isinstance(about, Err)
