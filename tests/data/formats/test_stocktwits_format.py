"""Stocktwits stream parser on the real recorded ETH.X page (likes, replies, crypto symbols)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import stocktwits
from findesk.data.models import Source

SRC = Source(vendor="snapshot", ref="test")


def test_eth_page(snapshot_dir: Path) -> None:
    body = json.loads(
        (snapshot_dir / "social/stocktwits/streams_symbol_ETH.X_2022-06-29_469035372.json").read_text()
    )
    assert stocktwits.stream_symbol(body) == "ETH.X"
    got = stocktwits.parse_stream(body, SRC)
    assert isinstance(got, Ok) and len(got.value) == 30
    first = got.value[0]
    assert first.id == "stocktwits:469060744" and first.sentiment == "Bullish"
    assert (first.score, first.num_comments) == (6, 1)
    assert first.tickers == ["ETH.X", "LUNC.X", "UST.X"]
    assert first.author is not None and first.author.username == "Dr_Lohengrin"
    assert first.author.created_at == datetime(2021, 5, 1, tzinfo=UTC)
    assert (first.author.followers, first.author.following, first.author.post_count) == (45, 75, 3338)


def test_symbols_and_errors() -> None:
    assert isinstance(stocktwits.check_symbol(" eth.x "), Ok)
    assert isinstance(stocktwits.check_symbol("BRK.B"), Ok)
    bad = stocktwits.check_symbol("AAPL/../../x")
    assert isinstance(bad, Err) and bad.code is ErrorCode.INVALID_INPUT
    limited = stocktwits.parse_stream(
        {"response": {"status": 429}, "errors": [{"message": "Rate limit"}]}, SRC
    )
    assert isinstance(limited, Err) and limited.code is ErrorCode.RATE_LIMITED
    assert isinstance(stocktwits.parse_stream([], SRC), Err)
