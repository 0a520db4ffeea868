"""Conflicts between specialists: two findings naming the same quantity with different values.

Rules:
- Pure: reads the specialists' findings, never a tool. Two values conflict when they differ by more
  than ``TOLERANCE`` (relative): findings carry the exact figures, so a smaller gap is noise.
- Resolution, in order: the newest data (a later ``observed`` date) wins and the answer says so; then
  the more reliable source (filings > official statistics > exchange prices > data vendors > news and
  posts); otherwise both figures are shown and the answer says "sources disagree". The losing figure
  is never dropped: the conflict keeps every value with its citation.
"""

from __future__ import annotations

from collections import defaultdict
from datetime import date

from pydantic import BaseModel

from findesk.agents.roles.research.findings import Finding, SpecialistReport

TOLERANCE = 0.001  # 0.1 %: findings carry exact values; a smaller gap is float noise or rounding

# Most reliable first; matched against the citation's source and tool (lower case).
_RELIABILITY: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("an SEC filing", ("sec.gov", "10-k", "10-q", "8-k", "xbrl", "companyfacts", "filing")),
    ("official statistics", ("fred", "stlouisfed", "treasury", "ofac")),
    ("exchange prices", ("price", "ohlcv", "quote", "bars", "nasdaq")),
    ("a data vendor", ("coingecko", "defillama", "etherscan", "yfinance", "yahoo", "fundamentals")),
    ("news or posts", ("news", "reddit", "stocktwits")),
)


class ConflictValue(BaseModel):
    agent: str
    value: float
    unit: str | None = None
    observed: date | None = None
    source: str  # the first citation's source
    tool: str


class Conflict(BaseModel):
    quantity: str
    values: list[ConflictValue]
    resolution: str  # "newest data: …", "more reliable source: …" or "sources disagree: …"
    preferred: str | None = None  # the agent whose figure the answer leads with, None when they disagree


def reliability(finding: Finding) -> tuple[int, str]:
    """(rank, label): 0 is the most reliable; unknown sources rank last."""
    for citation in finding.citations:
        text = f"{citation.source} {citation.tool}".lower()
        for rank, (label, marks) in enumerate(_RELIABILITY):
            if any(mark in text for mark in marks):
                return rank, label
    return len(_RELIABILITY), "an unrated source"


def find_conflicts(reports: dict[str, SpecialistReport]) -> list[Conflict]:
    by_quantity: dict[str, list[tuple[str, Finding]]] = defaultdict(list)
    for agent, report in reports.items():
        for finding in report.findings:
            if finding.quantity and finding.value is not None:
                by_quantity[_key(finding.quantity)].append((agent, finding))
    out: list[Conflict] = []
    for _key_name, found in by_quantity.items():
        agents = {agent for agent, _ in found}
        if len(agents) < 2 or not _differ([f.value for _, f in found if f.value is not None]):
            continue
        out.append(_resolve(found))
    return out


def _key(quantity: str) -> str:
    return " ".join(quantity.lower().split())


def _differ(values: list[float]) -> bool:
    low, high = min(values), max(values)
    scale = max(abs(low), abs(high))
    return scale > 0 and (high - low) / scale > TOLERANCE


def _value(agent: str, finding: Finding) -> ConflictValue:
    first = finding.citations[0] if finding.citations else None
    assert finding.value is not None  # only valued findings are compared
    return ConflictValue(
        agent=agent,
        value=finding.value,
        unit=finding.unit,
        observed=finding.observed,
        source=first.source if first else "uncited",
        tool=first.tool if first else "",
    )


def _resolve(found: list[tuple[str, Finding]]) -> Conflict:
    quantity = found[0][1].quantity or ""
    values = [_value(agent, f) for agent, f in found]
    dated = [(f.observed, agent) for agent, f in found if f.observed is not None]
    if len(dated) == len(found) and len({d for d, _ in dated}) > 1:
        newest, agent = max(dated)
        return Conflict(
            quantity=quantity,
            values=values,
            resolution=f"newest data: {agent}'s figure describes {newest.isoformat()}, the latest date",
            preferred=agent,
        )
    ranked = sorted((reliability(f)[0], reliability(f)[1], agent) for agent, f in found)
    if ranked[0][0] < ranked[1][0]:
        _rank, label, agent = ranked[0]
        return Conflict(
            quantity=quantity,
            values=values,
            resolution=f"more reliable source: {agent}'s figure comes from {label}",
            preferred=agent,
        )
    return Conflict(
        quantity=quantity,
        values=values,
        resolution="sources disagree: both figures are shown, neither is preferred",
    )
