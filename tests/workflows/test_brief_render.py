"""The briefing renderers: Markdown, one HTML page and the terminal view.

Briefings are built for real by running the workflow on the recorded snapshot (AAPL as of 2025-08-29),
and by hand for the odd cases: no quote, planted HTML and rich markup in data, many filings and risks.
"""

from __future__ import annotations

import asyncio
import io
import re
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path

import pytest
from rich.console import Console

from findesk.agents.roles.brief.reports import (
    CompanyView,
    EventItemView,
    FactView,
    FilingView,
    Finding,
    PostView,
    QuoteView,
    SocialReport,
    SourceRef,
    ThemeNote,
    VolumeView,
)
from findesk.analytics.divergence import ClaimCheck, OfficialSide
from findesk.analytics.pump_bot import PostRisk
from findesk.analytics.social_claims import SocialClaim
from findesk.analytics.social_themes import ToneCounts
from findesk.analytics.volume import VolumeAnomaly
from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.guardrails.advice import AdviceFinding
from findesk.guardrails.number_trace import UntracedNumber
from findesk.interfaces.cli.brief_view import SCREEN_LINES, draw
from findesk.workflows.brief.models import (
    DISCLAIMER,
    SECTION_TITLES,
    AgentRecord,
    AuditSection,
    Briefing,
    BusinessSection,
    DivergencesSection,
    EventsSection,
    RisksSection,
    SnapshotSection,
    SocialSection,
    ToolCallRecord,
)
from findesk.workflows.brief.render_html import to_html
from findesk.workflows.brief.render_markdown import to_markdown
from findesk.workflows.brief.run import run_briefing

AS_OF = date(2025, 8, 29)
K10 = "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm"
K8 = "https://www.sec.gov/Archives/edgar/data/320193/000032019325000071/aapl-20250731.htm"
SCRIPT = "<script>alert(1)</script>"
IMG = "<img src=x onerror=alert(2)>"
MARKUP = "[bold red]x[/]"


# ---- briefings ----


@pytest.fixture(scope="module")
def real(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Briefing:
    settings = Settings(
        snapshot_dir=snapshot_dir, cache_dir=tmp_path_factory.mktemp("brief-cache"), chains={}
    )
    context = resolve_context(settings, mode="snapshot", as_of=AS_OF)
    assert not isinstance(context, Err), context
    run = asyncio.run(run_briefing("AAPL", settings=settings, context=context.value, mode="deterministic"))
    assert not isinstance(run, Err), run
    return run.value.briefing


def _claim(text: str, *, url: str | None = "https://www.reddit.com/r/stocks/comments/abc/") -> SocialClaim:
    return SocialClaim(
        kind="buyout",
        text=text,
        post_id="p1",
        platform="reddit",
        author="moonboy",
        url=url,
        published_at=datetime(2025, 8, 20, 14, 0, tzinfo=UTC),
    )


def built(
    *,
    quote: bool = True,
    text: str = "Apple will be bought out by a rival.",
    filings: int = 2,
    risks: int = 2,
) -> Briefing:
    """A complete briefing by hand; ``text`` is planted in every kind of data field."""
    claim = _claim(text)
    no_url = _claim("Apple to split 4-for-1 next month.", url=None)
    q = QuoteView(
        session_date=AS_OF,
        price=232.14,
        change=-0.42,
        change_pct=-0.18,
        previous_close=232.56,
        day_low=229.35,
        day_high=233.41,
        volume=243_257_900,
        market_cap=3_451_200_000_000.0,
        market_cap_date=AS_OF,
        source="prices/equities/sp500_daily_ohlcv_adj_2021-01-04_2025-12-30.csv.gz",
    )
    filing_views = [
        FilingView(
            form="8-K",
            filing_date=date(2025, 7, 31 - n),
            items=[EventItemView(item="2.02", title="Results of Operations", excerpt=f"Apple said {text}")],
            citation=K8,
        )
        for n in range(filings)
    ]
    return Briefing(
        symbol="AAPL",
        as_of=AS_OF,
        headline=f"Apple Inc. (AAPL) closed at $232.14 (-0.18%) on 2025-08-29 {text}",
        summary=f"Summary sentence. {text}",
        snapshot=SnapshotSection(
            symbol="AAPL",
            company=CompanyView(name="Apple Inc.", exchange="Nasdaq", sector="Technology"),
            quote=q if quote else None,
            message=None if quote else "Live quote unavailable: quote_unavailable: no bar on 2025-08-29",
        ),
        business=BusinessSection(
            findings=[Finding(kind="business", claim=f"Apple designs smartphones. {text}", citation=K10)],
            facts=[
                FactView(
                    metric="revenue",
                    concept="RevenueFromContractWithCustomerExcludingAssessedTax",
                    value=391_035_000_000.0,
                    unit="USD",
                    period_start=date(2023, 10, 1),
                    period_end=date(2024, 9, 28),
                    form="10-K",
                    filed=date(2024, 11, 1),
                    citation=K10,
                ),
                FactView(
                    metric="eps",
                    concept="EarningsPerShareDiluted",
                    value=6.08,
                    unit="USD/shares",
                    period_end=date(2024, 9, 28),
                    filed=date(2024, 11, 1),
                    citation=K10,
                ),
            ],
        ),
        events=EventsSection(
            filings=filing_views,
            findings=[Finding(kind="event", title="Item 2.02", claim=f"Results. {text}", citation=K8)],
        ),
        risks=RisksSection(
            risks=[
                Finding(
                    kind="risk", title=f"Risk heading {n} {text}", claim=f"Risk {n}. {text}", citation=K10
                )
                for n in range(risks)
            ]
        ),
        social=SocialSection(
            report=SocialReport(
                symbol="AAPL",
                window_start=date(2025, 8, 1),
                as_of=AS_OF,
                reddit=ToneCounts(bullish=5, bearish=3, neutral=9),
                news=ToneCounts(bullish=1, bearish=0, neutral=2),
                subreddits={"r/stocks": 10, "r/wallstreetbets": 7},
                themes=[
                    ThemeNote(theme="AI and new products", summary=f"posters say {text}", post_ids=["p1"])
                ],
                claims=[claim, no_url],
                pump_flags=[
                    PostRisk(
                        post_id="p9",
                        platform="stocktwits",
                        author="newbie",
                        score=0.61,
                        flagged=True,
                        reasons=["account 3 days old", f"links to a chat invite: discord.gg/{text}"],
                    )
                ],
                posts_scored=20,
                volume=VolumeView(
                    anomaly=VolumeAnomaly(
                        session_date=AS_OF,
                        volume=243_257_900,
                        baseline_sessions=30,
                        baseline_start=date(2025, 7, 17),
                        baseline_end=date(2025, 8, 28),
                        baseline_mean=164_127_077.2,
                        baseline_stdev=37_400_000.0,
                        z_score=2.11,
                        ratio=1.48,
                        unusual=True,
                        threshold=2.0,
                    ),
                    source="prices/equities/long_history/AAPL.csv",
                ),
                posts=[
                    PostView(
                        id="p1",
                        platform="reddit",
                        where="r/stocks",
                        author="moonboy",
                        published_at=datetime(2025, 8, 20, 14, 0, tzinfo=UTC),
                        text=f"Post body {text}",
                        url="javascript:alert(3)",
                        tone="bullish",
                    )
                ],
            )
        ),
        divergences=DivergencesSection(
            divergences=[
                ClaimCheck(
                    claim=claim,
                    verdict="contradicted",
                    official=OfficialSide(
                        statement="No 8-K with Item 1.01 or 2.01 filed 2025-06-01..2025-08-29", citations=[K8]
                    ),
                )
            ],
            claims_checked=2,
        ),
        audit=AuditSection(
            run_id="run-123",
            data_mode="offline snapshot as of 2025-08-29",
            as_of=AS_OF,
            mode="model",
            agents=[
                AgentRecord(
                    name="official",
                    mode="model",
                    mode_reason="anthropic key set",
                    input_tokens=1200,
                    cost_usd=0.01,
                )
            ],
            tool_calls=[
                ToolCallRecord(
                    agent="official",
                    name="get_quote",
                    arguments={"symbol": "AAPL", "note": text},
                    status="ok",
                    latency_ms=12.3,
                    summary=f"AAPL 232.14 {text}",
                ),
                ToolCallRecord(
                    agent="social",
                    name="get_posts",
                    arguments={},
                    status="unavailable",
                    latency_ms=4.0,
                    cached=True,
                    summary="failed",
                ),
            ],
            warnings=[f"Risk factors: clipped {text}"],
            model_round_trips=3,
            untraced_numbers=[
                UntracedNumber(text="94 billion", value=94e9, sentence=f"It made 94 billion {text}")
            ],
            advice_removed=[
                AdviceFinding(kind="recommendation", text="buy", sentence=f"You should buy {text}")
            ],
        ),
        sources=[SourceRef(key=K10, label="AAPL 10-K filed 2024-11-01"), SourceRef(key=K8, label="AAPL 8-K")],
        disclaimer=DISCLAIMER,
    )


def terminal(b: Briefing, *, details: bool = False) -> str:
    console = Console(width=120, record=True, file=io.StringIO(), color_system=None)
    draw(console, b, details=details)
    return console.export_text()


def rendered(b: Briefing) -> Iterator[tuple[str, str]]:
    yield "markdown", to_markdown(b)
    yield "html", to_html(b)
    yield "terminal", terminal(b)
    yield "terminal details", terminal(b, details=True)


def _in_order(text: str, parts: list[str]) -> bool:
    at = 0
    for part in parts:
        found = text.find(part, at)
        if found < 0:
            return False
        at = found + len(part)
    return True


# ---- on the real AAPL briefing ----


def test_every_format_has_the_seven_sections_in_order(real: Briefing) -> None:
    for name, text in rendered(real):
        assert _in_order(text, list(SECTION_TITLES)), name
        assert _in_order(text, ["Social signal (UNVERIFIED)", real.social.report.disclaimer[:60]]), name


def test_aapl_shows_the_price_change_and_compact_market_cap(real: Briefing) -> None:
    q = real.snapshot.quote
    assert q is not None and q.session_date == AS_OF
    for name, text in rendered(real):
        assert "232.14" in text, name
        assert f"{q.change_pct:+.2f}%" in text, name
        if q.market_cap is not None:
            assert re.search(r"market cap \d+\.\d\dT", text), name


def test_one_screen_view_fits_its_lines_and_ends_with_the_hint(real: Briefing) -> None:
    out = terminal(real)
    lines = out.rstrip("\n").split("\n")
    assert len(lines) <= SCREEN_LINES, "\n".join(lines)
    assert all(len(line) <= 120 for line in lines)
    assert "--details for the full briefing" in lines[-1]
    assert "232.14" in out and "tool calls" in out


def test_details_lists_every_tool_call_and_source(real: Briefing) -> None:
    out = terminal(real, details=True)
    assert len(out.splitlines()) > 45
    assert real.audit.tool_calls and real.sources
    for call in real.audit.tool_calls:
        assert call.name in out
    for n, source in enumerate(real.sources, 1):
        assert f"[{n}] {source.label[:40]}" in out
    assert out.rstrip().endswith(real.disclaimer[-40:])


def test_official_findings_carry_their_footnote(real: Briefing) -> None:
    md = to_markdown(real)
    findings = [*real.business.findings, *real.risks.risks]
    assert real.business.findings and real.risks.risks
    for f in findings:
        n = real.source_number(f.citation)
        assert n is not None
        line = next(line for line in md.splitlines() if f.claim[:60] in line)
        assert line.endswith(f"[{n}]")
        assert f"- [{n}] " in md.split("## Sources and audit")[1]


def _claim_lines(text: str) -> list[str]:
    social = text.split(SECTION_TITLES[4])[1]
    return [line.strip().lstrip("-0123456789. ") for line in social.splitlines() if "): “" in line]


def test_real_claim_lines_are_all_unverified(real: Briefing) -> None:
    claims = real.social.report.claims
    assert claims
    for name, text in (("markdown", to_markdown(real)), ("details", terminal(real, details=True))):
        lines = _claim_lines(text)
        assert len(lines) >= len(claims), name
        assert all(line.startswith("[UNVERIFIED]") for line in lines), name
        for c in claims:
            assert c.url is not None and c.url in text, name


# ---- hand-built cases ----


def test_hand_built_sections_in_order_and_figures_exact() -> None:
    b = built()
    for name, text in rendered(b):
        assert _in_order(text, list(SECTION_TITLES)), name
        assert "232.14" in text and "-0.42 (-0.18%)" in text, name
        assert "3.45T" in text, name
        assert "229.35–233.41" in text and "243,257,900" in text, name
        assert "offline snapshot as of 2025-08-29" in text, name
    md = to_markdown(b)
    assert "391,035,000,000 USD" in md and "6.08 USD/shares" in md
    assert "volume 243,257,900 on 2025-08-29 vs 30-session mean 164,127,077: z +2.11 (1.48x) — unusual" in md
    assert "[1] AAPL 10-K filed 2024-11-01 — <" + K10 + ">" in md
    assert md.rstrip().endswith(f"*{DISCLAIMER}*")


def test_no_quote_shows_why_in_every_format() -> None:
    b = built(quote=False)
    for name, text in rendered(b):
        assert "Live quote unavailable" in text, name
        assert "price " not in text.split("Business snapshot")[0], name


def test_planted_script_is_escaped_in_html_and_never_a_tag() -> None:
    for planted in (SCRIPT, IMG):
        page = to_html(built(text=planted))
        assert "<script" not in page.lower()
        assert "<img" not in page.lower()
        escaped = "&lt;script&gt;alert(1)&lt;/script&gt;" if planted == SCRIPT else "&lt;img src=x onerror"
        # headline, summary, finding, risk, excerpt, theme, claim, flag reason, post, tool call, warnings
        assert page.count(escaped) >= 12


def test_html_is_self_contained_and_links_only_http() -> None:
    page = to_html(built(text=SCRIPT))
    hrefs = re.findall(r'href="([^"]*)"', page)
    # footnote markers link within the page, to their source entry; every other link goes out
    outside = [h for h in hrefs if not re.fullmatch(r"#source-\d+", h)]
    assert outside and len(outside) < len(hrefs)
    assert all(h.startswith(("http://", "https://")) for h in outside)
    assert all(f'href="{h}" rel="noopener noreferrer nofollow"' in page for h in outside)
    assert "javascript:alert(3)" in page  # shown as text, not a link
    assert 'href="javascript' not in page
    assert "src=" not in page.replace("onerror", "").replace("&lt;img src=x", "")
    assert "@import" not in page and "url(" not in page
    assert page.startswith("<!DOCTYPE html>") and "<style>" in page


def test_markdown_escapes_html_and_link_syntax() -> None:
    md = to_markdown(built(text=SCRIPT + " [click](javascript:alert(4))"))
    assert "<script>" not in md
    assert r"\<script\>" in md
    assert "[click](javascript" not in md
    assert "javascript:alert(3)" in md  # the post URL, as inert text


def test_every_claim_line_is_unverified_and_shows_its_url() -> None:
    b = built()
    md_lines = [line for line in to_markdown(b).splitlines() if "(buyout):" in line]
    term_lines = [line for line in terminal(b, details=True).splitlines() if "(buyout):" in line]
    for lines in (md_lines, term_lines):
        assert len(lines) >= 2  # the claim and its divergence
        assert all(line.strip().lstrip("-0123456789. ").startswith("[UNVERIFIED]") for line in lines)
    md = to_markdown(b)
    assert "<https://www.reddit.com/r/stocks/comments/abc/>" in md
    assert "split 4-for-1 next month.” — no URL" in md


def test_pump_flags_list_their_reasons_and_divergences_both_sides() -> None:
    b = built()
    for name, text in (("markdown", to_markdown(b)), ("details", terminal(b, details=True))):
        assert "account 3 days old" in text, name
        assert "CONTRADICTED by the filings" in text, name
        assert "No 8-K with Item 1.01 or 2.01 filed 2025-06-01..2025-08-29 [2]" in text, name
        assert "www.reddit.com/r/stocks/comments/abc/" in text, name


def test_audit_shows_modes_usage_errors_and_guards() -> None:
    b = built()
    for name, text in (
        ("markdown", to_markdown(b)),
        ("html", to_html(b)),
        ("details", terminal(b, details=True)),
    ):
        assert "anthropic key set" in text, name
        assert "model round trips" in text, name
        assert "tokens 1,200 in / 0 out" in text, name
        assert "unavailable" in text and "12" in text, name
        assert "94 billion" in text and "You should buy" in text, name
    one = terminal(b)
    assert (
        "mode model · offline snapshot as of 2025-08-29 · 2 tool calls · 1 error · 3 model round trips" in one
    )


def test_rich_markup_in_data_is_printed_literally() -> None:
    b = built(text=MARKUP + " :rocket:")
    for details in (False, True):
        out = terminal(b, details=details)
        assert MARKUP in out
        assert ":rocket:" in out and "🚀" not in out
    full = terminal(b, details=True)
    assert full.count(MARKUP) >= 10


def test_one_screen_view_clips_long_lists_and_text() -> None:
    b = built(text="word " * 200, filings=12, risks=14)
    lines = terminal(b).rstrip("\n").split("\n")
    assert len(lines) <= SCREEN_LINES, "\n".join(lines)
    assert all(len(line) <= 120 for line in lines)
    text = "\n".join(lines)
    assert "+7 more filings" in text and "+9 more risks" in text
    assert "--details for the full briefing" in lines[-1]


def test_empty_sections_show_their_message() -> None:
    b = built()
    b = b.model_copy(
        update={
            "risks": RisksSection(message="No risk factors found."),
            "events": EventsSection(message="No 10-K or 8-K filings found."),
            "divergences": DivergencesSection(message="No checkable claims were found."),
            "sources": [],
        }
    )
    for name, text in rendered(b):
        assert _in_order(text, ["No 10-K or 8-K filings found.", "No risk factors found."]), name
        assert "No checkable claims were found." in text, name


def test_planted_html_and_markup_in_real_data_stay_text(real: Briefing) -> None:
    report = real.social.report
    assert report.posts and real.risks.risks and report.claims
    post = report.posts[0].model_copy(update={"text": f"{SCRIPT} {IMG} {MARKUP}"})
    claim = report.claims[0].model_copy(update={"text": f"{SCRIPT} {MARKUP}"})
    risk = real.risks.risks[0].model_copy(update={"claim": f"{IMG} {SCRIPT} {MARKUP}"})
    planted_report = report.model_copy(update={"posts": [post, *report.posts[1:]], "claims": [claim]})
    b = real.model_copy(
        update={
            "social": real.social.model_copy(update={"report": planted_report}),
            "risks": real.risks.model_copy(update={"risks": [risk, *real.risks.risks[1:]]}),
        }
    )
    page = to_html(b)
    assert "<script" not in page.lower() and "<img" not in page.lower()
    assert page.count("&lt;script&gt;alert(1)&lt;/script&gt;") == 3
    full = terminal(b, details=True)
    assert full.count(MARKUP) == 2  # the claim and the risk (posts are listed in HTML only)
    assert SCRIPT in full
    assert all(line.startswith("[UNVERIFIED]") for line in _claim_lines(full))


def test_a_bare_briefing_renders_everywhere_at_any_width() -> None:
    bare = Briefing(
        symbol="ZZZZ",
        as_of=AS_OF,
        headline="",
        summary="",
        snapshot=SnapshotSection(symbol="ZZZZ", message="Live quote unavailable: not_found: ZZZZ"),
        business=BusinessSection(message="No business overview found."),
        events=EventsSection(),
        risks=RisksSection(),
        social=SocialSection(report=SocialReport(symbol="ZZZZ", window_start=AS_OF, as_of=AS_OF)),
        divergences=DivergencesSection(),
        audit=AuditSection(run_id="r", data_mode="live", as_of=AS_OF, mode="deterministic"),
    )
    for name, text in rendered(bare):
        assert _in_order(text, [*SECTION_TITLES, bare.disclaimer[:30]]), name
        assert "Live quote unavailable: not_found: ZZZZ" in text, name
    for width in (40, 80, 200):
        console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
        draw(console, built(text="x" * 500), details=False)
        lines = console.export_text().rstrip("\n").split("\n")
        assert len(lines) <= SCREEN_LINES and all(len(line) <= width for line in lines), width
