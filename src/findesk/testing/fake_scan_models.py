"""Scripted models for the market scanner's synthesis (tests and benches): no network.

Rules:
- Only ``scan_synthesis`` gets a scripted model; the phase analysts run deterministically (their model
  path is theirs to test). Each reply is computed from the task payload the role sends: the code's picks
  under the documented rules (``rules_picks``) and the regime tool's pre-fetched result.
- ``good_synthesis``: the picks in reverse order, prose of its own with no figure but the regime line it
  was given; valid and traced.
- ``inventing_synthesis``: names a ticker no board lists (``INVENTED``) every time: validation refuses
  it, the runtime re-asks once, then the code's synthesis is shown with the reason in the warnings.
- ``untraced_synthesis``: valid tickers, but a rationale states a figure no tool gave (``UNTRACED``):
  the output guard replaces the synthesis with the code's and says which number.
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

PRICES = PriceTable({"fake:scan": ModelPrice(input=2.0, output=10.0)})
INVENTED = "ZQXW"
UNTRACED = "it should climb 73.91% by year end"
SUMMARY = (
    "The strategist read the four boards and the regime; the list runs from the quieter names to the leaders."
)


def _picks(request: ModelRequest) -> list[dict[str, Any]]:
    return [dict(p) for p in task_payload(request).get("rules_picks") or []]


def _regime_line(request: ModelRequest) -> str:
    text = tool_results(request).get("get_market_regime", "")
    return text.strip().split("\n", 1)[0] or "The regime tool gave no result."


def _synthesis(request: ModelRequest, picks: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "executive_summary": SUMMARY,
        "macro_context": _regime_line(request),
        "key_themes": [{"title": "Leadership from the boards", "conviction": "medium", "evidence": []}],
        "stocks_to_investigate": picks,
    }


def good_synthesis(request: ModelRequest) -> Reply:
    return submit(_synthesis(request, list(reversed(_picks(request)))))


def inventing_synthesis(request: ModelRequest) -> Reply:
    picks = _picks(request)
    if picks:
        picks[0] = {**picks[0], "ticker": INVENTED}
    return submit(_synthesis(request, picks))


def untraced_synthesis(request: ModelRequest) -> Reply:
    picks = _picks(request)
    if picks:
        picks[0] = {**picks[0], "rationale": f"{picks[0].get('rationale', '')} {UNTRACED}."}
    return submit(_synthesis(request, picks))


SCRIPTS: dict[str, Callable[[ModelRequest], Reply]] = {
    "good": good_synthesis,
    "inventing": inventing_synthesis,
    "untraced": untraced_synthesis,
}


def scan_models(
    script: str = "good", steps: list[Step] | None = None
) -> tuple[Callable[[Role[Any, Any]], Result[ModelChain]], ScriptedModel]:
    """A resolver giving ``scan_synthesis`` the scripted model ``script`` (or explicit ``steps``); every
    other role gets ``not_configured`` (deterministic)."""
    model = ScriptedModel(list(steps) if steps is not None else [SCRIPTS[script]] * 6, model="scan")

    def resolve(role: Role[Any, Any]) -> Result[ModelChain]:
        if role.name != "scan_synthesis":
            return Err(ErrorCode.NOT_CONFIGURED, f"no scripted model for {role.name}; deterministic")
        return Ok(ModelChain([model], PRICES, max_retries=0))

    return resolve, model
