"""Per-command session: settings, data context and router, plus uniform output and errors.

Rules: a command never shows a traceback for a known problem; every ``Err`` becomes one line on
stderr (``findesk: <code>: <reason>``) and a non-zero exit code from ``EXIT_CODES``; ``--json``
output is a single JSON document on stdout (errors too, as ``{"error": {"code", "message"}}``, the
very body the HTTP API answers for the same mistake: ``error_body``).

Import cost: every command (``findesk --help`` too) imports this module, so it imports only what
printing and exit codes need; settings, the data context, the router (vendors, HTTP client) and
asyncio are imported by the functions that use them.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, NoReturn, TypeVar

import typer
from rich.console import Console

from findesk.core.result import Err, ErrorCode, Ok, Result

if TYPE_CHECKING:
    from datetime import datetime

    from findesk.core.config import Settings
    from findesk.data.context import DataContext
    from findesk.data.router import DataRouter

T = TypeVar("T")

EXIT_CODES: dict[ErrorCode, int] = {
    ErrorCode.INVALID_INPUT: 2,
    ErrorCode.OUT_OF_SCOPE: 2,
    ErrorCode.REFUSED: 2,
    ErrorCode.NOT_CONFIGURED: 3,
    ErrorCode.UNAUTHORIZED: 3,
    ErrorCode.NO_DATA: 4,
    ErrorCode.NOT_FOUND: 4,
    ErrorCode.UNAVAILABLE: 5,
    ErrorCode.TIMEOUT: 5,
    ErrorCode.RATE_LIMITED: 5,
    ErrorCode.LIMIT_REACHED: 5,
    ErrorCode.BAD_RESPONSE: 5,
}

# Piped output (files, tests, CI logs) gets a wide fixed width so tables are not truncated.
stdout = Console(soft_wrap=False, width=None if sys.stdout.isatty() else 200)
stderr = Console(stderr=True, soft_wrap=True)


@dataclass
class Session:
    settings: Settings
    context: DataContext
    router: DataRouter


def error_body(error: Err) -> dict[str, Any]:
    """The JSON error of a command, the same shape as the HTTP API's (``ApiError.of``)."""
    return {"error": {"code": error.code.value, "message": error.reason}}


def fail(error: Err, as_json: bool = False) -> NoReturn:
    if as_json:
        print(json.dumps(error_body(error), ensure_ascii=False))
    stderr.print(f"findesk: {error.message()}", markup=False, highlight=False)
    raise typer.Exit(EXIT_CODES.get(error.code, 1))


def unwrap(result: Result[T], as_json: bool = False) -> T:
    if isinstance(result, Err):
        fail(result, as_json)
    return result.value


def load(as_json: bool = False) -> Settings:
    from findesk.core.config import load_settings

    return unwrap(load_settings(), as_json)


def open_session(as_of: str | None, snapshot: bool | None, as_json: bool) -> Session:
    """``snapshot`` is the ``--snapshot/--live`` flag: True, False (live) or None (configured mode)."""
    from findesk.data.context import resolve_context
    from findesk.data.registry import build_router

    settings = load(as_json)
    mode: Literal["snapshot", "live"] | None = (
        None if snapshot is None else ("snapshot" if snapshot else "live")
    )
    context = unwrap(resolve_context(settings, mode=mode, as_of=as_of), as_json)
    router = unwrap(build_router(settings, context), as_json)
    return Session(settings, context, router)


def run_async(session: Session, make: Callable[[], Coroutine[Any, Any, T]]) -> T:
    import asyncio

    async def main() -> T:
        try:
            return await make()
        finally:
            await session.router.aclose()

    return asyncio.run(main())


def emit_json(session: Session | None, data: Any) -> None:
    payload: dict[str, Any] = {}
    if session is not None:
        payload["context"] = session.context.describe()
        payload["data_mode"] = session.context.mode
        payload["as_of"] = session.context.as_of.isoformat()
    payload["data"] = _plain(data)
    print(json.dumps(payload, ensure_ascii=False, indent=2))


def emit_object(data: Any) -> None:
    """One JSON object on stdout as it is, without the ``data`` envelope, for a command whose output
    is itself the documented object (``findesk eval guard --json``)."""
    print(json.dumps(_plain(data), ensure_ascii=False, indent=2))


def _plain(data: Any) -> Any:
    from pydantic import BaseModel

    if isinstance(data, BaseModel):
        return data.model_dump(mode="json")
    if isinstance(data, list):
        return [_plain(x) for x in data]
    if isinstance(data, dict):
        return {k: _plain(v) for k, v in data.items()}
    return data


def say(text: str) -> None:
    """``text`` on stdout as plain text: never read as markup (it may come from a document, a question
    or memory) and one line stays one line."""
    stdout.print(text, markup=False, highlight=False, soft_wrap=True)


def when(moment: datetime | None) -> str:
    """A moment in the local time zone to the minute, or "—" when there is none."""
    return "—" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M")


def header(session: Session) -> None:
    stdout.print(f"[dim]{session.context.describe()}[/dim]")


def warn(message: str) -> None:
    stderr.print(f"warning: {message}", markup=False, highlight=False)


def ok_or_warn(result: Result[T], label: str) -> T | None:
    if isinstance(result, Ok):
        return result.value
    warn(f"{label}: {result.message()}")
    return None


# CPython collects the young generation every 700 net allocations and every tenth of those sweeps
# the middle one, every tenth of those the whole heap. ``findesk brief`` builds ~200,000 long-lived
# objects (LangGraph, pydantic models, parsed rows) and was collected ~550 times, 4 of them full
# sweeps: ~15 % of its CPU. Collecting every 50,000 allocations (60 young, no full sweep in a
# briefing) still frees cycles, in a long-running ``findesk serve`` too; peak memory grows ~2 MB.
_GC_YOUNG_THRESHOLD = 50_000


def guard_main(fn: Callable[[], None]) -> None:
    """Run the CLI; an unexpected exception is one line, not a traceback (unless FINDESK_DEBUG)."""
    import gc
    import os

    gc.set_threshold(_GC_YOUNG_THRESHOLD, *gc.get_threshold()[1:])
    try:
        fn()
    except KeyboardInterrupt:
        stderr.print("findesk: interrupted")
        sys.exit(130)
    except Exception as exc:  # the last resort; known problems are Err values handled above
        if os.environ.get("FINDESK_DEBUG"):
            raise
        stderr.print(
            f"findesk: internal error: {type(exc).__name__}: {exc} (set FINDESK_DEBUG=1 for a traceback)",
            markup=False,
            highlight=False,
        )
        sys.exit(1)
