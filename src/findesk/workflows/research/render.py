"""The research report as Markdown and HTML (and the HTML of each streamed section).

Rules:
- The answer is the coordinator's Markdown, rendered through the allow-list (``safe_markdown``); every
  other string (findings, sources, tool summaries, warnings) is data and is escaped.
- Charts are the specialists' PNGs, embedded as ``data:image/png`` images in the HTML report only.
- The tool trace is always there in ``details`` (Markdown) and in the HTML report, as text.
"""

from __future__ import annotations

import html

from findesk.agents.roles.research.findings import Citation, SpecialistReport
from findesk.guardrails.safe_markdown import block_html
from findesk.workflows.research.models import ResearchReport

TITLES = {
    "equity": "Equity desk",
    "macro": "Macro desk",
    "crypto": "Crypto desk",
    "compliance": "Compliance desk",
}


def _cite(c: Citation) -> str:
    return f"{c.agent} · {c.tool} · {c.source}"


def answer_markdown(report: ResearchReport) -> str:
    parts = [report.answer]
    if report.disclaimer:
        parts.append(f"_{report.disclaimer}_")
    return "\n\n".join(parts)


def to_markdown(report: ResearchReport, details: bool = False) -> str:
    out = [
        f"# Research: {report.question}",
        "",
        f"_{report.data_mode} · run {report.run_id} · {report.mode}_",
        "",
    ]
    if report.resolved_question != report.question:
        out += [f"Follow-up read as: {report.resolved_question}", ""]
    out += [answer_markdown(report), ""]
    if report.citations:
        out += ["## Sources", ""]
        out += [f"{i}. {_cite(c)}" for i, c in enumerate(report.citations, 1)]
        out.append("")
    for agent, desk in report.specialists.items():
        out += [f"## {TITLES.get(agent, agent)}", ""]
        out += [f"- {f.text}" for f in desk.findings] or ["- no findings"]
        out += [f"- warning: {w}" for w in desk.warnings]
        if desk.charts:
            out += [f"- chart: {c.title} (PNG in the HTML and JSON reports)" for c in desk.charts]
        out.append("")
    if report.warnings:
        out += ["## Warnings", ""] + [f"- {w}" for w in report.warnings] + [""]
    if details:
        out += ["## Tool trace", ""]
        out += [
            f"- {c.agent} · {c.name} · {c.status} · {c.latency_ms:.0f} ms — {c.summary}"
            for c in report.tool_calls
        ]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def desk_html(agent: str, desk: SpecialistReport, charts: bool = True) -> str:
    esc = html.escape
    items = "".join(
        f"<li>{esc(f.text)}"
        + "".join(f' <span class="cite">[{esc(c.tool)} · {esc(c.source)}]</span>' for c in f.citations)
        + "</li>"
        for f in desk.findings
    )
    warnings = "".join(f'<li class="warning">{esc(w)}</li>' for w in desk.warnings)
    body = f"<ul>{items}{warnings}</ul>" if items or warnings else "<p>No findings.</p>"
    if charts:
        body += "".join(
            f'<figure><img alt="{esc(c.title)}" src="data:image/png;base64,{esc(c.png_base64)}">'
            f"<figcaption>{esc(c.title)}</figcaption></figure>"
            for c in desk.charts
        )
    return body


def plan_html(intents: list[str], plan: str) -> str:
    routed = ", ".join(intents) if intents else "no desk"
    return f"<p><strong>Routed to:</strong> {html.escape(routed)}</p><p>{html.escape(plan)}</p>"


def answer_html(report: ResearchReport) -> str:
    sources = "".join(f"<li>{html.escape(_cite(c))}</li>" for c in report.citations)
    body = block_html(answer_markdown(report))
    return body + (f"<h3>Sources</h3><ol>{sources}</ol>" if sources else "")


def to_html(report: ResearchReport) -> str:
    esc = html.escape
    desks = "".join(
        f"<section><h2>{esc(TITLES.get(a, a))}</h2>{desk_html(a, d)}</section>"
        for a, d in report.specialists.items()
    )
    trace = "".join(
        f"<tr><td>{esc(c.agent)}</td><td>{esc(c.name)}</td><td>{esc(c.status)}</td>"
        f"<td>{c.latency_ms:.0f} ms</td><td>{esc(c.summary)}</td></tr>"
        for c in report.tool_calls
    )
    return (
        '<!doctype html><html><head><meta charset="utf-8">'
        f"<title>findesk research · {esc(report.question[:80])}</title></head><body>"
        f"<h1>{esc(report.question)}</h1><p>{esc(report.data_mode)} · run {esc(report.run_id)}</p>"
        f"<section><h2>Plan</h2>{plan_html(report.intents, report.plan)}</section>"
        f"<section><h2>Answer</h2>{answer_html(report)}</section>{desks}"
        f"<section><h2>Tool trace</h2><table>{trace}</table></section></body></html>"
    )
