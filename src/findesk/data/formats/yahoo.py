"""Parsers for Yahoo Finance JSON: the v8 ``chart`` API and the v1 ``search`` API (news).

Rules this module keeps:
- Pure functions on decoded JSON, no I/O; a body of an unexpected shape is ``bad_response``, a
  ``chart.error`` is typed (``Not Found`` -> ``not_found``), an empty result is ``no_data``.
- Point in time: bars dated after ``as_of`` are dropped; the ``meta`` live fields (regularMarket*)
  are used only when their session is on or before ``as_of``; news published after the end of the
  ``as_of`` day (New York) is dropped.
- A bar's date is its session date in the exchange's time zone (``exchangeTimezoneName``).
- Chart ``close`` is split-adjusted only; ``adjclose`` is split- and dividend-adjusted. Bars use
  ``adjclose`` and rescale open/high/low by ``adjclose / close`` (``adjusted=True``); a quote uses
  ``close`` (what was quoted, up to later splits) and says so in ``notes``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from findesk.core.dates import visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import NewsItem, PriceBar, PriceBars, Quote, Source

VENDOR = "yahoo"


@dataclass(frozen=True, slots=True)
class ChartRow:
    day: date
    open: float | None
    high: float | None
    low: float | None
    close: float | None
    adjclose: float | None
    volume: int | None


@dataclass(frozen=True, slots=True)
class Chart:
    symbol: str
    currency: str
    instrument_type: str | None
    rows: list[ChartRow]  # sorted by day, one per session
    meta: dict[str, Any] = field(default_factory=dict)
    market_day: date | None = None  # session of meta.regularMarketTime


def _bad(reason: str) -> Err:
    return Err(ErrorCode.BAD_RESPONSE, f"Yahoo chart response {reason}", VENDOR)


def _num(values: Any, i: int) -> float | None:
    if not isinstance(values, list) or i >= len(values):
        return None
    v = values[i]
    if isinstance(v, bool) or not isinstance(v, int | float) or math.isnan(v):
        return None
    return float(v)


def _zone(meta: dict[str, Any]) -> timezone | ZoneInfo:
    name = meta.get("exchangeTimezoneName")
    if isinstance(name, str):
        try:
            return ZoneInfo(name)
        except (ZoneInfoNotFoundError, ValueError):
            pass
    offset = meta.get("gmtoffset")
    return timezone(timedelta(seconds=offset)) if isinstance(offset, int) else ZoneInfo("America/New_York")


def chart_error(body: Any) -> Err | None:
    """The typed error of a ``{"chart": {"error": {...}}}`` body, if it has one."""
    chart = body.get("chart") if isinstance(body, dict) else None
    error = chart.get("error") if isinstance(chart, dict) else None
    if not isinstance(error, dict):
        return None
    code = str(error.get("code") or "")
    text = str(error.get("description") or code or "unknown error")
    if code == "Not Found":
        return Err(ErrorCode.NOT_FOUND, f"Yahoo does not know this symbol: {text}", VENDOR)
    if code == "Bad Request":
        return Err(ErrorCode.INVALID_INPUT, f"Yahoo rejected the chart request: {text}", VENDOR)
    return Err(ErrorCode.UNAVAILABLE, f"Yahoo chart error {code!r}: {text}", VENDOR)


def parse_chart(body: Any) -> Result[Chart]:
    """Decode a v8 chart body into one row per session (daily interval)."""
    err = chart_error(body)
    if err is not None:
        return err
    chart = body.get("chart") if isinstance(body, dict) else None
    if not isinstance(chart, dict) or "result" not in chart:
        return _bad("has no 'chart.result'")
    results = chart["result"]
    if not results:
        return Err(ErrorCode.NO_DATA, "Yahoo returned an empty chart for this request", VENDOR)
    if not isinstance(results, list) or not isinstance(results[0], dict):
        return _bad("has a 'chart.result' that is not a list of objects")
    result = results[0]
    meta = result.get("meta")
    if not isinstance(meta, dict) or not isinstance(meta.get("symbol"), str):
        return _bad("has no 'meta.symbol'")
    stamps = result.get("timestamp") or []
    indicators = result.get("indicators") or {}
    if not isinstance(stamps, list) or not isinstance(indicators, dict):
        return _bad("has malformed 'timestamp' or 'indicators'")
    quotes = indicators.get("quote") or [{}]
    adj = indicators.get("adjclose") or [{}]
    if not isinstance(quotes, list) or not isinstance(quotes[0], dict) or not isinstance(adj, list):
        return _bad("has malformed 'indicators.quote'")
    q = quotes[0]
    adjclose = adj[0].get("adjclose") if adj and isinstance(adj[0], dict) else None
    zone = _zone(meta)
    by_day: dict[date, ChartRow] = {}
    for i, stamp in enumerate(stamps):
        if not isinstance(stamp, int):
            return _bad(f"has a non-integer timestamp {stamp!r}")
        day = datetime.fromtimestamp(stamp, UTC).astimezone(zone).date()
        volume = _num(q.get("volume"), i)
        # the last row of a daily chart may repeat the live session: the later one wins
        by_day[day] = ChartRow(
            day=day,
            open=_num(q.get("open"), i),
            high=_num(q.get("high"), i),
            low=_num(q.get("low"), i),
            close=_num(q.get("close"), i),
            adjclose=_num(adjclose, i),
            volume=None if volume is None else int(volume),
        )
    market_time = meta.get("regularMarketTime")
    market_day = (
        datetime.fromtimestamp(market_time, UTC).astimezone(zone).date()
        if isinstance(market_time, int)
        else None
    )
    return Ok(
        Chart(
            symbol=meta["symbol"],
            currency=str(meta.get("currency") or "USD"),
            instrument_type=meta.get("instrumentType"),
            rows=[by_day[d] for d in sorted(by_day)],
            meta=meta,
            market_day=market_day,
        )
    )


def chart_bars(chart: Chart, start: date, end: date, as_of: date, source: Source) -> Result[PriceBars]:
    last = min(end, as_of)
    rows = [r for r in chart.rows if start <= r.day <= last and r.close is not None]
    if not rows:
        return Err(
            ErrorCode.NO_DATA, f"Yahoo has no daily bars for {chart.symbol} in {start}..{last}", VENDOR
        )
    adjusted = all(r.adjclose is not None for r in rows)
    bars: list[PriceBar] = []
    for r in rows:
        close = r.close if r.close is not None else math.nan
        factor = (r.adjclose / close) if adjusted and r.adjclose is not None and close else 1.0
        bars.append(
            PriceBar(
                date=r.day,
                open=None if r.open is None else r.open * factor,
                high=None if r.high is None else r.high * factor,
                low=None if r.low is None else r.low * factor,
                close=close * factor,
                volume=r.volume,
            )
        )
    note = (
        "adjclose basis: open/high/low rescaled by adjclose/close"
        if adjusted
        else "split-adjusted closes only (no adjclose in the response)"
    )
    return Ok(
        PriceBars(
            symbol=chart.symbol,
            adjusted=adjusted,
            start=start,
            end=last,
            bars=bars,
            source=source.model_copy(update={"note": note}),
        )
    )


def chart_quote(chart: Chart, as_of: date, source: Source) -> Result[Quote]:
    """The quote at ``as_of``: the live ``meta`` fields when their session is the latest one on or
    before ``as_of``, else the last daily bar on or before ``as_of``."""
    rows = [r for r in chart.rows if r.day <= as_of and r.close is not None]
    meta = chart.meta
    price = meta.get("regularMarketPrice")
    use_meta = (
        chart.market_day is not None
        and chart.market_day <= as_of
        and isinstance(price, int | float)
        and (not rows or chart.market_day >= rows[-1].day)
    )
    if use_meta and chart.market_day is not None and isinstance(price, int | float):
        session = chart.market_day
        earlier = [r for r in rows if r.day < session]
        today = next((r for r in rows if r.day == session), None)
        prev = meta.get("previousClose")
        if not isinstance(prev, int | float):
            # only a bar from the days just before counts as the previous close
            recent = earlier and (session - earlier[-1].day).days <= 7
            prev = earlier[-1].close if recent else None
        volume = meta.get("regularMarketVolume")
        return Ok(
            _quote(
                chart,
                session,
                float(price),
                None if prev is None else float(prev),
                open_=today.open if today else None,
                high=_num([meta.get("regularMarketDayHigh")], 0),
                low=_num([meta.get("regularMarketDayLow")], 0),
                volume=int(volume) if isinstance(volume, int | float) else None,
                source=source,
                notes=["regularMarket* fields of the chart meta (delayed quote)"],
            )
        )
    if not rows:
        return Err(
            ErrorCode.NO_DATA, f"Yahoo returned no session for {chart.symbol} on or before {as_of}", VENDOR
        )
    last = rows[-1]
    prev_close = rows[-2].close if len(rows) > 1 else None
    return Ok(
        _quote(
            chart,
            last.day,
            float(last.close or 0.0),
            prev_close,
            open_=last.open,
            high=last.high,
            low=last.low,
            volume=last.volume,
            source=source,
            notes=["daily bar close: as traded except for splits after that day (not dividend-adjusted)"],
        )
    )


def _quote(
    chart: Chart,
    session: date,
    price: float,
    prev: float | None,
    *,
    open_: float | None,
    high: float | None,
    low: float | None,
    volume: int | None,
    source: Source,
    notes: list[str],
) -> Quote:
    change = None if prev is None else round(price - prev, 6)
    pct = None if not prev else round((price / prev - 1.0) * 100.0, 4)
    return Quote(
        symbol=chart.symbol,
        session_date=session,
        price=price,
        previous_close=prev,
        change=change,
        change_pct=pct,
        open=open_,
        day_high=high,
        day_low=low,
        volume=volume,
        currency=chart.currency,
        source=source,
        notes=notes,
    )


def parse_search_news(body: Any, as_of: date, source: Source, limit: int = 20) -> Result[list[NewsItem]]:
    """News items of a v1 search body published on or before the end of ``as_of`` (newest first)."""
    if not isinstance(body, dict) or not isinstance(body.get("news", []), list):
        return Err(ErrorCode.BAD_RESPONSE, "Yahoo search response has no 'news' list", VENDOR)
    items: list[NewsItem] = []
    for raw in body.get("news", []):
        if not isinstance(raw, dict):
            continue
        stamp, title, uid = raw.get("providerPublishTime"), raw.get("title"), raw.get("uuid")
        if not isinstance(stamp, int) or not isinstance(title, str) or not isinstance(uid, str):
            continue  # an item without id, title or time cannot be cited or dated
        published = datetime.fromtimestamp(stamp, UTC)
        if not visible_at(published, as_of):
            continue
        tickers = raw.get("relatedTickers")
        items.append(
            NewsItem(
                id=uid,
                title=title,
                url=raw.get("link") if isinstance(raw.get("link"), str) else None,
                publisher=raw.get("publisher") if isinstance(raw.get("publisher"), str) else None,
                published_at=published,
                tickers=[t for t in tickers if isinstance(t, str)] if isinstance(tickers, list) else [],
                source=source,
            )
        )
    items.sort(key=lambda n: n.published_at, reverse=True)
    return Ok(items[:limit])
