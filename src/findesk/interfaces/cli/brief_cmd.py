"""``findesk brief TICKER``: the advisor briefing, as a recorded run.

Rules: parse arguments, open the sinks (live trace on stderr unless quiet or a machine format, the
audit log, optional JSONL), call ``findesk.workflows.brief.run.run_briefing`` and render; no business
logic here. The workflow is imported when the command runs, so other commands start fast. Every run
is written to the audit log (``findesk runs show RUN_ID`` replays it).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import typer

from findesk.core.events.audit import open_audit_log
from findesk.core.events.jsonl import JsonlSink
from findesk.core.events.trace import Sink
from findesk.core.result import Err, ErrorCode
from findesk.data.context import resolve_context
from findesk.interfaces.cli import session as ses
from findesk.interfaces.cli.live_view import LiveView

FORMATS = ("terminal", "markdown", "html", "json")
MODES = ("auto", "deterministic", "model")


def brief(
    symbol: str = typer.Argument(..., help="US ticker, e.g. AAPL."),
    as_of: str | None = typer.Option(None, "--as-of", help="Point-in-time date YYYY-MM-DD."),
    fmt: str = typer.Option("terminal", "--format", "-f", help="terminal | markdown | html | json."),
    details: bool = typer.Option(
        False, "--details", "-d", help="Terminal: the full briefing, not one screen."
    ),
    question: str | None = typer.Option(
        None, "--question", help="What the client asked (checked: no advice; at most 2,000 characters)."
    ),
    snapshot: bool | None = typer.Option(
        None, "--snapshot/--live", help="Force the snapshot or live sources."
    ),
    mode: str = typer.Option(
        "auto", "--mode", help="auto (model when a key is set) | deterministic | model."
    ),
    output: Path | None = typer.Option(
        None, "--output", "-o", help="Write the rendered briefing to this file."
    ),
    quiet: bool = typer.Option(False, "--quiet", "-q", help="No live trace on stderr."),
    jsonl: Path | None = typer.Option(None, "--events", help="Also write the events to this JSONL file."),
) -> None:
    """One-screen advisor briefing: quote, business, events, risks (cited), UNVERIFIED social signal,
    divergences and the tool trace. Never investment advice."""
    # Imported here: LangGraph takes about a second to import, and no other command needs it.
    from findesk.interfaces.cli.brief_view import draw
    from findesk.workflows.brief.render_html import to_html
    from findesk.workflows.brief.render_markdown import to_markdown
    from findesk.workflows.brief.run import run_briefing

    as_json = fmt == "json"
    if fmt not in FORMATS:
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"--format must be one of {', '.join(FORMATS)}, not {fmt!r}"), False
        )
    if mode not in MODES:
        ses.fail(
            Err(ErrorCode.INVALID_INPUT, f"--mode must be one of {', '.join(MODES)}, not {mode!r}"), as_json
        )
    settings = ses.load(as_json)
    data_mode: Any = None if snapshot is None else ("snapshot" if snapshot else "live")
    context = ses.unwrap(resolve_context(settings, mode=data_mode, as_of=as_of), as_json)
    audit = ses.unwrap(open_audit_log(settings), as_json)
    sinks: list[Sink] = [audit]
    if not quiet and fmt == "terminal":
        sinks.append(LiveView())
    if jsonl is not None:
        sinks.append(JsonlSink(jsonl))
    try:
        result = asyncio.run(
            run_briefing(
                symbol,
                settings=settings,
                context=context,
                question=question,
                sinks=sinks,
                mode=mode,  # type: ignore[arg-type]
            )
        )
    finally:
        for sink in sinks:
            sink.close()
    run = ses.unwrap(result, as_json)
    b = run.briefing
    if fmt == "terminal" and output is None:
        draw(ses.stdout, b, details=details)
        return
    text = {
        "markdown": to_markdown,
        "html": to_html,
        "json": lambda x: x.model_dump_json(indent=2),
        "terminal": to_markdown,
    }[fmt](b)
    if output is not None:
        output.write_text(text, encoding="utf-8")
        ses.stdout.print(f"[dim]briefing written to {output} · run {run.run_id}[/dim]", highlight=False)
        return
    print(text)
