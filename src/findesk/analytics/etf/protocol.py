"""The epistemic-honesty protocol as code: what may be said when evidence is weak or missing.

Rules (every threshold comes from ``ProtocolParams``, i.e. the strategy file):
- Evidence quality is counted, never judged: ``strong`` needs ``strong_min_items`` articles in the
  week from ``strong_min_publishers`` distinct publishers; one article or more is ``weak``; none is
  ``none``.
- No news: the narrative is exactly ``NO_NEWS`` and nothing else (no story is invented). With
  |alpha| < ``beta_alpha_pct`` the move is "primarily market-wide (beta)" and the flag YELLOW; with
  |alpha| > ``unexplained_alpha_pct`` it is "unexplained alpha" and the flag RED; in between it is
  "no specific catalyst identified", YELLOW.
- Weak evidence caps the flag at YELLOW and says "no specific catalyst identified" beyond what the
  sources themselves say.
- Strong evidence: the protocol sets nothing; the analyst weighs the drivers.
- Many sectors with weak or no evidence (share ≥ ``data_constrained_share``): the managing director's
  data-constrained note (``data_constrained_note``).
Pure: numbers in, verdicts out.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from findesk.analytics.etf.params import ProtocolParams

Evidence = Literal["strong", "weak", "none"]
Flag = Literal["GREEN", "YELLOW", "RED"]

NO_NEWS = "No sector-specific news found. Unable to identify idiosyncratic catalyst."
BETA_MOVE = "primarily market-wide (beta)"
UNEXPLAINED = "unexplained alpha"
NO_CATALYST = "no specific catalyst identified"
_ORDER: dict[Flag, int] = {"GREEN": 0, "YELLOW": 1, "RED": 2}


@dataclass(frozen=True)
class Verdict:
    """What the protocol decides for a sector or a symbol. ``flag`` None: no rule applies (strong
    evidence), the analyst decides; ``cap``: the best flag allowed; ``narrative``: the only narrative
    allowed (None: the analyst writes one from its sources)."""

    flag: Flag | None
    cap: Flag
    reason: str
    narrative: str | None


def evidence_quality(items: int, publishers: int, params: ProtocolParams) -> Evidence:
    if items >= params.strong_min_items and publishers >= params.strong_min_publishers:
        return "strong"
    return "weak" if items >= 1 else "none"


def _pp(alpha: float) -> str:
    return f"{alpha:+.2f} pp"


def verdict(
    evidence: Evidence, alpha: float | None, params: ProtocolParams, *, what: str = "sector"
) -> Verdict:
    """The protocol's verdict for a sector (its average alpha residual) or a symbol (its own)."""
    label = "average alpha residual" if what == "sector" else "alpha residual"
    if evidence == "none":
        if alpha is None:
            return Verdict(
                "YELLOW", "YELLOW", f"{NO_CATALYST}: no alpha residual (no beta) and no news", NO_NEWS
            )
        size = abs(alpha)
        if size < params.beta_alpha_pct:
            reason = f"{BETA_MOVE}: {label} {_pp(alpha)} and no sector news"
            return Verdict("YELLOW", "YELLOW", reason, NO_NEWS)
        if size > params.unexplained_alpha_pct:
            reason = f"{UNEXPLAINED}: {label} {_pp(alpha)} and no sector news to explain it"
            return Verdict("RED", "RED", reason, NO_NEWS)
        return Verdict("YELLOW", "YELLOW", f"{NO_CATALYST}: {label} {_pp(alpha)} and no sector news", NO_NEWS)
    if evidence == "weak":
        if alpha is not None and abs(alpha) < params.beta_alpha_pct:
            reason = f"weak evidence; the move is {BETA_MOVE}: {label} {_pp(alpha)}"
        else:
            shown = "n/a" if alpha is None else _pp(alpha)
            reason = f"weak evidence: {NO_CATALYST} beyond the sources listed ({label} {shown})"
        return Verdict(None, "YELLOW", reason, None)
    return Verdict(None, "GREEN", "", None)


def capped(flag: Flag, cap: Flag) -> Flag:
    """``flag``, never better than ``cap`` (RED is worse than YELLOW, worse than GREEN)."""
    return flag if _ORDER[flag] >= _ORDER[cap] else cap


def data_constrained_note(evidence: dict[str, Evidence], params: ProtocolParams) -> str | None:
    """The managing director's note when too many sectors lack evidence, else None."""
    if not evidence:
        return None
    low = sorted(s for s, e in evidence.items() if e != "strong")
    if len(low) / len(evidence) < params.data_constrained_share:
        return None
    return (
        f"Data-constrained week: {len(low)} of {len(evidence)} sectors have weak or no news evidence "
        f"({', '.join(low)}). Their flags rest on price and volume alone; no narrative is offered "
        "where no source supports one."
    )
