"""``findesk data …``: see the data layer work, one command per capability.

Rules: commands parse arguments, call the router (or the filing-section service) and render; they
hold no business logic. Every command accepts ``--as-of``, ``--snapshot/--live`` and ``--json``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Coroutine
from datetime import date
from typing import Any, TypeVar

import typer

from findesk.core.dates import parse_date
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import SocialPost
from findesk.interfaces.cli import render
from findesk.interfaces.cli import session as ses

T = TypeVar("T")

data_app = typer.Typer(
    help="Query the data layer: quotes, bars, filings, sections, facts, macro, news, posts…",
    no_args_is_help=True,
)

AS_OF = typer.Option(
    None, "--as-of", help="Point-in-time date YYYY-MM-DD (default: snapshot default / today)."
)
SNAPSHOT = typer.Option(None, "--snapshot/--live", help="Force the offline snapshot or the live sources.")
JSON = typer.Option(False, "--json", help="Print one JSON document instead of tables.")


def _show(
    s: ses.Session,
    as_json: bool,
    make: Callable[[], Coroutine[Any, Any, Result[T]]],
    draw: Callable[[T], None],
) -> None:
    """Run one router call; print JSON or the context line and a table; fail with one line."""
    value = ses.unwrap(ses.run_async(s, make), as_json)
    if as_json:
        ses.emit_json(s, value)
        return
    ses.header(s)
    draw(value)


def _date_arg(text: str | None, what: str, as_json: bool) -> date | None:
    if text is None:
        return None
    return ses.unwrap(parse_date(text, what=what), as_json)


@data_app.command("company")
def company(
    symbol: str, as_of: str | None = AS_OF, snapshot: bool | None = SNAPSHOT, as_json: bool = JSON
) -> None:
    """Ticker → CIK, name, exchange, sector."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s, as_json, lambda: s.router.company(symbol, s.context.as_of), lambda v: render.company(ses.stdout, v)
    )


@data_app.command("quote")
def quote(
    symbol: str, as_of: str | None = AS_OF, snapshot: bool | None = SNAPSHOT, as_json: bool = JSON
) -> None:
    """Last session's quote at the as-of date (as traded), with its source and date."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(s, as_json, lambda: s.router.quote(symbol, s.context.as_of), lambda v: render.quote(ses.stdout, v))


@data_app.command("bars")
def bars(
    symbol: str,
    start: str = typer.Option(..., "--start", help="First date YYYY-MM-DD."),
    end: str | None = typer.Option(None, "--end", help="Last date YYYY-MM-DD (default: the as-of date)."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Daily OHLCV bars between two dates (never past the as-of date)."""
    s = ses.open_session(as_of, snapshot, as_json)
    first = _date_arg(start, "start date", as_json)
    last = _date_arg(end, "end date", as_json) or s.context.as_of
    assert first is not None
    _show(
        s,
        as_json,
        lambda: s.router.bars(symbol, first, last, s.context.as_of),
        lambda v: render.bars(ses.stdout, v),
    )


@data_app.command("filings")
def filings(
    symbol: str,
    form: list[str] | None = typer.Option(None, "--form", help="Only these forms (repeatable), e.g. 8-K."),
    limit: int = typer.Option(10, "--limit", min=1, help="At most this many filings."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """SEC filings filed on or before the as-of date, newest first (8-Ks with their item codes)."""
    s = ses.open_session(as_of, snapshot, as_json)
    forms = frozenset(f.strip().upper() for f in form) if form else None
    _show(
        s,
        as_json,
        lambda: s.router.filings(symbol, s.context.as_of, forms, limit),
        lambda v: render.filings(ses.stdout, v),
    )


@data_app.command("events")
def events(
    symbol: str,
    limit: int = typer.Option(10, "--limit", min=1, help="At most this many 8-K filings."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """8-K material events: each item code of recent 8-Ks with its official title."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s,
        as_json,
        lambda: s.router.material_events(symbol, s.context.as_of, limit),
        lambda v: render.events(ses.stdout, v),
    )


@data_app.command("section")
def section(
    symbol: str,
    form: str = typer.Argument(..., help="10-K, 10-Q or 8-K."),
    item: str = typer.Argument(..., help="Item, e.g. 1A, 7 (10-K); 2 or II-1A (10-Q); 2.02 (8-K)."),
    full: bool = typer.Option(False, "--full", help="Print the whole section."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """One Item of the latest filing of a form, with its citation."""
    from findesk.knowledge.filings.sections import SectionService

    s = ses.open_session(as_of, snapshot, as_json)
    service = SectionService(s.router, s.settings.cache_dir)
    _show(
        s,
        as_json,
        lambda: service.section(symbol, form.upper(), item, s.context.as_of),
        lambda v: render.section(ses.stdout, v, None if full else 4000),
    )


@data_app.command("facts")
def facts(
    symbol: str,
    concept: str = typer.Argument(..., help="XBRL concept, e.g. Revenues, NetIncomeLoss, us-gaap:Assets."),
    limit: int = typer.Option(12, "--limit", min=1, help="Show the newest N facts (by filing date)."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """XBRL facts for a concept as filed on or before the as-of date."""
    s = ses.open_session(as_of, snapshot, as_json)
    value = ses.unwrap(ses.run_async(s, lambda: s.router.facts(symbol, concept, s.context.as_of)), as_json)
    newest = sorted(value, key=lambda f: (f.filed, f.period_end), reverse=True)[:limit]
    if as_json:
        return ses.emit_json(s, newest)
    ses.header(s)
    render.facts(ses.stdout, newest)


@data_app.command("macro")
def macro(
    series: str = typer.Argument(..., help="FRED series id, e.g. DGS10, CPIAUCSL, UNRATE."),
    start: str | None = typer.Option(None, "--start", help="First observation date."),
    last: int = typer.Option(15, "--last", min=1, help="Show the last N observations in the table."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """A FRED series as known at the as-of date (release lags applied)."""
    s = ses.open_session(as_of, snapshot, as_json)
    first = _date_arg(start, "start date", as_json)
    _show(
        s,
        as_json,
        lambda: s.router.macro(series, s.context.as_of, first),
        lambda v: render.macro(ses.stdout, v, last),
    )


@data_app.command("news")
def news(
    symbol: str,
    limit: int = typer.Option(20, "--limit", min=1),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """News published on or before the as-of date, newest first."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s,
        as_json,
        lambda: s.router.news(symbol, s.context.as_of, limit),
        lambda v: render.news(ses.stdout, v),
    )


@data_app.command("posts")
def posts(
    symbol: str,
    limit: int = typer.Option(30, "--limit", min=1, help="At most this many posts per platform."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Reddit and Stocktwits posts (UNVERIFIED user content) with author metadata."""
    s = ses.open_session(as_of, snapshot, as_json)

    async def both() -> tuple[object, object]:
        reddit, twits = await asyncio.gather(
            s.router.reddit_posts(symbol, s.context.as_of, limit),
            s.router.stocktwits_posts(symbol, s.context.as_of, limit),
        )
        return reddit, twits

    reddit, twits = ses.run_async(s, both)
    found: list[SocialPost] = []
    errors: list[Err] = []
    for label, got in (("reddit", reddit), ("stocktwits", twits)):
        if isinstance(got, Ok):
            found.extend(got.value)
        elif isinstance(got, Err):
            if not got.code.is_fallthrough:  # out of scope / invalid: the same for both platforms
                ses.fail(got, as_json)
            errors.append(got)
            if not as_json:
                ses.warn(f"{label}: {got.message()}")
    if not found:
        ses.fail(Err(ErrorCode.NO_DATA, " / ".join(e.reason for e in errors) or "no posts"), as_json)
    found.sort(key=lambda p: p.published_at, reverse=True)
    if as_json:
        return ses.emit_json(s, {"posts": found, "warnings": [e.to_dict() for e in errors]})
    ses.header(s)
    render.posts(ses.stdout, found)


@data_app.command("sanctions")
def sanctions(
    query: str = typer.Argument(..., help="A crypto address (0x…) or a name."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Screen an address or a name against the sanctions lists known at the as-of date."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s,
        as_json,
        lambda: s.router.sanctions(query, s.context.as_of),
        lambda v: render.sanctions(ses.stdout, v),
    )


@data_app.command("txs")
def txs(
    address: str = typer.Argument(..., help="An Ethereum address (0x…)."),
    limit: int = typer.Option(25, "--limit", min=1),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """On-chain transactions of an address (normal, internal and token transfers), newest first."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s,
        as_json,
        lambda: s.router.onchain_txs(address, s.context.as_of, limit),
        lambda v: render.txs(ses.stdout, v),
    )


@data_app.command("token")
def token(
    token_id: str = typer.Argument(..., help="A CoinGecko id or a symbol, e.g. bitcoin or BTC."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Token price, market cap and contracts."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s, as_json, lambda: s.router.token(token_id, s.context.as_of), lambda v: render.token(ses.stdout, v)
    )


@data_app.command("tvl")
def tvl(
    protocol: str = typer.Argument(..., help="A DefiLlama protocol slug, e.g. aave or lido."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Total value locked in a DeFi protocol."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(s, as_json, lambda: s.router.tvl(protocol, s.context.as_of), lambda v: render.tvl(ses.stdout, v))


@data_app.command("transcripts")
def transcripts(
    symbol: str,
    limit: int = typer.Option(4, "--limit", min=1, help="The newest N calls."),
    full: bool = typer.Option(False, "--full", help="Print the newest call's whole text."),
    as_of: str | None = AS_OF,
    snapshot: bool | None = SNAPSHOT,
    as_json: bool = JSON,
) -> None:
    """Earnings-call transcripts held on or before the as-of date, newest first."""
    s = ses.open_session(as_of, snapshot, as_json)
    _show(
        s,
        as_json,
        lambda: s.router.transcripts(symbol, s.context.as_of, limit),
        lambda v: render.transcripts(ses.stdout, v, None if full else 1500),
    )
