"""Identity first: the company a ticker names at the run's date, read from the SEC tables before any
analyst runs, so every report of the run names the same company. Code only.

Rules:
- One call, ``get_company``: its result is the identity (ticker, CIK, name, exchange, sector, industry)
  and appears in the run's tool trace. The workflow refuses an unknown, ambiguous, fund or CIK-less
  ticker before the graph starts (``workflows.trading.identity.resolve``), so here the call succeeds;
  should a source fail between the two, the identity says so in its name and the run still finishes.
"""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Caps, DeterministicPolicy, Outcomes, PlannedCall, Role, outcome_value
from findesk.agents.roles.trading.inputs import AnalystInput
from findesk.agents.roles.trading.models import Identity
from findesk.data.models import Company


def _stage(inputs: AnalystInput, _outcomes: Outcomes) -> list[PlannedCall]:
    return [PlannedCall("company", "get_company", {"symbol": inputs.identity.ticker})]


def compose(inputs: AnalystInput, outcomes: Outcomes) -> Identity:
    company: Any = outcome_value(outcomes, "company")
    if not isinstance(company, Company) or company.cik is None or not company.name:
        return inputs.identity  # resolved before the run started; the trace shows the failed re-read
    return Identity(
        ticker=company.ticker,
        cik=company.cik,
        name=company.name,
        exchange=company.exchange,
        sector=company.sector,
        industry=company.industry,
        source=company.source.cite(),
        notes=list(company.notes),
    )


ROLE: Role[AnalystInput, Identity] = Role(
    name="trade_identity",
    description="Identity: the company (CIK, name, exchange) a ticker names at the date, from SEC tables.",
    system_prompt="Identify the company behind the ticker with get_company. Never guess.",
    tools=("get_company",),
    input_schema=AnalystInput,
    output_schema=Identity,
    policy=DeterministicPolicy(stages=(_stage,), compose=compose),
    task=lambda i: f"Identify {i.identity.ticker}.",
    tier="quick",
    caps=Caps(max_iterations=1, max_tokens_per_call=300),
)
