"""Advice requests are refused in eight languages and in indirect or client-framed wording; research
questions that share the vocabulary pass; look-alike spellings do not slip through."""

from __future__ import annotations

from typing import Any

import pytest
from advice_request_table import ADVICE, BENIGN, ISSUE_12

from findesk.core.result import Err, ErrorCode, Ok
from findesk.guardrails.advice import check_request
from findesk.guardrails.text_fold import fold


def _rows(table: dict[str, list[str]]) -> list[Any]:
    return [
        pytest.param(text, id=f"{lang}-{i}") for lang, texts in table.items() for i, text in enumerate(texts)
    ]


def test_the_table_covers_sixty_of_each_in_five_languages_or_more() -> None:
    assert sum(map(len, ADVICE.values())) >= 60 and sum(map(len, BENIGN.values())) >= 60
    assert len([lang for lang, texts in ADVICE.items() if len(texts) >= 6]) >= 5
    assert len([lang for lang, texts in BENIGN.items() if len(texts) >= 6]) >= 5
    assert set(ISSUE_12) <= {text for texts in ADVICE.values() for text in texts}


@pytest.mark.parametrize("text", _rows(ADVICE))
def test_advice_requests_are_refused_whatever_the_language(text: str) -> None:
    got = check_request(text)
    assert isinstance(got, Err) and got.code is ErrorCode.REFUSED, text
    assert got.details["matched"]


@pytest.mark.parametrize("text", _rows(BENIGN))
def test_research_questions_sharing_the_vocabulary_pass(text: str) -> None:
    assert check_request(text) == Ok(text)


@pytest.mark.parametrize(
    "text",
    [
        "ＳＨＯＵＬＤ　Ｉ　ＳＥＬＬ　ＡＡＰＬ？",  # full-width
        "Ѕhоuld Ι ЬUY AAPL?",  # Cyrillic S, o, b and a Greek capital iota
        "sh\u200bould I b\u00aduy AAPL?",  # zero-width space, soft hyphen
        "𝐒𝐡𝐨𝐮𝐥𝐝 𝐈 𝐛𝐮𝐲 𝐀𝐀𝐏𝐋?",  # mathematical bold
        "Should\u00a0I\u00a0buy AAPL",  # no-break spaces, no question mark
        "DEBERÍA COMPRAR APPLE",
        "Deberia comprar Apple",  # accents left out
        "SOLL ICH APPLE KAUFEN",
        "Würden Sie NVDA kaufen?",
        "Wurden Sie NVDA kaufen?",
        "應該買入蘋果嗎",  # traditional characters
        "我应该买入ＡＡＰＬ吗？",
    ],
)
def test_look_alike_spellings_are_refused_too(text: str) -> None:
    got = check_request(text)
    assert isinstance(got, Err) and got.code is ErrorCode.REFUSED, text


def test_folding_keeps_words_and_japanese_voicing_marks() -> None:
    assert fold("What’s your PRICE target?") == "whats your price target"
    assert fold("D'après l'analyste, faut-il acheter ?") == "d apres l analyste faut il acheter"
    assert fold("Straße ÜBER") == "strasse uber"
    assert fold("買うべきですか？が") == "買うべきですか が"
    assert fold(None) == ""  # type: ignore[arg-type]


def test_a_cited_headline_does_not_excuse_advice_in_the_next_sentence() -> None:
    assert check_request("Analysts said the stock was cheap. What price target cut was reported?").ok
    got = check_request("Analysts cut their targets last week. Will AAPL go up from here?")
    assert isinstance(got, Err) and got.code is ErrorCode.REFUSED


def test_the_refusal_is_clear_and_says_what_the_desk_does_instead() -> None:
    got = check_request("我应该买入苹果吗")
    assert isinstance(got, Err)
    assert got.reason.startswith("findesk does not give investment advice")
    assert "whatever the wording or language" in got.reason
    assert "cited briefing" in got.reason and "what are the main risks for AAPL" in got.reason
