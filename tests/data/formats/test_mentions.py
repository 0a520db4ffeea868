"""The ticker-mention rules: short tickers need a cashtag, long ones a whole upper-case word."""

from __future__ import annotations

import pytest

from findesk.data.formats.mentions import cashtagged, company_tickers, listed, mentions


@pytest.mark.parametrize(
    ("text", "symbol", "expected"),
    [
        ("Who's still reminiscing? Didn't sell anything, F in chat", "F", False),
        ("F...", "F", False),
        ("Ford (F) vs GM", "F", False),
        ("Ford earnings: $F beat on revenue", "F", True),
        ("$f to the moon", "F", True),
        ("$FA is not Ford", "F", False),
        ("turn ON the lights", "ON", False),
        ("$ON semiconductor calls", "ON", True),
        ("NVDA Earnings Play (Call Debit Spread)", "NVDA", True),
        ("holding $nvda", "NVDA", True),
        ("nvda is lower case", "NVDA", False),
        ("NVDAX is another fund", "NVDA", False),
        ("see https://example.com/NVDA/page", "NVDA", False),
        ("Alphabet (GOOG) trending", "GOOGL", True),
        ("", "NVDA", False),
    ],
)
def test_mentions(text: str, symbol: str, expected: bool) -> None:
    assert mentions(text, symbol) is expected


def test_company_classes_and_lists() -> None:
    assert company_tickers("goog") == {"GOOG", "GOOGL"}
    assert company_tickers("NVDA") == {"NVDA"}
    assert listed("GOOG", ["SPY", "googl"]) and not listed("F", ["FORD", "GM"])
    assert cashtagged("buy $GOOG now", "GOOGL") and not cashtagged("buy GOOG now", "GOOGL")
