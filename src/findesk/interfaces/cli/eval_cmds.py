"""``findesk eval golden``: the research desk's golden cases, pass rates per category.

Rules:
- Parses options, runs ``workflows.research.evaluate.run_cases`` and prints; no scoring logic here.
- Exit code 0 when the overall pass rate reaches ``--min-pass`` (default 0.85), 1 otherwise, so CI can
  run it; a cases file that does not load is a one-line ``invalid_input`` naming the case and field.
- ``--only`` names categories of ``golden.CATEGORIES``; an unknown one is ``invalid_input`` (exit 2)
  naming the known ones, before anything runs.
"""

from __future__ import annotations

from pathlib import Path

import typer

from findesk.core.result import Err, ErrorCode
from findesk.interfaces.cli import session as ses

eval_app = typer.Typer(help="Evaluate the desks: the research desk's golden cases.", no_args_is_help=True)


@eval_app.callback()
def _group() -> None:
    """Evaluate the desks (a group, so more evaluations can join ``golden``)."""


@eval_app.command("golden")
def golden(
    cases: Path | None = typer.Option(None, "--cases", help="Cases file (default: the built-in 32 cases)."),
    only: str | None = typer.Option(None, "--only", help="Run only these categories, comma-separated."),
    min_pass: float = typer.Option(0.85, "--min-pass", min=0.0, max=1.0, help="Overall pass rate to exit 0."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document instead of text."),
) -> None:
    """Run the golden cases through the research desk (deterministic, on the snapshot) and score them."""
    from findesk.workflows.research.evaluate import run_cases
    from findesk.workflows.research.golden import CASES_FILE, CATEGORIES, load_cases, summarize

    wanted = {c.strip() for c in (only or "").split(",") if c.strip()}
    unknown = sorted(wanted.difference(CATEGORIES))
    if unknown:
        # checked first: a typo would otherwise run no case and fail as "overall 0/0"
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"unknown categor{'ies' if len(unknown) > 1 else 'y'} {', '.join(unknown)} in --only: "
                f"the categories are {', '.join(CATEGORIES)}",
            ),
            as_json,
        )
    settings = ses.load(as_json)
    loaded = ses.unwrap(load_cases(cases.expanduser() if cases else CASES_FILE), as_json)
    if wanted:
        loaded = [c for c in loaded if c.category in wanted]
    import asyncio

    done = asyncio.run(run_cases(loaded, settings))
    if isinstance(done, Err):
        ses.fail(done, as_json)
    runs = done.value
    summary = summarize([r.result for r in runs])
    if as_json:
        ses.emit_json(
            None,
            {
                "summary": summary.model_dump(mode="json"),
                "cases": [{**r.result.model_dump(mode="json"), "seconds": round(r.seconds, 3)} for r in runs],
            },
        )
    else:
        for r in runs:
            mark = "pass" if r.result.passed else "FAIL"
            line = f"{mark}  {r.case.id:<28} {r.seconds:6.2f} s"
            if not r.result.passed:
                line += "  " + "; ".join(r.result.failures)
            ses.say(line)
        for line in summary.lines():
            ses.say(line)
    raise typer.Exit(0 if summary.overall.rate >= min_pass else 1)
