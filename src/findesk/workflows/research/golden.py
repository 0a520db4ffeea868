"""The research desk's golden cases: the case model, the loader of ``golden_cases.yaml`` and the scorer
``findesk eval golden`` runs on each ``ResearchReport``.

Rules:
- A case states what a user would check: the desks it must reach (``intents``) and may not reach
  (``forbid``), words the answer must contain (case-insensitive; ones the data decides, such as a
  ticker, a series id, a figure or a risk band), the tools that must have run with status ``ok`` (or
  ``no_data`` where the case allows it, e.g. TVL the snapshot does not hold) and whether the answer
  must cite its facts.
- A bad file is an ``Err`` naming the case and the field (``cases[3] (id 'eq-apple')``: ``intents``),
  never a partial list; duplicate ids are an error too.
- Scoring is pure and explains itself: a case passes when ``failures`` is empty, and each failure is one
  line a reader can act on ("missing keyword '81-100'", "tool address_risk: no_data").
- ``summarize`` gives pass rates per category and overall, in the category order of the design.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import date
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from findesk.agents.roles.research.findings import SpecialistName
from findesk.agents.roles.research.synthesize import MARKER
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.workflows.research.models import ResearchReport

CASES_FILE = Path(__file__).with_name("golden_cases.yaml")
Category = Literal["equity", "crypto", "macro", "compliance", "cross-asset", "multi-step"]
CATEGORIES: tuple[Category, ...] = ("equity", "crypto", "macro", "compliance", "cross-asset", "multi-step")
# The design's set: how many cases each category holds
DISTRIBUTION: dict[str, int] = {
    "equity": 8,
    "crypto": 7,
    "macro": 5,
    "compliance": 5,
    "cross-asset": 5,
    "multi-step": 2,
}
OK_STATUS = "ok"
NO_DATA_STATUS = ErrorCode.NO_DATA.value
_TOOL_NAME = r"^[a-z][a-z0-9_]{1,63}$"


class GoldenCase(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_\-]{1,63}$")
    category: Category
    question: str = Field(min_length=1, max_length=2000)
    as_of: date
    intents: list[SpecialistName] = Field(min_length=1)  # the desks the question must reach
    forbid: list[SpecialistName] = Field(default_factory=list)  # desks it must not reach
    keywords: list[str] = Field(min_length=1)  # words the answer contains, case-insensitive
    tools: list[str] = Field(default_factory=list)  # tools that must have run (status ok)
    allow_no_data: list[str] = Field(default_factory=list)  # of ``tools``: no_data passes too
    citations_required: bool
    note: str | None = None  # where in the snapshot the answer comes from

    @field_validator("keywords")
    @classmethod
    def _keywords(cls, value: list[str]) -> list[str]:
        if any(not k.strip() for k in value):
            raise ValueError("a keyword is empty")
        return value

    @field_validator("tools", "allow_no_data")
    @classmethod
    def _tool_names(cls, value: list[str]) -> list[str]:
        bad = [t for t in value if not re.match(_TOOL_NAME, t)]
        if bad:
            raise ValueError(f"not tool names: {', '.join(repr(b) for b in bad)}")
        return value

    @model_validator(mode="after")
    def _consistent(self) -> GoldenCase:
        both = sorted(set(self.intents) & set(self.forbid))
        if both:
            raise ValueError(f"intents and forbid both name {', '.join(both)}")
        extra = sorted(set(self.allow_no_data) - set(self.tools))
        if extra:
            raise ValueError(f"allow_no_data names tools that are not required: {', '.join(extra)}")
        return self


class CaseResult(BaseModel):
    id: str
    category: str
    passed: bool
    failures: list[str] = Field(default_factory=list)


class CategoryScore(BaseModel):
    total: int = 0
    passed: int = 0

    @property
    def rate(self) -> float:
        return self.passed / self.total if self.total else 0.0


class GoldenSummary(BaseModel):
    categories: dict[str, CategoryScore] = Field(default_factory=dict)  # in CATEGORIES order
    overall: CategoryScore = Field(default_factory=CategoryScore)
    failed: list[str] = Field(default_factory=list)  # ids of the failed cases

    def lines(self) -> list[str]:
        """One line per category and the overall rate, for a terminal or a CI log."""
        out = [f"{name:<12} {s.passed:>3}/{s.total:<3} {s.rate:>7.1%}" for name, s in self.categories.items()]
        o = self.overall
        out.append(f"{'overall':<12} {o.passed:>3}/{o.total:<3} {o.rate:>7.1%}")
        return out


# -- loading ----------------------------------------------------------------------------------------


def _where(index: int, raw: object) -> str:
    case_id = raw.get("id") if isinstance(raw, dict) else None
    return f"cases[{index}]" + (f" (id {case_id!r})" if isinstance(case_id, str) else "")


def parse_cases(text: str, origin: str = "golden cases") -> Result[list[GoldenCase]]:
    """Cases from YAML text: a list of mappings, or a mapping with a ``cases`` list."""
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{origin}: not valid YAML: {exc}")
    raw_cases = data.get("cases") if isinstance(data, dict) else data
    if not isinstance(raw_cases, list) or not raw_cases:
        return Err(ErrorCode.INVALID_INPUT, f"{origin}: expected a non-empty list of cases under 'cases'")
    cases: list[GoldenCase] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(raw_cases):
        where = _where(index, raw)
        if not isinstance(raw, dict):
            return Err(ErrorCode.INVALID_INPUT, f"{origin}: {where}: a case is a mapping of fields")
        try:
            case = GoldenCase.model_validate(raw)
        except ValidationError as exc:
            problems = "; ".join(
                f"{'.'.join(str(p) for p in e['loc']) or 'case'}: {e['msg']}" for e in exc.errors()
            )
            return Err(ErrorCode.INVALID_INPUT, f"{origin}: {where}: {problems}")
        if case.id in seen:
            return Err(
                ErrorCode.INVALID_INPUT, f"{origin}: {where}: id: {case.id!r} is also cases[{seen[case.id]}]"
            )
        seen[case.id] = index
        cases.append(case)
    return Ok(cases)


def load_cases(path: Path = CASES_FILE) -> Result[list[GoldenCase]]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return Err(ErrorCode.NOT_FOUND, f"golden cases file {path}: {exc.strerror or exc}")
    return parse_cases(text, str(path))


def distribution(cases: Sequence[GoldenCase]) -> dict[str, int]:
    """How many cases each category holds, in ``CATEGORIES`` order (zeros included)."""
    return {c: sum(1 for case in cases if case.category == c) for c in CATEGORIES}


# -- scoring ----------------------------------------------------------------------------------------


def _tool_failures(case: GoldenCase, report: ResearchReport) -> list[str]:
    failures: list[str] = []
    for tool in case.tools:
        statuses = [call.status for call in report.tool_calls if call.name == tool]
        allowed = {OK_STATUS, NO_DATA_STATUS} if tool in case.allow_no_data else {OK_STATUS}
        if not statuses:
            failures.append(f"tool {tool}: not called")
        elif not allowed & set(statuses):
            failures.append(f"tool {tool}: {', '.join(sorted(set(statuses)))}")
    return failures


def _citation_failures(report: ResearchReport) -> list[str]:
    if not report.citations:
        return ["citations required: the report has none"]
    markers = {int(m) for m in MARKER.findall(report.answer)}
    if not markers:
        return ["citations required: the answer has no [n] marker"]
    dangling = sorted(m for m in markers if not 1 <= m <= len(report.citations))
    if dangling:
        return [f"citations: markers {dangling} point past the {len(report.citations)} citations"]
    return []


def score(case: GoldenCase, report: ResearchReport) -> CaseResult:
    """Whether ``report`` answers ``case``: routing, keywords, tools and citations, each failure said."""
    failures: list[str] = []
    routed = set(report.intents)
    missing = [i for i in case.intents if i not in routed]
    if missing:
        failures.append(f"not routed to {', '.join(missing)} (routed: {', '.join(report.intents) or 'none'})")
    forbidden = [i for i in case.forbid if i in routed]
    if forbidden:
        failures.append(f"routed to forbidden {', '.join(forbidden)}")
    answer = report.answer.casefold()
    failures += [f"missing keyword {k!r}" for k in case.keywords if k.casefold() not in answer]
    failures += _tool_failures(case, report)
    if case.citations_required:
        failures += _citation_failures(report)
    return CaseResult(id=case.id, category=case.category, passed=not failures, failures=failures)


def summarize(results: Sequence[CaseResult]) -> GoldenSummary:
    categories: dict[str, CategoryScore] = {c: CategoryScore() for c in CATEGORIES}
    for r in results:
        s = categories.setdefault(r.category, CategoryScore())
        s.total += 1
        s.passed += r.passed
    shown = {name: s for name, s in categories.items() if s.total}
    overall = CategoryScore(total=len(results), passed=sum(r.passed for r in results))
    return GoldenSummary(categories=shown, overall=overall, failed=[r.id for r in results if not r.passed])
