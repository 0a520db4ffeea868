"""Market scanner tools: movers, sector performance, topic news and the industry deep dive.

Rules:
- Thin: each tool reads through ``ctx.router`` with ``ctx.as_of`` and computes with
  ``analytics.scan`` (``movers``, ``sectors``, ``topics``, ``industries``); nothing here is maths.
  Each result value is the analytics' board, so every figure a scanner role states is in a tool
  value (the number trace walks them); summaries state the figures with the session and source.
- ``get_market_movers`` and ``get_sector_performance`` take an optional ``date``: a session on or
  before the run's as-of date (later is ``invalid_input``); omitted, the as-of date. The table's last
  session on or before it is used and named; the source's caveats (a relabelled lagged scrape, a
  missing scrape day, the month-end the caps are from) are the board's warnings.
- ``get_topic_news``: one full-text news search per topic (``analytics.scan.topics.TOPIC_TERMS``) over
  the ``days`` (default ``DEFAULT_DAYS`` = 30, at most 120) up to the as-of date, concurrently. "Nothing
  published" is an empty topic, not an error; a failed or unconfigured search is a warning naming it.
  The snapshot's feeds are thin near its default date (finance_news ends 2025-08-26, TradingView
  covers 2025-04-09..05-25, Alpha Vantage 2023-10..2024-08): an empty topic says which feeds were
  searched and the dates they cover.
- ``get_industry_performance``: 1-3 sectors (SPDR tickers or GICS names, ``sectors.SECTOR_SPDRS``); the
  latest S&P 500 constituents list on or before the as-of date, the S&P 500 adjusted panel, the sector
  SPDRs' 1M returns, and the news of each sector's ``NEWS_NAMES`` largest members (by market cap from
  the all-listed table; by 21-session average dollar volume when that table does not answer) over the
  ``NEWS_DAYS`` before the as-of date.
- Topic and sector headlines are third-party text: both tools are screened like every news tool
  (``third_party="passage"``).
"""

from __future__ import annotations

import asyncio
import datetime as dt
from collections.abc import Sequence
from typing import Annotated

import numpy as np
from pydantic import Field

from findesk.analytics.scan.industries import deep_dive, largest, panel_row
from findesk.analytics.scan.models import (
    TOPICS,
    FundPerf,
    GeoBoard,
    IndustryBoard,
    MoverFilters,
    MoverRow,
    MoversBoard,
    SectorBoard,
    StockPerf,
    SubIndustryPerf,
    Topic,
    TopicBrief,
    TopicHeadline,
)
from findesk.analytics.scan.movers import movers_board
from findesk.analytics.scan.sectors import SECTOR_SPDRS, panel_start, sector_board, sector_etf, window_returns
from findesk.analytics.scan.topics import TOPIC_TERMS, headline, topic_brief
from findesk.core.dates import published_since
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import NewsItem
from findesk.data.models.funds import PricePanel
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.data.vendors.base import story_keys
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, ToolArgs, session_day
from findesk.tools.base import Tool, ToolContext
from findesk.tools.summaries import clip, compact, fit_lines

DEFAULT_DAYS = 30
MAX_DAYS = 120
SEARCH_LIMIT = 200  # articles read per topic before the headline rule
NEWS_DAYS = 30  # a sector's headlines: the month before the as-of date
NEWS_NAMES = 4  # a sector's largest members whose news is read
NEWS_READ = 50  # articles read per member before the window filter
SECTOR_HEADLINES = 5
MAX_SECTORS = 3
_REASON_CHARS = 400
SUMMARY_SUBS = 2  # sub-industries a sector's summary names from the top (and the weakest)
SUMMARY_HEADLINES = 1


def reader_reason(err: Err) -> str:
    """An error's reason for a reader: the router's instruction to a model is left out."""
    return clip(f"{err.code.value}: {err.reason.replace(DO_NOT_ESTIMATE, '').strip()}", _REASON_CHARS)


def _searched(err: Err) -> str:
    """What a search that found nothing read: the vendor's "searched ..." clause when it gives one."""
    reason = err.reason.replace(DO_NOT_ESTIMATE, "").strip()
    _, found, feeds = reason.partition("; searched ")
    return clip("searched " + feeds if found else reason, _REASON_CHARS)


def _pct(value: float | None) -> str:
    return "n/a" if value is None else f"{value:+.2f}%"


# --- get_market_movers ------------------------------------------------------------------------------


class MoversArgs(MoverFilters):
    """The screen's thresholds (``MoverFilters``) and, optionally, the session."""

    date: dt.date | None = Field(
        None, description="A session on or before the run's as-of date; omitted: the as-of date."
    )


async def _movers(args: MoversArgs, ctx: ToolContext) -> Result[MoversBoard]:
    day = session_day(args.date, ctx.as_of)
    if isinstance(day, Err):
        return day
    got = await ctx.router.listed_session(day.value, ctx.as_of)
    if isinstance(got, Err):
        return got
    table = got.value
    notes = list(table.notes)
    if table.session != day.value and day.value.weekday() < 5:
        notes.insert(
            0,
            f"the table has no session {day.value.isoformat()}: "
            f"its last before it is {table.session.isoformat()}",
        )
    filters = MoverFilters.model_validate(args.model_dump(exclude={"date"}))
    return Ok(movers_board(table, filters, sources=[table.source.cite()], notes=notes))


def _mover_line(r: MoverRow) -> str:
    cap = f", cap ${compact(r.market_cap_usd)}" if r.market_cap_usd is not None else ", cap n/a"
    return (
        f"- {r.symbol} ({r.exchange}) ${r.close:,.2f} {r.pct_change:+g}%, volume {r.volume:,} "
        f"(${compact(r.dollar_volume)}){cap}"
    )


def summarize_movers(b: MoversBoard) -> str:
    f = b.filters
    floor = (
        f"market cap >= ${compact(f.min_market_cap_usd)}"
        if f.min_market_cap_usd is not None
        else "no cap floor"
    )
    dropped = ", ".join(f"{k} {v:,}" for k, v in b.dropped.items()) or "none"
    lines = [
        *(f"Warning: {w}" for w in b.warnings),
        "Top gainers (the screener's % change, unadjusted close):",
        *(_mover_line(r) for r in b.gainers),
        "Top losers:",
        *(_mover_line(r) for r in b.losers),
        "Most active by dollar volume:",
        *(_mover_line(r) for r in b.most_active),
    ]
    head = (
        f"Market movers on session {b.session.isoformat()}: {b.kept:,} of {b.universe:,} listings passed the "
        f"screen (price >= ${f.min_price:g}, volume >= {f.min_volume:,}, {floor}"
        f"{', warrants/units/rights, preferreds and notes dropped' if f.drop_derivative_listings else ''}); "
        f"dropped: {dropped}. Names, sectors and exact dollar volumes are in the full result."
    )
    return fit_lines(head, lines, "\nSources: " + "; ".join(b.sources))


get_market_movers = Tool(
    name="get_market_movers",
    description=(
        "Top gainers, top losers (by the screener's % change) and most active stocks (by dollar volume) of "
        "one session of every US-listed stock (NASDAQ, NYSE, AMEX; unadjusted, as reported that evening), "
        "after a screen: price >= $5, volume >= 100,000 shares, market cap >= $300M (unknown caps dropped), "
        "warrants, units, rights, preferreds and listed notes dropped; each threshold can be changed. "
        f"Says how many rows each rule dropped and the data's caveats. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=MoversArgs,
    fn=_movers,
    summarize=summarize_movers,
)


# --- get_sector_performance -------------------------------------------------------------------------


class SectorArgs(ToolArgs):
    date: dt.date | None = Field(
        None, description="A session on or before the run's as-of date; omitted: the as-of date."
    )


async def _sectors(args: SectorArgs, ctx: ToolContext) -> Result[SectorBoard]:
    day = session_day(args.date, ctx.as_of)
    if isinstance(day, Err):
        return day
    got = await ctx.router.etf_panel(day.value, panel_start(day.value))
    if isinstance(got, Err):
        return got
    board = sector_board(got.value, sources=[got.value.source.cite()])
    if board is None:
        return Err(
            ErrorCode.NO_DATA, f"no ETF session on or before {day.value.isoformat()}; {DO_NOT_ESTIMATE}"
        )
    return Ok(board)


def summarize_sectors(b: SectorBoard) -> str:
    def line(f: FundPerf) -> str:
        rank = f" (rank {f.rank_1m} by 1M)" if f.rank_1m is not None else ""
        close = f"close {f.close:g}" if f.close is not None else "no close"
        rets = ", ".join(f"{w} {_pct(v)}" for w, v in f.returns.items())
        return f"- {f.ticker} {f.name}{rank}: {close}; {rets}"

    lines = [
        f"Sector and index ETF returns on session {b.session.isoformat()} (adjusted closes; 1W = 5 sessions, "
        "1M = 21, 3M = 63, YTD from the prior year's last close):",
        *(line(f) for f in sorted(b.sectors, key=lambda f: (f.rank_1m is None, f.rank_1m or 0, f.ticker))),
        *(line(f) for f in b.indexes),
        f"Leaders (1M): {', '.join(b.leaders) or 'none'}; laggards: {', '.join(b.laggards) or 'none'}.",
        *(f"Warning: {w}" for w in b.warnings),
    ]
    return "\n".join(lines) + "\nSources: " + "; ".join(b.sources)


get_sector_performance = Tool(
    name="get_sector_performance",
    description=(
        "Performance of the 11 Select Sector SPDRs (XLB XLC XLE XLF XLI XLK XLP XLRE XLU XLV XLY) and the "
        "index ETFs SPY, QQQ, DIA, IWM on a session: adjusted close and returns over 1W (5 sessions), 1M "
        "(21), 3M (63) and YTD, each sector's 1M rank, the leaders and laggards. "
        f"{POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SectorArgs,
    fn=_sectors,
    summarize=summarize_sectors,
)


# --- get_topic_news ---------------------------------------------------------------------------------


class TopicArgs(ToolArgs):
    topic: Topic | None = Field(
        None, description="One of conflicts, trade, sanctions, energy, rates; omitted: all five."
    )
    days: Annotated[
        int, Field(ge=1, le=MAX_DAYS, description="News published in this many days up to the as-of date.")
    ] = DEFAULT_DAYS


async def _topic_news(args: TopicArgs, ctx: ToolContext) -> Result[GeoBoard]:
    topics: tuple[Topic, ...] = (args.topic,) if args.topic is not None else TOPICS
    since = ctx.as_of - dt.timedelta(days=args.days)
    found = await asyncio.gather(
        *(ctx.router.news_search(list(TOPIC_TERMS[t]), ctx.as_of, since, SEARCH_LIMIT) for t in topics)
    )
    briefs: list[TopicBrief] = []
    warnings: list[str] = []
    sources: set[str] = set()
    coverage: str | None = None
    for topic, got in zip(topics, found, strict=True):
        if isinstance(got, Ok):
            brief = topic_brief(topic, got.value)
            sources |= {i.source.cite() for i in got.value}
        else:
            brief = topic_brief(topic, [])
            if got.code == ErrorCode.NO_DATA:  # the feeds searched and their dates, said once
                coverage = coverage or _searched(got)
            else:
                warnings.append(f"{topic} news search failed: {reader_reason(got)}")
        if brief.articles == 0:
            warnings.append(f"no {topic} headline published {since.isoformat()}..{ctx.as_of.isoformat()}")
        briefs.append(brief)
    if coverage is not None:
        warnings.append(f"news feeds {coverage}")
    return Ok(
        GeoBoard(session=ctx.as_of, since=since, topics=briefs, sources=sorted(sources), warnings=warnings)
    )


def _headline_line(h: TopicHeadline) -> str:
    return f"  - {h.published.isoformat()} {clip(h.title, 160)} (tone {h.tone:+.2f}) — {h.source}"


def summarize_topics(b: GeoBoard) -> str:
    lines = [
        f"Topic news published {b.since.isoformat()}..{b.session.isoformat()} (an article counts when its "
        "headline names the topic; tone in [-1, +1] from documented word lists):"
    ]
    for t in b.topics:
        tone = f"mean tone {t.tone:+.2f}" if t.tone is not None else "no tone"
        lines.append(
            f"- {t.topic}: {t.articles} article(s), {tone}; "
            f"exposed sector funds {', '.join(t.sectors_exposed)}"
        )
        lines += [_headline_line(h) for h in t.headlines]
    lines += [f"Warning: {w}" for w in b.warnings]
    return fit_lines(lines[0], lines[1:], "\nSources: " + ("; ".join(b.sources) or "none"))


get_topic_news = Tool(
    name="get_topic_news",
    description=(
        "Geopolitical and macro news by topic (conflicts, trade, sanctions, energy, rates) published in the "
        "days up to the run's as-of date (default 30): for each topic the number of articles whose headline "
        "names it, their mean headline tone (-1..+1, word lists), the newest headlines with their source, "
        "and the sector ETFs the topic moves (a documented map). An empty topic means nothing was found in "
        f"the window, and the result says which news feeds were searched. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=TopicArgs,
    fn=_topic_news,
    summarize=summarize_topics,
    third_party="passage",
)


# --- get_industry_performance -----------------------------------------------------------------------


class IndustryArgs(ToolArgs):
    sectors: Annotated[
        list[Annotated[str, Field(min_length=2, max_length=40)]],
        Field(
            min_length=1,
            max_length=MAX_SECTORS,
            description="Up to 3 sectors: Select Sector SPDR tickers (XLK) or GICS sector names (Energy).",
        ),
    ]


def _dollar_volume(panel: PricePanel, ticker: str) -> float | None:
    """A member's mean close × volume over its last 21 bars (the size used when caps are unknown)."""
    row = panel_row(panel, ticker)
    if row is None:
        return None
    traded = panel.close[row, -21:] * panel.volume[row, -21:]
    traded = traded[np.isfinite(traded)]
    return float(traded.mean()) if traded.size else None


def _sector_news(items: Sequence[NewsItem], since: dt.date) -> list[NewsItem]:
    """Each story of the window once, newest first, at most ``SECTOR_HEADLINES``."""
    seen: set[str] = set()
    kept: list[NewsItem] = []
    for item in sorted(items, key=lambda i: (i.published_at, i.title), reverse=True):
        keys = {k for k in story_keys(item) if k}
        if keys & seen or not published_since(item.published_at, since):
            continue
        seen |= keys
        kept.append(item)
    return kept[:SECTOR_HEADLINES]


async def _industries(args: IndustryArgs, ctx: ToolContext) -> Result[IndustryBoard]:
    resolved: list[tuple[str, str]] = []
    for asked in args.sectors:
        found = sector_etf(asked)
        if found is None:
            names = ", ".join(f"{t} ({n})" for t, n in SECTOR_SPDRS.items())
            return Err(ErrorCode.INVALID_INPUT, f"unknown sector {asked!r}; pass one of {names}")
        if found not in resolved:
            resolved.append(found)
    start = panel_start(ctx.as_of)
    members_got, panel_got, etfs_got, listed_got = await asyncio.gather(
        ctx.router.index_constituents(ctx.as_of),
        ctx.router.equity_panel(ctx.as_of, start),
        ctx.router.etf_panel(ctx.as_of, start),
        ctx.router.listed_session(ctx.as_of, ctx.as_of),
    )
    if isinstance(members_got, Err):
        return members_got
    if isinstance(panel_got, Err):
        return panel_got
    constituents, panel = members_got.value, panel_got.value
    warnings: list[str] = []
    sources = [constituents.source.cite(), panel.source.cite()]
    etf_1m: dict[str, float | None] = {}
    if isinstance(etfs_got, Ok):
        sources.append(etfs_got.value.source.cite())
        etfs = etfs_got.value
        dates = [etfs.day(i) for i in range(len(etfs.dates))]
        for etf, _ in resolved:
            row = etfs.row(etf)
            if row is not None and dates:
                etf_1m[etf] = window_returns(dates, [float(x) for x in etfs.close[row]], dates[-1])[1]["1M"]
    else:
        warnings.append(f"sector ETF returns unavailable: {reader_reason(etfs_got)}")
    sizes: dict[str, float] = {}
    if isinstance(listed_got, Ok):
        table = listed_got.value
        sources.append(table.source.cite())
        for m in constituents.members:
            i = table.row(m.ticker.replace("-", "."))
            i = table.row(m.ticker) if i is None else i
            if i is not None and np.isfinite(table.market_cap_usd[i]):
                sizes[m.ticker] = float(table.market_cap_usd[i])
        size_word = "market cap"
    else:
        size_word = "21-session average dollar volume"
        warnings.append(
            f"market caps unavailable ({reader_reason(listed_got)}): largest names by {size_word}"
        )
        for m in constituents.members:
            if (v := _dollar_volume(panel, m.ticker)) is not None:
                sizes[m.ticker] = v
    since = ctx.as_of - dt.timedelta(days=NEWS_DAYS)
    biggest = {
        etf: largest([m for m in constituents.members if m.sector == sector], sizes, NEWS_NAMES)
        for etf, sector in resolved
    }
    every = sorted({t for names in biggest.values() for t in names})
    news = dict(
        zip(
            every,
            await asyncio.gather(*(ctx.router.news(t, ctx.as_of, NEWS_READ) for t in every)),
            strict=True,
        )
    )
    dives = []
    for etf, sector in resolved:
        items: list[NewsItem] = []
        failed: list[str] = []
        for t in biggest[etf]:
            got = news[t]
            if isinstance(got, Ok):
                items += got.value
            elif got.code != ErrorCode.NO_DATA:  # "no news" is an answer, not a failure
                failed.append(f"{t} ({got.code.value})")
        recent = _sector_news(items, since)
        dive = deep_dive(
            etf,
            sector,
            constituents.members,
            panel,
            etf_return_1m=etf_1m.get(etf),
            headlines=[headline(i, "company") for i in recent],
        )
        notes = [
            f"sector news: articles of its largest members by {size_word} ({', '.join(biggest[etf])}) "
            f"published {since.isoformat()}..{ctx.as_of.isoformat()}: {len(dive.headlines)} kept"
        ]
        if failed:
            notes.append(f"news failed for {', '.join(failed)}")
        dives.append(dive.model_copy(update={"warnings": [*dive.warnings, *notes]}))
        sources += sorted({i.source.cite() for i in recent} - set(sources))
    if constituents.list_date < ctx.as_of:
        warnings.append(
            f"constituents list of {constituents.list_date.isoformat()}: index changes after it are not in it"
        )
    return Ok(
        IndustryBoard(
            session=panel.day(-1) if len(panel.dates) else ctx.as_of,
            constituents_list=constituents.list_date,
            sectors=dives,
            sources=sources,
            warnings=warnings,
        )
    )


def _stock(p: StockPerf | None) -> str:
    return "n/a" if p is None else f"{p.ticker} {_pct(p.return_1m)}"


def _sub_line(s: SubIndustryPerf) -> str:
    breadth = f"{s.breadth_1m:g}% up" if s.breadth_1m is not None else "breadth n/a"
    return (
        f"  - {s.sub_industry} ({s.members}): median 1M {_pct(s.median_return_1m)}, 3M "
        f"{_pct(s.median_return_3m)}, {breadth}; best {_stock(s.best)}, worst {_stock(s.worst)}"
    )


def summarize_industries(b: IndustryBoard) -> str:
    lines: list[str] = [f"Warning: {w}" for w in b.warnings]
    for d in b.sectors:
        subs = d.sub_industries
        shown = subs if len(subs) <= SUMMARY_SUBS + 1 else [*subs[:SUMMARY_SUBS], subs[-1]]
        lines += [
            f"{d.sector} ({d.etf}, 1M {_pct(d.etf_return_1m)}): {d.constituents} constituents priced, "
            f"{len(subs)} sub-industries (members), status {d.status}"
            + ("; the best and the weakest by median 1M:" if len(shown) < len(subs) else ":"),
            *(_sub_line(s) for s in shown),
            "  top 1M: " + (", ".join(_stock(p) for p in d.top_stocks) or "none"),
            "  bottom 1M: " + (", ".join(_stock(p) for p in d.bottom_stocks) or "none"),
            *(_headline_line(h) for h in d.headlines[:SUMMARY_HEADLINES]),
            *(f"  Note: {clip(w, 240)}" for w in d.warnings),
        ]
    head = (
        f"Industry deep dive on session {b.session.isoformat()} (S&P 500 constituents list of "
        f"{b.constituents_list.isoformat()}, adjusted closes; 1M = 21 sessions, 3M = 63; every "
        "sub-industry and headline is in the full result):"
    )
    return fit_lines(head, lines, "\nSources: " + "; ".join(b.sources))


get_industry_performance = Tool(
    name="get_industry_performance",
    description=(
        "Industry deep dive on up to 3 sectors (Select Sector SPDR tickers such as XLK, or GICS sector "
        "names such as Energy): each sector's S&P 500 constituents grouped by GICS sub-industry with the "
        "median 1-month and 3-month return, breadth (percent up over 1 month), best and worst member; the "
        "sector's 5 best and 5 worst stocks over 1 month; the SPDR's 1-month return; and recent headlines "
        f"of its largest members with their source. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=IndustryArgs,
    fn=_industries,
    summarize=summarize_industries,
    timeout_s=60.0,
    third_party="passage",
)

TOOLS: tuple[Tool, ...] = (
    get_market_movers,
    get_sector_performance,
    get_topic_news,
    get_industry_performance,
)
