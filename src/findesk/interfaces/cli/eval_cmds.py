"""``findesk eval``: ``golden`` (the research desk's golden cases, pass rates per category), ``redteam``
(the red-team suite end to end), ``guard`` (the injection detector alone) and ``hallucination``
(numbers in answers no tool result contains). Each writes ``<out>/<name>.json`` and ``<out>/<name>.md``.

Rules:
- Parses options, runs ``workflows.research.evaluate.run_cases`` and prints; no scoring logic here.
- Exit code 0 when the overall pass rate reaches ``--min-pass`` (default 0.85), 1 otherwise, so CI can
  run it; a cases file that does not load is a one-line ``invalid_input`` naming the case and field.
- ``--only`` names categories of ``golden.CATEGORIES``; an unknown one is ``invalid_input`` (exit 2)
  naming the known ones, before anything runs.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import typer

from findesk.core.result import Err, ErrorCode, Result
from findesk.interfaces.cli import session as ses

if TYPE_CHECKING:
    from findesk.core.config import Settings

eval_app = typer.Typer(
    help="Evaluate the desks: golden cases, red-team suite, injection detector, hallucinated numbers.",
    no_args_is_help=True,
)


@eval_app.callback()
def _group() -> None:
    """Evaluate the desks (a group, so more evaluations can join ``golden``)."""


def _categories(only: str | None, known: Sequence[str], as_json: bool) -> set[str]:
    """The categories ``--only`` names; an unknown one is ``invalid_input`` (exit 2) naming the known
    ones, checked before anything runs (a typo would otherwise run no case and fail as "0/0")."""
    wanted = {c.strip() for c in (only or "").split(",") if c.strip()}
    unknown = sorted(wanted.difference(known))
    if unknown:
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"unknown categor{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} in --only: "
                f"the categories are {', '.join(known)}",
            ),
            as_json,
        )
    return wanted


@eval_app.command("golden")
def golden(
    cases: Path | None = typer.Option(None, "--cases", help="Cases file (default: the built-in 32 cases)."),
    only: str | None = typer.Option(None, "--only", help="Run only these categories, comma-separated."),
    min_pass: float = typer.Option(0.85, "--min-pass", min=0.0, max=1.0, help="Overall pass rate to exit 0."),
    out: Path = typer.Option(Path("eval-results"), "--out", help="Folder for golden.json and golden.md."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Run the golden cases through the research desk (deterministic, on the snapshot) and score them."""
    from findesk.workflows.research.evaluate import run_cases
    from findesk.workflows.research.golden import CASES_FILE, CATEGORIES, load_cases, summarize

    settings, loaded = _suite(cases or CASES_FILE, load_cases, only, CATEGORIES, out, as_json)
    import asyncio

    done = asyncio.run(run_cases(loaded, settings))
    if isinstance(done, Err):
        ses.fail(done, as_json)
    runs = done.value
    summary = summarize([r.result for r in runs])
    result = {
        "summary": summary.model_dump(mode="json"),
        "cases": [{**r.result.model_dump(mode="json"), "seconds": round(r.seconds, 3)} for r in runs],
    }
    lines = []
    for r in runs:
        mark = "pass" if r.result.passed else "FAIL"
        line = f"{mark}  {r.case.id:<28} {r.seconds:6.2f} s"
        if not r.result.passed:
            line += "  " + "; ".join(r.result.failures)
        lines.append(line)
    lines += summary.lines()
    _written(result, "golden", out, ["# Golden cases", "", *[f"    {ln}" for ln in lines]], as_json)
    if as_json:
        ses.emit_json(None, result)
    else:
        for line in lines:
            ses.say(line)
    raise typer.Exit(0 if summary.overall.rate >= min_pass else 1)


class _HasCategory(Protocol):
    @property
    def category(self) -> str: ...


OUT_HELP = "Folder for the JSON result and the readable report (made when missing)."


C = TypeVar("C", bound=_HasCategory)


def _suite(
    cases: Path,
    load: Callable[[Path], Result[list[C]]],
    only: str | None,
    known: Sequence[str],
    out: Path,
    as_json: bool,
) -> tuple[Settings, list[C]]:
    """The settings and the cases to run (``--only``'s categories), every input checked before
    anything runs: categories, the results folder, the settings, the cases file."""
    wanted = _categories(only, known, as_json)
    _prepare(out, as_json)
    settings = ses.load(as_json)
    loaded = ses.unwrap(load(cases.expanduser()), as_json)
    return settings, [c for c in loaded if not wanted or c.category in wanted]


def _prepare(out: Path, as_json: bool) -> None:
    """Fails (exit 2) before anything runs when ``--out`` cannot be written."""
    from findesk.workflows.evals.files import prepare

    ses.unwrap(prepare(out.expanduser()), as_json)


def _written(result: Any, name: str, out: Path, lines: list[str], as_json: bool) -> None:
    """Writes ``name.json`` and ``name.md`` into ``out`` and says where, on stderr (stdout keeps one
    document with ``--json``)."""
    from findesk.workflows.evals.files import write_result

    paths = ses.unwrap(write_result(out.expanduser(), name, result, lines), as_json)
    print(f"wrote {', '.join(str(p) for p in paths)}", file=sys.stderr)


@eval_app.command("guard")
def guard(
    attacks: Path = typer.Option(..., "--attacks", help="Attacks file (JSONL, red-team schema)."),
    benign: Path = typer.Option(..., "--benign", help="Benign questions file (JSONL)."),
    indirect: Path | None = typer.Option(None, "--indirect", help="Passages with an injection (JSONL)."),
    indirect_clean: Path | None = typer.Option(
        None, "--indirect-clean", help="The same passages without it (JSONL)."
    ),
    out: Path = typer.Option(Path("eval-results"), "--out", help=OUT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object instead of text."),
) -> None:
    """The injection detector alone: recall on attacks, false positives on benign questions, flag rate
    on injected vs clean passages (files in the schema of ../shared/bench/redteam/)."""
    from findesk.workflows.evals.guard_eval import evaluate, load_jsonl, report_lines

    _prepare(out, as_json)
    given = {"attacks": attacks, "benign": benign, "indirect": indirect, "indirect_clean": indirect_clean}
    rows = {k: ses.unwrap(load_jsonl(v.expanduser()), as_json) for k, v in given.items() if v is not None}
    result = evaluate(rows["attacks"], rows["benign"], rows.get("indirect"), rows.get("indirect_clean"))
    lines = report_lines(result, {k: str(v) for k, v in given.items() if v is not None})
    _written(result.model_dump(mode="json"), "guard", out, lines, as_json)
    if as_json:
        ses.emit_object(result)  # the object itself: attack_recall, benign_false_positive_rate, …
    else:
        for line in lines:
            ses.say(line)


@eval_app.command("redteam")
def redteam(
    cases: Path | None = typer.Option(None, "--cases", help="Cases file (default: the built-in suite)."),
    only: str | None = typer.Option(None, "--only", help="Run only these categories, comma-separated."),
    out: Path = typer.Option(Path("eval-results"), "--out", help=OUT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Run the red-team suite end to end through the workflows (deterministic, on the snapshot) and
    report the attack success rate per category; exit 1 when it is above the declared thresholds
    (2 % overall, none in PII leak and data isolation)."""
    import asyncio

    from findesk.workflows.evals.redteam import (
        CASES_FILE,
        CATEGORIES,
        load_cases,
        report_lines,
        run_cases,
        summarize,
    )

    settings, loaded = _suite(cases or CASES_FILE, load_cases, only, CATEGORIES, out, as_json)
    outcomes = ses.unwrap(asyncio.run(run_cases(loaded, settings)), as_json)
    summary = summarize(outcomes)
    result = {
        "summary": {
            **summary.model_dump(mode="json"),
            "passed": summary.passed,
            "attack_success_rate": round(summary.overall.rate, 4),
        },
        "cases": [o.model_dump(mode="json") for o in outcomes],
    }
    lines = report_lines(summary, outcomes)
    _written(result, "redteam", out, lines, as_json)
    if as_json:
        ses.emit_json(None, result)
    else:
        for line in lines:
            ses.say(line)
    raise typer.Exit(0 if summary.passed else 1)


@eval_app.command("hallucination")
def hallucination(
    cases: Path | None = typer.Option(None, "--cases", help="Golden cases file (default: the built-in one)."),
    out: Path = typer.Option(Path("eval-results"), "--out", help=OUT_HELP),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Over the golden runs, the share of numbers in the answers that no tool result of the run contains."""
    import asyncio

    from findesk.workflows.evals.hallucination import report_lines, score_runs
    from findesk.workflows.research.evaluate import run_cases
    from findesk.workflows.research.golden import CASES_FILE, load_cases

    _prepare(out, as_json)
    settings = ses.load(as_json)
    loaded = ses.unwrap(load_cases(cases.expanduser() if cases else CASES_FILE), as_json)
    runs = ses.unwrap(asyncio.run(run_cases(loaded, settings)), as_json)
    result = score_runs(runs)
    lines = report_lines(result)
    _written(result.model_dump(mode="json"), "hallucination", out, lines, as_json)
    if as_json:
        ses.emit_json(None, result.model_dump(mode="json"))
    else:
        for line in lines:
            ses.say(line)
