"""Typed reports of the briefing's sub-agents: what the coordinator sees (never raw tool output).

Rules:
- A report has two parts: evidence built by code from the sub-agent's tool results (figures, filing
  lists, counts, scores: "numbers come from code") and notes written by the agent (a model, or the
  deterministic composer): findings for the official agent, theme summaries for the social agent.
- Every official finding cites a source by the exact key listed in ``sources`` (an sec.gov URL, with
  an ``#item-…`` fragment for a 10-K Item); findings citing anything else are dropped with a warning.
- Social content is UNVERIFIED by construction: claims and themes carry post ids and URLs, and the
  report states its disclaimer.
"""

from __future__ import annotations

from datetime import date, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.divergence import ClaimCheck
from findesk.analytics.key_figures import KeyFigures
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
    # how findings cite it: an sec.gov URL; one key per (document, Item), "<url>#item-1a", so a
    # citation [n] names the Item it quotes
    key: str
    label: str  # "AAPL 10-K filed 2024-11-01, Item 1A (Risk Factors)"
    form: str | None = None  # the filing's form and date, when the source is a filing
    filed: date | None = None
    age: str | None = None  # "10 months ago": ``filed`` relative to the run's as-of date


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


class RangeView(Report):
    """The 52-week closing range on the quote's basis; ``complete`` False when data starts later."""

    low: float
    low_date: date
    high: float
    high_date: date
    start: date  # first session the data covers in the window
    end: date
    sessions: int
    complete: bool
    split_adjusted: bool = False  # as-traded closes before a split in the window were rescaled
    source: str
    notes: list[str] = Field(default_factory=list)


class QuoteView(Report):
    session_date: date
    price: float
    # "as_traded": the close that printed; "adjusted": split/dividend-adjusted, never to be called a close
    basis: Literal["as_traded", "adjusted", "index"] = "as_traded"
    as_traded_from: date | None = None  # where as-traded data starts, when this quote is adjusted
    range_52w: RangeView | None = None
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
    age: str | None = None  # "28 days ago": the filing date relative to the run's as-of date


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
    # how the missing quote is named, by where it was asked: "Quote unavailable in the offline
    # snapshot" or "Live quote unavailable"
    quote_missing: str | None = None
    filings: list[FilingView] = Field(default_factory=list)  # the last 10-K/10-Q/8-K filings, newest first
    facts: list[FactView] = Field(default_factory=list)
    key_figures: KeyFigures | None = None  # latest quarter/year with the year before, P/E, yield
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
    # why it is not counted in tone and themes (``analytics.social_scope.REASONS``), None if counted
    excluded: str | None = None


class SourceCoverage(Report):
    """What one social source gave for the window: how many items were read and which days they span."""

    source: str  # "Reddit", "Stocktwits", "News"
    read: int  # items published in the window that were read (all analysed by code)
    first: date | None = None  # New York day of the oldest item read
    last: date | None = None  # ... and of the newest
    complete: bool = True  # False when ``read`` hit the request limit: the window may hold more
    counted: int = 0  # of ``read``, those counted in tone and themes
    excluded: dict[str, int] = Field(default_factory=dict)  # reason -> items not counted


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
    pump_features: list[str] = Field(default_factory=list)  # what the scoring could look at
    pump_features_missing: list[str] = Field(default_factory=list)  # ... and what the data lacked
    coverage: list[SourceCoverage] = Field(default_factory=list)  # per source that answered
    volume: VolumeView | None = None
    posts: list[PostView] = Field(default_factory=list)  # every post and article read in the window
    warnings: list[str] = Field(default_factory=list)


class DivergenceView(Report):
    divergences: list[ClaimCheck] = Field(default_factory=list)
    claims_checked: int = 0
