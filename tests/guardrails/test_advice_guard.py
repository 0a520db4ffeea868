"""No-advice policy: advice requests are refused, research questions pass, advice in our prose is
caught and scrubbed, and ordinary financial prose is left alone."""

from __future__ import annotations

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.guardrails.advice import (
    MAX_INPUT_CHARS,
    SCRUB_MARKER,
    AdviceFinding,
    check_request,
    find_advice,
    scrub_advice,
)
from findesk.interfaces.cli.session import EXIT_CODES

# ---- input ----------------------------------------------------------------------------------------

REFUSED = [
    "Should I buy AAPL?",
    "should i SELL my TSLA shares??",
    "Should I hold NVDA through earnings?",
    "should I short GME",
    "Is AAPL a buy?",
    "is nvda a good buy right now",
    "Is Tesla a good investment?",
    "AAPL: buy or sell?",
    "buy, sell, or hold AAPL?",
    "What's your price target for NVDA?",
    "what’s your 12 month target on MSFT",
    "Give me a price target for AMZN",
    "Where will AAPL be in a year?",
    "How much should I put in MSFT?",
    "how much should I allocate to bitcoin",
    "What percentage of my portfolio should be NVDA?",
    "rate it buy or sell",
    "Is it time to sell TSLA?",
    "Do you think I should buy more Apple?",
    "is now a good time to buy AMD?",
    "Would you buy META here?",
    "Should I be buying NVDA?",
    "How many shares of AAPL should I buy?",
    "which stocks should I buy",
    "Is AAPL worth buying?",
    "rebalance my portfolio for me",
    "will TSLA go up tomorrow?",
    "where will nvidia be in a year?",
]

ALLOWED = [
    "What are the risks for AAPL?",
    "What did NVDA's last 8-K announce?",
    "summarize sentiment on TSLA",
    "What was the price target cut reported in the news?",
    "What price targets did analysts publish for NVDA this week?",
    "Which analysts upgraded MSFT to buy, according to the news?",
    "AAPL",
    "Did insiders buy or sell AAPL shares last quarter?",
    "How much did Apple spend on buybacks in 2024?",
    "What percentage of revenue comes from services?",
    "Why did TSLA sell off in August?",
    "Compare Best Buy and Target revenue",
    "What is the buy-side saying about MSFT?",
    "what is short interest on GME",
    "How much did Apple allocate to R&D?",
    "Is there a buyback program at AAPL?",
    "What was AAPL's closing price on 2025-08-29?",
    "what is a buy and hold strategy?",
    "did any fund sell its stake in NVDA",
    "Is this a short-term trend?",
    "Where will the annual meeting be held?",
    "How do I get in touch with investor relations?",
]


@pytest.mark.parametrize("text", REFUSED)
def test_advice_requests_are_refused_with_an_alternative(text: str) -> None:
    got = check_request(text)
    assert isinstance(got, Err), text
    assert got.code is ErrorCode.REFUSED
    assert "does not give investment advice" in got.reason
    assert "price targets" in got.reason and "allocations" in got.reason
    assert "cited briefing" in got.reason  # says what findesk can do instead
    assert got.details["matched"]  # the phrase that triggered it, for the audit log


@pytest.mark.parametrize("text", ALLOWED)
def test_research_questions_pass_stripped(text: str) -> None:
    assert check_request(f"  {text}\n") == Ok(text)


def test_asking_us_for_a_target_is_refused_even_next_to_news_words() -> None:
    assert check_request("What price target cut was reported in the news?").ok
    got = check_request("Given the target cut reported in the news, what's your price target?")
    assert isinstance(got, Err) and got.code is ErrorCode.REFUSED


def test_length_cap_names_the_length_and_the_cap() -> None:
    assert check_request("a" * MAX_INPUT_CHARS).ok
    got = check_request("a" * (MAX_INPUT_CHARS + 1))
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert "2,000" in got.reason and "2,001" in got.reason


def test_empty_request_is_not_an_advice_request() -> None:
    assert check_request("   ") == Ok("")


def test_refused_is_a_caller_error_not_retried_and_exits_2() -> None:
    assert ErrorCode.REFUSED.value == "refused"
    assert not ErrorCode.REFUSED.is_fallthrough
    assert EXIT_CODES[ErrorCode.REFUSED] == 2


# ---- output ---------------------------------------------------------------------------------------

FLAGGED = [
    ("We recommend buying AAPL ahead of the event.", "recommendation", "We recommend buying"),
    ("Buy AAPL.", "recommendation", "Buy AAPL"),
    ("- Sell TSLA now", "recommendation", "Sell TSLA"),
    ("AAPL: buy.", "recommendation", "buy"),
    ("Hold AAPL.", "recommendation", "Hold AAPL"),
    ("Bottom line: buy NVDA.", "recommendation", "buy NVDA"),
    ("AAPL is a strong buy.", "recommendation", "strong buy"),
    ("We rate AAPL a buy.", "recommendation", "rate AAPL a buy"),
    ("We rate it as a hold.", "recommendation", "rate it as a hold"),
    ("You should sell your NVDA shares.", "recommendation", "You should sell"),
    ("Accumulate on dips.", "recommendation", "Accumulate on dips"),
    ("We assign an overweight rating to MSFT.", "recommendation", "overweight rating"),
    ("Our price target of $250 implies 8% upside.", "price_target", "price target of $250"),
    ("PT $250.", "price_target", "PT $250"),
    ("We see fair value of $300 per share.", "price_target", "fair value of $300"),
    ("We expect AAPL to reach $260 by year-end.", "price_target", "We expect AAPL to reach $260"),
    ("Allocate 5% of your portfolio to AAPL.", "allocation", "5% of your portfolio"),
    ("Put 10% of your portfolio in NVDA.", "allocation", "10% of your portfolio"),
]

NOT_ADVICE = [
    "The 10-K describes risks to sales in China.",
    "Retail posters are bullish.",
    "Stocktwits: 12 bullish / 3 bearish.",
    "The quote shows a buy-side bid of 232.10.",
    "The company bought back shares worth $94 billion.",
    "The buyback program continued.",
    "The buy-side was quiet.",
    "Best Buy reported earnings.",
    "A sell-off hit tech on Friday.",
    "The company sold 10 million units.",
    "Short interest rose to 3.2% of float.",
    "Strong buying volume lifted shares.",
    "Morgan Stanley cut its price target to $250, Reuters reported.",
    "The fair value of the notes was $1.2 billion.",
    "Target reported sales of $25 billion.",
    "Insiders sold 10,000 shares.",
    "Apple plans to buy back up to $100 billion of stock.",
    "Management will maintain its hold on costs.",
    "Management set a cost-savings target of $2 billion.",
    "EVs were less than 10% of our lease portfolio.",
    "To reconcile, you need to add the 300 units shipped in July.",
    "Hold on: the quote is delayed.",
]


@pytest.mark.parametrize(("text", "kind", "phrase"), FLAGGED)
def test_advice_in_our_prose_is_found(text: str, kind: str, phrase: str) -> None:
    found = find_advice(text)
    assert [(f.kind, f.text) for f in found] == [(kind, phrase)]
    assert found[0].sentence == text.removeprefix("- ")  # the sentence, without its list bullet


@pytest.mark.parametrize("text", NOT_ADVICE)
def test_ordinary_financial_prose_is_not_advice(text: str) -> None:
    assert find_advice(text) == []


def test_scrub_replaces_only_the_offending_sentences() -> None:
    text = (
        "Apple closed at $232.14 on 2025-08-29. We recommend buying the stock. The 10-Q was filed "
        "2025-08-01.\n- Price target: $275.\n- Retail posters are bullish."
    )
    scrubbed, found = scrub_advice(text)
    assert scrubbed == (
        f"Apple closed at $232.14 on 2025-08-29. {SCRUB_MARKER} The 10-Q was filed 2025-08-01.\n"
        f"- {SCRUB_MARKER}\n- Retail posters are bullish."
    )
    assert [f.kind for f in found] == ["recommendation", "price_target"]


def test_scrub_leaves_clean_text_untouched() -> None:
    text = "Apple closed at $232.14. A sell-off hit tech; Best Buy fell 3%."
    assert scrub_advice(text) == (text, [])


def test_findings_clip_long_sentences() -> None:
    text = "We recommend buying AAPL because " + "the filings say so and " * 20 + "more."
    (found,) = find_advice(text)
    assert isinstance(found, AdviceFinding)
    assert len(found.sentence) == 240 and found.sentence.endswith("…")


def test_odd_text_never_raises() -> None:
    for text in ["", "   ", "\n\n", "$$$ %%% ...", "1.", "- 2.", "Buy-side", "PT", "strong", "Item 1A:"]:
        assert find_advice(text) == []
        assert scrub_advice(text) == (text, [])
