"""Headline tone and the news analyst's signals: what a reader of the desk's news line would notice."""

from __future__ import annotations

import pytest

from findesk.analytics.trading.news_tone import (
    InsiderFigures,
    company_aliases,
    headline_tone,
    names_company,
    news_signals,
    tally,
)


@pytest.mark.parametrize(
    ("title", "sign"),
    [
        ("Apple beats estimates and raises its dividend to a record", 1),
        ("Analyst upgrades Nvidia to outperform", 1),
        ("Apple misses on revenue as iPhone sales drop", -1),
        ("DOJ opens antitrust probe into Google; lawsuit expected", -1),
        ("Morgan Stanley downgrades Tesla", -1),
        ("Apple cuts its guidance for the June quarter", -1),
        ("Microsoft raises guidance after cloud growth", 1),
        ("Apple to hold its developer conference in June", 0),
    ],
)
def test_company_headline_tone_follows_the_documented_words(title: str, sign: int) -> None:
    tone = headline_tone(title, "company")
    assert -1.0 <= tone <= 1.0
    assert (tone > 0) - (tone < 0) == sign, (title, tone)


def test_tone_is_the_balance_of_cue_words() -> None:
    # beats (+) and lawsuit (-) balance; two positives and one negative give (2 - 1) / 3
    assert headline_tone("Apple beats forecasts despite lawsuit") == 0.0
    assert headline_tone("Apple beats forecasts, raises outlook despite lawsuit") == pytest.approx(0.33)


def test_macro_phrases_read_differently_from_company_words() -> None:
    # a rate cut is good news for stocks; a company cutting anything is not
    assert headline_tone("Fed signals a rate cut in September", "macro") > 0
    assert headline_tone("Recession fears drive a selloff on Wall Street", "macro") == -1.0
    assert headline_tone("Stocks rally after tariff pause", "macro") == 1.0
    # the search's topic words are not cues: a neutral tariff headline stays neutral
    assert headline_tone("Tariffs and the Fed: what to watch this week", "macro") == 0.0
    assert headline_tone("Nvidia cuts prices of gaming chips", "company") < 0


def test_a_headline_is_the_companys_only_when_it_names_it() -> None:
    aliases = company_aliases("AAPL", "Apple Inc.")
    assert aliases == ["Apple"]
    assert names_company("Apple (AAPL) sees iPhone shipments plunge", "AAPL", aliases)
    assert names_company("Why $aapl is moving", "AAPL", aliases)
    assert names_company("APPLE unveils new Macs", "AAPL", aliases)
    # a vendor tagged this AAPL: it names another company
    assert not names_company("Why Confluent (CFLT) Stock Is Falling Today", "AAPL", aliases)
    assert not names_company("Snapple sales rise", "AAPL", aliases)


def test_aliases_drop_legal_suffixes_and_generic_first_words() -> None:
    assert company_aliases("NVDA", "NVIDIA CORP") == ["NVIDIA"]
    assert company_aliases("JPM", "JPMORGAN CHASE & CO") == ["JPMORGAN CHASE", "JPMORGAN"]
    assert company_aliases("GOOGL", "Alphabet Inc.") == ["Alphabet", "Google"]
    # "Bank" alone would claim every bank's headline
    assert company_aliases("BAC", "BANK OF AMERICA CORP /DE/") == ["BANK OF AMERICA"]
    jpm = company_aliases("JPM", "JPMORGAN CHASE & CO")
    assert names_company("JPMorgan Chase beats on trading revenue", "JPM", jpm)


def test_company_signal_scores_twice_the_mean_tone_and_weighs_by_count() -> None:
    signals = news_signals([1.0, 0.5, 0.0, -0.5, 1.0], [], None)
    assert [s.id for s in signals] == ["news.company_tone"]
    s = signals[0]
    assert s.score == pytest.approx(0.8)  # mean 0.4, doubled
    assert s.weight == 1.0
    assert "5 company headline(s)" in s.text and "3 positive, 1 negative, 1 neutral" in s.text
    assert "mean tone +0.40" in s.text
    thin = news_signals([1.0, 1.0], [], None)[0]
    assert thin.score == 2.0 and thin.weight == pytest.approx(0.4)  # two headlines: 2/5 of the weight


def test_macro_news_weighs_half_and_scores_at_most_one() -> None:
    (g,) = news_signals([], [-1.0] * 6, None, span=" published 2025-04-01..2025-05-01")
    assert g.id == "news.global_tone" and g.score == -1.0 and g.weight == 0.5
    assert g.text.startswith("6 macro headline(s) published 2025-04-01..2025-05-01")


def test_no_news_and_unknown_insiders_give_no_signal_not_zeros() -> None:
    assert news_signals([], [], None) == []


def test_insider_buying_and_selling_when_known() -> None:
    buy = news_signals([], [], InsiderFigures(buys=3, sells=1, net_shares=12_000))[0]
    sell = news_signals([], [], InsiderFigures(buys=0, sells=4, net_shares=-50_000))[0]
    assert (buy.id, buy.score, buy.weight) == ("news.insider", 1.0, 0.5)
    assert sell.score == -0.5 and "net -50,000 shares" in sell.text


def test_tally_counts_signs() -> None:
    t = tally([0.5, -0.25, 0.0])
    assert (t.headlines, t.positive, t.negative, t.neutral, t.mean) == (3, 1, 1, 1, 0.08)
    assert tally([]).mean == 0.0
