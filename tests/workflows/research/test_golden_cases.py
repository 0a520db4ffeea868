"""The golden cases file and the scorer of ``findesk eval golden``: the file holds the design's
distribution with real tool names, a bad file names the case and field, and the scorer, run on
hand-built reports, fails each check a user would notice (a desk not routed, a missing figure, a
tool that errored, an answer without citations)."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from findesk.agents.roles.research.findings import Citation, Subjects
from findesk.core.result import Err, ErrorCode, Ok
from findesk.tools.catalog import data_tools
from findesk.workflows.records import ToolCallRecord
from findesk.workflows.research.golden import (
    CASES_FILE,
    DISTRIBUTION,
    CaseResult,
    GoldenCase,
    distribution,
    load_cases,
    parse_cases,
    score,
    summarize,
)
from findesk.workflows.research.models import ResearchReport


def _cases() -> list[GoldenCase]:
    loaded = load_cases()
    assert isinstance(loaded, Ok), loaded
    return loaded.value


# -- the file ----------------------------------------------------------------------------------------


def test_the_file_has_the_designs_distribution() -> None:
    cases = _cases()
    assert len(cases) >= 30
    assert distribution(cases) == DISTRIBUTION
    assert len({c.id for c in cases}) == len(cases)


def test_every_required_tool_is_a_registered_tool() -> None:
    registered = {tool.name for tool in data_tools()}
    named = {t for case in _cases() for t in case.tools}
    assert named <= registered, sorted(named - registered)


def test_every_case_is_dated_inside_the_snapshot_and_states_its_source() -> None:
    for case in _cases():
        assert date(2024, 1, 1) <= case.as_of <= date(2026, 6, 1), case.id
        assert case.note, case.id
        assert case.tools, case.id


def test_the_compliance_bands_of_the_design_are_each_asked_for() -> None:
    keywords = {k for case in _cases() for k in case.keywords}
    assert {"81-100", "51-80", "0-20"} <= keywords


# -- loading errors ----------------------------------------------------------------------------------

GOOD = """
cases:
  - id: eq-one
    category: equity
    question: NVDA revenue
    as_of: 2025-08-29
    intents: [equity]
    keywords: [NVDA]
    tools: [get_xbrl_facts]
    citations_required: true
"""


def test_a_good_file_parses() -> None:
    parsed = parse_cases(GOOD)
    assert isinstance(parsed, Ok)
    assert parsed.value[0].as_of == date(2025, 8, 29)


@pytest.mark.parametrize(
    ("edit", "expected"),
    [
        (("intents: [equity]", "intents: [equity, astrology]"), "cases[0] (id 'eq-one'): intents.1"),
        (("    keywords: [NVDA]\n", ""), "cases[0] (id 'eq-one'): keywords: Field required"),
        (("category: equity", "category: bonds"), "): category: Input should be 'equity'"),
        (("as_of: 2025-08-29", "as_of: yesterday"), "): as_of: Input should be a valid date"),
        (("citations_required: true", "citations_required: true\n    colour: red"), "colour: Extra inputs"),
        (("intents: [equity]", "intents: [equity]\n    forbid: [equity]"), "intents and forbid both name"),
        (("tools: [get_xbrl_facts]", "tools: [get_xbrl_facts]\n    allow_no_data: [get_quote]"), "get_quote"),
        (("tools: [get_xbrl_facts]", "tools: ['rm -rf /']"), "not tool names"),
        (("keywords: [NVDA]", "keywords: ['  ']"), "a keyword is empty"),
        (("id: eq-one", "id: 'Bad Id!'"), "(id 'Bad Id!'): id: String should match pattern"),
    ],
)
def test_a_bad_case_names_the_case_and_the_field(edit: tuple[str, str], expected: str) -> None:
    text = GOOD.replace(*edit)
    assert text != GOOD
    parsed = parse_cases(text, "cases.yaml")
    assert isinstance(parsed, Err)
    assert parsed.code == ErrorCode.INVALID_INPUT
    assert parsed.reason.startswith("cases.yaml: cases[0]")
    assert expected in parsed.reason


def test_duplicate_ids_are_an_error_naming_both() -> None:
    text = GOOD + GOOD.split("cases:\n", 1)[1]
    parsed = parse_cases(text)
    assert isinstance(parsed, Err)
    assert "cases[1] (id 'eq-one'): id: 'eq-one' is also cases[0]" in parsed.reason


@pytest.mark.parametrize("text", ["", "cases: []", "just a string", "cases: {id: x}", "- 3", "a: [unclosed"])
def test_a_file_that_is_not_a_list_of_cases_is_an_error(text: str) -> None:
    parsed = parse_cases(text)
    assert isinstance(parsed, Err) and parsed.code == ErrorCode.INVALID_INPUT


def test_a_missing_file_is_not_found(tmp_path: Path) -> None:
    loaded = load_cases(tmp_path / "none.yaml")
    assert isinstance(loaded, Err) and loaded.code == ErrorCode.NOT_FOUND


def test_the_default_path_is_the_packaged_file() -> None:
    assert CASES_FILE.name == "golden_cases.yaml" and CASES_FILE.is_file()


# -- scoring -----------------------------------------------------------------------------------------

CASE = GoldenCase(
    id="co-case",
    category="compliance",
    question="Is 0x8589427373D6D84E98730D7795D8f6f8731FDA16 sanctioned?",
    as_of=date(2025, 8, 29),
    intents=["compliance"],
    forbid=["equity"],
    keywords=["81-100", "TORNADO CASH"],
    tools=["screen_sanctions", "address_risk", "get_protocol_tvl"],
    allow_no_data=["get_protocol_tvl"],
    citations_required=True,
)


def _call(name: str, status: str = "ok") -> ToolCallRecord:
    return ToolCallRecord(
        agent="compliance", name=name, arguments={}, status=status, latency_ms=1.0, summary=name
    )


def _report(**changes: object) -> ResearchReport:
    base: dict[str, object] = {
        "run_id": "r1",
        "question": CASE.question,
        "resolved_question": CASE.question,
        "as_of": CASE.as_of,
        "data_mode": "snapshot",
        "mode": "deterministic",
        "intents": ["compliance"],
        "plan": "compliance: screen 0x8589…DA16",
        "subjects": Subjects(addresses=["0x8589427373D6D84E98730D7795D8f6f8731FDA16"]),
        "answer": "- Risk indicator: 100/100, band 81-100; matches entry Tornado Cash (SDN id 39796) [1].",
        "citations": [Citation(agent="compliance", tool="address_risk", source="snapshot:ofac/x.csv")],
        "tool_calls": [
            _call("screen_sanctions"),
            _call("address_risk"),
            _call("get_protocol_tvl", "no_data"),
        ],
    }
    base.update(changes)
    return ResearchReport.model_validate(base)


def test_a_report_that_answers_the_case_passes() -> None:
    result = score(CASE, _report())
    assert result == CaseResult(id="co-case", category="compliance", passed=True, failures=[])


@pytest.mark.parametrize(
    ("changes", "failure"),
    [
        ({"intents": ["crypto"]}, "not routed to compliance (routed: crypto)"),
        ({"intents": []}, "not routed to compliance (routed: none)"),
        ({"intents": ["equity", "compliance"]}, "routed to forbidden equity"),
        ({"answer": "band 81-100 [1]"}, "missing keyword 'TORNADO CASH'"),
        (
            {"tool_calls": [_call("screen_sanctions"), _call("get_protocol_tvl")]},
            "tool address_risk: not called",
        ),
        (
            {
                "tool_calls": [
                    _call("screen_sanctions"),
                    _call("address_risk", "timeout"),
                    _call("get_protocol_tvl"),
                ]
            },
            "tool address_risk: timeout",
        ),
        (
            {
                "tool_calls": [
                    _call("screen_sanctions", "no_data"),
                    _call("address_risk"),
                    _call("get_protocol_tvl"),
                ]
            },
            "tool screen_sanctions: no_data",
        ),
        ({"citations": []}, "citations required: the report has none"),
        ({"answer": "band 81-100, TORNADO CASH"}, "citations required: the answer has no [n] marker"),
        (
            {"answer": "band 81-100, TORNADO CASH [1] [3]"},
            "citations: markers [3] point past the 1 citations",
        ),
    ],
)
def test_each_check_fails_on_its_own(changes: dict[str, object], failure: str) -> None:
    result = score(CASE, _report(**changes))
    assert not result.passed
    assert result.failures == [failure]


def test_a_tool_called_twice_passes_when_one_call_is_ok() -> None:
    calls = [_call("screen_sanctions", "timeout"), _call("screen_sanctions"), _call("address_risk")]
    result = score(CASE, _report(tool_calls=[*calls, _call("get_protocol_tvl", "no_data")]))
    assert result.passed


def test_citations_are_not_checked_when_the_case_does_not_require_them() -> None:
    case = CASE.model_copy(update={"citations_required": False})
    assert score(case, _report(citations=[], answer="band 81-100, TORNADO CASH")).passed


def test_every_failure_is_listed_at_once() -> None:
    result = score(CASE, _report(intents=["equity"], answer="nothing", citations=[], tool_calls=[]))
    assert len(result.failures) == 2 + 2 + 3 + 1


# -- summary -----------------------------------------------------------------------------------------


def test_summary_gives_per_category_and_overall_rates() -> None:
    results = [
        CaseResult(id="e1", category="equity", passed=True),
        CaseResult(id="e2", category="equity", passed=False, failures=["x"]),
        CaseResult(id="c1", category="compliance", passed=True),
        CaseResult(id="m1", category="multi-step", passed=True),
    ]
    summary = summarize(results)
    assert list(summary.categories) == ["equity", "compliance", "multi-step"]
    assert summary.categories["equity"].rate == 0.5
    assert (summary.overall.passed, summary.overall.total) == (3, 4)
    assert summary.overall.rate == 0.75
    assert summary.failed == ["e2"]
    lines = summary.lines()
    assert lines[0].split() == ["equity", "1/2", "50.0%"]
    assert lines[-1].split() == ["overall", "3/4", "75.0%"]


def test_an_empty_run_has_no_rates() -> None:
    summary = summarize([])
    assert summary.categories == {} and summary.overall.rate == 0.0
