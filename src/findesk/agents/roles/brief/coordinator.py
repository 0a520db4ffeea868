"""The briefing coordinator: reads the two typed reports and writes the headline and summary.

Rules:
- It sees the official and social reports (and the code-computed claim verdicts), never raw tool output;
  it has no tools of its own.
- Its output is prose only (``CoordinatorNotes``); every figure in it must already be in the reports
  (the workflow's number trace checks this and replaces an untraceable summary).
- Social content is always attributed and called unverified; no advice, targets or allocations.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from findesk.agents.role import Caps, DeterministicPolicy, Outcomes, Role
from findesk.agents.roles.brief.official import LIVE_QUOTE_MISSING, PARTIAL_LIST, describe
from findesk.agents.roles.brief.reports import OfficialReport, SocialReport
from findesk.agents.runtime.model_loop import data_task
from findesk.analytics.divergence import ClaimCheck, contradiction_sentence, verdict_counts
from findesk.core.dates import IsoDate


class CoordinatorInput(BaseModel):
    model_config = ConfigDict(extra="forbid")

    symbol: str
    as_of: IsoDate
    official: OfficialReport
    social: SocialReport
    divergences: list[ClaimCheck] = Field(default_factory=list)  # one verdict per social claim


class CoordinatorNotes(BaseModel):
    model_config = ConfigDict(extra="forbid")

    headline: str = Field(
        max_length=200, description="one line: the most important fact of the day, cited figures only"
    )
    summary: str = Field(
        max_length=1200,
        description="2-4 sentences for an advisor: official facts first, then the unverified social signal",
    )


SYSTEM_PROMPT = (
    "You are the coordinator of an advisor briefing desk. You get an official report (filings and market "
    "data, cited), a social one (UNVERIFIED posts and news, pump-bot flags, volume anomaly) and the "
    "divergences found between social claims and filings. Write a "
    "one-line headline and a 2-4 sentence summary an advisor can read before a client call. Use only "
    "figures that appear in the reports, exactly as written. State official facts first; call social "
    "content unverified and attribute it. Only contradicted claims are divergences: state how many (or that "
    "there are none); a claim that could not be checked is not a divergence. A quote whose basis is not "
    "as_traded is a split/dividend-adjusted level: never call it a close. Never give investment "
    "advice, buy/sell/hold views, price targets or allocations."
)


def _name(report: OfficialReport) -> str:
    name = report.company.name if report.company and report.company.name else None
    return f"{name} ({report.symbol})" if name else report.symbol


def compose(inputs: CoordinatorInput, _: Outcomes) -> CoordinatorNotes:
    """Deterministic headline and summary, built from the reports' own figures."""
    o, s = inputs.official, inputs.social
    q = o.quote
    if q is not None:
        change = f" ({q.change_pct:+.2f}%)" if q.change_pct is not None else ""
        day = q.session_date.isoformat()
        if q.basis == "as_traded":
            headline = f"{_name(o)} closed at ${q.price:,.2f}{change} on {day}"
        else:  # an adjusted level is not what traded: never call it a close
            what = "index level" if q.basis == "index" else "split/dividend-adjusted price"
            headline = f"{_name(o)} {what} ${q.price:,.2f}{change} on {day} (not an as-traded close)"
    else:
        headline = f"{_name(o)}: {(o.quote_missing or LIVE_QUOTE_MISSING).lower()}"
    sentences = [headline + "."]
    filings = o.filings
    if filings:
        newest = filings[0]
        items = ", ".join(f"Item {i.item} {i.title}" for i in newest.items)
        partial = any(w.startswith(PARTIAL_LIST) for w in o.warnings)
        caveat = [newest.age] if newest.age else []
        caveat += ["the data source's filing list is incomplete"] if partial else []
        age = f" ({'; '.join(caveat)})" if caveat else ""
        sentences.append(
            f"Latest filing in view: {newest.form} filed {newest.filing_date.isoformat()}{age}"
            + (f": {items}." if items else ".")
        )
    else:
        sentences.append("No recent 10-K, 10-Q or 8-K filing is available from the data source.")
    volume = s.volume.anomaly if s.volume else None
    chatter = len(s.posts)
    social = f"Social signal (unverified): {chatter} posts and articles in the window"
    if s.pump_flags:
        social += f", {len(s.pump_flags)} flagged as possible promotion"
    if volume is not None and volume.z_score is not None:
        word = "unusual" if volume.unusual else "normal"
        social += f"; volume on {volume.session_date.isoformat()} was {word} (z-score {volume.z_score:+.2f})"
    sentences.append(social + ".")
    if (verdicts := contradiction_sentence(inputs.divergences)) is not None:
        sentences.append(verdicts)
    return CoordinatorNotes(headline=headline, summary=" ".join(sentences))


def _task(inputs: CoordinatorInput) -> str:
    # the post list, the pump-bot feature lists and the claims are for the reader, not for a headline:
    # the claims reach the coordinator as verdict counts and the contradicted ones in full
    hidden = {"posts", "pump_features", "pump_features_missing", "claims", "disclaimer"}
    social = inputs.social.model_dump(mode="json", exclude=hidden, exclude_none=True)
    social["posts_in_window"] = len(inputs.social.posts)
    payload = {
        "official": describe(inputs.official),
        "social": social,
        "contradicted_claims": [
            d.model_dump(mode="json", exclude_none=True)
            for d in inputs.divergences
            if d.verdict == "contradicted"
        ],
        "claim_verdicts": verdict_counts(inputs.divergences),
    }
    header = f"Reports for {inputs.symbol} as of {inputs.as_of.isoformat()} (JSON):"
    return data_task(header, payload, "Submit the headline and summary.")


ROLE: Role[CoordinatorInput, CoordinatorNotes] = Role(
    name="coordinator",
    description="Briefing coordinator: headline and summary from the official and social reports.",
    system_prompt=SYSTEM_PROMPT,
    tools=(),
    input_schema=CoordinatorInput,
    output_schema=CoordinatorNotes,
    policy=DeterministicPolicy(stages=(), compose=compose),
    task=_task,
    tier="mid",
    caps=Caps(max_iterations=2, max_tokens_per_call=1024, max_tool_calls_per_turn=1),
    prefetch=False,
)
