"""Social claims checked against real 8-K items and XBRL facts (AAPL, NVDA): one verdict per claim."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from findesk.analytics.divergence import ClaimCheck, check_claims
from findesk.analytics.social_claims import SocialClaim, extract_claims
from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.data.models import Fact, MaterialEvent, SocialPost, Source
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.social import SocialStore
from findesk.tools.catalog import close_tool_context, open_tool_context

AS_OF = date(2025, 8, 29)
WHEN = datetime(2025, 8, 20, 15, 0, tzinfo=UTC)
AAPL_Q3_10Q = (
    "https://www.sec.gov/Archives/edgar/data/320193/000032019325000073/0000320193-25-000073-index.htm"
)
AAPL_FY24_10K = (
    "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/0000320193-24-000123-index.htm"
)
REVENUE = "RevenueFromContractWithCustomerExcludingAssessedTax"


@dataclass(frozen=True)
class Filings:
    revenue: list[Fact]
    eps: list[Fact]
    events: list[MaterialEvent]
    stale_revenue: list[Fact]  # NVDA stopped tagging this concept in 2022

    @property
    def facts(self) -> dict[str, list[Fact]]:
        return {"revenue": self.revenue, "eps": self.eps}


async def _load(settings: Settings, symbol: str, revenue: str) -> Filings:
    context = resolve_context(settings, mode="snapshot", as_of=AS_OF)
    assert not isinstance(context, Err), context
    opened = await open_tool_context(settings, context.value)
    assert not isinstance(opened, Err), opened
    tc = opened.value
    try:
        rev = await tc.router.facts(symbol, revenue, AS_OF)
        eps = await tc.router.facts(symbol, "EarningsPerShareDiluted", AS_OF)
        events = await tc.router.material_events(symbol, AS_OF, 10)
        stale = await tc.router.facts(symbol, REVENUE, AS_OF)
    finally:
        await close_tool_context(tc)
    assert not isinstance(rev, Err) and not isinstance(eps, Err), (rev, eps)
    assert not isinstance(events, Err) and not isinstance(stale, Err), (events, stale)
    return Filings(rev.value, eps.value, events.value, stale.value)


@pytest.fixture(scope="module")
def real(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Filings]:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path_factory.mktemp("div-cache"), chains={})
    return {
        "AAPL": asyncio.run(_load(settings, "AAPL", REVENUE)),
        "NVDA": asyncio.run(_load(settings, "NVDA", "Revenues")),
    }


def planted(
    text: str, symbol: str = "AAPL", *, when: datetime = WHEN, aliases: tuple[str, ...] = ()
) -> SocialClaim:
    post = SocialPost(
        id="planted",
        platform="reddit",
        text=text,
        published_at=when,
        tickers=[symbol],
        source=Source(vendor="test", ref="planted"),
    )
    [claim] = extract_claims([post], symbol, aliases=aliases)
    return claim


def test_the_real_figures_are_what_the_checks_rely_on(real: dict[str, Filings]) -> None:
    quarter = [f for f in real["AAPL"].revenue if f.period_end == date(2025, 6, 28) and f.frame == "CY2025Q2"]
    assert [(f.value, f.form, f.filed) for f in quarter] == [(94_036_000_000.0, "10-Q", date(2025, 8, 1))]
    eps = [f for f in real["AAPL"].eps if f.period_end == date(2025, 6, 28) and f.frame == "CY2025Q2"]
    assert [f.value for f in eps] == [1.57]


def _check(claims: list[SocialClaim], filings: Filings, **kw: object) -> list[ClaimCheck]:
    return check_claims(claims, filings.events, filings.facts, as_of=kw.pop("as_of", AS_OF), **kw)  # type: ignore[arg-type]


def test_a_wrong_revenue_figure_for_last_quarter_is_contradicted_with_the_10q_cited(
    real: dict[str, Filings],
) -> None:
    claim = planted("AAPL revenue came in at $120 billion last quarter.")
    [check] = _check([claim], real["AAPL"])
    assert check.verdict == "contradicted" and check.reason is None and check.claim == claim
    assert check.official.statement == (
        "The post says 120,000,000,000 USD. The post names “last quarter”: XBRL revenue for the quarter "
        "2025-03-30..2025-06-28 (fiscal Q3 2025) (10-Q filed 2025-08-01): 94,036,000,000 USD; "
        "none is within 5% of it."
    )
    assert check.official.citations == [AAPL_Q3_10Q]


def test_correct_figures_are_consistent_and_name_the_period_that_matched(real: dict[str, Filings]) -> None:
    claims = [
        planted("AAPL revenue came in at $94.04 billion."),
        planted("AAPL revenue of $391B for fiscal 2024."),  # the annual figure
        planted("AAPL EPS of $1.57."),
        planted("AAPL revenue up 10% year over year."),  # 9.6% computed
        planted("AAPL beat earnings."),  # Item 2.02 filed 2025-07-31
    ]
    checks = _check(claims, real["AAPL"])
    assert [c.verdict for c in checks] == ["consistent"] * 5
    assert "fiscal year 2024 (2023-10-01..2024-09-28)" in checks[1].official.statement
    assert "not whether they beat or missed consensus" in checks[4].official.statement
    assert checks[1].official.citations == [AAPL_FY24_10K]


def test_a_buyout_claim_with_the_8k_record_covering_the_window_is_contradicted(
    real: dict[str, Filings],
) -> None:
    claim = planted("Apple is being acquired.", aliases=("Apple",))
    [check] = _check([claim], real["AAPL"])
    assert check.verdict == "contradicted"
    assert check.official.statement == (
        "No 8-K with Item 1.01 (Entry into a Material Definitive Agreement) or 2.01 (Completion of "
        "Acquisition or Disposition of Assets) filed 2025-04-22..2025-08-29, nor with Item 8.01 (Other "
        "Events) filed 2025-08-06..2025-08-29 (a catch-all item counts only when filed at most 14 days "
        "before the claim); "
        "8-Ks filed 2025-04-22..2025-08-29: 8-K filed 2025-07-31 (Items 2.02, 9.01); 8-K filed 2025-07-25 "
        "(Item 5.02); 8-K filed 2025-07-09 (Item 5.02); 8-K filed 2025-05-12 (Items 8.01, 9.01); "
        "8-K filed 2025-05-01 (Items 2.02, 9.01); a material merger or acquisition agreement must be filed "
        "on Form 8-K within four business days."
    )
    assert check.official.citations == [
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325000071/aapl-20250731.htm",
        "https://www.sec.gov/Archives/edgar/data/320193/000114036125027340/ef20052355_8k.htm",
        "https://www.sec.gov/Archives/edgar/data/320193/000114036125025275/ef20051741_8k.htm",
        "https://www.sec.gov/Archives/edgar/data/320193/000114036125018400/ef20048691_8k.htm",
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325000055/aapl-20250501.htm",
    ]


def test_an_other_events_8k_backs_a_buyout_claim_only_when_filed_close_to_it(
    real: dict[str, Filings],
) -> None:
    # AAPL filed an Item 8.01 (Other Events) 8-K on 2025-05-12: a week later it may be what a post is
    # about; three months later it is not.
    soon = planted("Apple is being acquired.", when=datetime(2025, 5, 19, tzinfo=UTC), aliases=("Apple",))
    late = planted("Apple is being acquired.", aliases=("Apple",))
    assert [c.verdict for c in _check([soon, late], real["AAPL"])] == ["consistent", "contradicted"]


def test_required_items_contradict_and_optional_ones_are_not_checkable(real: dict[str, Filings]) -> None:
    claims = [planted("AAPL files for bankruptcy."), planted("AAPL announced a 4-for-1 stock split.")]
    bankruptcy, split = _check(claims, real["AAPL"], window_days=90)
    assert bankruptcy.verdict == "contradicted"
    assert bankruptcy.official.statement.startswith(
        "No 8-K with Item 1.03 (Bankruptcy or Receivership) filed"
    )
    assert (split.verdict, split.reason) == ("not_checkable", "no_data")
    assert split.official.statement.endswith("8-Ks need not report a split.")


def test_an_8k_record_that_starts_inside_the_window_does_not_cover_it(real: dict[str, Filings]) -> None:
    recent = [e for e in real["AAPL"].events if e.filing_date >= date(2025, 7, 1)]
    [check] = check_claims([planted("AAPL files for bankruptcy.")], recent, {}, as_of=AS_OF)
    assert (check.verdict, check.reason) == ("not_checkable", "no_data")
    assert "the 8-K record on hand starts 2025-07-09, after the window start" in check.official.statement


def test_stale_facts_leave_the_period_not_reported(real: dict[str, Filings]) -> None:
    claim = planted("NVDA revenue came in at $46.7 billion.", "NVDA")
    [check] = check_claims([claim], real["NVDA"].events, {"revenue": real["NVDA"].stale_revenue}, as_of=AS_OF)
    assert (check.verdict, check.reason) == ("not_checkable", "period_not_reported")


def test_growth_is_checked_against_computed_year_over_year_growth(real: dict[str, Filings]) -> None:
    claims = [planted("AAPL revenue grew 25% year over year."), planted("AAPL grew 30% YoY.")]
    wrong, unnamed = _check(claims, real["AAPL"])
    assert wrong.verdict == "contradicted"
    assert (
        "XBRL revenue for the quarter 2025-03-30..2025-06-28 (fiscal Q3 2025) 94,036,000,000 USD (10-Q filed "
        "2025-08-01) vs the quarter 2024-03-31..2024-06-29 (fiscal Q3 2024) 85,777,000,000 USD (10-Q filed "
        "2025-08-01): 9.6% year over year (computed)"
    ) in wrong.official.statement
    assert AAPL_Q3_10Q in wrong.official.citations and AAPL_FY24_10K in wrong.official.citations
    # What grew is not said: never "contradicted", and EPS growth (12.1% computed) is shown too.
    assert (unnamed.verdict, unnamed.reason) == ("not_checkable", "metric_not_named")
    assert "XBRL diluted EPS for the quarter 2025-03-30..2025-06-28 (fiscal Q3 2025) 1.57 USD/shares" in (
        unnamed.official.statement
    )
    assert "12.1% year over year (computed)" in unnamed.official.statement


def test_point_in_time_uses_only_filings_filed_by_as_of(real: dict[str, Filings]) -> None:
    # $120B would match the December quarter (124.3B); $200B matches no period.
    claim = planted("AAPL revenue came in at $200 billion.", when=datetime(2025, 7, 10, tzinfo=UTC))
    [check] = _check([claim], real["AAPL"], as_of=date(2025, 7, 15))
    assert check.verdict == "contradicted"
    assert "(10-Q filed 2025-05-02): 95,359,000,000 USD" in check.official.statement
    assert "2025-06-28" not in check.official.statement


def test_nvda_claims_are_checked_against_the_periods_ended_by_the_post(real: dict[str, Filings]) -> None:
    # Posted 2025-08-20: Q1 (44.062B) was the latest reported then; Q2 (46.743B, EPS 1.08) ended 07-27.
    claims = [planted("NVDA revenue came in at $44 billion.", "NVDA"), planted("NVDA EPS of $1.57.", "NVDA")]
    revenue, eps = _check(claims, real["NVDA"])
    assert revenue.verdict == "consistent" and "2025-04-27" in revenue.official.statement
    assert eps.verdict == "contradicted"
    assert (
        "XBRL diluted EPS for the quarter 2025-04-28..2025-07-27 (fiscal Q2 2026) (10-Q filed 2025-08-27): "
        "1.08 USD/shares" in eps.official.statement
    )


def test_real_aapl_posts_end_to_end(snapshot_dir: Path, real: dict[str, Filings]) -> None:
    posts = SocialStore(SnapshotFiles(snapshot_dir)).reddit("AAPL", AS_OF, 50)
    assert not isinstance(posts, Err), posts
    claims = extract_claims(posts.value, "AAPL", aliases=["Apple"])
    checks = _check(claims, real["AAPL"])
    assert len(checks) == len(claims) and claims
    assert [c for c in checks if c.verdict == "contradicted"] == []


def test_order_is_claim_order_and_odd_facts_never_raise() -> None:
    odd = Source(vendor="test", ref="odd")
    facts = {
        "revenue": [
            Fact(
                ticker="X",
                cik=1,
                taxonomy="us-gaap",
                concept="Revenues",
                unit="USD",
                value=0.0,
                period_start=date(2025, 4, 1),
                period_end=date(2025, 6, 30),
                filed=date(2025, 8, 1),
                source=odd,
            ),
            Fact(
                ticker="X",
                cik=1,
                taxonomy="us-gaap",
                concept="Revenues",
                unit="USD",
                value=float("nan"),
                period_end=date(2025, 6, 30),
                filed=date(2025, 8, 1),
                source=odd,
            ),
        ],
        "eps": [
            Fact(
                ticker="X",
                cik=1,
                taxonomy="us-gaap",
                concept="EarningsPerShareDiluted",
                unit="USD/shares",
                value=-0.5,
                period_start=date(2024, 4, 1),
                period_end=date(2024, 6, 30),
                filed=date(2024, 8, 1),
                source=odd,
            ),
            Fact(
                ticker="X",
                cik=1,
                taxonomy="us-gaap",
                concept="EarningsPerShareDiluted",
                unit="USD/shares",
                value=0.5,
                period_start=date(2025, 4, 1),
                period_end=date(2025, 6, 30),
                filed=date(2025, 8, 1),
                source=odd,
            ),
        ],
    }
    claims = [
        planted("AAPL EPS of $1.57."),
        planted("AAPL revenue came in at $94 billion."),
        planted("AAPL EPS grew 50%."),
    ]
    checks = check_claims(claims, [], facts, as_of=AS_OF, window_days=-5, tolerance=-0.05)
    assert [(c.claim.kind, c.verdict, c.reason) for c in checks] == [
        ("eps", "contradicted", None),
        ("revenue", "contradicted", None),  # a zero revenue is never "within 5%"
        ("growth", "not_checkable", "period_not_reported"),  # a negative base year gives no growth
    ]
    assert checks[0].official.citations == ["test:odd"]  # no accession number: the source is cited
    assert check_claims([], [], {}, as_of=AS_OF) == []
    results = MaterialEvent(
        ticker="AAPL",
        cik=1,
        form="8-K",
        filing_date=date(2025, 8, 1),
        item=" Item 2.02 ",
        title="",
        source=odd,
    )
    beat = planted("AAPL beat earnings.")
    assert [c.verdict for c in check_claims([beat], [results], {}, as_of=AS_OF)] == ["consistent"]
    [huge] = check_claims([beat], [results], {}, as_of=AS_OF, window_days=10**9)
    assert huge.verdict == "consistent" and "0001-01-01..2025-08-29" in huge.official.statement
