"""The macro specialist: FRED series with their release lags, index and ETF performance, correlations
(optionally after a macro condition such as DGS10>4.5), a chart and recent news, every figure cited.

Rules:
- Bounded playbook: at most ``MAX_SERIES`` series and ``MAX_ASSETS`` priced assets; one stage, all
  calls concurrent. No series named: ``DEFAULT_SERIES`` (the 10-year Treasury yield).
- Each series' latest observation known at the as-of date is one finding, with the release lag the
  data layer applied stated in words ("no release lag: ..." or "counts as published N days after ...").
- Assets are the question's tickers and index aliases (SPX, ^GSPC) and its crypto tokens
  (``CRYPTO:<id>``); the correlation compares the first two of them over ``window_days`` (default 30),
  after the subjects' threshold when one is given. A token without daily USD prices in the data makes
  the correlation "data unavailable" naming what is missing, never a proxy.
- News is read for the first US ticker (not an index) and is third-party reporting: headlines only,
  each cited to its URL.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Outcomes, PlannedCall, outcome_value
from findesk.agents.roles.research.findings import Citation, Finding, SpecialistInput, SpecialistReport
from findesk.agents.roles.research.market_findings import (
    CHART_TOOL,
    CORRELATION_TOOL,
    STATS_TOOL,
    chart_of,
    correlation_finding,
    stats_findings,
    unavailable,
)
from findesk.agents.roles.research.specialist import specialist_role, specialist_task
from findesk.data.models import MacroSeries, NewsItem
from findesk.data.symbols import upper_symbol
from findesk.tools.calculators import INDEX_ALIASES, Correlation, ReturnStats
from findesk.tools.summaries import clip, exact, when

AGENT = "macro"
MAX_SERIES = 4
MAX_ASSETS = 4
DEFAULT_SERIES = ("DGS10",)
DEFAULT_WINDOW_DAYS = 30
STATS_LOOKBACK_DAYS = 90
MAX_WINDOW_DAYS = 1_300
NEWS_ITEMS = 3
TITLE_CHARS = 160


def series_ids(inputs: SpecialistInput) -> list[str]:
    given = [s.strip().upper() for s in inputs.subjects.series if s.strip()]
    return list(dict.fromkeys(given or DEFAULT_SERIES))[:MAX_SERIES]


def priced(inputs: SpecialistInput) -> list[str]:
    """Indexes and ETFs, as the calculators name them; companies too when they are compared with them
    (or when the input does not say which tickers are market assets)."""
    s = inputs.subjects
    named = s.tickers if s.market is None or s.compared else [t for t in s.tickers if t in s.market]
    return list(dict.fromkeys(upper_symbol(t) for t in named if t.strip()))[:MAX_ASSETS]


def assets(inputs: SpecialistInput) -> list[str]:
    tokens = [f"CRYPTO:{t.strip()}" for t in inputs.subjects.tokens if t.strip()]
    return list(dict.fromkeys([*priced(inputs), *tokens]))[:MAX_ASSETS]


def window_days(inputs: SpecialistInput) -> int:
    return max(7, min(inputs.subjects.window_days or DEFAULT_WINDOW_DAYS, MAX_WINDOW_DAYS))


def stats_lookback(inputs: SpecialistInput) -> int:
    """The asked window ("over the last 30 days") when there is one, else the default lookback."""
    asked = inputs.subjects.window_days
    return max(7, min(asked, MAX_WINDOW_DAYS)) if asked else STATS_LOOKBACK_DAYS


def news_symbol(inputs: SpecialistInput) -> str | None:
    return next((t for t in priced(inputs) if t not in INDEX_ALIASES and t.isalpha()), None)


def _stage_one(inputs: SpecialistInput, _: Outcomes) -> list[PlannedCall]:
    calls = [PlannedCall(f"macro:{s}", "get_macro_series", {"series_id": s}) for s in series_ids(inputs)]
    names = priced(inputs)
    calls += [
        PlannedCall(f"stats:{t}", STATS_TOOL, {"asset": t, "lookback_days": stats_lookback(inputs)})
        for t in names
    ]
    pair = assets(inputs)[:2]
    if len(pair) == 2:
        args: dict[str, Any] = {"a": pair[0], "b": pair[1], "window_days": window_days(inputs)}
        if inputs.subjects.threshold:
            args["condition"] = inputs.subjects.threshold
        calls.append(PlannedCall("correlation", CORRELATION_TOOL, args))
    if names:
        calls.append(
            PlannedCall("chart", CHART_TOOL, {"assets": names, "lookback_days": stats_lookback(inputs)})
        )
    symbol = news_symbol(inputs)
    if symbol is not None:
        calls.append(PlannedCall("news", "get_news", {"symbol": symbol, "limit": NEWS_ITEMS}))
    return calls


def lag_statement(m: MacroSeries) -> str:
    if m.release_lag_days:
        return (
            f"release lag {m.release_lag_days} days: an observation counts as published {m.release_lag_days} "
            "days after its period date, so later periods are not yet known"
        )
    return "no release lag: a daily series, each observation counts as known on its own date"


def series_finding(m: MacroSeries) -> Finding | None:
    known = [o for o in m.observations if o.value is not None]
    if not known:
        return None
    last = known[-1]
    assert last.value is not None  # narrowed by ``known``
    title = f" ({m.title})" if m.title else ""
    units = f" {m.units}" if m.units else ""
    return Finding(
        text=f"{m.series_id}{title} was {exact(last.value)}{units} for {last.date.isoformat()}, the latest "
        f"observation known at the as-of date ({lag_statement(m)}).",
        citations=[Citation(agent=AGENT, tool="get_macro_series", source=m.source.cite())],
        quantity=f"{m.series_id} {last.date.isoformat()}",
        value=last.value,
        unit=m.units,
        observed=last.date,
    )


def news_findings(items: list[NewsItem]) -> list[Finding]:
    return [
        Finding(
            text=f"News ({n.publisher or 'unknown publisher'}, {when(n.published_at)}): "
            f'"{clip(n.title, TITLE_CHARS)}" (third-party reporting).',
            citations=[Citation(agent=AGENT, tool="get_news", source=n.url or n.source.cite())],
        )
        for n in items[:NEWS_ITEMS]
    ]


def compose(inputs: SpecialistInput, outcomes: Outcomes) -> SpecialistReport:
    findings: list[Finding] = []
    warnings: list[str] = []
    data: dict[str, Any] = {"series": {}, "correlation": None}
    for s in series_ids(inputs):
        m: MacroSeries | None = outcome_value(outcomes, f"macro:{s}")
        finding = series_finding(m) if m is not None else None
        if m is None or finding is None:
            warnings.append(unavailable(outcomes, f"macro:{s}", f"FRED series {s}"))
            continue
        findings.append(finding)
        data["series"][s] = {
            "value": finding.value,
            "date": finding.observed.isoformat() if finding.observed else None,
            "release_lag_days": m.release_lag_days,
            "source": m.source.cite(),
        }
    for t in priced(inputs):
        stats: ReturnStats | None = outcome_value(outcomes, f"stats:{t}")
        if stats is None:
            warnings.append(unavailable(outcomes, f"stats:{t}", f"{t} price history"))
        else:
            findings += stats_findings(AGENT, stats)
    if "correlation" in outcomes:
        corr: Correlation | None = outcome_value(outcomes, "correlation")
        if corr is None:
            pair = " and ".join(assets(inputs)[:2])
            warnings.append(unavailable(outcomes, "correlation", f"correlation of {pair}"))
        else:
            findings.append(correlation_finding(AGENT, corr))
            data["correlation"] = corr.model_dump(mode="json", exclude={"rolling"})
    elif inputs.subjects.threshold or "correlation" in " ".join(inputs.subjects.themes).lower():
        warnings.append("data unavailable: a correlation needs two assets; fewer were named")
    news: list[NewsItem] | None = outcome_value(outcomes, "news")
    if news:
        findings += news_findings(news)
    elif "news" in outcomes:
        warnings.append(unavailable(outcomes, "news", f"news for {news_symbol(inputs)}"))
    chart, note = chart_of(outcomes, "chart")
    warnings += [note] if note else []
    return SpecialistReport(
        agent="macro",
        findings=findings,
        data=data,
        charts=[chart] if chart else [],
        warnings=list(dict.fromkeys(warnings)),
    )


SYSTEM_PROMPT = (
    "You are the macro specialist of a research desk for US markets. Report FRED series as known at the "
    "as-of date with their release lags, index and ETF performance, correlations between assets (after a "
    "macro condition when one is asked) and recent news. Every number comes from a tool result and every "
    "finding cites the tool and the source the result named. Say 'data unavailable' instead of estimating, "
    "and never substitute one asset for another. Research framing only: no advice, targets or allocations."
)


def _task(inputs: SpecialistInput) -> str:
    s = inputs.subjects
    return specialist_task(
        inputs,
        f"Series: {', '.join(series_ids(inputs))}; assets: {', '.join(assets(inputs)) or '-'}; "
        f"window: {window_days(inputs)} days; condition: {s.threshold or '-'}",
    )


ROLE = specialist_role(
    name="research_macro",
    description="Macro specialist: FRED series with release lags, index/ETF stats, correlations, news.",
    system_prompt=SYSTEM_PROMPT,
    tools=("get_macro_series", STATS_TOOL, CORRELATION_TOOL, CHART_TOOL, "get_price_history", "get_news"),
    stage=_stage_one,
    compose=compose,
    task=_task,
)
