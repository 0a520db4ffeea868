"""The movers analyzer's news: the chosen symbol's headlines in the month to the session (code only).

Rules:
- One call: ``get_news`` (at most ``LIMIT`` items since ``DAYS`` calendar days before the session); the
  tool screens third-party text, and a withheld headline is counted and said, never shown.
- ``no_data`` when nothing was published or the call failed (the summary says which): the report never
  invents a reason for the move.
"""

from __future__ import annotations

import datetime as dt
import re

from pydantic import BaseModel, ConfigDict

from findesk.agents.role import (
    Outcomes,
    PlannedCall,
    Role,
    outcome_value,
)
from findesk.agents.roles.movers.code_role import code_role, failure
from findesk.agents.roles.movers.models import NewsReport
from findesk.data.models import NewsItem
from findesk.tools.quarantine import is_withheld

LIMIT = 8
# the error's code and vendor at its start, e.g. 'no_data [snapshot]: '
_CODE = re.compile(r"^[a-z_]+ \[[a-z_]+\]: ")
DAYS = 30


class NewsInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    date: dt.date


def _stage(inputs: NewsInput, _outcomes: Outcomes) -> list[PlannedCall]:
    since = (inputs.date - dt.timedelta(days=DAYS)).isoformat()
    return [PlannedCall("news", "get_news", {"symbol": inputs.symbol, "limit": LIMIT, "since": since})]


def compose(inputs: NewsInput, outcomes: Outcomes) -> NewsReport:
    items: list[NewsItem] | None = outcome_value(outcomes, "news")
    if items is None:
        why = failure(outcomes, "news")
        why = _CODE.sub("", why)
        summary = (
            f"No headline about {inputs.symbol} on or before {inputs.date.isoformat()} in the news sources "
            f"read, so the news explains nothing about the move: {why}"
        )
        return NewsReport(status="no_data", summary=summary, warnings=[f"news: {why}"])
    shown = [i for i in items if not is_withheld(i.title)]
    withheld = len(items) - len(shown)
    warnings = [f"{withheld} headline(s) withheld as likely prompt injection"] if withheld else []
    if not shown:
        summary = (
            f"No readable headline about {inputs.symbol} in the {DAYS} days to {inputs.date.isoformat()} "
            "in the news sources read"
            + (f" ({withheld} withheld as likely prompt injection)" if withheld else "")
            + ": the move is unexplained by the news on file."
        )
        return NewsReport(status="no_data", summary=summary, warnings=warnings, withheld=withheld)
    summary = (
        f"{len(shown)} headline(s) about {inputs.symbol} in the {DAYS} days to {inputs.date.isoformat()}."
    )
    return NewsReport(status="ok", summary=summary, items=shown, warnings=warnings, withheld=withheld)


ROLE: Role[NewsInput, NewsReport] = code_role(
    name="movers_news",
    description="The chosen mover's headlines in the month to the session.",
    tool="get_news",
    input_schema=NewsInput,
    output_schema=NewsReport,
    stage=_stage,
    compose=compose,
    task=lambda i: f"Read the news about {i.symbol} up to {i.date.isoformat()}.",
)
