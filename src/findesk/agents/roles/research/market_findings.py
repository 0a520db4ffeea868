"""Findings both the equity and the macro specialist write from the calculator tools: return
statistics, correlations, charts and tool errors.

Rules:
- A finding's numbers are the tool result's own values, printed the way the tool's summary prints
  them, and it cites the agent, the tool and the result's own source (``Source.cite()``).
- Quantity names are shared, so the coordinator can compare two specialists' figures:
  ``"<SYMBOL> close <date>"``, ``"<SYMBOL> return <start>..<end>"``, ``"<SYMBOL> volatility
  <start>..<end>"``, ``"<A>/<B> correlation <start>..<end>"``.
- A failed call is a warning ``"data unavailable: <what>: <why>"`` (the router's "do not estimate"
  instruction removed, since the warning already says it), never a finding.
"""

from __future__ import annotations

import re
from datetime import date

from findesk.agents.role import Outcomes, outcome_error, outcome_value
from findesk.agents.roles.research.findings import Chart, Citation, Finding
from findesk.data.router import DO_NOT_ESTIMATE
from findesk.tools.calculators import ADJUSTED_NOTE, Correlation, PriceChart, ReturnStats
from findesk.tools.summaries import money

STATS_TOOL = "get_return_stats"
CORRELATION_TOOL = "get_correlation"
CHART_TOOL = "make_price_chart"


def unavailable(outcomes: Outcomes, key: str, what: str) -> str:
    """The warning for a failed call: ``data unavailable: <what>: <reason>``."""
    error = for_reader(outcome_error(outcomes, key) or "no result")
    return f"data unavailable: {what}: {error.rstrip('. ')}"


def for_reader(text: str) -> str:
    """A tool's message without its instruction to a model ("Do not estimate …"), which the reader of
    a warning does not need."""
    return re.sub(r"\s*Do not estimate[^.(]*\.?", "", text.replace(DO_NOT_ESTIMATE, "")).strip()


def span(start: date, end: date) -> str:
    return f"{start.isoformat()}..{end.isoformat()}"


def stats_findings(agent: str, s: ReturnStats) -> list[Finding]:
    """Close, return, volatility with Sharpe, and drawdown of one asset, each cited."""
    cite = [Citation(agent=agent, tool=STATS_TOOL, source=s.source)]
    window = span(s.start, s.end)
    adjusted = s.note == ADJUSTED_NOTE
    if s.traded_close is not None and s.traded_close_source:
        differs = money(s.traded_close) != money(s.last_value)
        close = Finding(
            text=f"{s.asset} closed at {money(s.traded_close)} on {s.end.isoformat()} as traded"
            + (
                f" (the split/dividend-adjusted series behind the statistics reads {money(s.last_value)})."
                if differs
                else "."
            ),
            citations=[Citation(agent=agent, tool=STATS_TOOL, source=s.traded_close_source), *cite],
            quantity=f"{s.asset} close {s.end.isoformat()}",
            value=s.traded_close,
            unit="USD",
            observed=s.end,
        )
    elif adjusted:
        # Adjusted with corporate actions recorded later: right for returns, not the price quoted that day.
        close = Finding(
            text=f"{s.asset} adjusted close {money(s.last_value)} on {s.end.isoformat()} (split/dividend-"
            "adjusted with corporate actions known when the data was recorded: right for returns, but the "
            "price quoted that day may differ).",
            citations=cite,
            quantity=f"{s.asset} adjusted close {s.end.isoformat()}",
            value=s.last_value,
            unit="USD",
            observed=s.end,
        )
    else:
        close = Finding(
            text=f"{s.asset} closed at {money(s.last_value)} on {s.end.isoformat()} ({s.note}).",
            citations=cite,
            quantity=f"{s.asset} close {s.end.isoformat()}",
            value=s.last_value,
            unit="USD" if s.note and "closes" in s.note else None,
            observed=s.end,
        )
    out = [close]
    levels = "adjusted closes " if adjusted else ""
    if s.total_return_pct is not None:
        out.append(
            Finding(
                text=f"{s.asset} returned {s.total_return_pct:+.2f}% from {s.start.isoformat()} to "
                f"{s.end.isoformat()} ({levels}{money(s.first_value)} -> {money(s.last_value)}).",
                citations=cite,
                quantity=f"{s.asset} return {window}",
                value=s.total_return_pct,
                unit="%",
                observed=s.end,
            )
        )
    if s.volatility_pct is not None:
        sharpe = (
            f"; Sharpe ratio {s.sharpe:.2f} with a risk-free rate of {s.risk_free_basis}"
            if s.sharpe is not None
            else ""
        )
        out.append(
            Finding(
                text=f"{s.asset} annualized volatility was {s.volatility_pct:.2f}% over {window} "
                f"({s.volatility_basis}){sharpe}.",
                citations=cite,
                quantity=f"{s.asset} volatility {window}",
                value=s.volatility_pct,
                unit="%",
                observed=s.end,
            )
        )
    dd = s.max_drawdown
    if dd is not None:
        out.append(
            Finding(
                text=f"{s.asset} max drawdown over {window} was {dd.depth_pct:.2f}% "
                f"(peak {dd.peak.isoformat()}, trough {dd.trough.isoformat()}).",
                citations=cite,
                quantity=f"{s.asset} max drawdown {window}",
                value=dd.depth_pct,
                unit="%",
                observed=s.end,
            )
        )
    return out


def correlation_finding(agent: str, c: Correlation) -> Finding:
    after = ""
    if c.condition and c.crossing:
        after = f", the window after {c.condition} began to hold on {c.crossing.isoformat()}"
    cut = "".join(f" Note: {n}." for n in c.notes if "cut short" in n)
    citations = [Citation(agent=agent, tool=CORRELATION_TOOL, source=src) for src in c.sources]
    if c.condition_source:
        citations.append(Citation(agent=agent, tool=CORRELATION_TOOL, source=c.condition_source))
    return Finding(
        text=f"Correlation of {c.a} and {c.b} ({c.a_basis} vs {c.b_basis}) over {span(c.start, c.end)}"
        f"{after}: {c.r:.3f} from {c.pairs} paired moves.{cut}",
        citations=citations,
        quantity=f"{c.a}/{c.b} correlation {span(c.start, c.end)}",
        value=c.r,
        unit="ratio",
        observed=c.end,
    )


def chart_of(
    outcomes: Outcomes, key: str, said: frozenset[str] = frozenset()
) -> tuple[Chart | None, str | None]:
    """The chart of a ``make_price_chart`` call and a warning naming what it could not draw (except
    the assets in ``said``, already warned about)."""
    chart: PriceChart | None = outcome_value(outcomes, key)
    if chart is None:
        return None, (unavailable(outcomes, key, "price chart") if key in outcomes else None)
    missing = [m for m in chart.missing if m.split(":", 1)[0] not in said]
    note = f"chart: not drawn: {'; '.join(missing)}" if missing else None
    return Chart(title=chart.title, png_base64=chart.png_base64, tools=[CHART_TOOL]), note
