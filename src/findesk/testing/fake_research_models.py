"""Scripted models for the research desk's model-driven path (tests and ``bench/research.py``).

Rules:
- Explicit fakes, no network: each is a ``ScriptedModel`` whose replies are computed from the request it
  receives, the way a real model would read its context. The router proposes desks from a few words
  of the question (the desk's mandatory rules are applied on top); a specialist turns each pre-fetched
  tool result into one finding citing that tool and the result's ``Source:`` line; the coordinator
  writes its answer from the findings it is given, keeping their ``[n]`` markers.
- One model round trip per agent (each submits on its first turn), so the critical path is three:
  route, the slowest specialist, synthesize.
- ``fabricating`` is a coordinator that adds a figure no tool gave (the output guard must catch it).
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
from findesk.testing.fake_models import Reply, ScriptedModel, Step, submit, task_payload, task_text

PRICES = PriceTable({"fake:research": ModelPrice(input=2.0, output=10.0)})
DESKS = ("equity", "macro", "crypto", "compliance")
_SOURCE = re.compile(r"^Source: (.+)$", re.MULTILINE)
FABRICATED = "$987,654.3 billion"


def route_reply(request: ModelRequest) -> Reply:
    task = task_text(request)
    words = task.split("\n", 1)[0].lower() if task.startswith("Question:") else task.lower()
    intents = [
        d
        for d, marks in (("macro", ("yield", "rate", "cpi")), ("crypto", ("btc", "eth", "token")))
        if any(m in words for m in marks)
    ]
    return submit({"intents": intents, "plan": "model plan: " + ", ".join(intents or ["rules decide"])})


def specialist_reply(desk: str) -> Callable[[ModelRequest], Reply]:
    def answer(request: ModelRequest) -> Reply:
        findings = []
        for tool, content in tool_results(request).items():
            first = next((line for line in content.splitlines() if line.strip()), "")
            source = _SOURCE.search(content)
            if first and source:
                findings.append(
                    {
                        "text": first[:300],
                        "citations": [{"agent": desk, "tool": tool, "source": source.group(1)}],
                    }
                )
        return submit({"agent": desk, "findings": findings[:6]})

    return answer


def synthesize_reply(request: ModelRequest, *, extra: str = "") -> Reply:
    payload = task_payload(request)
    lines = [f"Research answer for: {payload.get('question', '')}"]
    for desk, body in (payload.get("desks") or {}).items():
        lines.append(f"**{desk}**")
        lines += [f"- {f['text']} {f['cite']}" for f in body.get("findings", [])]
    if extra:
        lines.append(extra)
    return submit({"answer": "\n".join(lines)})


def fabricating(request: ModelRequest) -> Reply:
    return synthesize_reply(request, extra=f"- Revenue will reach {FABRICATED} next year.")


def _desk_of(role: Role[Any, Any]) -> str:
    if "route" in role.name:
        return "route"
    if "synth" in role.name:
        return "synthesize"
    return next((d for d in DESKS if d in role.name), role.name)


def research_models(
    overrides: dict[str, list[Step]] | None = None,
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], dict[str, ScriptedModel]]:
    """A model resolver giving the router, each desk and the coordinator its own scripted model (each
    answers every request it gets, so a run may ask it many times), and the models by desk name.
    ``overrides`` replaces one's steps (e.g. ``{"synthesize": [fabricating] * 50}``)."""
    steps: dict[str, list[Step]] = {
        "route": [route_reply] * 100,
        "synthesize": [synthesize_reply] * 100,
        **{d: [specialist_reply(d)] * 100 for d in DESKS},
    }
    steps.update(overrides or {})
    models = {name: ScriptedModel(list(s), model="research") for name, s in steps.items()}

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        return Ok(ModelChain([models[_desk_of(role)]], PRICES, max_retries=0))

    return resolve, models
