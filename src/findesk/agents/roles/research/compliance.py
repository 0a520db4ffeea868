"""The compliance specialist: sanctions screening, two-hop upstream fund tracing, known mixers and a
0-100 risk indicator with its reasoning chain, for the addresses and names in a question.

Rules:
- Every address in the question is screened: the routed subjects and every ``0x`` + 40-hex address
  found in the question text (a longer hex string, e.g. a transaction hash, is not an address), at
  most ``MAX_ADDRESSES``; more are named in a warning, not dropped silently. Malformed ``0x`` values
  the router passed are screened too, so the tool's "not an Ethereum address" reaches the answer.
- Findings are short sentences whose numbers come from the tool results (score, band, transfer
  counts, list dates and ages); each cites the agent, the tool and the sources the result named.
  The score is a finding with ``quantity="<address> risk score"``, ``value``, ``unit="score"``;
  the reasons and the paths are in ``data["risk"]`` and the path in the finding text.
- Wording: "screening result", "risk indicator", "no match on the lists checked (dated …)"; never a
  legal finding about a person or an address. A no-match names the list dates: it is not a clearance.
- Coverage gaps of the trace (histories not recorded, fan-out cuts, stale lists) are warnings.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Outcomes, PlannedCall, outcome_value
from findesk.agents.roles.research.findings import Citation, Finding, SpecialistInput, SpecialistReport
from findesk.agents.roles.research.market_findings import for_reader, unavailable
from findesk.agents.roles.research.route_terms import ADDRESS
from findesk.agents.roles.research.specialist import specialist_role, specialist_task
from findesk.data.models import SanctionsScreen
from findesk.tools.compliance import AddressRisk

AGENT = "compliance"
SCREEN_TOOL = "screen_sanctions"
RISK_TOOL = "address_risk"
MAX_ADDRESSES = 5
MAX_NAMES = 5
MAX_GAPS_SHOWN = 8


def addresses(inputs: SpecialistInput) -> tuple[list[str], list[str]]:
    """The addresses to screen (routed ones first, then those in the text) and those beyond the cap."""
    found: dict[str, str] = {}
    for raw in [*inputs.subjects.addresses, *(m.group() for m in ADDRESS.finditer(inputs.question))]:
        text = raw.strip()
        if text:
            found.setdefault(text.lower(), text)
    listed = list(found.values())
    return listed[:MAX_ADDRESSES], listed[MAX_ADDRESSES:]


def names(inputs: SpecialistInput) -> list[str]:
    return list(dict.fromkeys(n.strip() for n in inputs.subjects.names if n.strip()))[:MAX_NAMES]


def _stage_one(inputs: SpecialistInput, _: Outcomes) -> list[PlannedCall]:
    calls: list[PlannedCall] = []
    for a in addresses(inputs)[0]:
        calls += [
            PlannedCall(f"screen:{a}", SCREEN_TOOL, {"query": a[:200]}),
            PlannedCall(f"risk:{a}", RISK_TOOL, {"address": a[:100]}),
        ]
    calls += [PlannedCall(f"screen:{n}", SCREEN_TOOL, {"query": n[:200]}) for n in names(inputs)]
    return calls


def screen_finding(who: str, s: SanctionsScreen) -> Finding:
    sources = [m.source.cite() for m in s.matches] or [lst.source.cite() for lst in s.lists_checked]
    citations = [Citation(agent=AGENT, tool=SCREEN_TOOL, source=src) for src in dict.fromkeys(sources)]
    if s.matches:
        shown = "; ".join(
            f"{m.list_name} of {m.list_date.isoformat()}"
            + (f", entry {m.entity}" if m.entity else "")
            + (f" (SDN id {m.entry_id})" if m.entry_id else "")
            for m in s.matches
        )
        text = f"Screening result: {who} matches {len(s.matches)} sanctions list entries: {shown}."
    else:
        dates = ", ".join(sorted({lst.list_date.isoformat() for lst in s.lists_checked}))
        stale = [lst for lst in s.lists_checked if lst.stale]
        age = f"; {len(stale)} of them are older than the staleness limit" if stale else ""
        text = (
            f"Screening result: no match for {who} on the {len(s.lists_checked)} lists checked (dated "
            f"{dates}{age}); a no-match is not a clearance."
        )
    return Finding(text=text, citations=citations)


def risk_findings(r: AddressRisk) -> list[Finding]:
    """The score (with the deciding link and its path), then one finding per caveat."""
    citations = [Citation(agent=AGENT, tool=RISK_TOOL, source=src) for src in r.sources]
    path = f" Path (direction of funds): {' -> '.join(r.risk.paths[0])}." if r.risk.paths else ""
    flagged = next((f for f in r.flagged if r.risk.paths and f.address in r.risk.paths[0]), None)
    why = f" {flagged.address} is flagged by {flagged.detail.split('; ')[0]}." if flagged else ""
    score = Finding(
        text=(
            f"Risk indicator for {r.address}: {r.risk.score}/100, band {r.risk.band} ({r.risk.band_label}): "
            f"{r.risk.headline}.{path}{why} Screening result, not a legal determination."
        ),
        citations=citations,
        quantity=f"{r.address} risk score",
        value=float(r.risk.score),
        unit="score",
        observed=r.as_of,
    )
    return [score] + [Finding(text=f"Caveat on {r.address}: {note}", citations=citations) for note in r.notes]


def risk_data(r: AddressRisk) -> dict[str, Any]:
    return {
        "address": r.address,
        "score": r.risk.score,
        "band": r.risk.band,
        "band_label": r.risk.band_label,
        "reasons": r.risk.reasons,
        "paths": r.risk.paths,
        "flagged": [f.model_dump(mode="json") for f in r.flagged],
        "lists_checked": [
            {"name": lst.name, "list_date": lst.list_date.isoformat(), "stale_days": lst.stale_days}
            for lst in r.lists_checked
        ],
        "trace": {
            "hops": r.trace.hops,
            "fan_out": r.trace.fan_out,
            "followed": r.trace.followed,
            "not_followed": r.trace.not_followed,
            "links": len(r.trace.incoming),
        },
    }


def compose(inputs: SpecialistInput, outcomes: Outcomes) -> SpecialistReport:
    findings: list[Finding] = []
    warnings: list[str] = []
    risks: dict[str, dict[str, Any]] = {}
    screened, beyond = addresses(inputs)
    if beyond:
        warnings.append(
            f"data unavailable: only the first {MAX_ADDRESSES} addresses were screened; not screened: "
            + ", ".join(beyond)
        )
    for a in screened:
        screen: SanctionsScreen | None = outcome_value(outcomes, f"screen:{a}")
        if screen is not None:
            findings.append(screen_finding(a, screen))
        else:
            warnings.append(unavailable(outcomes, f"screen:{a}", f"sanctions screen of {a}"))
        risk: AddressRisk | None = outcome_value(outcomes, f"risk:{a}")
        if risk is None:
            warnings.append(unavailable(outcomes, f"risk:{a}", f"risk indicator of {a}"))
            continue
        findings += risk_findings(risk)
        risks[risk.address] = risk_data(risk)
        gaps = [r.removeprefix("coverage: ") for r in risk.risk.reasons if r.startswith("coverage: ")]
        warnings += [f"coverage ({a}): {for_reader(g)}" for g in gaps[:MAX_GAPS_SHOWN]]
        if len(gaps) > MAX_GAPS_SHOWN:
            warnings.append(f"coverage ({a}): {len(gaps) - MAX_GAPS_SHOWN} more gaps in the trace")
    for n in names(inputs):
        screen = outcome_value(outcomes, f"screen:{n}")
        if screen is not None:
            findings.append(screen_finding(repr(n), screen))
        else:
            warnings.append(unavailable(outcomes, f"screen:{n}", f"sanctions screen of {n!r}"))
    if not screened and not names(inputs):
        warnings.append("data unavailable: the question names no address or name to screen")
    data: dict[str, Any] = {"risk_by_address": risks}
    if risks:
        data["risk"] = next(iter(risks.values()))
    return SpecialistReport(
        agent="compliance", findings=findings, data=data, warnings=list(dict.fromkeys(warnings))
    )


SYSTEM_PROMPT = (
    "You are the compliance specialist of a research desk. For each address or name in the question, "
    "report the sanctions screening result (lists checked and their dates), the upstream fund trace "
    "(two hops, bounded fan-out) and the 0-100 risk indicator with its reasoning chain and paths, using "
    "the bands 0-20 clean; 21-50 indirect link 3+ hops; 51-80 two-hop link or mixer interaction; 81-100 "
    "sanctioned or one hop. Every number comes from a tool result and every finding cites it. A no-match "
    "on a stale list is not a clearance. Say 'risk indicator' and 'screening result': never state that "
    "anyone is a criminal or that anything is illegal."
)


def _task(inputs: SpecialistInput) -> str:
    screened, _ = addresses(inputs)
    return specialist_task(
        inputs,
        f"Addresses: {', '.join(screened) or '-'}; names: {', '.join(names(inputs)) or '-'}",
        "Screen each, trace each address's funds and give its risk indicator with the path, all cited.",
    )


ROLE = specialist_role(
    name="research_compliance",
    description="Compliance specialist: sanctions screens, two-hop fund tracing, mixers, risk score; cited.",
    system_prompt=SYSTEM_PROMPT,
    tools=(SCREEN_TOOL, RISK_TOOL, "trace_funds", "mixer_check", "get_onchain_txs"),
    stage=_stage_one,
    compose=compose,
    task=_task,
    max_tool_calls_per_turn=10,
)
