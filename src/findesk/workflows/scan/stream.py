"""The market scan's streamed sections: each phase's report as it lands, then the synthesis.

Rules:
- The graph's nodes send ``(name, value)`` chunks: ("geopolitical" | "movers" | "sectors" |
  "industries", the phase report) and ("synthesis", SynthesisReport or None). A chunk of any other
  shape is ignored, never raised.
- Every string is data: the HTML comes from ``render_html``'s fragments, the words the page shows.
- ``finish`` emits, from the report, any section no chunk produced or the assembler changed (a guarded
  output, a resumed run's earlier nodes), so a finished run always shows all five sections.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.roles.scan.models import (
    GeopoliticalReport,
    IndustryReport,
    MoversReport,
    SectorReport,
    SynthesisReport,
)
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.scan.render_html import phase_html, synthesis_html
from findesk.workflows.scan.render_markdown import PhaseReport, phase_message, synthesis_message
from findesk.workflows.spec import RunScope

SECTIONS: tuple[tuple[str, str], ...] = (
    ("geopolitical", "Geopolitical and macro topics"),
    ("movers", "Market movers"),
    ("sectors", "Sector performance"),
    ("industries", "Industry deep dive — top 3 sectors"),
    ("synthesis", "Synthesis — stocks to investigate"),
)
_PHASE_TYPES: dict[str, type[PhaseReport]] = {
    "geopolitical": GeopoliticalReport,
    "movers": MoversReport,
    "sectors": SectorReport,
    "industries": IndustryReport,
}


class ScanStream:
    def __init__(self, scope: RunScope) -> None:
        self._scope = scope
        self._shown: dict[str, str] = {}

    def _emit(self, name: str, html: str, message: str | None) -> None:
        self._shown[name] = html
        self._scope.section(name, html, message)

    def update(self, chunk: Any) -> None:
        if not isinstance(chunk, tuple) or len(chunk) != 2:
            return
        name, value = chunk
        if name in _PHASE_TYPES and isinstance(value, _PHASE_TYPES[name]):
            self._emit(name, phase_html(value), phase_message(value))
        elif name == "synthesis" and (value is None or isinstance(value, SynthesisReport)):
            self._emit("synthesis", synthesis_html(value), synthesis_message(value))

    def finish(self, report: Any) -> None:
        if not isinstance(report, ScanReport):
            return
        r = report
        final = {
            "geopolitical": (phase_html(r.geopolitical), phase_message(r.geopolitical)),
            "movers": (phase_html(r.movers), phase_message(r.movers)),
            "sectors": (phase_html(r.sectors), phase_message(r.sectors)),
            "industries": (phase_html(r.industries), phase_message(r.industries)),
            "synthesis": (synthesis_html(r.synthesis), synthesis_message(r.synthesis)),
        }
        for name, _title in SECTIONS:
            html, message = final[name]
            if self._shown.get(name) != html:
                self._emit(name, html, message)
