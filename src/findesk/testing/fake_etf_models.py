"""Scripted models for the weekly ETF analyst's model-driven path (tests and ``bench/etf_weekly.py``).

Rules:
- Explicit fakes, no network: each is a ``ScriptedModel`` whose reply is computed from the request it
  receives. The news analyst writes a narrative from the search result it was shown and cites the
  article ids in it (``(id …)``); the senior analyst flags every sector and symbol of its payload
  YELLOW with a reason built from the payload's own figures; the managing director scores 7.5 (or
  ``director_score``) and summarizes from its payload.
- One model round trip per agent run (each submits on its first turn).
- ``fabricating_senior`` adds a figure no tool gave to a reason (the output guard must catch it).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.core.config import ModelPrice
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ModelRequest
from findesk.core.result import Ok, Result
from findesk.testing.fake_briefing_models import tool_results
from findesk.testing.fake_models import Reply, ScriptedModel, Step, submit, task_payload

PRICES = PriceTable({"fake:etf": ModelPrice(input=2.0, output=10.0)})
ROLES = ("overview", "sector", "senior", "director")
FABRICATED = "a 47.31% collapse"
_ID = re.compile(r"\(id ([^)]+)\)")


def news_reply(request: ModelRequest) -> Reply:
    found = tool_results(request).get("search_news", "")
    ids = _ID.findall(found)
    head = found.split("\n", 1)[0] if found else "No search result."
    drivers = [{"text": f"Reported in article {i}", "type": "transient", "sources": [i]} for i in ids[:3]]
    return submit(
        {
            "sector": task_payload(request).get("sector", "market"),
            "evidence": "strong",
            "narrative": f"The press coverage: {head[:300]}",
            "drivers": drivers,
        }
    )


def overview_reply(request: ModelRequest) -> Reply:
    found = tool_results(request).get("search_news", "")
    return submit(
        {"narrative": "Market overview: " + (found.split("\n", 1)[0][:300] if found else "no articles.")}
    )


def senior_reply(request: ModelRequest, *, extra: str = "") -> Reply:
    p = task_payload(request)
    sectors = {
        s: {
            "sector": s,
            "flag": "YELLOW",
            "reason": f"average alpha residual {g.get('avg_alpha_residual')} pp{extra}",
            "narrative": "The senior analyst read the sector's news.",
        }
        for s, g in (p.get("sector_groups") or {}).items()
    }
    symbols = {
        s: {
            "symbol": s,
            "sector": v.get("sector", ""),
            "flag": "GREEN",
            "reason": f"signal {v.get('signal')}",
            "bullish": [],
            "bearish": [],
            "key_concern": "model concern",
        }
        for s, v in (p.get("symbol_profiles") or {}).items()
    }
    return submit({"sectors": sectors, "symbols": symbols})


def fabricating_senior(request: ModelRequest) -> Reply:
    return senior_reply(request, extra=f"; the sector suffered {FABRICATED}")


def director_reply(score: float = 7.5) -> Callable[[ModelRequest], Reply]:
    def answer(request: ModelRequest) -> Reply:
        p = task_payload(request)
        sectors = list(p.get("sectors") or {})
        return submit(
            {
                "quality_score": score,
                "rationale": "The director weighed the evidence behind each flag.",
                "executive_summary": f"The desk reviewed {len(p.get('symbols') or {})} candidate(s).",
                "send_back": sectors[:1] if score < float(p.get("quality_threshold", 6.0)) else [],
                "objections": [f"{sectors[0]}: show the evidence"] if sectors and score < 6.0 else [],
            }
        )

    return answer


def _kind(role: Role[Any, Any]) -> str:
    return next((k for k in ROLES if k in role.name), role.name)


def etf_models(
    overrides: dict[str, list[Step]] | None = None,
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], dict[str, ScriptedModel]]:
    """A model resolver giving each ETF role its own scripted model, and the models by role kind
    (``overview``, ``sector``, ``senior``, ``director``); ``overrides`` replaces one's steps."""
    steps: dict[str, list[Step]] = {
        "overview": [overview_reply] * 50,
        "sector": [news_reply] * 200,
        "senior": [senior_reply] * 50,
        "director": [director_reply()] * 50,
    }
    steps.update(overrides or {})
    models = {name: ScriptedModel(list(s), model="etf") for name, s in steps.items()}

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return Ok(ModelChain([models[_kind(role)]], PRICES, max_retries=0))

    return resolve, models
