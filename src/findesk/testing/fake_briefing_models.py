"""Scripted models for the briefing's model-driven path (tests and ``bench/brief.py``).

Rules:
- Explicit fakes, no network: each is a ``ScriptedModel`` whose replies are computed from the request
  it receives, the way a real model would read its context: the official fake cites the source keys it
  finds after ``Cite:`` in the pre-fetched tool results, the social fake cites post ids from ``(id …)``
  marks, the coordinator fake quotes the price from the reports it is given.
- One model round trip per agent (each submits on its first turn), so the critical path is two.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.agents.runtime.model_loop import unfenced
from findesk.core.config import ModelPrice
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ModelRequest, ToolResults
from findesk.core.result import Ok, Result
from findesk.testing.fake_models import Reply, ScriptedModel, Step, submit, task_payload

PRICES = PriceTable({"fake:briefing": ModelPrice(input=2.0, output=10.0)})
_CITE = re.compile(r"Cite: (\S+)")
_ID = re.compile(r"\(id ([^)\s]+)\)")


def tool_results(request: ModelRequest) -> dict[str, str]:
    """Tool name -> the content of its (last) result in the conversation."""
    found: dict[str, str] = {}
    for message in request.messages:
        if isinstance(message, ToolResults):
            for part in message.results:
                if not part.is_error:
                    found[part.name] = unfenced(part.content)
    return found


def official_reply(request: ModelRequest) -> Reply:
    results = tool_results(request)
    findings: list[dict[str, Any]] = []
    business = results.get("get_business_overview", "")
    cite = _CITE.search(business)
    if cite:
        text = business.split("\nCite:", 1)[0]
        findings.append({"kind": "business", "claim": f"Per its 10-K: {text}", "citation": cite.group(1)})
    risks = results.get("get_risk_factors", "")
    cite = _CITE.search(risks)
    if cite:
        for line in risks.splitlines()[1:4]:
            heading = re.sub(r"^\d+\.\s*", "", line).split(" — ", 1)[0]
            findings.append({"kind": "risk", "title": heading, "claim": heading, "citation": cite.group(1)})
    return submit({"findings": findings})


def social_reply(request: ModelRequest) -> Reply:
    results = tool_results(request)
    ids = [m for name in ("get_reddit_posts", "get_news") for m in _ID.findall(results.get(name, ""))]
    themes = (
        [
            {
                "theme": "retail attention",
                "summary": "Posters discuss the stock; none of it is verified.",
                "post_ids": ids[:3],
            }
        ]
        if ids
        else []
    )
    return submit({"themes": themes})


def coordinator_reply(request: ModelRequest) -> Reply:
    payload = task_payload(request)
    quote = payload["official"].get("quote")
    symbol = payload["official"]["symbol"]
    if quote:
        headline = f"{symbol} last closed at ${quote['price']:,.2f} on {quote['session_date']}"
    else:
        headline = f"{symbol}: the live quote is unavailable"
    summary = headline + ". Social chatter is unverified and summarized below; see the divergences section."
    return submit({"headline": headline, "summary": summary})


REPLIES: dict[str, Callable[[ModelRequest], Reply]] = {
    "official": official_reply,
    "social": social_reply,
    "coordinator": coordinator_reply,
}


def briefing_models(
    overrides: dict[str, list[Step]] | None = None,
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], dict[str, ScriptedModel]]:
    """A model resolver giving each briefing agent its own scripted model, and the models by agent.

    ``overrides`` replaces an agent's steps (e.g. a coordinator that writes advice).
    """
    steps: dict[str, list[Step]] = {name: [fn] for name, fn in REPLIES.items()}
    steps.update(overrides or {})
    models = {name: ScriptedModel(list(s), model="briefing") for name, s in steps.items()}

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return Ok(ModelChain([models[role.name]], PRICES, max_retries=0))

    return resolve, models
