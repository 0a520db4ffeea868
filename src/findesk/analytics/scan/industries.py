"""Industry deep dive: a sector's S&P 500 constituents grouped by GICS sub-industry.

Rules (pure: constituents and an adjusted price panel in, a ``SectorDeepDive`` out; no I/O, no clock):
- A sector is named by its Select Sector SPDR or its GICS name (``sectors.sector_etf``, the one
  table); its members are the constituents list's members whose GICS sector is that name.
- A member's returns are ``sectors.window_returns`` over its adjusted closes: 1M = 21 bars back, 3M =
  63, percent, 2 decimals; a member with no bar on the session has none. The panel's ticker spelling
  is tried as listed and with a dash for the class dot ("BRK.B" -> "BRK-B").
- ``constituents``: members with a close on the session. A member without one (not in the panel:
  the panel holds today's members, so a company removed since is missing) is named in a warning and
  makes the dive ``partial``; no member with a 1M return makes it ``no_data``.
- Per sub-industry, over its members with a 1M return (``members``): the median 1M and median 3M
  return (over those with each), ``breadth_1m`` = percent of members up over 1M (1 decimal), the best
  and the worst member by 1M (ties by ticker). Sub-industries are listed best median 1M first.
- ``top_stocks``: the sector's ``TOP_STOCKS`` best 1M members, best first; ``bottom_stocks`` the worst,
  worst first.
- ``largest(members, sizes, k)``: the ``k`` members with the largest size (market cap, or another
  measure the caller names), for the sector's news; members without a size come last, by ticker.
"""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from datetime import date
from typing import Protocol

from findesk.analytics.scan.models import SectorDeepDive, StockPerf, SubIndustryPerf, TopicHeadline
from findesk.analytics.scan.sectors import window_returns
from findesk.data.models.funds import PricePanel

TOP_STOCKS = 5


class Member(Protocol):
    """A constituent as the constituents list gives it (``data.models.market_scan.Constituent``)."""

    @property
    def ticker(self) -> str: ...
    @property
    def name(self) -> str: ...
    @property
    def sector(self) -> str: ...
    @property
    def sub_industry(self) -> str: ...


def panel_row(panel: PricePanel, ticker: str) -> int | None:
    """The panel's row of ``ticker``, as listed or with a dash for the class dot."""
    for spelling in dict.fromkeys((ticker, ticker.replace(".", "-"), ticker.replace("-", "."))):
        row = panel.row(spelling)
        if row is not None:
            return row
    return None


def _perf(panel: PricePanel, dates: list[date], m: Member) -> tuple[float | None, StockPerf]:
    row = panel_row(panel, m.ticker)
    close, returns = (
        window_returns(dates, [float(x) for x in panel.close[row]], dates[-1])
        if row is not None
        else (None, {})
    )
    perf = StockPerf(
        ticker=m.ticker,
        name=m.name or None,
        sub_industry=m.sub_industry,
        return_1m=returns.get("1M"),
        return_3m=returns.get("3M"),
    )
    return close, perf


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 2) if values else None


def _sub_industry(name: str, perfs: list[StockPerf]) -> SubIndustryPerf:
    one = [p for p in perfs if p.return_1m is not None]
    ordered = sorted(one, key=lambda p: (-(p.return_1m or 0.0), p.ticker))
    return SubIndustryPerf(
        sub_industry=name,
        members=len(one),
        median_return_1m=_median([p.return_1m for p in one if p.return_1m is not None]),
        median_return_3m=_median([p.return_3m for p in one if p.return_3m is not None]),
        breadth_1m=round(100.0 * sum(1 for p in one if (p.return_1m or 0.0) > 0) / len(one), 1)
        if one
        else None,
        best=ordered[0] if ordered else None,
        worst=ordered[-1] if ordered else None,
    )


def deep_dive(
    etf: str,
    sector: str,
    members: Sequence[Member],
    panel: PricePanel,
    *,
    etf_return_1m: float | None = None,
    headlines: Sequence[TopicHeadline] = (),
) -> SectorDeepDive:
    """The sector's deep dive at the panel's last session (module rules)."""
    mine = sorted((m for m in members if m.sector == sector), key=lambda m: m.ticker)
    warnings: list[str] = []
    if len(panel.dates) == 0 or not mine:
        why = "no prices in the panel" if len(panel.dates) == 0 else f"no constituent in {sector}"
        return SectorDeepDive(
            sector=sector,
            etf=etf,
            etf_return_1m=etf_return_1m,
            constituents=0,
            status="no_data",
            warnings=[why],
        )
    dates = [panel.day(i) for i in range(len(panel.dates))]
    priced: list[StockPerf] = []
    missing: list[str] = []
    for m in mine:
        close, perf = _perf(panel, dates, m)
        if close is None:
            missing.append(m.ticker)
        else:
            priced.append(perf)
    if missing:
        warnings.append(
            f"{len(missing)} of {len(mine)} {sector} constituent(s) have no price on {dates[-1].isoformat()} "
            f"in the panel (the panel holds today's S&P 500 members): {', '.join(missing)}"
        )
    groups: dict[str, list[StockPerf]] = {}
    for p in priced:
        groups.setdefault(p.sub_industry, []).append(p)
    subs = [_sub_industry(name, perfs) for name, perfs in groups.items()]
    subs.sort(key=lambda s: (s.median_return_1m is None, -(s.median_return_1m or 0.0), s.sub_industry))
    ranked = sorted(
        (p for p in priced if p.return_1m is not None), key=lambda p: (-(p.return_1m or 0.0), p.ticker)
    )
    status = "no_data" if not ranked else "partial" if missing else "ok"
    if not ranked:
        warnings.append(f"no {sector} constituent has 21 sessions of prices by {dates[-1].isoformat()}")
    return SectorDeepDive(
        sector=sector,
        etf=etf,
        etf_return_1m=etf_return_1m,
        constituents=len(priced),
        sub_industries=subs,
        top_stocks=ranked[:TOP_STOCKS],
        bottom_stocks=list(reversed(ranked[-TOP_STOCKS:])),
        headlines=sorted(headlines, key=lambda h: (h.published, h.title), reverse=True),
        status=status,
        warnings=warnings,
    )


def largest(members: Sequence[Member], sizes: Mapping[str, float], k: int) -> list[str]:
    """The ``k`` largest members by ``sizes`` (ticker -> size; missing sizes last, by ticker)."""

    def key(m: Member) -> tuple[bool, float, str]:
        size = sizes.get(m.ticker)
        return (size is None, -(size or 0.0), m.ticker)

    return [m.ticker for m in sorted(members, key=key)[:k]]
