"""Procedural templates: a named playbook variant of a specialist, chosen by the trigger phrases a
question uses ("full analysis of", "deep dive on"), with the tool calls that variant makes and what
its report covers, for people to read (``findesk memory templates``).

Rules:
- At run time only a template's NAME reaches the specialist (``SpecialistInput.template``); the
  specialist's playbook decides the calls (``equity.full`` for ``full_equity_analysis``). So
  ``steps`` lists exactly the calls that playbook makes, in its order (a test holds them equal), and
  a template no specialist acts on is not shipped.
- Templates are YAML files in ``templates/`` (package data), one template per file, the file named
  after the template. Each is read with ``yaml.safe_load`` and validated by ``ProceduralTemplate``;
  unknown fields are refused (a typo is never ignored).
- A bad file is an ``invalid_input`` error naming the file and the field (``broken.yaml: steps.0.tool:
  …``); a set with two templates of one name or one trigger is refused the same way. Nothing is
  half-loaded: the set loads whole or not at all.
- ``match`` is by declared trigger phrases only (whole words, case-insensitive, the longest trigger
  first): no guessing from the question's topic.
- Memory sits below the agents and tools layers, so tool names and specialists are checked here by
  shape only; tests check them against the tool catalog and ``findings.SPECIALISTS``.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.knowledge.memory.models import clean_text

TEMPLATES_DIR = Path(__file__).parent / "templates"
MAX_TEMPLATE_BYTES = 64_000
MAX_TEMPLATES = 100
_NAME = r"^[a-z][a-z0-9_]{0,63}$"


class TemplateStep(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    tool: str = Field(pattern=r"^[a-z][a-z0-9_]{0,63}$")  # a tool of the catalog
    purpose: str = Field(min_length=1, max_length=200)


class ReportSpec(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    must_include: list[str] = Field(min_length=1, max_length=20)  # what the report covers


class ProceduralTemplate(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    name: str = Field(pattern=_NAME)
    specialist: Literal["equity", "macro", "crypto", "compliance"]  # findings.SPECIALISTS
    triggers: list[str] = Field(min_length=1, max_length=20)
    steps: list[TemplateStep] = Field(min_length=1, max_length=30)
    report: ReportSpec

    @field_validator("triggers")
    @classmethod
    def _plain_phrases(cls, triggers: list[str]) -> list[str]:
        cleaned = [" ".join(t.lower().split()) for t in triggers]
        for phrase in cleaned:
            if not re.fullmatch(r"[a-z][a-z0-9' -]{2,59}", phrase):
                raise ValueError(f"{phrase!r} is not a trigger phrase (3 to 60 letters, digits, spaces)")
        return cleaned


class Templates:
    """A validated set of templates, by name."""

    def __init__(self, templates: dict[str, ProceduralTemplate]) -> None:
        self.by_name = templates
        # longest trigger first, so "full equity analysis of" beats "analysis of"
        self._triggers = sorted(
            ((phrase, t.name) for t in templates.values() for phrase in t.triggers),
            key=lambda pair: -len(pair[0]),
        )

    def get(self, name: str) -> ProceduralTemplate | None:
        return self.by_name.get(name)

    def match(self, question: str) -> str | None:
        """The template whose trigger phrase ``question`` uses, or None."""
        text = " " + " ".join(re.findall(r"[a-z0-9']+", clean_text(question, 4_000).lower())) + " "
        for phrase, name in self._triggers:
            if f" {phrase} " in text:
                return name
        return None


def load_templates(folder: Path = TEMPLATES_DIR) -> Result[Templates]:
    """Every ``*.yaml`` template in ``folder``, validated; the first bad file is the error."""
    try:
        paths = sorted(folder.glob("*.yaml"))
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"cannot list the templates in {folder}: {exc}")
    if len(paths) > MAX_TEMPLATES:
        return Err(ErrorCode.INVALID_INPUT, f"{folder} holds {len(paths)} templates; at most {MAX_TEMPLATES}")
    loaded: dict[str, ProceduralTemplate] = {}
    triggers: dict[str, str] = {}
    for path in paths:
        one = load_template(path)
        if isinstance(one, Err):
            return one
        template = one.value
        if template.name in loaded:
            return Err(ErrorCode.INVALID_INPUT, f"{path.name}: name: {template.name!r} is defined twice")
        for phrase in template.triggers:
            if phrase in triggers:
                return Err(
                    ErrorCode.INVALID_INPUT,
                    f"{path.name}: triggers: {phrase!r} already triggers {triggers[phrase]!r}",
                )
            triggers[phrase] = template.name
        loaded[template.name] = template
    return Ok(Templates(loaded))


def load_template(path: Path) -> Result[ProceduralTemplate]:
    """One template file, validated; errors name the file and the field."""
    try:
        if path.stat().st_size > MAX_TEMPLATE_BYTES:
            return Err(ErrorCode.INVALID_INPUT, f"{path.name}: larger than {MAX_TEMPLATE_BYTES} bytes")
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        return Err(ErrorCode.UNAVAILABLE, f"{path.name}: cannot be read: {exc}")
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        return Err(ErrorCode.INVALID_INPUT, f"{path.name}: not valid YAML: {clean_text(str(exc), 300)}")
    if not isinstance(raw, dict):
        return Err(
            ErrorCode.INVALID_INPUT, f"{path.name}: a template is a mapping of fields (name, triggers, …)"
        )
    try:
        template = ProceduralTemplate.model_validate(raw)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "template"
        more = f" (and {exc.error_count() - 1} more)" if exc.error_count() > 1 else ""
        return Err(ErrorCode.INVALID_INPUT, f"{path.name}: {where}: {clean_text(first['msg'], 200)}{more}")
    if template.name != path.stem:
        return Err(ErrorCode.INVALID_INPUT, f"{path.name}: name: {template.name!r} must match the file name")
    return Ok(template)


@functools.cache
def default_templates() -> Result[Templates]:
    """The templates shipped with findesk (loaded once)."""
    return load_templates(TEMPLATES_DIR)


def match(question: str, templates: Templates | None = None) -> str | None:
    """The name of the template ``question`` triggers (shipped templates by default), or None; a
    broken shipped set matches nothing (``default_templates`` says why)."""
    if templates is None:
        shipped = default_templates()
        if isinstance(shipped, Err):
            return None
        templates = shipped.value
    return templates.match(question)
