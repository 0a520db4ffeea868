"""``findesk runs …``: list recorded runs, show one as a trace, export its events, resume or replay one.

Rules:
- Read-only: these commands never create the audit log, its folder or its tables; a log that
  does not exist yet simply holds no runs.
- A run is named by its id or any unique prefix; an unknown id is ``not_found`` (exit 4).
- A run that ended with an ``interrupted`` error (cancelled, or closed because its process died) is
  shown as ``interrupted``, not as a failure of its own; ``--json`` has status ``error`` and the error
  ``interrupted: …``. A run left ``running`` by a process that is provably gone reads the same here
  (the audit log derives it) before anything closed it; the next CLI run or ``findesk serve`` closes
  it in the log (its ``interrupted`` event then appears in ``show``), never these commands: they
  only read.
- ``export`` writes exactly ``event.to_json()`` per line, so ``read_jsonl`` reads back the same
  events; tables and traces are for people, ``--json`` and ``export`` for programs.
- ``export-otlp`` sends a recorded run as one OpenTelemetry trace (the same spans a live export draws,
  ``core.events.spans``) and prints its trace id; meant for runs recorded while the export was off.
- ``replay`` re-runs a finished model run from the audit log alone: the same workflow, inputs, as-of
  date and data mode, each role answered by its recorded model output (``agents.runtime.replay``), as
  a new recorded run; it exits 0 only when the replay's headline equals the recorded one. A run with
  no model-written agent is refused: a deterministic run is reproduced by running it again.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import typer
from rich.table import Table
from rich.text import Text

from findesk.core.events.audit import AuditLog, RunSummary, audit_location
from findesk.core.events.model import Done, Event
from findesk.core.formatting import duration_ms as fmt_ms
from findesk.core.formatting import usd as fmt_usd
from findesk.core.result import Err, ErrorCode, Ok
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.live_view import LiveView

runs_app = typer.Typer(
    help="Inspect recorded runs (the audit log): list, show a trace, export events, resume, replay.",
    no_args_is_help=True,
)

JSON = typer.Option(False, "--json", help="Print one JSON document instead of tables.")
RUN_ID = typer.Argument(..., metavar="RUN_ID", help="A run id or a unique prefix of one.")
FORMATS = ("jsonl", "json")
STATUS_STYLE = {"done": "green", "error": "red", "running": "yellow", "interrupted": "magenta"}


def _open(as_json: bool) -> tuple[AuditLog | None, str]:
    """The audit log for reading (None when nothing has been recorded yet) and where it lives."""
    url = ses.load(as_json).resolved_audit_url()
    opened = AuditLog.open(url, read_only=True)
    if isinstance(opened, Err):
        if opened.code is ErrorCode.NOT_FOUND:
            return None, audit_location(url)
        ses.fail(opened, as_json)
    return opened.value, opened.value.location


def _run(run_id: str, as_json: bool) -> tuple[AuditLog, RunSummary]:
    log, where = _open(as_json)
    if log is None:
        ses.fail(Err(ErrorCode.NOT_FOUND, f"no run {run_id!r}: no runs recorded yet in {where}"), as_json)
    return log, ses.unwrap(log.find_run(run_id), as_json)


def _status(summary: RunSummary) -> Text:
    shown = summary.status
    if shown == "error" and (summary.error or "").startswith("interrupted:"):
        shown = "interrupted"
    return Text(shown, style=STATUS_STYLE.get(shown, ""))


def _local(summary: RunSummary) -> str:
    return summary.started_at.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _tokens(summary: RunSummary) -> str:
    cached = f" ({summary.cached_tokens:,} cached)" if summary.cached_tokens else ""
    return f"{summary.input_tokens:,}{cached} / {summary.output_tokens:,}"


@runs_app.command("list")
def list_runs(
    limit: int = typer.Option(20, "--limit", min=1, help="Show at most this many runs, newest first."),
    as_json: bool = JSON,
) -> None:
    """Recorded runs, newest first."""
    log, where = _open(as_json)
    runs = [] if log is None else log.list_runs(limit)
    if as_json:
        ses.emit_json(None, runs)
        return
    if not runs:
        ses.stdout.print(f"no runs recorded yet in {where}", markup=False, highlight=False)
        return
    table = Table(title=Text(f"runs in {where}"))
    for column in ("run id", "started", "title", "status", "mode", "tool calls (errors)"):
        table.add_column(column)
    for column in ("tokens in / out", "cost", "duration"):
        table.add_column(column, justify="right")
    for r in runs:
        table.add_row(
            r.run_id,
            _local(r),
            Text(r.title or "—"),
            _status(r),
            r.mode or "—",
            f"{r.tool_calls} ({r.tool_errors})",
            _tokens(r),
            fmt_usd(r.cost_usd),
            fmt_ms(r.duration_ms),
        )
    ses.stdout.print(table)


@runs_app.command("show")
def show(
    run_id: str = RUN_ID,
    verbose: bool = typer.Option(False, "--verbose", "-v", help="Also print streamed model text."),
    as_json: bool = JSON,
) -> None:
    """A run's totals, then its whole trace replayed as an indented tree."""
    log, summary = _run(run_id, as_json)
    events = log.events(summary.run_id)
    if as_json:
        doc = {"run": summary.model_dump(mode="json"), "events": [e.to_dict() for e in events]}
        print(json.dumps(doc, ensure_ascii=False, indent=2))
        return
    _header(summary)
    view = LiveView(ses.stdout, verbose=verbose, summary_chars=400, wrap=True)
    for event in events:
        view.write(event)
    view.close()


def _header(r: RunSummary) -> None:
    table = Table(show_header=False, box=None, title=f"run {r.run_id}", title_justify="left")
    table.add_column("field", style="bold")
    table.add_column("value", overflow="fold")
    rows: list[tuple[str, Text]] = [
        ("title", Text(r.title or "—")),
        ("status", _status(r)),
        ("mode", Text(r.mode or "—")),
        ("started", Text(_local(r))),
        ("duration", Text(fmt_ms(r.duration_ms))),
        ("events", Text(f"{r.event_count:,}")),
        ("tool calls", Text(f"{r.tool_calls} ({r.tool_errors} failed)")),
        ("model calls", Text(f"{r.llm_calls}")),
        ("tokens in / out", Text(_tokens(r))),
        ("cost", Text(fmt_usd(r.cost_usd))),
    ]
    if r.error:
        rows.append(("error", Text(r.error, style="red")))
    for name, value in rows:
        table.add_row(name, value)
    ses.stdout.print(table)
    ses.stdout.print()


@runs_app.command("export")
def export(
    run_id: str = RUN_ID,
    fmt: str = typer.Option("jsonl", "--format", help="jsonl (one event per line) or json (one array)."),
    output: Path | None = typer.Option(None, "--output", "-o", help="Write to this file (default: stdout)."),
) -> None:
    """A run's events as JSON lines (or one JSON array), exactly as recorded."""
    if fmt not in FORMATS:
        ses.fail(Err(ErrorCode.INVALID_INPUT, f"unknown format {fmt!r}: use {' or '.join(FORMATS)}"))
    log, summary = _run(run_id, False)
    events = log.events(summary.run_id)
    text = _serialise(events, fmt)
    if output is None:
        sys.stdout.write(text)
        return
    try:
        output.write_text(text, encoding="utf-8")
    except OSError as exc:
        ses.fail(Err(ErrorCode.INVALID_INPUT, f"cannot write {output}: {exc}"))
    ses.stderr.print(
        f"wrote {len(events):,} events of run {summary.run_id} to {output}", markup=False, highlight=False
    )


def _serialise(events: list[Event], fmt: str) -> str:
    if fmt == "jsonl":
        return "".join(event.to_json() + "\n" for event in events)
    return json.dumps([event.to_dict() for event in events], ensure_ascii=False, indent=2) + "\n"


@runs_app.command("export-otlp")
def export_otlp(
    run_id: str = RUN_ID,
    endpoint: str | None = typer.Option(
        None, "--endpoint", help="OTLP/HTTP traces URL (default: [telemetry] otlp_endpoint)."
    ),
) -> None:
    """Send a recorded run as one OpenTelemetry trace (Langfuse, Jaeger, Grafana Tempo, a collector)."""
    from pydantic import ValidationError

    from findesk.core.config import TelemetrySettings, mask_url
    from findesk.core.events.otel import export_events
    from findesk.core.events.spans import trace_id_of
    from findesk.core.result import validation_reason

    settings = ses.load()
    if endpoint:
        try:  # validated as the setting is: a typo is a caller error, not a trace lost in the post
            telemetry = TelemetrySettings.model_validate(
                {**settings.telemetry.model_dump(), "otlp_endpoint": endpoint}
            )
        except ValidationError as exc:
            ses.fail(Err(ErrorCode.INVALID_INPUT, f"--endpoint: {validation_reason(exc, limit=1)}"))
        settings = settings.model_copy(update={"telemetry": telemetry})
    target = settings.telemetry.otlp_endpoint
    if not target:
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                "no OTLP endpoint: pass --endpoint, or set [telemetry] otlp_endpoint "
                "(FINDESK_TELEMETRY__OTLP_ENDPOINT)",
            )
        )
    log, summary = _run(run_id, False)
    events = log.events(summary.run_id)
    if not export_events(events, settings, timeout_s=settings.telemetry.timeout_s + 5):
        ses.fail(Err(ErrorCode.UNAVAILABLE, f"run {summary.run_id} was not sent to {mask_url(target)}"))
    trace = f"{trace_id_of(summary.run_id):032x}"
    sys.stdout.write(trace + "\n")
    ses.stderr.print(
        f"sent run {summary.run_id} ({len(events):,} events) to {mask_url(target)} as trace {trace}",
        markup=False,
        highlight=False,
    )


@runs_app.command("resume")
def resume(
    run_id: str = RUN_ID,
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal | json | the workflow's formats."),
    details: bool = typer.Option(False, "--details", "-d", help="Terminal: the full report, not one screen."),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the snapshot or live sources."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the rendered report to this file."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live trace on stderr."),
) -> None:
    """Finish an interrupted run (killed, Ctrl-C) from its last checkpoint: the steps it completed are
    not run again, its events continue in the audit log, and it ends with the report it would have
    given. A finished run, or one refused before its graph started, has nothing to resume."""
    from findesk.core.events.model import AgentStart
    from findesk.interfaces.cli.workflow_cmd import RunMode, RunOptions, execute
    from findesk.workflows import registry
    from findesk.workflows.runner import Resume

    as_json = fmt == "json"
    log, summary = _run(run_id, as_json)
    if summary.status == "done":
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"run {summary.run_id} is already done; nothing to resume"), as_json
        )
    events = log.events(summary.run_id)
    opening = next((e for e in events if e.parent_id is None and isinstance(e.data, AgentStart)), None)
    if opening is None or not isinstance(opening.data, AgentStart):
        ses.fail(
            Err(ErrorCode.NOT_FOUND, f"run {summary.run_id} has no opening event; it cannot resume"), as_json
        )
    spec = ses.unwrap(registry.load(opening.data.agent), as_json)
    if not _has_checkpoint(summary.run_id, spec.state_classes(), as_json):
        ses.fail(
            Err(
                ErrorCode.NOT_FOUND,
                f"run {summary.run_id} has no checkpoint to resume from (it ended before its graph started, "
                "or its checkpoints were removed)",
            ),
            as_json,
        )
    inputs = dict(opening.data.inputs)
    mode = opening.data.mode if opening.data.mode in RunMode.__members__ else "auto"
    opts = RunOptions(
        as_of=inputs.get("as_of"),
        fmt=fmt,
        details=details,
        snapshot=snapshot,
        mode=RunMode(mode),
        output=output,
        quiet=quiet,
    )
    execute(spec, spec.inputs_from_opening(inputs), opts, resume=Resume(events))


def _has_checkpoint(run_id: str, allow: list[type], as_json: bool) -> bool:
    import asyncio

    from findesk.workflows.checkpoints import latest_checkpoint, open_checkpointer

    async def look() -> bool:
        async with open_checkpointer(ses.load(as_json), allow=allow) as opened:
            if isinstance(opened, Err):
                ses.fail(opened, as_json)
            found = await latest_checkpoint(opened.value, run_id)
            return isinstance(found, Ok) and found.value is not None

    return asyncio.run(look())


@runs_app.command("replay")
def replay(
    run_id: str = RUN_ID,
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal | json | the workflow's formats."),
    details: bool = typer.Option(False, "--details", "-d", help="Terminal: the full report, not one screen."),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the snapshot or live sources (default: as recorded)."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the rendered report to this file."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live trace on stderr."),
) -> None:
    """Re-run a finished model run from the audit log: each agent answers with what its model answered
    then (no model is called, nothing is spent), as a new recorded run. Exits 0 when the replay reaches
    the recorded headline (decision), non-zero with both headlines when it does not."""
    from findesk.agents.runtime.replay import recorded_agents, recorded_models
    from findesk.core.events.model import AgentStart
    from findesk.interfaces.cli.workflow_cmd import RunMode, RunOptions, execute
    from findesk.workflows import registry

    as_json = fmt == "json"
    log, summary = _run(run_id, as_json)
    if summary.status != "done":
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"run {summary.run_id} is {_status(summary).plain}: only a finished run can be replayed "
                "(`findesk runs resume` finishes an interrupted one)",
            ),
            as_json,
        )
    events = log.events(summary.run_id)
    opening = next((e for e in events if e.parent_id is None and isinstance(e.data, AgentStart)), None)
    done = next((e.data for e in reversed(events) if isinstance(e.data, Done)), None)
    if opening is None or not isinstance(opening.data, AgentStart) or done is None:
        ses.fail(
            Err(ErrorCode.NOT_FOUND, f"run {summary.run_id} has no opening or done event; it cannot replay"),
            as_json,
        )
    records = [r for runs in recorded_agents(events).values() for r in runs]
    if not any(r.model_written for r in records):
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"run {summary.run_id} ran deterministically: re-run it with the same inputs; it is "
                "reproducible byte for byte",
            ),
            as_json,
        )
    old = sorted({r.agent for r in records if r.lacks_output})
    if old:
        ses.fail(
            Err(
                ErrorCode.INVALID_INPUT,
                f"run {summary.run_id} was recorded before the audit log kept model outputs "
                f"({', '.join(old)}); it cannot be replayed",
            ),
            as_json,
        )
    spec = ses.unwrap(registry.load(opening.data.agent), as_json)
    inputs = dict(opening.data.inputs)
    # the mode the run asked for (auto or model): roles without a recorded model then run as they did
    mode = opening.data.mode if opening.data.mode in ("auto", "model") else "model"
    opts = RunOptions(
        as_of=inputs.get("as_of"),
        fmt=fmt,
        details=details,
        snapshot=_recorded_data_mode(done.result) if snapshot is None else snapshot,
        mode=RunMode(mode),
        output=output,
        quiet=quiet,
    )
    run = execute(spec, spec.inputs_from_opening(inputs), opts, models=recorded_models(events))
    recorded = _recorded_headline(spec, done)
    replayed = str(spec.headline(run.report))
    if replayed == recorded:
        ses.stderr.print(
            f"replay of run {summary.run_id} (run {run.run_id}) gives the recorded headline: {recorded}",
            markup=False,
            highlight=False,
        )
        return
    ses.stderr.print(
        f"findesk: replay of run {summary.run_id} (run {run.run_id}) differs from the recording\n"
        f"  recorded: {recorded}\n  replayed: {replayed}",
        markup=False,
        highlight=False,
    )
    raise typer.Exit(1)


def _recorded_headline(spec: Any, done: Done) -> str:
    """The recorded run's headline, from the report its ``done`` event holds (its summary if the report
    no longer validates, e.g. recorded by an older version)."""
    from pydantic import ValidationError

    try:
        report = spec.report_model.model_validate(done.result)
    except ValidationError:
        return done.summary
    return str(spec.headline(report))


def _recorded_data_mode(result: object) -> bool | None:
    """--snapshot (True) or --live (False) as the recorded report names its data, else None (configured)."""
    described = result.get("data_mode") if isinstance(result, dict) else None
    if not isinstance(described, str):
        return None
    if described.startswith("offline snapshot"):
        return True
    return False if described.startswith("live") else None
