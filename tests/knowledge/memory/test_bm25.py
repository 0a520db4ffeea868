"""BM25 over short situations: the obviously similar past case ranks first, deterministically."""

from __future__ import annotations

import math

from findesk.knowledge.memory.bm25 import scores, tokens, top

SITUATIONS = [
    "XOM Exxon Mobil energy. regime risk-off. market bearish: oil prices falling, RSI(14) 31 oversold",
    "NVDA NVIDIA semiconductors. regime risk-on. market bullish: RSI(14) 71 overbought, above SMA200; "
    "fundamentals bullish: revenue growth 262% data center demand",
    "JPM JPMorgan banks. regime transition. fundamentals neutral: net interest margin flat, credit losses",
    "AAPL Apple hardware. regime risk-on. news bearish: iPhone sales decline in China",
]


def test_the_obviously_similar_situation_ranks_first() -> None:
    query = "AMD semiconductors, regime risk-on, market bullish: RSI overbought, data center revenue growth"
    assert top(query, SITUATIONS, k=2)[0] == 1
    assert top("bank credit losses and net interest margin", SITUATIONS, k=1) == [2]
    assert top("oil prices falling, energy risk-off", SITUATIONS, k=1) == [0]


def test_only_documents_sharing_a_word_are_returned_and_k_bounds_the_rest() -> None:
    assert top("cryptocurrency staking yields", SITUATIONS) == []  # nothing in common: no lesson
    assert len(top("regime", SITUATIONS, k=2)) == 2
    assert top("regime", SITUATIONS, k=0) == []
    assert top("anything", [], k=2) == []


def test_ties_keep_the_input_order_and_runs_repeat_exactly() -> None:
    docs = ["risk-off regime", "something else", "risk-off regime"]
    assert top("risk-off", docs, k=2) == [0, 2]
    assert scores("risk-off", docs) == scores("risk-off", docs)
    assert top("risk-off", ["regime risk-off", "risk-off regime"], k=2) == [0, 1]


def test_stop_words_and_bare_numbers_do_not_match() -> None:
    assert tokens("The RSI(14) is 71.2 and the stock is overbought") == ["rsi", "stock", "overbought"]
    assert top("the of and 2024", ["the year 2024 of the rally", "rally"]) == []


def test_scores_follow_okapi_bm25_with_k1_1_5_and_b_0_75() -> None:
    docs = ["alpha beta beta", "gamma", "alpha"]
    # "beta": n = 1 of N = 3 documents; the first document has 3 words, the average is 5/3
    idf = math.log(1 + (3 - 1 + 0.5) / (1 + 0.5))
    tf = 2
    expected = idf * tf * 2.5 / (tf + 1.5 * (1 - 0.75 + 0.75 * 3 / (5 / 3)))
    got = scores("beta", docs)
    assert math.isclose(got[0], expected, rel_tol=1e-12)
    assert got[1] == 0.0 and got[2] == 0.0
    # a shorter document with the same term frequency scores higher (length normalisation)
    assert scores("alpha", docs)[2] > scores("alpha", docs)[0]
