"""How a logged trading decision turned out, and the lesson each role draws from it.

Rules (pure: bars in, figures out; the caller reads the bars point in time):
- entry = the close of the last session at or before the decision date; exit = the close
  ``horizon_days`` sessions later in the stock's own bars. Until that session exists in the bars given
  there is no outcome (None): a decision is never scored early.
- return % = exit / entry − 1 (the stock, whatever the call); SPY return % over the same sessions (SPY's
  last close at or before the entry and the exit session); alpha pp = return − SPY return (None
  without SPY). Adjusted bars make both returns immune to splits and dividends.
- stop / target: touched when a session after the entry reaches them (long: low ≤ stop, high ≥
  target; short: high ≥ stop, low ≤ target; a bar without a low or high uses its close). The plan's
  levels are read relative to its own entry (level / entry × the bars' entry close), so a plan priced
  as traded and bars adjusted for a later split still compare. The first touch ends the trade at
  that level; a session touching both counts as the stop (the cautious reading).
- position return % = the plan's own result: long the trade's return, short its negative, flat 0.
- the call's verdict uses alpha (the stock's own return when SPY is missing):
  BUY / OVERWEIGHT are right when alpha > 0; UNDERWEIGHT / SELL when alpha < 0; HOLD when
  |alpha| ≤ ``HOLD_BAND_PP``; REVIEW is not judged. The bull was right when alpha > 0, the bear when
  alpha < 0. A flat plan (staying out) was right when alpha ≤ ``HOLD_BAND_PP`` (little was missed);
  a long or short plan when its position return > 0. The risk manager's size was right when a
  position > 0 made money, or a zero position stayed out rightly (as a flat plan).
- each lesson names the ticker, date and the role's call, the figures (returns, alpha, levels), and
  whether the role was right, in at most ``MAX_LESSON_CHARS`` characters.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import date

from findesk.core.formatting import word_clip
from findesk.data.models.market import PriceBar
from findesk.knowledge.memory.decisions import (
    MAX_LESSON_CHARS,
    ROLES,
    ExitReason,
    LoggedDecision,
    Outcome,
)

HOLD_BAND_PP = 3.0  # a HOLD (or staying out) is right when the stock stayed within ±3 pp of SPY
_CALL_SIGN = {"BUY": 1, "OVERWEIGHT": 1, "HOLD": 0, "UNDERWEIGHT": -1, "SELL": -1}


def realised(
    stock_bars: Sequence[PriceBar],
    spy_bars: Sequence[PriceBar],
    decided_on: date,
    horizon_days: int,
    *,
    direction: str = "long",
    entry: float | None = None,
    stop: float | None = None,
    target: float | None = None,
) -> Outcome | None:
    """The outcome of a decision taken on ``decided_on`` over ``horizon_days`` sessions, or None until
    the exit session is in ``stock_bars`` (or when no session at or before the decision exists)."""
    if horizon_days < 1:
        return None
    bars = _sessions(stock_bars)
    before = [i for i, bar in enumerate(bars) if bar.date <= decided_on]
    if not before:
        return None
    start = before[-1]
    end = start + horizon_days
    if end >= len(bars):
        return None
    first, last = bars[start], bars[end]
    if first.close <= 0:
        return None
    return_pct = (last.close / first.close - 1.0) * 100.0
    spy_return = _spy_return(_sessions(spy_bars), first.date, last.date)
    path = bars[start + 1 : end + 1]
    stop_level = _rescaled(stop, entry, first.close)
    target_level = _rescaled(target, entry, first.close)
    stop_hit, target_hit, exit_reason, exit_price = _walk(path, direction, stop_level, target_level)
    if direction == "flat":
        position = 0.0
        exit_reason = "flat"
    else:
        move = (exit_price / first.close - 1.0) * 100.0
        position = -move if direction == "short" else move
    return Outcome(
        entry_session=first.date,
        entry_close=first.close,
        exit_date=last.date,
        exit_close=last.close,
        sessions=horizon_days,
        return_pct=return_pct,
        spy_return_pct=spy_return,
        alpha_pp=None if spy_return is None else return_pct - spy_return,
        position_return_pct=position,
        exit_reason=exit_reason,
        stop_hit=stop_hit,
        target_hit=target_hit,
    )


def _sessions(bars: Sequence[PriceBar]) -> list[PriceBar]:
    """Bars by date, one per session (the last given wins), without unusable closes."""
    by_day = {bar.date: bar for bar in bars if bar.close > 0}
    return [by_day[day] for day in sorted(by_day)]


def _spy_return(spy: list[PriceBar], entry_day: date, exit_day: date) -> float | None:
    at_entry = [bar for bar in spy if bar.date <= entry_day]
    at_exit = [bar for bar in spy if bar.date <= exit_day]
    if not at_entry or not at_exit or at_exit[-1].date <= at_entry[-1].date:
        return None  # SPY has no session inside the horizon: no comparison, never a 0
    return (at_exit[-1].close / at_entry[-1].close - 1.0) * 100.0


def _rescaled(level: float | None, entry: float | None, entry_close: float) -> float | None:
    if level is None or level <= 0:
        return None
    if entry is None or entry <= 0:
        return level  # no plan entry to relate the level to: read it in the bars' own basis
    return level / entry * entry_close


def _walk(
    path: Sequence[PriceBar], direction: str, stop: float | None, target: float | None
) -> tuple[bool, bool, ExitReason, float]:
    """Whether the stop and the target were touched, why the trade ended and at which price."""
    stop_hit = target_hit = False
    reason: ExitReason = "horizon"
    price = path[-1].close
    if direction not in ("long", "short"):
        return stop_hit, target_hit, reason, price
    for bar in path:
        low = bar.low if bar.low is not None else bar.close
        high = bar.high if bar.high is not None else bar.close
        hits_stop = stop is not None and (low <= stop if direction == "long" else high >= stop)
        hits_target = target is not None and (high >= target if direction == "long" else low <= target)
        if hits_stop and stop is not None:
            if reason == "horizon":
                reason, price = "stop", stop
            stop_hit = True
        if hits_target and target is not None:
            if reason == "horizon":
                reason, price = "target", target
            target_hit = True
    return stop_hit, target_hit, reason, price


# ---- lessons ------------------------------------------------------------------------------------


def lessons(decision: LoggedDecision, outcome: Outcome) -> dict[str, str]:
    """One lesson per role (bull, bear, trader, research_manager, risk_manager), each at most
    ``MAX_LESSON_CHARS`` characters: the call, what happened in figures, and whether it was right."""
    measure = outcome.alpha_pp if outcome.alpha_pp is not None else outcome.return_pct
    head = f"{decision.ticker} {decision.decided_on.isoformat()}"
    moved = _moved(decision.ticker, outcome)
    manager = decision.manager_rating or decision.rating
    texts = {
        "bull": (
            f"{head} bull case, desk {decision.rating}: {moved}; the bull was "
            + ("right." if measure > 0 else "wrong: weigh the bear's risks more.")
        ),
        "bear": (
            f"{head} bear case, desk {decision.rating}: {moved}; the bear was "
            + ("right." if measure < 0 else "wrong: weigh the bull's strengths more.")
        ),
        "research_manager": f"{head} rated {manager}: {moved}; " + _call_verdict(manager, measure),
        "trader": f"{head} {_plan(decision)}: {_trade(decision, outcome)}; {moved}; "
        + _plan_verdict(decision, outcome, measure),
        "risk_manager": f"{head} final {decision.rating} at {decision.position_pct:.1f}% of capital: "
        + _risk(decision, outcome, measure, moved),
    }
    out: dict[str, str] = {}
    for role in ROLES:
        text = texts[role]
        case = decision.roles.get(role, "").strip()
        if case and len(text) + len(" Case: ") + 12 < MAX_LESSON_CHARS:
            text = f"{text} Case: {case}"  # the role's own argument, cut to fit: what BM25 matches later
        out[role] = word_clip(text, MAX_LESSON_CHARS - 2)  # word_clip may add " …"
    return out


def _moved(ticker: str, outcome: Outcome) -> str:
    spy = (
        f"SPY {outcome.spy_return_pct:+.1f}%, alpha {outcome.alpha_pp:+.1f} pp"
        if outcome.spy_return_pct is not None and outcome.alpha_pp is not None
        else "SPY n/a"
    )
    return (
        f"{ticker} {outcome.return_pct:+.1f}% vs {spy} "
        f"over {outcome.sessions} sessions to {outcome.exit_date}"
    )


def _call_verdict(rating: str, measure: float) -> str:
    sign = _CALL_SIGN.get(rating)
    if sign is None:
        return "no rating (REVIEW): not judged."
    if sign > 0:
        right = measure > 0
    elif sign < 0:
        right = measure < 0
    else:
        right = abs(measure) <= HOLD_BAND_PP
    if right:
        return "the rating was right."
    if sign == 0:
        return f"the rating was wrong: the stock moved more than {HOLD_BAND_PP:.0f} pp away from SPY."
    return "the rating was wrong: the net score pointed the wrong way."


def _plan(decision: LoggedDecision) -> str:
    if decision.direction == "flat":
        return f"plan flat (stay out), {decision.horizon_days} sessions"
    levels = ", ".join(
        f"{name} {value:.2f}"
        for name, value in (("entry", decision.entry), ("stop", decision.stop), ("target", decision.target))
        if value is not None
    )
    return f"plan {decision.direction} {decision.position_pct:.1f}%" + (f" ({levels})" if levels else "")


def _trade(decision: LoggedDecision, outcome: Outcome) -> str:
    if decision.direction == "flat":
        return "no position"
    ended = {"stop": "stopped out", "target": "target reached", "horizon": "held to the horizon"}
    touched = []  # a level touched after the trade ended on the other one
    if outcome.stop_hit and outcome.exit_reason != "stop":
        touched.append("stop touched")
    if outcome.target_hit and outcome.exit_reason != "target":
        touched.append("target touched")
    extra = f" ({', '.join(touched)})" if touched else ""
    return f"{ended.get(outcome.exit_reason, 'held')}{extra}, trade {outcome.position_return_pct:+.1f}%"


def _stay_out_right(measure: float) -> bool:
    return measure <= HOLD_BAND_PP


def _plan_verdict(decision: LoggedDecision, outcome: Outcome, measure: float) -> str:
    if decision.direction == "flat":
        if _stay_out_right(measure):
            return "staying out was right."
        return "staying out was wrong: the stock beat SPY."
    if outcome.position_return_pct > 0:
        return "the plan was right."
    if outcome.exit_reason == "stop":
        return "the plan was wrong; the stop limited the loss."
    return "the plan was wrong."


def _risk(decision: LoggedDecision, outcome: Outcome, measure: float, moved: str) -> str:
    if decision.rating == "REVIEW":
        return f"{moved}; no rating (REVIEW): not judged."
    if decision.position_pct > 0 and decision.direction != "flat":
        effect = decision.position_pct * outcome.position_return_pct / 100.0
        verdict = (
            "the size was right."
            if outcome.position_return_pct > 0
            else "the size was wrong: a smaller one would have lost less."
        )
        return f"{moved}; the position returned {effect:+.2f}% of capital; {verdict}"
    verdict = (
        "staying out was right." if _stay_out_right(measure) else "staying out was wrong: the stock beat SPY."
    )
    return f"{moved}; no position; {verdict}"
