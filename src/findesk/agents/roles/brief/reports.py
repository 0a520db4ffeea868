"""Typed reports of the briefing's sub-agents: what the coordinator sees (never raw tool output).

Rules:
- A report has two parts: evidence built by code from the sub-agent's tool results (figures, filing
  lists, counts, scores: "numbers come from code") and notes written by the agent (a model, or the
  deterministic composer): findings for the official agent, theme summaries for the social agent.
- Every official finding cites a source by the exact key listed in ``sources`` (an EDGAR URL, or the
  snapshot file when no URL is known); findings citing anything else are dropped with a warning.
- Social content is UNVERIFIED by construction: claims and themes carry post ids and URLs, and the
  report states its disclaimer.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.divergence import Divergence
from findesk.analytics.pump_bot import PostRisk
from findesk.analytics.social_claims import SocialClaim
from findesk.analytics.social_themes import ToneCounts
from findesk.analytics.volume import VolumeAnomaly
from findesk.data.models import Fact, MaterialEvent

UNVERIFIED_DISCLAIMER = (
    "UNVERIFIED: posts and headlines below are opinions and claims of third parties, not facts. Nothing "
    "here has been checked against filings unless the Divergences section says so."
)
FindingKind = Literal["business", "risk", "event", "fact"]


class Report(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SourceRef(Report):
    key: str  # how findings cite it: the EDGAR URL, or the snapshot file when no URL is known
    label: str  # "AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors)"


class Finding(Report):
    kind: FindingKind
    title: str | None = Field(None, description="risk factor heading or event item, when there is one")
    claim: str = Field(description="one or two sentences stating what the filing says")
    citation: str = Field(
        description="the key of the source it comes from, copied exactly from the tool results"
    )


class CompanyView(Report):
    name: str | None = None
    cik: int | None = None
    exchange: str | None = None
    sector: str | None = None
    industry: str | None = None


class QuoteView(Report):
    session_date: date
    price: float
    change: float | None = None
    change_pct: float | None = None
    previous_close: float | None = None
    day_low: float | None = None
    day_high: float | None = None
    volume: int | None = None
    market_cap: float | None = None
    market_cap_date: date | None = None
    currency: str = "USD"
    source: str
    notes: list[str] = Field(default_factory=list)


class EventItemView(Report):
    item: str  # "2.02"
    title: str  # official SEC title
    excerpt: str | None = None  # what the item says, when the document is available


class FilingView(Report):
    form: str
    filing_date: date
    report_date: date | None = None
    items: list[EventItemView] = Field(default_factory=list)
    content_note: str | None = None  # why there is no excerpt ("document not in the snapshot")
    citation: str  # SourceRef key


class FactView(Report):
    metric: Literal["revenue", "eps"]
    concept: str
    value: float
    unit: str
    period_start: date | None = None
    period_end: date
    form: str | None = None
    filed: date
    citation: str


class OfficialNotes(Report):
    """What the official agent writes: cited findings, and warnings it wants to raise."""

    findings: list[Finding] = Field(
        default_factory=list,
        description=(
            "business: 1-2 sentences on what the company does (from 10-K Item 1); risk: the leading risk "
            "factors from Item 1A, title = the risk's heading, claim = a one-line summary; event: what a "
            "recent 8-K announced. Each cites one source key."
        ),
    )
    warnings: list[str] = Field(default_factory=list)


class OfficialReport(Report):
    symbol: str
    company: CompanyView | None = None
    quote: QuoteView | None = None
    quote_error: str | None = None  # "quote_unavailable: …" when the quote failed
    filings: list[FilingView] = Field(default_factory=list)  # the last 10-K/8-K filings, newest first
    facts: list[FactView] = Field(default_factory=list)
    findings: list[Finding] = Field(default_factory=list)
    sources: list[SourceRef] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)
    # typed official data for divergence checks (8-K items and XBRL facts in the window)
    material_events: list[MaterialEvent] = Field(default_factory=list)
    xbrl: dict[str, list[Fact]] = Field(default_factory=dict)


class PostView(Report):
    id: str
    platform: str  # reddit / stocktwits / news
    where: str | None = None  # r/stocks, stocktwits, or the publisher
    author: str | None = None
    published_at: datetime
    text: str  # clipped
    url: str | None = None
    tone: Literal["bullish", "bearish", "neutral"]


class ThemeNote(Report):
    theme: str
    summary: str = Field(
        description="one sentence on what the posts say about it, attributed ('posters say …')"
    )
    post_ids: list[str] = Field(description="ids of the posts or articles that support it")
    mentions: int = Field(
        0, description="set by the desk: how many posts and articles in the window touch on it"
    )


class SocialNotes(Report):
    """What the social agent writes: themes with the posts behind them, and warnings."""

    themes: list[ThemeNote] = Field(default_factory=list)
    warnings: list[str] = Field(default_factory=list)


class VolumeView(Report):
    anomaly: VolumeAnomaly
    source: str


class SocialReport(Report):
    symbol: str
    window_start: date
    as_of: date
    disclaimer: str = UNVERIFIED_DISCLAIMER
    reddit: ToneCounts | None = None
    subreddits: dict[str, int] = Field(default_factory=dict)
    stocktwits: ToneCounts | None = None  # authors' own Bullish/Bearish labels (unlabelled = neutral)
    news: ToneCounts | None = None
    themes: list[ThemeNote] = Field(default_factory=list)
    claims: list[SocialClaim] = Field(default_factory=list)
    pump_flags: list[PostRisk] = Field(default_factory=list)  # flagged posts only
    posts_scored: int = 0
    volume: VolumeView | None = None
    posts: list[PostView] = Field(default_factory=list)  # every post and article in the window
    warnings: list[str] = Field(default_factory=list)


class DivergenceView(Report):
    divergences: list[Divergence] = Field(default_factory=list)
    claims_checked: int = 0
