"""Demo role: the latest quote and recent SEC filings of one US-listed company, each cited.

Rules:
- Every figure in the report comes from a tool result (quote, filing list); the composer copies
  them, and the model is told to do the same.
- A failed source is a warning in the report ("Live quote unavailable: …"), never a gap or a guess.
"""

from __future__ import annotations

from datetime import date

from pydantic import BaseModel, ConfigDict, Field, field_validator

from findesk.agents.role import (
    Caps,
    DeterministicPolicy,
    Outcomes,
    PlannedCall,
    Role,
    outcome_error,
    outcome_value,
)
from findesk.data.models import Company, Filing, Quote
from findesk.data.symbols import upper_symbol

FORMS = ["10-K", "10-Q", "8-K"]
MAX_FILINGS = 5


class TickerInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str = Field(min_length=1, max_length=10, description="US ticker, e.g. AAPL")

    @field_validator("symbol")
    @classmethod
    def _upper(cls, value: str) -> str:
        return upper_symbol(value)  # folds ASCII only: 'ıbm' must not become IBM


class CitedFiling(BaseModel):
    form: str
    filing_date: date
    report_date: date | None = None
    items: list[str] = Field(default_factory=list, description="8-K item codes")
    url: str | None = Field(None, description="EDGAR URL of the filing's primary document")


class QuoteFilingsReport(BaseModel):
    symbol: str
    company: str | None = None
    price: float | None = Field(None, description="last close, as traded, in USD")
    change_pct: float | None = Field(None, description="percent change from the previous close")
    session_date: date | None = None
    quote_source: str | None = None
    recent_filings: list[CitedFiling] = Field(default_factory=list)
    summary: str = Field(description="two or three sentences, only figures from the tool results")
    warnings: list[str] = Field(default_factory=list)


SYSTEM_PROMPT = (
    "You are a careful equity data assistant for wealth advisors. Report the latest quote and the most "
    "recent SEC filings (10-K, 10-Q, 8-K) of one US-listed company. Cite each filing by form, filing "
    "date and URL. Quote figures exactly as the tools return them. Never give investment advice."
)


def _stage_one(inputs: TickerInput, _: Outcomes) -> list[PlannedCall]:
    return [
        PlannedCall("company", "get_company", {"symbol": inputs.symbol}),
        PlannedCall("quote", "get_quote", {"symbol": inputs.symbol}),
        PlannedCall(
            "filings", "list_filings", {"symbol": inputs.symbol, "forms": FORMS, "limit": MAX_FILINGS}
        ),
    ]


def compose(inputs: TickerInput, outcomes: Outcomes) -> QuoteFilingsReport:
    warnings: list[str] = []
    company: Company | None = outcome_value(outcomes, "company")
    quote: Quote | None = outcome_value(outcomes, "quote")
    filings: list[Filing] = outcome_value(outcomes, "filings") or []
    if quote is None:
        warnings.append(f"Live quote unavailable: {outcome_error(outcomes, 'quote')}")
    if not filings:
        warnings.append(f"Filings unavailable: {outcome_error(outcomes, 'filings') or 'none found'}")
    if company is None:
        warnings.append(f"Company details unavailable: {outcome_error(outcomes, 'company')}")
    cited = [
        CitedFiling(
            form=f.form, filing_date=f.filing_date, report_date=f.report_date, items=f.items, url=f.url
        )
        for f in filings[:MAX_FILINGS]
    ]
    return QuoteFilingsReport(
        symbol=inputs.symbol,
        company=company.name if company else None,
        price=quote.price if quote else None,
        change_pct=quote.change_pct if quote else None,
        session_date=quote.session_date if quote else None,
        quote_source=quote.source.cite() if quote else None,
        recent_filings=cited,
        summary=_summary(inputs.symbol, company, quote, cited),
        warnings=warnings,
    )


def _summary(symbol: str, company: Company | None, quote: Quote | None, filings: list[CitedFiling]) -> str:
    name = f"{company.name} ({symbol})" if company and company.name else symbol
    if quote is not None:
        change = f" ({quote.change_pct:+.2f}%)" if quote.change_pct is not None else ""
        first = f"{name} last closed at ${quote.price:,.2f}{change} on {quote.session_date.isoformat()}."
    else:
        first = f"No quote is available for {name}."
    if filings:
        listed = "; ".join(f"{f.form} filed {f.filing_date.isoformat()}" for f in filings[:3])
        second = f" Most recent filings: {listed}."
    else:
        second = " No recent filings were found."
    return first + second


def _task(inputs: TickerInput) -> str:
    return (
        f"Report the latest quote and the {MAX_FILINGS} most recent 10-K/10-Q/8-K filings of "
        f"{inputs.symbol}, with a short factual summary."
    )


ROLE: Role[TickerInput, QuoteFilingsReport] = Role(
    name="quote_filings",
    description="Latest quote and recent SEC filings of one US company, cited (demo role).",
    system_prompt=SYSTEM_PROMPT,
    tools=("get_company", "get_quote", "list_filings", "get_filing_section"),
    input_schema=TickerInput,
    output_schema=QuoteFilingsReport,
    policy=DeterministicPolicy(stages=(_stage_one,), compose=compose),
    task=_task,
    tier="quick",
    caps=Caps(max_iterations=6, max_tokens_per_call=2048),
)
