"""The weekly ETF run's streamed sections: the market context when the quant analyst is done, each
sector's news as it lands, the senior analyst's flags, and the managing director's review.

Rules: every string is data (escaped); a section shows what its agent produced, attributed to it.
"""

from __future__ import annotations

import html
from typing import Any

from findesk.agents.roles.etf_weekly.models import (
    DirectorReview,
    MarketOverview,
    QuantReport,
    SectorNews,
    SeniorReview,
)
from findesk.workflows.spec import RunScope

SECTIONS: tuple[tuple[str, str], ...] = (
    ("market", "Market context — quant"),
    ("news", "Sector news — news analyst"),
    ("review", "Flags — senior analyst"),
    ("summary", "Review — managing director"),
)


def _e(value: object) -> str:
    return html.escape(str(value))


def market_html(q: QuantReport) -> str:
    c = q.market_context
    vix = "n/a" if c.vix_level is None else f"{c.vix_level:.2f}"
    curve = "n/a" if c.yield_curve_10y2y is None else f"{c.yield_curve_10y2y:+.2f} pp ({c.yield_curve_state})"
    spy = "n/a" if c.spy_weekly_return is None else f"{c.spy_weekly_return:+.2f}%"
    rows = [
        f"<p>Week {_e(c.week_start)}..{_e(c.week_end)}: SPY {spy}, {_e(c.regime)}; "
        f"VIX {vix}; 10y-2y {_e(curve)}. {c.universe} funds screened, {len(q.symbol_profiles)} candidate(s) "
        f"in {len(q.sector_groups)} sector(s).</p>"
    ]
    rows += [f"<p>{_e(g.interpretation)}</p>" for g in q.sector_groups.values()]
    return "".join(rows)


class EtfWeeklyStream:
    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._news: dict[str, SectorNews] = {}
        self._overview: MarketOverview | None = None

    def update(self, chunk: Any) -> None:
        name, value = chunk
        if name == "quant" and isinstance(value, QuantReport):
            self._scope.section("market", market_html(value))
        elif name == "news" and isinstance(value, SectorNews):
            self._news[value.sector] = value
            self._emit_news()
        elif name == "overview" and isinstance(value, MarketOverview):
            self._overview = value
            self._emit_news()
        elif name == "senior" and isinstance(value, SeniorReview):
            items = "".join(
                f"<li><b>{_e(v.symbol)}</b> {_e(v.flag)} — {_e(v.reason)}</li>"
                for v in value.symbols.values()
            )
            label = " (revision)" if value.revision else ""
            self._scope.section("review", f"<ul>{items}</ul>", f"{len(value.symbols)} flag(s){label}")
        elif name == "director" and isinstance(value, DirectorReview):
            self._scope.section(
                "summary",
                f"<p>{_e(value.executive_summary)}</p><p>Quality score {value.quality_score:.1f}/10: "
                f"{_e(value.rationale)}</p>",
            )

    def _emit_news(self) -> None:
        parts = []
        if self._overview is not None:
            parts.append(f"<p>{_e(self._overview.narrative)}</p>")
        parts += [
            f"<p><b>{_e(n.sector)}</b> (evidence {_e(n.evidence)}): {_e(n.narrative)}</p>"
            for n in self._news.values()
        ]
        self._scope.section("news", "".join(parts), f"{len(self._news)} sector(s)")

    def finish(self, report: Any) -> None:
        return None
