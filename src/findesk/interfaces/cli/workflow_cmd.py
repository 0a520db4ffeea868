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

from findesk.core.result import Err, ErrorCode, Result
from findesk.interfaces.cli import session as ses


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
    options = [n for n in fields if n not in spec.cli_arguments]
    for name in options:
        info = fields[name]
        flag = "--" + name.replace("_", "-")
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


def execute(spec: Any, raw: Any, opts: RunOptions, *, resume: Any = None) -> Any:
    """Run ``spec`` on ``raw`` with the shared options, record it, and print or write the report."""
    from findesk.core.events.audit import open_audit_log
    from findesk.core.events.jsonl import JsonlSink
    from findesk.core.events.trace import Sink
    from findesk.data.context import resolve_context
    from findesk.interfaces.cli.live_view import LiveView
    from findesk.workflows.runner import run_workflow

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
    audit = ses.unwrap(open_audit_log(settings), as_json)
    sinks: list[Sink] = [audit]
    if not opts.quiet and opts.fmt == "terminal":
        sinks.append(LiveView())
    if opts.jsonl is not None:
        sinks.append(JsonlSink(opts.jsonl))

    async def main() -> Result[Any]:
        async with _checkpointer(settings, spec) as saver:
            return await run_workflow(
                spec,
                raw,
                settings=settings,
                context=context,
                sinks=sinks,
                mode=opts.mode.value,
                checkpointer=saver,
                resume=resume,
            )

    try:
        result = asyncio.run(main())
    finally:
        for sink in sinks:
            sink.close()
    run = ses.unwrap(result, as_json)
    show(spec, run, opts)
    return run


def show(spec: Any, run: Any, opts: RunOptions) -> None:
    from findesk.interfaces.cli.views import terminal_view

    report = run.report
    if opts.fmt == "terminal" and opts.output is None:
        terminal_view(spec)(ses.stdout, run, opts.details)
        return
    text = render_text(spec, report, opts.fmt, opts.details)
    if opts.output is not None:
        opts.output.write_text(text, encoding="utf-8")
        ses.stdout.print(
            f"[dim]{spec.name} written to {opts.output} · run {run.run_id}[/dim]", highlight=False
        )
        return
    print(text)


def render_text(spec: Any, report: Any, fmt: str, details: bool) -> str:
    if fmt == "json":
        return str(report.model_dump_json(indent=2))
    renderer = spec.renderers.get(fmt) or spec.renderers.get("markdown")
    if renderer is None:
        return str(report.model_dump_json(indent=2))
    return str(renderer(report, details))
