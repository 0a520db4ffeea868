"""Which posts count as opinion about a company: bots, megathreads and passing mentions are not."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from findesk.analytics.social_scope import exclusion, is_bot, is_megathread, name_count
from findesk.data.models import SocialAuthor, SocialPost, Source


def _post(title: str, text: str = "", *, author: str = "someone", platform: str = "reddit") -> SocialPost:
    return SocialPost(
        id=f"{platform}:x",
        platform=platform,  # type: ignore[arg-type]  # a literal chosen by the test
        author=SocialAuthor(username=author),
        title=title,
        text=text,
        published_at=datetime(2025, 8, 20, 23, 59, 59, tzinfo=UTC),
        source=Source(vendor="test", ref="made"),
    )


@pytest.mark.parametrize("name", ["AutoModerator", "u/AutoModerator", "VisualMod", "stocks-ModTeam"])
def test_bot_and_moderator_accounts(name: str) -> None:
    assert is_bot(name)


@pytest.mark.parametrize("name", ["Robotnik", "modest_investor", None, ""])
def test_people_are_not_bots(name: str | None) -> None:
    assert not is_bot(name)


@pytest.mark.parametrize(
    "title",
    [
        "r/Stocks Daily Discussion & Fundamentals Friday Aug 22, 2025",
        "/r/Stocks Weekend Discussion Saturday - Aug 23, 2025",
        "What Are Your Moves Tomorrow, August 28, 2025",
        "Rate My Portfolio - r/Stocks Quarterly Thread September 2025",
        "Daily General Discussion and Advice Thread - August 20, 2025",
    ],
)
def test_recurring_threads(title: str) -> None:
    assert is_megathread(title)
    assert (
        exclusion(_post(title, "AAPL AAPL AAPL calls", author="someone"), "AAPL", ["Apple"]) == "megathread"
    )


@pytest.mark.parametrize("title", ["Rate my 8 week DCA investment plan", "Apple discussion: is AAPL cheap?"])
def test_ordinary_titles_are_not_recurring_threads(title: str) -> None:
    assert not is_megathread(title)


def test_a_bot_post_is_excluded_whatever_it_says() -> None:
    post = _post(
        "r/Stocks Daily Discussion & Fundamentals Friday Aug 22, 2025", "AAPL", author="AutoModerator"
    )
    assert exclusion(post, "AAPL", ["Apple"]) == "bot"


def test_another_companys_news_with_one_aside_is_a_passing_mention() -> None:
    post = _post(
        "Comcast Gets Serious About Subscriber Losses - A Long Fight Looms",
        "Comcast is losing broadband customers. One commenter: I'd rather own AAPL.",
    )
    assert exclusion(post, "AAPL", ["Apple"]) == "passing"


def test_a_title_or_repeated_naming_makes_a_post_about_the_company() -> None:
    assert exclusion(_post("Aapl HODL gang", "diamond hands"), "AAPL", ["Apple"]) is None
    assert exclusion(_post("Apple in talks with Google"), "AAPL", ["Apple"]) is None
    body = "Apple's services grew. AAPL is my biggest holding. I trust Apple's buybacks."
    assert exclusion(_post("I got Tim COOKED", body), "AAPL", ["Apple"]) is None


def test_names_are_whole_words_and_short_tickers_need_a_cashtag() -> None:
    assert name_count("Pineapple AAPLX apple", "AAPL", ["Apple"]) == 0
    assert name_count("$F and F-150, Ford", "F", ["Ford"]) == 2  # $F and Ford; the bare F is prose
    assert name_count("GOOG and Alphabet and GOOGL", "GOOGL", ["Alphabet"]) == 3


def test_stocktwits_stream_messages_are_about_their_stream() -> None:
    assert exclusion(_post("", "to the moon", platform="stocktwits"), "AAPL", ["Apple"]) is None
