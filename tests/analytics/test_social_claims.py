"""Claims extracted from posts: each kind, negations, questions, hedges, other tickers, real Reddit posts."""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from findesk.analytics.social_claims import MAX_TEXT, SocialClaim, extract_claims, extract_news_claims
from findesk.data.models import NewsItem, SocialAuthor, SocialPost, Source
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.social import SocialStore

AS_OF = date(2025, 8, 29)
WHEN = datetime(2025, 8, 20, 15, 0, tzinfo=UTC)


def post(
    text: str, *, title: str | None = None, tickers: tuple[str, ...] = ("AAPL",), pid: str = "p1"
) -> SocialPost:
    return SocialPost(
        id=pid,
        platform="reddit",
        author=SocialAuthor(username="someone"),
        title=title,
        text=text,
        url=f"https://reddit.example/{pid}",
        published_at=WHEN,
        tickers=list(tickers),
        source=Source(vendor="test", ref="constructed"),
    )


def kinds(
    text: str, symbol: str = "AAPL", *, title: str | None = None, tickers: tuple[str, ...] = ("AAPL",)
) -> list[tuple[str, float | None]]:
    return [(c.kind, c.value) for c in extract_claims([post(text, title=title, tickers=tickers)], symbol)]


# --- event kinds ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("$AAPL buyout incoming at $300 a share.", "buyout"),
        ("AAPL is being acquired by a consortium.", "buyout"),
        ("Microsoft made a takeover bid for AAPL.", "buyout"),
        ("AAPL agreed to acquire Perplexity.", "buyout"),
        ("AAPL is merging with Disney.", "merger"),
        ("The AAPL merger closes Friday.", "merger"),
        ("AAPL got FDA approval for its hearing aid feature.", "fda_approval"),
        ("AAPL filed for Chapter 11 this morning.", "bankruptcy"),
        ("AAPL files for bankruptcy.", "bankruptcy"),
        ("AAPL announced a secondary offering.", "offering"),
        ("Massive dilution at AAPL.", "offering"),
        ("AAPL announced a 4-for-1 stock split.", "split"),
        ("AAPL does a reverse split.", "split"),
        ("AAPL beat earnings again.", "earnings_beat"),
        ("AAPL crushed estimates.", "earnings_beat"),
        ("AAPL missed estimates.", "earnings_miss"),
        ("AAPL fell short of expectations.", "earnings_miss"),
        ("AAPL raised guidance for the September quarter.", "guidance"),
        ("AAPL cut its full-year guidance.", "guidance"),
    ],
)
def test_each_event_kind_is_found(text: str, kind: str) -> None:
    assert kinds(text) == [(kind, None)]


@pytest.mark.parametrize(
    "text",
    [
        "There is no buyout coming for AAPL.",
        "AAPL is not going bankrupt.",
        "Rumors of an AAPL stock split are false.",
        "AAPL denied the merger reports.",
        "AAPL didn't beat earnings.",
        "AAPL avoided bankruptcy.",
    ],
)
def test_negated_statements_are_not_claims(text: str) -> None:
    assert kinds(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "Will AAPL split?",
        "Will AAPL do a stock split?",
        "Is AAPL being acquired?",
        "AAPL revenue of $120 billion?",
    ],
)
def test_questions_are_not_claims(text: str) -> None:
    assert kinds(text) == []


@pytest.mark.parametrize(
    "text",
    [
        "If AAPL gets acquired I'm rich.",
        "AAPL could be acquired next year.",
        "I expect AAPL to beat earnings.",
        "Analysts expect AAPL revenue of $89B.",
        "AAPL revenue will be about $100 billion.",
        "AAPL dilution will follow.",
    ],
)
def test_hedged_statements_are_not_claims(text: str) -> None:
    assert kinds(text) == []


def test_a_rumor_stated_as_news_is_a_claim() -> None:
    assert kinds("Hearing rumors of an AAPL buyout at $300.") == [("buyout", None)]


# --- figures ---------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("AAPL revenue of $94.0B this quarter.", 94_000_000_000.0),
        ("AAPL sales came in at $94 billion.", 94_000_000_000.0),
        ("AAPL posted $94B revenue.", 94_000_000_000.0),
        ("AAPL revenue was $94.04bn vs. $89.5bn expected.", 94_040_000_000.0),
        ("AAPL revenue: $391,035,000,000 for the year.", 391_035_000_000.0),
        ("AAPL revenue hit $1.2T.", 1_200_000_000_000.0),
        ("AAPL revenue of $850M.", 850_000_000.0),
        ("AAPL revenue of $850,000K.", 850_000_000.0),
    ],
)
def test_revenue_figures_are_parsed_into_plain_usd(text: str, value: float) -> None:
    [claim] = extract_claims([post(text)], "AAPL")
    assert (claim.kind, claim.value, claim.unit) == ("revenue", value, "USD")


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("AAPL EPS of $1.57.", 1.57),
        ("AAPL earned $1.57 a share.", 1.57),
        ("AAPL diluted earnings per share: $1.57 vs. $1.43 expected", 1.57),
        ("AAPL reported a loss of $0.12 per share.", -0.12),
    ],
)
def test_eps_figures_are_usd_per_share(text: str, value: float) -> None:
    [claim] = extract_claims([post(text)], "AAPL")
    assert (claim.kind, claim.value, claim.unit) == ("eps", value, "USD/shares")


@pytest.mark.parametrize(
    ("text", "value", "metric"),
    [
        ("AAPL revenue up 10% year over year.", 10.0, "revenue"),
        ("AAPL revenue fell 5%.", -5.0, "revenue"),
        ("AAPL just reported 10% revenue growth.", 10.0, "revenue"),
        ("AAPL EPS grew 12%.", 12.0, "eps"),
        ("AAPL grew 10% YoY.", 10.0, None),
    ],
)
def test_growth_figures_are_percent_with_what_grew(text: str, value: float, metric: str | None) -> None:
    [claim] = extract_claims([post(text)], "AAPL")
    assert (claim.kind, claim.value, claim.unit, claim.metric) == ("growth", value, "percent", metric)


@pytest.mark.parametrize(
    "text",
    [
        "AAPL iPhone revenue of $44.6 billion.",  # a segment, not the company
        "AAPL Services revenue up 13%.",
        "AAPL shares rose 10% year-over-year.",  # the stock, not a figure
        "AAPL revenue of $94.",  # no magnitude
        "AAPL will invest $100 billion in US manufacturing.",
        "AAPL revenue growth and a $100 billion investment.",
    ],
)
def test_segment_stock_and_scale_free_figures_are_not_claims(text: str) -> None:
    assert kinds(text) == []


# --- which sentences ---------------------------------------------------------------------------


def test_sentences_about_other_tickers_do_not_count() -> None:
    text = "$MSFT is being acquired. $AAPL beat earnings."
    assert kinds(text, tickers=("AAPL", "MSFT")) == [("earnings_beat", None)]
    assert kinds(text, "MSFT", tickers=("AAPL", "MSFT")) == [("buyout", None)]


def test_the_sentence_naming_the_company_is_preferred_over_a_ticker_free_one() -> None:
    text = "Revenue came in at $50 billion. $MSFT is flat. $AAPL revenue came in at $94 billion."
    [claim] = extract_claims([post(text, title="AAPL and MSFT earnings", tickers=("AAPL", "MSFT"))], "AAPL")
    assert (claim.value, claim.text) == (94e9, "$AAPL revenue came in at $94 billion.")


def test_ticker_free_sentences_need_a_post_focused_on_the_company() -> None:
    # Tagged AAPL by the source, but the story is about another company: nothing is attributed to Apple.
    story = "Applied Materials drops 14% after weak forecast"
    assert kinds("Revenue rose 7.7% to $7.3 billion. Profit was $2.48 a share.", title=story) == []
    assert kinds("Revenue came in at $94 billion.", title="AAPL earnings") == [("revenue", 94e9)]


def test_names_paired_with_the_ticker_and_aliases_count_like_the_ticker() -> None:
    title = "Thinking about Apple (AAPL) and $MSFT"
    text = "Apple revenue came in at $94 billion. Revenue hit $70 billion at the other one."
    [claim] = extract_claims([post(text, title=title, tickers=("AAPL", "MSFT"))], "AAPL")
    assert claim.value == 94e9
    claims = extract_claims([post("Apple is being acquired.", tickers=("AAPL",))], "AAPL", aliases=["Apple"])
    assert [c.kind for c in claims] == ["buyout"]
    assert extract_claims([post("Apple is being acquired.", tickers=("AAPL",))], "AAPL") == []


def test_posts_not_about_the_symbol_are_skipped() -> None:
    assert kinds("$MSFT is being acquired.", tickers=("MSFT",)) == []


def test_one_claim_per_post_and_kind_from_the_first_sentence() -> None:
    text = "AAPL is being acquired. Really, AAPL is being acquired by Google! AAPL EPS of $1.57."
    claims = extract_claims([post(text)], "AAPL")
    assert [(c.kind, c.text) for c in claims] == [
        ("buyout", "AAPL is being acquired."),
        ("eps", "AAPL EPS of $1.57."),
    ]


def test_claim_carries_the_post_and_a_one_line_clipped_sentence() -> None:
    long = "AAPL   is being\n acquired " + "and that is great " * 20
    [claim] = extract_claims([post(long.replace("\n", " "))], "AAPL")
    assert claim == SocialClaim(
        kind="buyout",
        text=claim.text,
        post_id="p1",
        platform="reddit",
        author="someone",
        url="https://reddit.example/p1",
        published_at=WHEN,
    )
    assert claim.text.startswith("AAPL is being acquired and that")
    assert MAX_TEXT - 2 <= len(claim.text) <= MAX_TEXT and claim.text.endswith("…")


def test_news_items_use_title_and_summary() -> None:
    item = NewsItem(
        id="n1",
        title="Apple (AAPL) beats estimates",
        summary="AAPL revenue came in at $94.04 billion. Shares rose.",
        url="https://news.example/n1",
        publisher="Wire",
        published_at=WHEN,
        tickers=["AAPL"],
        source=Source(vendor="test", ref="constructed"),
    )
    claims = extract_news_claims([item], "AAPL")
    assert [(c.kind, c.value, c.platform, c.author) for c in claims] == [
        ("earnings_beat", None, "news", "Wire"),
        ("revenue", 94.04e9, "news", "Wire"),
    ]


def test_odd_input_gives_no_claims() -> None:
    assert extract_claims([], "AAPL") == []
    assert extract_claims([post("")], "AAPL") == []
    assert extract_claims([post("AAPL is being acquired.")], "") == []
    assert extract_claims([post("$$$ ... ??? \n\n * - AAPL")], "AAPL") == []
    assert extract_news_claims([], "AAPL") == []


# --- real Reddit posts --------------------------------------------------------------------------


def _reddit(snapshot_dir: Path, symbol: str) -> list[SocialPost]:
    posts = SocialStore(SnapshotFiles(snapshot_dir)).reddit(symbol, AS_OF, 50)
    assert hasattr(posts, "value"), posts
    return list(posts.value)


def _summary(claims: list[SocialClaim]) -> list[tuple[str, str, float | None, str | None, str]]:
    return [(c.post_id, c.kind, c.value, c.metric, c.text) for c in claims]


def test_real_aapl_posts(snapshot_dir: Path) -> None:
    claims = extract_claims(_reddit(snapshot_dir, "AAPL"), "AAPL")
    gemini = "Apple: Apple's revenue grew 5% year-over-year, reaching $95.4 billion."
    beat = "reddit:1mecmyg"
    assert _summary(claims) == [
        ("reddit:1mkcur7", "revenue", 95.4e9, None, gemini),
        ("reddit:1mkcur7", "growth", 5.0, "revenue", gemini),
        (
            "reddit:1mjonq7",
            "growth",
            10.0,
            "revenue",
            "Apple just reported 10% revenue growth and 12% profit growth.",
        ),
        (beat, "earnings_beat", None, None, "DOUBLE BEAT!"),
        (beat, "eps", 1.57, None, "EPS of $1.57 beating expectations of $1.42"),
        (beat, "revenue", 94e9, None, "Revenue of $94B beating expectations of $88.9B"),
    ]
    assert all(c.platform == "reddit" and c.published_at.date() <= AS_OF for c in claims)


def test_real_aapl_posts_with_the_company_name(snapshot_dir: Path) -> None:
    claims = extract_claims(_reddit(snapshot_dir, "AAPL"), "AAPL", aliases=["Apple"])
    found = {(c.post_id, c.kind): c for c in claims}
    # The CNBC recap post names only "Apple", so it counts once the name is given.
    assert (found[("reddit:1mecqq7", "eps")].value, found[("reddit:1mecqq7", "revenue")].value) == (
        1.57,
        94.04e9,
    )
    assert found[("reddit:1mecqq7", "revenue")].text == "Revenue: $94.04 billion vs. $89.53 billion expected"
    # The Applied Materials story the source tagged AAPL gives Apple nothing, name or not.
    assert not any(c.post_id == "reddit:1mrhn9m" for c in claims)
    assert len(claims) == 8


def test_real_nvda_posts(snapshot_dir: Path) -> None:
    claims = extract_claims(_reddit(snapshot_dir, "NVDA"), "NVDA")
    assert [(c.post_id, c.kind, c.text) for c in claims] == [
        ("reddit:1n0e4ys", "earnings_beat", "NVDA has beaten earnings for essentially the past 8 quarters."),
        (
            "reddit:1n01bjn",
            "earnings_beat",
            "This sub after NVDA crushes earnings and the FED lowers the rates:",
        ),
        (
            "reddit:1n01bjn",
            "guidance",
            "This sub after NVDA lowers guidance and the FED leaves rates unchanged:",
        ),
    ]
    # Analysts' previews ("projecting EPS of $1.01 and revenue of $46B") are forecasts, not claims.
    assert not any(c.kind in ("eps", "revenue") for c in claims)
