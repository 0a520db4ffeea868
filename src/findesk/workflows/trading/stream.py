"""The trading desk's streamed sections: the company as soon as it is resolved, the analysts' reports as
each lands, both debates turn by turn, and each decision as its role signs it.

Rules:
- The graph's nodes send ``(name, value)`` chunks: ("identity", Identity), ("analyst", one of the four
  analyst reports), ("debate", DebateTurn), ("decision", InvestmentDecision), ("plan", TradePlan),
  ("risk", DebateTurn), ("final", FinalDecision). A chunk of any other shape is ignored, never raised.
- The analysts' section is re-emitted whenever a report lands, in the desk's order (market,
  fundamentals, news, social), with the message "2 of 4 analysts"; a debate section is re-emitted after
  every turn, with all turns so far in the order they arrived.
- Every string is data: the HTML comes from ``render_html``'s fragments (``report_parts.e`` escaping),
  the same words the report page shows.
- ``finish`` emits, from the report, any section no chunk produced (a resumed run's earlier nodes send
  nothing), so a finished run always shows all seven sections.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.roles.trading.inputs import ANALYSTS
from findesk.agents.roles.trading.models import (
    AnalystReport,
    DebateTurn,
    FinalDecision,
    Identity,
    InvestmentDecision,
    TradePlan,
)
from findesk.core.formatting import plural
from findesk.workflows.spec import RunScope
from findesk.workflows.trading.models import TradeReport
from findesk.workflows.trading.render_html import (
    analysts_html,
    debate_html,
    decision_html,
    final_html,
    identity_html,
    plan_html,
)
from findesk.workflows.trading.render_markdown import capital, company_line, decision_line, review_line

SECTIONS: tuple[tuple[str, str], ...] = (
    ("identity", "Company"),
    ("analysts", "Analyst reports"),
    ("debate", "Investment debate — bull vs bear"),
    ("decision", "Research manager"),
    ("plan", "Trader's plan"),
    ("risk", "Risk debate"),
    ("final", "Final decision — risk manager"),
)


def _final_message(f: FinalDecision) -> str:
    return review_line(f) or f"{f.rating} · {capital(f.position_pct)}"


class TradeStream:
    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._analysts: dict[str, AnalystReport] = {}
        self._debate: list[DebateTurn] = []
        self._risk: list[DebateTurn] = []
        self._shown: dict[str, str] = {}  # section -> the HTML last emitted

    def _emit(self, name: str, html: str, message: str | None = None) -> None:
        self._shown[name] = html
        self._scope.section(name, html, message)

    def update(self, chunk: Any) -> None:
        if not isinstance(chunk, tuple) or len(chunk) != 2:
            return
        name, value = chunk
        if name == "identity" and isinstance(value, Identity):
            self._emit("identity", identity_html(value, self._scope.context.as_of), company_line(value))
        elif name == "analyst" and isinstance(value, AnalystReport):
            self._analysts[value.analyst] = value
            reports = [self._analysts[n] for n in ANALYSTS if n in self._analysts]
            self._emit("analysts", analysts_html(reports), f"{len(reports)} of {len(ANALYSTS)} analysts")
        elif name == "debate" and isinstance(value, DebateTurn):
            self._debate.append(value)
            self._emit("debate", debate_html(self._debate), plural(len(self._debate), "turn"))
        elif name == "decision" and isinstance(value, InvestmentDecision):
            self._emit("decision", decision_html(value), decision_line(value))
        elif name == "plan" and isinstance(value, TradePlan):
            self._emit("plan", plan_html(value), f"{value.direction} · {capital(value.position_pct)}")
        elif name == "risk" and isinstance(value, DebateTurn):
            self._risk.append(value)
            self._emit("risk", debate_html(self._risk), plural(len(self._risk), "turn"))
        elif name == "final" and isinstance(value, FinalDecision):
            self._emit("final", final_html(value), _final_message(value))

    def finish(self, report: Any) -> None:
        """Every section as the report has it, emitted again only where it differs from what was shown
        (a section no chunk produced, or one the assembler changed: a guarded turn, a REVIEW)."""
        if not isinstance(report, TradeReport):
            return
        r = report
        analysts = [r.market, r.fundamentals, r.news, r.social]
        final: dict[str, tuple[str, str]] = {
            "identity": (identity_html(r.identity, r.as_of), company_line(r.identity)),
            "analysts": (analysts_html(analysts), f"{len(analysts)} of {len(ANALYSTS)} analysts"),
            "debate": (debate_html(r.investment_debate), plural(len(r.investment_debate), "turn")),
            "decision": (decision_html(r.investment_decision), decision_line(r.investment_decision)),
            "plan": (
                plan_html(r.trader_plan),
                f"{r.trader_plan.direction} · {capital(r.trader_plan.position_pct)}",
            ),
            "risk": (debate_html(r.risk_debate), plural(len(r.risk_debate), "turn")),
            "final": (final_html(r.final_decision), _final_message(r.final_decision)),
        }
        for name, _title in SECTIONS:
            html, message = final[name]
            if self._shown.get(name) != html:
                self._emit(name, html, message)
