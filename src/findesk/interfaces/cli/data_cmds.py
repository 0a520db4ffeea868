"""``findesk data …``: see the data layer work, one command per capability.

Rules: commands parse arguments, call the router (or the filing-section service) and render; they
hold no business logic. Every command accepts ``--as-of``, ``--snapshot/--live`` and ``--json``:
``_data_command`` adds them to each command's own parameters and opens the session before the
command runs, so no command can forget one.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from datetime import date
from typing import Any, TypeVar

import typer
from rich.console import Console

from findesk.core.dates import parse_date
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import Fact, SocialPost
from findesk.data.router import DataRouter
from findesk.interfaces.cli import render
from findesk.interfaces.cli import session as ses

T = TypeVar("T")

data_app = typer.Typer(
    help="Query the data layer: quotes, bars, filings, sections, facts, macro, news, posts…",
    no_args_is_help=True,
)


def _shared(name: str, option: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=option, annotation=annotation)


# The options every data command takes, after its own parameters.
_SHARED = (
    _shared(
        "as_of",
        typer.Option(
            None, "--as-of", help="Point-in-time date YYYY-MM-DD (default: snapshot default / today)."
        ),
        str | None,
    ),
    _shared(
        "snapshot",
        typer.Option(None, "--snapshot/--live", help="Force the offline snapshot or the live sources."),
        bool | None,
    ),
    _shared(
        "as_json", typer.Option(False, "--json", help="Print one JSON document instead of tables."), bool
    ),
)


@dataclass(frozen=True)
class _Call:
    """One data command's open session and its output choice."""

    session: ses.Session
    as_json: bool

    @property
    def as_of(self) -> date:
        return self.session.context.as_of

    def show(
        self,
        make: Callable[[DataRouter], Coroutine[Any, Any, Result[T]]],
        draw: Callable[[Console, T], None],
    ) -> None:
        """Run one router call; print JSON or the context line and a table; fail with one line."""
        router = self.session.router
        self.emit(ses.unwrap(ses.run_async(self.session, lambda: make(router)), self.as_json), draw)

    def emit(self, value: T, draw: Callable[[Console, T], None], document: Any = None) -> None:
        """One JSON document (``document`` when given, else ``value``), or the context line and
        ``draw``'s table of ``value``."""
        if self.as_json:
            ses.emit_json(self.session, value if document is None else document)
            return
        ses.header(self.session)
        draw(ses.stdout, value)

    def date_arg(self, text: str | None, what: str) -> date | None:
        if text is None:
            return None
        return ses.unwrap(parse_date(text, what=what), self.as_json)


def _data_command(name: str) -> Callable[[Callable[..., None]], Callable[..., None]]:
    """Register ``fn(call, …)`` as ``findesk data <name>``: ``fn``'s parameters after ``call``, then the
    shared options; ``call`` holds the session those options opened."""

    def register(fn: Callable[..., None]) -> Callable[..., None]:
        own = list(inspect.signature(fn, eval_str=True).parameters.values())[1:]
        params = [*own, *_SHARED]

        def command(**kwargs: Any) -> None:
            as_of, snapshot, as_json = kwargs.pop("as_of"), kwargs.pop("snapshot"), kwargs.pop("as_json")
            fn(_Call(ses.open_session(as_of, snapshot, as_json), as_json), **kwargs)

        # typer reads a command's parameters from its signature and type hints
        command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
        command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
        command.__doc__ = fn.__doc__
        command.__name__ = fn.__name__
        data_app.command(name)(command)
        return fn

    return register


@_data_command("company")
def company(call: _Call, symbol: str) -> None:
    """Ticker → CIK, name, exchange, sector."""
    call.show(lambda r: r.company(symbol, call.as_of), render.company)


@_data_command("quote")
def quote(call: _Call, symbol: str) -> None:
    """Last session's quote at the as-of date (as traded), with its source and date."""
    call.show(lambda r: r.quote(symbol, call.as_of), render.quote)


@_data_command("bars")
def bars(
    call: _Call,
    symbol: str,
    start: str = typer.Option(..., "--start", help="First date YYYY-MM-DD."),
    end: str | None = typer.Option(None, "--end", help="Last date YYYY-MM-DD (default: the as-of date)."),
) -> None:
    """Daily OHLCV bars between two dates (never past the as-of date)."""
    first = call.date_arg(start, "start date")
    last = call.date_arg(end, "end date") or call.as_of
    assert first is not None
    call.show(lambda r: r.bars(symbol, first, last, call.as_of), render.bars)


@_data_command("filings")
def filings(
    call: _Call,
    symbol: str,
    form: list[str] | None = typer.Option(None, "--form", help="Only these forms (repeatable), e.g. 8-K."),
    limit: int = typer.Option(10, "--limit", min=1, help="At most this many filings."),
) -> None:
    """SEC filings filed on or before the as-of date, newest first (8-Ks with their item codes)."""
    forms = frozenset(f.strip().upper() for f in form) if form else None
    call.show(lambda r: r.filings(symbol, call.as_of, forms, limit), render.filings)


@_data_command("events")
def events(
    call: _Call,
    symbol: str,
    limit: int = typer.Option(10, "--limit", min=1, help="At most this many 8-K filings."),
) -> None:
    """8-K material events: each item code of recent 8-Ks with its official title."""
    call.show(lambda r: r.material_events(symbol, call.as_of, limit), render.events)


@_data_command("section")
def section(
    call: _Call,
    symbol: str,
    form: str = typer.Argument(..., help="10-K, 10-Q or 8-K."),
    item: str = typer.Argument(..., help="Item, e.g. 1A, 7 (10-K); 2 or II-1A (10-Q); 2.02 (8-K)."),
    full: bool = typer.Option(False, "--full", help="Print the whole section."),
) -> None:
    """One Item of the latest filing of a form, with its citation."""
    from findesk.knowledge.filings.sections import SectionService

    service = SectionService(call.session.router, call.session.settings.cache_dir)
    call.show(
        lambda _: service.section(symbol, form.upper(), item, call.as_of),
        lambda console, v: render.section(console, v, None if full else 4000),
    )


@_data_command("facts")
def facts(
    call: _Call,
    symbol: str,
    concept: str = typer.Argument(..., help="XBRL concept, e.g. Revenues, NetIncomeLoss, us-gaap:Assets."),
    limit: int = typer.Option(12, "--limit", min=1, help="Show the newest N facts (by filing date)."),
) -> None:
    """XBRL facts for a concept as filed on or before the as-of date."""

    async def newest(router: DataRouter) -> Result[list[Fact]]:
        got = await router.facts(symbol, concept, call.as_of)
        if isinstance(got, Err):
            return got
        return Ok(sorted(got.value, key=lambda f: (f.filed, f.period_end), reverse=True)[:limit])

    call.show(newest, render.facts)


@_data_command("macro")
def macro(
    call: _Call,
    series: str = typer.Argument(..., help="FRED series id, e.g. DGS10, CPIAUCSL, UNRATE."),
    start: str | None = typer.Option(None, "--start", help="First observation date."),
    last: int = typer.Option(15, "--last", min=1, help="Show the last N observations in the table."),
) -> None:
    """A FRED series as known at the as-of date (release lags applied)."""
    first = call.date_arg(start, "start date")
    call.show(lambda r: r.macro(series, call.as_of, first), lambda console, v: render.macro(console, v, last))


@_data_command("news")
def news(call: _Call, symbol: str, limit: int = typer.Option(20, "--limit", min=1)) -> None:
    """News published on or before the as-of date, newest first."""
    call.show(lambda r: r.news(symbol, call.as_of, limit), render.news)


@_data_command("posts")
def posts(
    call: _Call,
    symbol: str,
    limit: int = typer.Option(30, "--limit", min=1, help="At most this many posts per platform."),
) -> None:
    """Reddit and Stocktwits posts (UNVERIFIED user content) with author metadata."""
    router, as_json = call.session.router, call.as_json

    async def both() -> tuple[object, object]:
        reddit, twits = await asyncio.gather(
            router.reddit_posts(symbol, call.as_of, limit), router.stocktwits_posts(symbol, call.as_of, limit)
        )
        return reddit, twits

    reddit, twits = ses.run_async(call.session, both)
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
    call.emit(found, render.posts, document={"posts": found, "warnings": [e.to_dict() for e in errors]})


@_data_command("sanctions")
def sanctions(
    call: _Call, query: str = typer.Argument(..., help="A crypto address (0x…) or a name.")
) -> None:
    """Screen an address or a name against the sanctions lists known at the as-of date."""
    call.show(lambda r: r.sanctions(query, call.as_of), render.sanctions)


@_data_command("txs")
def txs(
    call: _Call,
    address: str = typer.Argument(..., help="An Ethereum address (0x…)."),
    limit: int = typer.Option(25, "--limit", min=1),
) -> None:
    """On-chain transactions of an address (normal, internal and token transfers), newest first."""
    call.show(lambda r: r.onchain_txs(address, call.as_of, limit), render.txs)


@_data_command("token")
def token(
    call: _Call, token_id: str = typer.Argument(..., help="A CoinGecko id or a symbol, e.g. bitcoin or BTC.")
) -> None:
    """Token price, market cap and contracts."""
    call.show(lambda r: r.token(token_id, call.as_of), render.token)


@_data_command("tvl")
def tvl(
    call: _Call, protocol: str = typer.Argument(..., help="A DefiLlama protocol slug, e.g. aave or lido.")
) -> None:
    """Total value locked in a DeFi protocol."""
    call.show(lambda r: r.tvl(protocol, call.as_of), render.tvl)


@_data_command("transcripts")
def transcripts(
    call: _Call,
    symbol: str,
    limit: int = typer.Option(4, "--limit", min=1, help="The newest N calls."),
    full: bool = typer.Option(False, "--full", help="Print the newest call's whole text."),
) -> None:
    """Earnings-call transcripts held on or before the as-of date, newest first."""
    call.show(
        lambda r: r.transcripts(symbol, call.as_of, limit),
        lambda console, v: render.transcripts(console, v, None if full else 1500),
    )
