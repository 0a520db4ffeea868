"""Procedural templates: the shipped ones load, name real tools and specialists, and are matched by
their trigger phrases; a broken file is refused naming the file and the field."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from findesk.agents.roles.research import equity
from findesk.agents.roles.research.equity import FULL_TEMPLATE
from findesk.agents.roles.research.findings import SPECIALISTS, SpecialistInput, Subjects
from findesk.core.result import Err, ErrorCode
from findesk.knowledge.memory.templates import TEMPLATES_DIR, default_templates, load_templates, match
from findesk.tools.catalog import default_registry

GOOD = (TEMPLATES_DIR / "full_equity_analysis.yaml").read_text()


def test_the_shipped_templates_load_and_use_real_tools_and_specialists() -> None:
    templates = default_templates().unwrap()
    full = templates.get(FULL_TEMPLATE)  # the name the equity specialist runs as a playbook variant
    assert full is not None and full.specialist == "equity"
    assert "valuation ratios against peers" in full.report.must_include
    tools = set(default_registry().names())
    for template in templates.by_name.values():
        assert template.specialist in SPECIALISTS
        assert {step.tool for step in template.steps} <= tools, template.name


def test_the_steps_shown_are_the_calls_the_specialists_playbook_makes() -> None:
    # only the name reaches the desk: what ``findesk memory templates`` shows must be what runs
    templates = default_templates().unwrap()
    assert set(templates.by_name) == {FULL_TEMPLATE}  # no template a desk ignores is shipped
    full = templates.get(FULL_TEMPLATE)
    assert full is not None
    one = SpecialistInput(
        question="full analysis of NVDA",
        as_of=date(2025, 8, 29),
        subjects=Subjects(tickers=["NVDA"]),
        template=FULL_TEMPLATE,
    )
    calls = [call for stage in equity.ROLE.policy.stages for call in stage(one, {})]
    assert [step.tool for step in full.steps] == [call.tool for call in calls]


@pytest.mark.parametrize(
    ("question", "name"),
    [
        ("Give me a full analysis of NVDA", FULL_TEMPLATE),
        ("DEEP DIVE ON amd, please", FULL_TEMPLATE),
        ("a full equity analysis of AMD", FULL_TEMPLATE),  # two triggers, one template
        ("What was NVDA's revenue?", None),
        ("a deep diver on AMD", None),  # whole words only
        ("", None),
    ],
)
def test_match_uses_declared_trigger_phrases_only(question: str, name: str | None) -> None:
    assert match(question) == name


def write(folder: Path, name: str, text: str) -> None:
    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (GOOD.replace("specialist: equity", "specialist: astrology"), "broken.yaml: specialist:"),
        (GOOD.replace("tool: get_peers", "tool: Get Peers!"), "broken.yaml: steps.5.tool:"),
        (GOOD.replace("report:", "reprot:"), "broken.yaml: report: Field required"),
        (GOOD + "\nextra_field: 1\n", "broken.yaml: extra_field:"),
        (GOOD.replace("  - full analysis of", "  - '!!'"), "broken.yaml: triggers:"),
        ("name: [unclosed", "broken.yaml: not valid YAML"),
        ("- just\n- a list\n", "broken.yaml: a template is a mapping"),
        ("!!python/object/apply:os.system ['echo pwned']", "broken.yaml: not valid YAML"),
        (GOOD, "broken.yaml: name: 'full_equity_analysis' must match the file name"),
    ],
)
def test_a_broken_template_is_refused_naming_file_and_field(tmp_path: Path, text: str, says: str) -> None:
    write(tmp_path / "t", "broken.yaml", text)
    loaded = load_templates(tmp_path / "t")
    assert isinstance(loaded, Err) and loaded.code is ErrorCode.INVALID_INPUT
    assert loaded.reason.startswith(says), loaded.reason


def test_two_templates_sharing_a_trigger_are_refused(tmp_path: Path) -> None:
    write(tmp_path / "t", "full_equity_analysis.yaml", GOOD)
    write(tmp_path / "t", "other.yaml", GOOD.replace("name: full_equity_analysis", "name: other"))
    loaded = load_templates(tmp_path / "t")
    assert isinstance(loaded, Err) and "already triggers 'full_equity_analysis'" in loaded.reason


def test_a_huge_template_file_is_refused_before_parsing(tmp_path: Path) -> None:
    write(tmp_path / "t", "huge.yaml", GOOD + "#" * 100_000)
    loaded = load_templates(tmp_path / "t")
    assert isinstance(loaded, Err) and "huge.yaml: larger than" in loaded.reason
