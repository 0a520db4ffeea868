"""Scripted models for the trading desk's model-driven path (tests and ``bench/trade.py``).

Rules:
- Explicit fakes, no network: each is a ``ScriptedModel`` whose reply is computed from the task payload
  it receives. Bull and bear cite their side's signal ids from the payload and quote the signals'
  texts; the research manager and the risk manager rate as the payload's rules do; the trader submits
  the desk's plan; the risk analysts argue the payload's proposal.
- One model round trip per agent run (each submits on its first turn).
- Variants: ``fabricating_bull`` states a figure no tool gave (the output guard must catch it);
  ``garbage_risk_manager`` answers with a rating outside the vocabulary every time (the loop gives up
  after its repair → REVIEW); ``oversized_risk_manager`` submits a valid-looking decision whose size
  exceeds the cap (``normalize`` → REVIEW).
- The four analysts submit a report whose prose quotes the first line of a pre-fetched tool result
  (``analyst_reply``); roles without a script here get no model and run deterministically.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from findesk.agents.role import Role
from findesk.core.config import ModelPrice
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ModelRequest
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.testing.fake_briefing_models import tool_results
from findesk.testing.fake_models import Reply, ScriptedModel, Step, submit, task_payload

PRICES = PriceTable({"fake:trade": ModelPrice(input=2.0, output=10.0)})
FABRICATED = "revenue will grow 83.17% next year"
KINDS: dict[str, str] = {
    "trade_bull": "bull",
    "trade_bear": "bear",
    "trade_research_manager": "manager",
    "trade_trader": "trader",
    "trade_risk_aggressive": "risk",
    "trade_risk_conservative": "risk",
    "trade_risk_neutral": "risk",
    "trade_risk_manager": "risk_manager",
    "trade_market": "market",
    "trade_fundamentals": "fundamentals",
    "trade_news": "news",
    "trade_social": "social",
}
# the least a valid analyst report holds besides its summary: the workflow keeps code's figures anyway
_ANALYST_MINIMUM: dict[str, dict[str, Any]] = {
    "market": {"regime": {"label": "unknown", "score": 0.0}},
    "fundamentals": {},
    "news": {"insider": {"status": "no_data"}},
    "social": {},
}


def analyst_reply(kind: str) -> Callable[[ModelRequest], Reply]:
    """An analyst that reads its pre-fetched tool results and submits a report whose prose quotes the
    first line of one of them (figures a tool gave); its typed figures are placeholders the workflow
    replaces with code's (``normalize``)."""

    def answer(request: ModelRequest) -> Reply:
        results = tool_results(request)
        first = next((text for text in results.values() if text.strip()), "no tool result")
        line = first.strip().split("\n", 1)[0][:200]
        summary = "UNVERIFIED social chatter: " if kind == "social" else ""
        summary += f"The {kind} analyst read: {line}"
        report = {"analyst": kind, "status": "ok", "score": 0.0, "stance": "neutral", "summary": summary}
        return submit({**report, **_ANALYST_MINIMUM[kind]})

    return answer


def _signals(payload: dict[str, Any]) -> list[dict[str, Any]]:
    desk = payload.get("desk") or {}
    tops = [s for a in (desk.get("analysts") or {}).values() for s in a.get("top") or []]
    return [*tops, *(payload.get("your_evidence") or [])]


def debater_reply(request: ModelRequest, *, extra: str = "") -> Reply:
    p = task_payload(request)
    side = str(p.get("side", "bull"))
    mine = [s for s in _signals(p) if (s.get("score", 0) > 0 if side == "bull" else s.get("score", 0) < 0)]
    mine = list({s["id"]: s for s in mine}.values())[:2]
    other = "bear" if side == "bull" else "bull"
    last = next((t for t in reversed(p.get("earlier_turns") or []) if t.get("side") == other), None)
    rebuts = (last.get("cites") or [None])[0] if last else None
    texts = "; ".join(str(s.get("text", "")) for s in mine) or "the analysts give no support"
    return submit(
        {
            "side": side,
            "round": int(p.get("round", 1)),
            "argument": f"The {side} researcher argues: {texts}{extra}.",
            "cites": [s["id"] for s in mine],
            "rebuts": rebuts,
        }
    )


def fabricating_bull(request: ModelRequest) -> Reply:
    return debater_reply(request, extra=f"; and {FABRICATED}")


_RATINGS = ("SELL", "UNDERWEIGHT", "HOLD", "OVERWEIGHT", "BUY")


def manager_reply(shift: int = 0) -> Callable[[ModelRequest], Reply]:
    """The research manager rates as the rules do, moved ``shift`` notches (positive: more bullish)."""

    def answer(request: ModelRequest) -> Reply:
        p = task_payload(request)
        rules = p.get("rules") or {}
        base = str(rules.get("rating", "HOLD"))
        i = max(0, min(len(_RATINGS) - 1, _RATINGS.index(base) + shift))
        return submit(
            {
                "rating": _RATINGS[i],
                "score": rules.get("net", 0.0),
                "rationale": f"The manager weighed the debate; the rules give {base}.",
            }
        )

    return answer


def trader_reply(request: ModelRequest) -> Reply:
    p = task_payload(request)
    plan = dict(p.get("plan") or {})
    plan.setdefault("entry_basis", "last close")
    plan["rationale"] = "The trader follows the desk's plan and its levels."
    return submit(plan)


def risk_reply(request: ModelRequest) -> Reply:
    p = task_payload(request)
    tops = _signals(p)
    return submit(
        {
            "side": p.get("side", "neutral"),
            "round": int(p.get("round", 1)),
            "argument": f"The {p.get('side', 'neutral')} analyst argues for the desk's proposal.",
            "cites": [tops[0]["id"]] if tops else [],
            "proposed_pct": p.get("your_proposal"),
        }
    )


def risk_manager_reply(request: ModelRequest) -> Reply:
    p = task_payload(request)
    rules = dict(p.get("rules") or {})
    rules["rationale"] = "The risk manager signs off the desk's decision."
    return submit(rules)


def garbage_risk_manager(request: ModelRequest) -> Reply:
    p = task_payload(request)
    rules = dict(p.get("rules") or {})
    rules.update({"rating": "STRONG BUY", "rationale": "To the moon."})
    return submit(rules)


def oversized_risk_manager(request: ModelRequest) -> Reply:
    p = task_payload(request)
    rules = dict(p.get("rules") or {})
    rules.update({"rating": "BUY", "direction": "long", "position_pct": 60.0, "rationale": "Go big."})
    return submit(rules)


def _steps() -> dict[str, list[Step]]:
    return {
        "bull": [debater_reply] * 50,
        "bear": [debater_reply] * 50,
        "manager": [manager_reply()] * 20,
        "trader": [trader_reply] * 20,
        "risk": [risk_reply] * 100,
        "risk_manager": [risk_manager_reply] * 20,
        **{kind: [analyst_reply(kind)] * 20 for kind in _ANALYST_MINIMUM},
    }


def trade_models(
    overrides: dict[str, list[Step]] | None = None,
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], dict[str, ScriptedModel]]:
    """A model resolver giving each desk role its scripted model, and the models by kind (``bull``,
    ``bear``, ``manager``, ``trader``, ``risk``, ``risk_manager``); ``overrides`` replaces a kind's steps
    (e.g. ``{"risk_manager": [garbage_risk_manager] * 4}``). Other roles get ``not_configured``."""
    steps = _steps()
    steps.update(overrides or {})
    models = {kind: ScriptedModel(list(s), model="trade") for kind, s in steps.items()}

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        kind = KINDS.get(role.name)
        if kind is None or kind not in models:
            return Err(ErrorCode.NOT_CONFIGURED, f"no scripted model for {role.name}; deterministic")
        return Ok(ModelChain([models[kind]], PRICES, max_retries=0))

    return resolve, models
