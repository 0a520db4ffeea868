"""Workflow commands, generated from the workflow registry: ``findesk brief AAPL``, ``findesk <workflow> …``.

Rules:
- One command per registered workflow, built from its spec: the fields named in ``cli_arguments`` are
  positional arguments, every other simple input field is an option (``--question``), and ``--input``
  takes the whole input as a JSON object (options given on the line win). No business logic here.
- Every workflow command shares the same run options (``RUN_OPTIONS``): ``--as-of``, ``--snapshot/--live``,
  ``--mode`` (a typed choice), ``--format`` (terminal, json and the spec's renderers), ``--details``,
  ``--output``, ``--quiet``, ``--events``; ``execute`` runs every workflow and every single agent the same
  way: sinks (live trace on stderr unless quiet or machine output, the audit log, optional JSONL),
  the checkpointer (so ``findesk runs resume RUN_ID`` can finish an interrupted run), the runner, and
  the renderer. Every run is written to the audit log.
- ``--output`` and ``--events`` are checked before the run (``outputs``): a folder or an unwritable
  path is a one-line ``invalid_input``, not an error after the work is done. The report is written
  whole or not at all; a failed write (a full disk) exits non-zero naming the run, whose report the
  audit log still holds.
- Every run first closes the runs a process that is gone left ``running`` (``close_interrupted_runs``:
  one read when there are none), so a CLI user who never starts ``findesk serve`` does not see a
  killed run ``running`` forever.
- A run the audit log could not record completely (a full disk, a locked database) is written to it
  once more from the run's own events (writing an event twice changes nothing), so its record is not
  left ``running``; if that fails too the command says so and exits non-zero, after delivering the
  report.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import json
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

import typer

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.outputs import EventsFile, ReportFile


class RunMode(StrEnum):
    auto = "auto"
    deterministic = "deterministic"
    model = "model"


MODE_HELP = "auto (model when a key is set) | deterministic | model."


@dataclass(frozen=True)
class RunOptions:
    as_of: str | None = None
    fmt: str = "terminal"
    details: bool = False
    snapshot: bool | None = None
    mode: RunMode = RunMode.auto
    output: Path | None = None
    quiet: bool = False
    jsonl: Path | None = None

    @property
    def as_json(self) -> bool:
        return self.fmt == "json"


def _param(name: str, default: Any, annotation: Any) -> inspect.Parameter:
    return inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)


def run_option_params(formats: tuple[str, ...]) -> list[inspect.Parameter]:
    """The shared run options, as parameters of a generated command."""
    return [
        _param("as_of", typer.Option(None, "--as-of", help="Point-in-time date YYYY-MM-DD."), str | None),
        _param(
            "fmt",
            typer.Option("terminal", "--format", "-f", help=f"{' | '.join(formats)}."),
            str,
        ),
        _param(
            "details",
            typer.Option(False, "--details", "-d", help="Terminal: the full report, not one screen."),
            bool,
        ),
        _param(
            "snapshot",
            typer.Option(None, "--snapshot/--live", help="Force the snapshot or live sources."),
            bool | None,
        ),
        _param("mode", typer.Option(RunMode.auto, "--mode", help=MODE_HELP), RunMode),
        _param(
            "output",
            typer.Option(None, "--output", "-o", help="Write the rendered report to this file."),
            Path | None,
        ),
        _param("quiet", typer.Option(False, "--quiet", "-q", help="No live trace on stderr."), bool),
        _param(
            "jsonl",
            typer.Option(None, "--events", help="Also write the events to this JSONL file."),
            Path | None,
        ),
    ]


def formats_of(spec: Any) -> tuple[str, ...]:
    return ("terminal", *[f for f in spec.renderers if f != "terminal"], "json")


def build_command(spec: Any) -> Callable[..., None]:
    """A typer command function for ``spec``: its input fields, then the shared run options."""
    fields = spec.input_model.model_fields
    params: list[inspect.Parameter] = []
    for name in spec.cli_arguments:
        info = fields[name]
        argument = typer.Argument(..., metavar=name.upper(), help=info.description or name)
        params.append(_param(name, argument, str))
    # Fields hidden from the input schema are set by the interface (the caller), not typed by a user.
    shown = spec.input_model.model_json_schema().get("properties", {})
    options = [n for n in fields if n not in spec.cli_arguments and n in shown]
    for name in options:
        info = fields[name]
        flag = "--" + name.replace("_", "-")
        if info.annotation is bool:  # a switch: --disclaimer / --no-disclaimer
            switch = typer.Option(None, f"{flag}/--no-{flag[2:]}", help=info.description or name)
            params.append(_param(name, switch, bool | None))
            continue
        params.append(_param(name, typer.Option(None, flag, help=info.description or name), str | None))
    params.append(
        _param(
            "input_json",
            typer.Option(None, "--input", help="The input as a JSON object (options on the line win)."),
            str | None,
        )
    )
    formats = formats_of(spec)
    params += run_option_params(formats)

    def command(**kwargs: Any) -> None:
        raw: dict[str, Any] = {}
        text = kwargs.pop("input_json")
        if text is not None:
            raw = parse_json_input(text, kwargs.get("fmt") == "json")
        for name in fields:
            value = kwargs.pop(name, None)
            if value is not None:
                raw[name] = value
        opts = RunOptions(**kwargs)
        execute(spec, raw, opts)

    command.__signature__ = inspect.Signature(params)  # type: ignore[attr-defined]
    command.__annotations__ = {p.name: p.annotation for p in params} | {"return": None}
    command.__doc__ = spec.description
    command.__name__ = spec.name.replace(".", "_")
    return command


def parse_json_input(text: str, as_json: bool) -> dict[str, Any]:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"--input is not valid JSON: {exc.msg} (at {exc.pos})"), as_json
        )
    if not isinstance(value, dict):
        ses.fail(Err(ErrorCode.INVALID_INPUT, "--input must be a JSON object"), as_json)
    return value


def command_app(name: str) -> typer.Typer:
    """The typer app holding the one command of the workflow ``name`` (for the lazy group)."""
    from findesk.workflows import registry

    spec = ses.unwrap(registry.load(name))
    app = typer.Typer(add_completion=False, pretty_exceptions_enable=False)
    app.command(name=spec.name, help=spec.description)(build_command(spec))
    return app


@contextlib.asynccontextmanager
async def _checkpointer(settings: Any, spec: Any) -> AsyncIterator[Any]:
    from findesk.workflows.checkpoints import open_checkpointer

    async with open_checkpointer(settings, allow=spec.state_classes()) as opened:
        if isinstance(opened, Err):  # the run still runs; it just cannot be resumed
            ses.warn(f"checkpoints: {opened.message()}; this run cannot be resumed if interrupted")
            yield None
        else:
            yield opened.value


def execute(spec: Any, raw: Any, opts: RunOptions, *, resume: Any = None, models: Any = None) -> Any:
    """Run ``spec`` on ``raw`` with the shared options, record it, and print or write the report.
    ``models``: a model resolver to use instead of the configured models (``findesk runs replay``)."""
    from findesk.data.context import resolve_context

    as_json = opts.as_json
    formats = formats_of(spec)
    if opts.fmt not in formats:
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"--format must be one of {', '.join(formats)}, not {opts.fmt!r}"),
            False,
        )
    settings = ses.load(as_json)
    data_mode: Any = None if opts.snapshot is None else ("snapshot" if opts.snapshot else "live")
    context = ses.unwrap(resolve_context(settings, mode=data_mode, as_of=opts.as_of), as_json)
    report_file = None if opts.output is None else ses.unwrap(ReportFile.prepare(opts.output), as_json)
    try:
        run, problem, recorded = _run(spec, raw, opts, settings, context, resume, models)
        show(spec, run, opts, report_file, recorded=recorded)
    finally:
        if report_file is not None:
            report_file.discard()
    if problem is not None:  # stderr only: stdout already holds the report
        ses.fail(Err(ErrorCode.UNAVAILABLE, problem))
    return run


def _run(
    spec: Any, raw: Any, opts: RunOptions, settings: Any, context: Any, resume: Any, models: Any = None
) -> tuple[Any, str | None, bool]:
    """The finished run, why a sink failed (after the run: the report is delivered first), and
    whether the audit log holds the whole run."""
    from findesk.core.events.audit import open_audit_log
    from findesk.core.events.trace import MemorySink, Sink
    from findesk.interfaces.cli.live_view import LiveView
    from findesk.workflows.runner import run_workflow

    as_json = opts.as_json
    events = None if opts.jsonl is None else ses.unwrap(EventsFile.open(opts.jsonl), as_json)
    opened = open_audit_log(settings)
    if isinstance(opened, Err):
        if events is not None:
            events.close()
        ses.fail(opened, as_json)
    audit = opened.value
    # a run whose CLI was killed (kill -9, a crash) is closed here, not only by `findesk serve`; the
    # run being resumed keeps its sequence, so it is never closed under it
    keep = () if resume is None else {event.run_id for event in resume.events}
    ses.ok_or_warn(audit.close_interrupted_runs(keep), "closing runs left running by a process that ended")
    memory = MemorySink()  # the run's events once more, to re-record them if the audit log loses some
    sinks: list[Sink] = [audit, memory]
    if not opts.quiet and opts.fmt == "terminal":
        sinks.append(LiveView())
    if events is not None:
        sinks.append(events)

    async def main() -> Result[Any]:
        async with _checkpointer(settings, spec) as saver:
            ran = await run_workflow(
                spec,
                raw,
                settings=settings,
                context=context,
                sinks=sinks,
                mode=opts.mode.value,
                models=models,
                checkpointer=saver,
                resume=resume,
            )
            if saver is not None and saver.failed:  # the run went on without them
                ses.warn(f"checkpoints stopped ({saver.failed}); this run could not have been resumed")
            return ran

    try:
        result = asyncio.run(main())
    finally:
        for sink in sinks:
            sink.close()
    # a refused or failed run is recorded too
    lost = _recorded(audit, memory.events, settings, finished=isinstance(result, Ok))
    if lost is not None and isinstance(result, Err):
        ses.warn(lost)
    run = ses.unwrap(result, as_json)
    problems = [p for p in (lost, events and events.failure) if p]
    return run, "; ".join(problems) or None, lost is None


def _recorded(audit: Any, events: list[Any], settings: Any, *, finished: bool) -> str | None:
    """None when the audit log holds the whole run; else one more try, then why it still does not."""
    from findesk.core.events.audit import open_audit_log

    lost = audit.last_error
    if lost is None or not events:
        return None
    again = open_audit_log(settings)
    if isinstance(again, Ok):
        log = again.value
        for event in events:
            log.write(event)
        log.close()
        if log.last_error is None:
            ses.warn(f"the audit log lost events of run {events[0].run_id} ({lost}); recorded them again")
            return None
        lost = log.last_error
    else:
        lost = again.reason
    outcome = "the report is complete, but" if finished else "the run failed, and"
    return (
        f"the audit log {audit.location} could not record run {events[0].run_id} ({lost}); "
        f"{outcome} `findesk runs` will not show this run as finished"
    )


def show(
    spec: Any, run: Any, opts: RunOptions, report_file: ReportFile | None = None, *, recorded: bool = True
) -> None:
    """Print or write the report. ``recorded``: the audit log holds the whole run (a failed write
    then points there, and only then)."""
    from findesk.interfaces.cli.views import terminal_view

    report = run.report
    if opts.fmt == "terminal" and opts.output is None:
        terminal_view(spec)(ses.stdout, run, opts.details)
        return
    text = render_text(spec, report, opts.fmt, opts.details)
    if opts.output is None:
        print(text)
        return
    target = report_file or ses.unwrap(ReportFile.prepare(opts.output), opts.as_json)
    written = target.write(text)
    if isinstance(written, Err):
        kept = (
            f"the audit log holds its report (`findesk runs show {run.run_id}`)"
            if recorded
            else "the audit log could not record it either, so the report is lost: free space, run again"
        )
        reason = f"{written.reason}; the run finished and {kept}"
        ses.fail(Err(written.code, reason), opts.as_json)
    ses.stdout.print(f"[dim]{spec.name} written to {opts.output} · run {run.run_id}[/dim]", highlight=False)


def render_text(spec: Any, report: Any, fmt: str, details: bool) -> str:
    if fmt == "json":
        return str(report.model_dump_json(indent=2))
    renderer = spec.renderers.get(fmt) or spec.renderers.get("markdown")
    if renderer is None:
        return str(report.model_dump_json(indent=2))
    return str(renderer(report, details))
