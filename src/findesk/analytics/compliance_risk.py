"""The address risk score (0-100) and the reasoning chain that explains it.

Rules this module keeps:
- Pure: screening facts in (list matches, traced links, coverage gaps), a score out.
- Exactly four bands, from the design: 0-20 clean; 21-50 indirect link 3+ hops; 51-80 two-hop link or
  mixer interaction; 81-100 sanctioned or one hop. The score is the highest indicator found; every
  indicator is one reason in the chain, with the points it gives, strongest first.
- Points inside a band (each stays inside its band, whatever the counts):
  listed on a sanctions list 100; one hop from a sanctioned address 85, +2 per further transfer on
  that link, at most 99; the address is itself a known mixer contract 75; one hop to or from a
  mixer 65, +2 per further transfer, at most 80; two hops from a sanctioned address 60, from a mixer
  55, +1 per further transfer, at most 70; three or more hops 45 (sanctioned) or 35 (mixer), -5 per
  hop beyond three, at least 21; no indicator 0, or 10 when the data has gaps (a stale list, a
  history that is not recorded), because a clean result on partial data is weaker.
- A sanctioned address that is also a known mixer contract scores as sanctioned; the reason says
  what it would score as a mixer alone, and caveats (e.g. a delisting after the list's date) follow
  the indicators, so a reader can weigh a stale listing.
- The wording is a risk indicator and a screening result, never a legal finding about anyone.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, Field

DISCLAIMER = "Screening result and risk indicator only, not a legal determination."


@dataclass(frozen=True)
class Band:
    low: int
    high: int
    label: str

    @property
    def name(self) -> str:
        return f"{self.low}-{self.high}"


BANDS: tuple[Band, ...] = (
    Band(0, 20, "clean"),
    Band(21, 50, "indirect link 3+ hops"),
    Band(51, 80, "two-hop link or mixer interaction"),
    Band(81, 100, "sanctioned or one hop"),
)


class Link(BaseModel):
    path: list[str] = Field(min_length=2)  # in the direction the funds moved
    flag: Literal["sanctioned", "mixer"]
    flagged: str  # the sanctioned or mixer address on the path
    detail: str  # what flags it: "ETH sanctioned addresses list of 2024-08-20: TORNADO CASH"
    transfers: int = Field(default=1, ge=1)
    also_mixer: bool = False  # a sanctioned address that is also a known mixer contract

    @property
    def hops(self) -> int:
        return len(self.path) - 1


class RiskInputs(BaseModel):
    address: str
    listed: list[str] = Field(default_factory=list)  # how the address itself is listed (list, date, entry)
    own_mixer: str | None = None  # the address is itself a known mixer contract: which one
    links: list[Link] = Field(default_factory=list)
    caveats: list[str] = Field(default_factory=list)  # facts that weaken an indicator (a later delisting)
    gaps: list[str] = Field(default_factory=list)


class RiskScore(BaseModel):
    address: str
    score: int = Field(ge=0, le=100)
    band: str  # "81-100"
    band_label: str  # "sanctioned or one hop"
    headline: str  # the deciding indicator in a few words: "one hop from a sanctioned address (8 transfers)"
    reasons: list[str]
    paths: list[list[str]] = Field(default_factory=list)  # the links found, strongest first


def band_of(score: int) -> Band:
    for band in BANDS:
        if band.low <= score <= band.high:
            return band
    raise ValueError(f"a risk score is 0-100, got {score}")


def link_points(link: Link) -> int:
    extra = link.transfers - 1
    if link.hops == 1:
        if link.flag == "sanctioned":
            return min(99, 85 + 2 * extra)
        return min(80, 65 + 2 * extra)
    if link.hops == 2:
        return min(70, (60 if link.flag == "sanctioned" else 55) + extra)
    return max(21, (45 if link.flag == "sanctioned" else 35) - 5 * (link.hops - 3))


def _link_headline(link: Link) -> str:
    what = "a sanctioned address" if link.flag == "sanctioned" else "a known mixer contract"
    hops = "one hop" if link.hops == 1 else f"{link.hops} hops"
    times = "1 transfer" if link.transfers == 1 else f"{link.transfers} transfers"
    return f"{hops} from {what} ({times})"


def _link_reason(link: Link, points: int) -> str:
    shown = " -> ".join(link.path)
    text = f"{_link_headline(link)}: {shown}; {link.flagged} is flagged by {link.detail}"
    if link.also_mixer and link.flag == "sanctioned":
        alone = link_points(link.model_copy(update={"flag": "mixer"}))
        text += f"; it is also a known mixer contract (as a mixer alone this link would give {alone})"
    band = band_of(points)
    return f"{text} -> {points} (band {band.name}: {band.label})"


def score_risk(inputs: RiskInputs) -> RiskScore:
    scored: list[tuple[int, str, list[str] | None, str]] = []
    for entry in inputs.listed:
        reason = f"the address itself is on a sanctions list: {entry} -> 100 (band 81-100)"
        scored.append((100, reason, None, "the address itself is on a sanctions list"))
    if inputs.own_mixer:
        reason = f"the address is itself a known mixer contract: {inputs.own_mixer} -> 75 (band 51-80)"
        scored.append((75, reason, None, "the address is itself a known mixer contract"))
    for link in inputs.links:
        points = link_points(link)
        scored.append((points, _link_reason(link, points), link.path, _link_headline(link)))
    scored.sort(key=lambda s: -s[0])
    if scored:
        score, headline = scored[0][0], scored[0][3]
        reasons = [f"risk indicator: {text}" for _, text, _, _ in scored]
    else:
        score = 10 if inputs.gaps else 0
        headline = "no link to a sanctioned address or a known mixer was found in the data checked"
        weaker = ", lowered assurance: data has gaps" if inputs.gaps else ""
        reasons = [f"{headline} -> {score} (band 0-20: clean{weaker})"]
    reasons += [f"caveat: {caveat}" for caveat in inputs.caveats]
    reasons += [f"coverage: {gap}" for gap in inputs.gaps]
    reasons.append(DISCLAIMER)
    band = band_of(score)
    paths: list[list[str]] = []
    for _, _, path, _ in scored:
        if path is not None and path not in paths:
            paths.append(path)
    return RiskScore(
        address=inputs.address,
        score=score,
        band=band.name,
        band_label=band.label,
        headline=headline,
        reasons=reasons,
        paths=paths,
    )
