"""Parsers for Yahoo Finance JSON: the v8 ``chart`` API, the v1 ``search`` API (news) and the v1
predefined ``screener`` (day gainers).

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
- A screener list becomes a ``ListedSession`` of the snapshot's shape: one row per symbol
  (alphabetical, first quote of a repeated symbol kept), ``session`` = the latest New York date of
  the quotes' ``regularMarketTime`` (a quote of an earlier day is left out, with a note),
  ``exchange_codes`` = Yahoo's own ``exchange`` codes as sent, ``exchanges`` = their venue
  (``EXCHANGE_NAMES``; another code as sent), ``etf_flags`` = ``quoteType == "ETF"``, close / %
  change / volume / cap = ``regularMarketPrice`` / ``regularMarketChangePercent`` (percent) /
  ``regularMarketVolume`` / ``marketCap`` (NaN when missing; a cap of 0 is unknown), names =
  ``longName`` else ``shortName``, sectors and industries None. A quote without a symbol, an exchange
  code or a ``regularMarketTime`` is ``bad_response`` (it cannot be placed or dated); an empty list
  is ``no_data``; ``finance.error`` is ``unavailable``. Fields sent formatted (``{"raw": ...}``)
  are read by their raw value.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

import numpy as np

from findesk.core.dates import NEW_YORK, visible_at
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import NewsItem, PriceBar, PriceBars, Quote, Source
from findesk.data.models.market_scan import EXCHANGE_NAMES, Floats, ListedSession

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


# ---- v1 predefined screener (day gainers) ------------------------------------------------------------

_CODES_NOTE = (
    "exchange_codes are Yahoo's own listing codes as sent (NMS, NGM, NCM = Nasdaq Global Select, "
    "Global Market, Capital Market; NYQ NYSE, ASE NYSE American, PCX NYSE Arca, BTS Cboe BZX); "
    "exchanges name their venue (NASDAQ, NYSE, AMEX, NYSE ARCA, CBOE; another code as sent); etf_flags "
    "are quoteType ETF; names are Yahoo's; sectors and industries are unknown (None); market caps are "
    "Yahoo's at the quote time (market_cap_date = session)"
)
_OPERATORS = {"gt": ">", "gte": ">=", "lt": "<", "lte": "<=", "eq": "="}


@dataclass(frozen=True, slots=True)
class _ScreenRow:
    symbol: str
    code: str
    etf: bool | None
    name: str | None
    close: float
    pct: float
    volume: float
    cap: float
    day: date
    intraday: bool  # marketState REGULAR: the session was still open


def _screener_bad(reason: str) -> Err:
    return Err(ErrorCode.BAD_RESPONSE, f"Yahoo screener response {reason}", VENDOR)


def _raw(value: Any) -> Any:
    """A field's plain value: Yahoo sends ``{"raw": 1.5, "fmt": "1.50"}`` when values are formatted."""
    return value.get("raw") if isinstance(value, dict) else value


def _float(value: Any) -> float:
    v = _raw(value)
    if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
        return math.nan
    return float(v)


def _label(value: Any) -> str | None:
    v = _raw(value)
    if not isinstance(v, str):
        return None
    return " ".join(v.split()) or None


def _screen_row(raw: Any) -> _ScreenRow | str:
    """One quote of the list, or why it cannot be read."""
    if not isinstance(raw, dict):
        return "has a quote that is not an object"
    symbol = _label(raw.get("symbol"))
    if symbol is None:
        return "has a quote without a 'symbol'"
    code = _label(raw.get("exchange"))
    if code is None:
        return f"has no 'exchange' code for {symbol}"
    stamp = _raw(raw.get("regularMarketTime"))
    if isinstance(stamp, bool) or not isinstance(stamp, int | float) or not math.isfinite(stamp):
        return f"has no 'regularMarketTime' for {symbol}"
    try:
        day = datetime.fromtimestamp(stamp, UTC).astimezone(NEW_YORK).date()
    except (OverflowError, OSError, ValueError):
        return f"has an impossible 'regularMarketTime' {stamp!r} for {symbol}"
    kind = _label(raw.get("quoteType"))
    cap = _float(raw.get("marketCap"))
    return _ScreenRow(
        symbol=symbol.upper(),
        code=code.upper(),
        etf=None if kind is None else kind.upper() == "ETF",
        name=_label(raw.get("longName")) or _label(raw.get("shortName")),
        close=_float(raw.get("regularMarketPrice")),
        pct=_float(raw.get("regularMarketChangePercent")),
        volume=_float(raw.get("regularMarketVolume")),
        cap=cap if cap > 0 else math.nan,
        day=day,
        intraday=_label(raw.get("marketState")) == "REGULAR",
    )


def _shown(value: Any) -> str:
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    return f"{value:,.0f}" if float(value).is_integer() else f"{value:g}"


def _criterion(node: Any) -> str | None:
    """A screener query (``rawCriteria``'s ``query``) as text; None for a shape not understood."""
    if not isinstance(node, dict) or not isinstance(node.get("operands"), list) or not node["operands"]:
        return None
    op, operands = str(node.get("operator") or "").lower(), node["operands"]
    if op in ("and", "or"):
        parts = [_criterion(o) for o in operands]
        if any(p is None for p in parts):
            return None
        joined = f" {op} ".join(p for p in parts if p is not None)
        return f"({joined})" if op == "or" and len(parts) > 1 else joined
    field_name, values = operands[0], operands[1:]
    if not isinstance(field_name, str):
        return None
    if op == "btwn" and len(values) == 2:
        return f"{field_name} {_shown(values[0])}..{_shown(values[1])}"
    if op in _OPERATORS and len(values) == 1:
        return f"{field_name} {_OPERATORS[op]} {_shown(values[0])}"
    return None


def _criteria_note(result: dict[str, Any]) -> str | None:
    text = result.get("rawCriteria")
    try:
        query = json.loads(text).get("query") if isinstance(text, str) else None
    except (ValueError, AttributeError):
        return None
    shown = _criterion(query)
    if shown is None:
        return None
    return f"Yahoo's own screener criteria: {shown}; a stock outside them (e.g. a smaller cap) is not listed"


def parse_screener(body: Any, source: Source, screener: str = "day_gainers") -> Result[ListedSession]:
    """A v1 predefined screener body (``finance.result[0].quotes``) as a ``ListedSession`` (module rules)."""
    finance = body.get("finance") if isinstance(body, dict) else None
    if not isinstance(finance, dict):
        return _screener_bad("has no 'finance' object")
    error = finance.get("error")
    if isinstance(error, dict) and error:
        code = str(error.get("code") or "")
        text = str(error.get("description") or code or "unknown error")
        return Err(ErrorCode.UNAVAILABLE, f"Yahoo screener error {code!r}: {text}", VENDOR)
    results = finance.get("result")
    if not isinstance(results, list) or not results or not isinstance(results[0], dict):
        return _screener_bad("has no 'finance.result[0]' object")
    result = results[0]
    quotes = result.get("quotes")
    if not isinstance(quotes, list):
        return _screener_bad("has no 'finance.result[0].quotes' list")
    if not quotes:
        return Err(ErrorCode.NO_DATA, f"Yahoo's {screener} screener lists no stock at the moment", VENDOR)
    by_symbol: dict[str, _ScreenRow] = {}
    for raw in quotes:
        row = _screen_row(raw)
        if isinstance(row, str):
            return _screener_bad(row)
        by_symbol.setdefault(row.symbol, row)
    session = max(r.day for r in by_symbol.values())
    rows = sorted((r for r in by_symbol.values() if r.day == session), key=lambda r: r.symbol)
    stale = sorted(r.symbol for r in by_symbol.values() if r.day != session)
    notes = [
        f"Yahoo's {screener} screener: its top {len(rows)} US-listed stocks by % change on {session}, "
        "across every US exchange (NYSE, NYSE American, NYSE Arca and Cboe listings as well as Nasdaq's) "
        "and of any security type it ranks; not every listed stock, so a stock missing here is not known "
        "to be flat",
        _CODES_NOTE,
    ]
    total = result.get("total")
    if isinstance(total, int) and not isinstance(total, bool) and total > len(quotes):
        notes.append(f"Yahoo counts {total} matches; this list holds the first {len(quotes)} of them")
    criteria = _criteria_note(result)
    if criteria is not None:
        notes.append(criteria)
    if stale:
        notes.append(
            f"{len(stale)} quote(s) dated before {session} were left out (an older session's change): "
            + ", ".join(stale[:10])
            + (" ..." if len(stale) > 10 else "")
        )
    if any(r.intraday for r in rows):
        notes.append(
            "read while the session was open (marketState REGULAR): prices, % changes and volumes are "
            "intraday (delayed), not closes"
        )
    return Ok(
        ListedSession(
            session=session,
            symbols=tuple(r.symbol for r in rows),
            exchanges=tuple(EXCHANGE_NAMES.get(r.code, r.code) for r in rows),
            close=_frozen_floats([r.close for r in rows]),
            pct_change=_frozen_floats([r.pct for r in rows]),
            volume=_frozen_floats([r.volume for r in rows]),
            market_cap_usd=_frozen_floats([r.cap for r in rows]),
            names=tuple(r.name for r in rows),
            sectors=(None,) * len(rows),
            industries=(None,) * len(rows),
            source=source,
            market_cap_date=session,
            notes=tuple(notes),
            exchange_codes=tuple(r.code for r in rows),
            etf_flags=tuple(r.etf for r in rows),
            directory_date=None,
        )
    )


def _frozen_floats(values: list[float]) -> Floats:
    out = np.array(values, dtype=np.float64)
    out.flags.writeable = False  # read-only like the snapshot's arrays
    return out
