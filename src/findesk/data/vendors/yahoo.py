"""Live Yahoo Finance vendor: quotes and daily bars (v8 chart API), news (v1 search API) and the
day's gainers (v1 predefined screener ``day_gainers``).

Rules this module keeps:
- Point in time: the chart is requested up to the end of ``as_of`` and parsed with the ``as_of``
  filter (``findesk.data.formats.yahoo``); news published after ``as_of`` is dropped.
- The day_gainers screener lists the current session only: its session is the New York date of the
  quotes' ``regularMarketTime``, and a request for an earlier day (``min(session, as_of)`` before it)
  is ``no_data``, so a chain falls through to a vendor that keeps history (the snapshot); Yahoo never
  answers for a past date. The list becomes a ``ListedSession`` of the snapshot's shape (rules in
  ``formats.yahoo``): top ``SCREENER_COUNT`` movers across every US exchange, not every listed stock.
- Cache classes: quotes and the screener ``quote``, news ``news``, historical bars ``default``. A
  screener list the cache serves is cited with the time it was fetched; a stale copy (Yahoo failing)
  says so in ``notes``.
- Never raises: HTTP problems arrive as typed ``Err`` from the shared client; a 404 is an unknown
  symbol (``not_found``); unparseable bodies are ``bad_response``.
"""

from __future__ import annotations

import dataclasses
import json
import re
from datetime import UTC, date, datetime, time, timedelta
from urllib.parse import quote as urlquote
from urllib.parse import urlencode

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.yahoo import (
    Chart,
    chart_bars,
    chart_quote,
    parse_chart,
    parse_screener,
    parse_search_news,
)
from findesk.data.models import NewsItem, PriceBars, Quote, Source
from findesk.data.models.market_scan import ListedSession
from findesk.data.symbols import normalize_symbol, upper_symbol
from findesk.data.vendors.base import Category, HttpVendor

CHART_URL = "https://query1.finance.yahoo.com/v8/finance/chart/{symbol}"
SEARCH_URL = "https://query2.finance.yahoo.com/v1/finance/search"
SCREENER_URL = "https://query1.finance.yahoo.com/v1/finance/screener/predefined/saved"
SCREENER_COUNT = 250  # rows asked of the screener (Yahoo's maximum for predefined screeners)
_INDEX = re.compile(r"^\^[A-Z0-9]{1,10}$")  # Yahoo index symbols: ^GSPC, ^VIX
_QUOTE_LOOKBACK_DAYS = 14  # enough sessions to find the previous close across long holidays


def _epoch(day: date) -> int:
    return int(datetime.combine(day, time.min, tzinfo=UTC).timestamp())


class YahooVendor(HttpVendor):
    name = "yahoo"
    categories = frozenset({Category.QUOTE, Category.BARS, Category.NEWS, Category.DAY_GAINERS})

    def _symbol(self, raw: str) -> Result[str]:
        text = upper_symbol(raw)
        if _INDEX.match(text):
            return Ok(text)
        got = normalize_symbol(text)
        return got if isinstance(got, Ok) else Err(got.code, got.reason, self.name)

    async def _chart(
        self, symbol: str, first: date, last: date, freshness: str
    ) -> Result[tuple[Chart, Source]]:
        """The parsed daily chart of ``symbol`` from ``first`` to ``last``, and where it came from."""
        url = CHART_URL.format(symbol=urlquote(symbol, safe=""))
        # period2 is exclusive: the day after ``last`` at 00:00 UTC still ends before that session opens
        params = {
            "period1": _epoch(first),
            "period2": _epoch(last + timedelta(days=1)),
            "interval": "1d",
            "includePrePost": "false",
            "events": "div|split",
        }
        got = await self.http.get_json(url, params=params, freshness=freshness, source=self.name)
        if isinstance(got, Err):
            if got.code is ErrorCode.NOT_FOUND:
                return Err(
                    ErrorCode.NOT_FOUND, f"Yahoo does not know the symbol {symbol} (HTTP 404)", self.name
                )
            return Err(got.code, got.reason, self.name, got.details)
        chart = parse_chart(got.value)
        if isinstance(chart, Err):
            return chart
        source = Source(vendor=self.name, ref=f"{url}?{urlencode(params)}", retrieved_at=datetime.now(UTC))
        return Ok((chart.value, source))

    async def quote(self, symbol: str, as_of: date) -> Result[Quote]:
        sym = self._symbol(symbol)
        if isinstance(sym, Err):
            return sym
        got = await self._chart(sym.value, as_of - timedelta(days=_QUOTE_LOOKBACK_DAYS), as_of, "quote")
        if isinstance(got, Err):
            return got
        chart, source = got.value
        return chart_quote(chart, as_of, source)

    async def bars(self, symbol: str, start: date, end: date, as_of: date) -> Result[PriceBars]:
        sym = self._symbol(symbol)
        if isinstance(sym, Err):
            return sym
        if start > end:
            return Err(ErrorCode.INVALID_INPUT, f"start {start} is after end {end}; swap them", self.name)
        last = min(end, as_of)
        if start > last:
            return Err(
                ErrorCode.INVALID_INPUT,
                f"start {start} is after as_of {as_of}; nothing dated after as_of is visible",
                self.name,
            )
        got = await self._chart(sym.value, start, last, "default")
        if isinstance(got, Err):
            return got
        chart, source = got.value
        return chart_bars(chart, start, end, as_of, source)

    async def news(self, symbol: str, as_of: date, limit: int = 20) -> Result[list[NewsItem]]:
        sym = self._symbol(symbol)
        if isinstance(sym, Err):
            return sym
        params = {"q": sym.value, "quotesCount": 0, "newsCount": max(1, min(limit, 50))}
        got = await self.http.get_json(SEARCH_URL, params=params, freshness="news", source=self.name)
        if isinstance(got, Err):
            return Err(got.code, got.reason, self.name, got.details)
        source = Source(
            vendor=self.name, ref=f"{SEARCH_URL}?{urlencode(params)}", retrieved_at=datetime.now(UTC)
        )
        items = parse_search_news(got.value, as_of, source, limit)
        if isinstance(items, Err):
            return items
        if not items.value:
            return Err(
                ErrorCode.NO_DATA,
                f"Yahoo search has no news for {sym.value} published on or before {as_of} "
                "(it only returns recent headlines)",
                self.name,
            )
        return items

    async def day_gainers(self, session: date, as_of: date) -> Result[ListedSession]:
        wanted = min(session, as_of)
        params: dict[str, str | int] = {"scrIds": "day_gainers", "count": SCREENER_COUNT}
        got = await self.http.get(SCREENER_URL, params=params, freshness="quote", source=self.name)
        if isinstance(got, Err):
            return Err(got.code, got.reason, self.name, got.details)
        resp = got.value
        try:
            body = json.loads(resp.content)
        except (ValueError, UnicodeDecodeError) as exc:
            return Err(
                ErrorCode.BAD_RESPONSE,
                f"Yahoo's screener answered {resp.status} with a body that is not valid JSON ({exc})",
                self.name,
            )
        # a cached copy is as old as the cache says: cite when it was fetched, not now
        age_s = float(resp.extra.get("age_s", 0.0)) if resp.from_cache else 0.0
        source = Source(
            vendor=self.name,
            ref=f"{SCREENER_URL}?{urlencode(params)}",
            retrieved_at=datetime.now(UTC) - timedelta(seconds=age_s),
            note="Yahoo predefined screener day_gainers (delayed quotes)",
        )
        listed = parse_screener(body, source, "day_gainers")
        if isinstance(listed, Err):
            return listed
        table = listed.value
        if wanted < table.session:
            return Err(
                ErrorCode.NO_DATA,
                f"Yahoo's day_gainers screener lists only the current session ({table.session}); it "
                f"has no list for {wanted}",
                self.name,
            )
        if resp.extra.get("stale"):
            reason = str(resp.extra.get("stale_reason") or "Yahoo did not answer")
            note = f"{reason}: this is the HTTP cache's copy of the list, fetched {age_s / 60:.0f} min ago"
            return Ok(dataclasses.replace(table, notes=(*table.notes, note)))
        return listed
