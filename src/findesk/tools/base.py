"""Tools: typed functions agents call. Declared once, run by one executor.

Rules:
- A tool is data: a name, a description for models, a pydantic arguments model, an async function
  returning ``Result``, and a ``summarize`` that turns its value into the compact text a model sees.
- ``execute`` never raises: bad arguments are ``invalid_input`` (with the validation message, so a
  model can correct itself), a slow tool is ``timeout``, an exception inside a tool is
  ``unavailable`` naming the tool.
- A tool that returns text written by strangers says its genre (``third_party``): its result is
  screened by ``tools.quarantine`` before anyone sees it, and a flagged paragraph is withheld (marked
  in the value, kept in ``ToolOutcome.quarantined`` for the audit).
- Results are size-capped twice: the summary a model reads (``MAX_SUMMARY_CHARS``) and the full
  result kept for the audit log (``MAX_RESULT_CHARS`` of JSON; larger results keep a marked preview).
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, Any, TypeVar, cast

from pydantic import BaseModel, TypeAdapter, ValidationError

from findesk.core.llm.types import ToolSpec
from findesk.core.result import Err, ErrorCode, Ok, Result, validation_reason
from findesk.tools.quarantine import Genre, Quarantined, quarantine

if TYPE_CHECKING:
    from findesk.data.context import DataContext
    from findesk.data.router import DataRouter
    from findesk.knowledge.filings.sections import SectionService

S = TypeVar("S")
MAX_SUMMARY_CHARS = 4_000
MAX_RESULT_CHARS = 200_000
_ANY = TypeAdapter(Any)


@dataclass
class ToolContext:
    """What tools may use: the data router, the filing-section service, the run's data context, and
    any further services (retrieval, memory, a sandbox, mail …) looked up by type or by name.

    The router and the section service are fields because every data tool needs them; a later service
    is registered in ``services`` (see ``tools.catalog.SERVICE_FACTORIES``) and read with ``service``
    or ``require``, so adding one never touches the tools that do not use it.
    """

    router: DataRouter
    sections: SectionService
    context: DataContext
    services: dict[type | str, object] = field(default_factory=dict)

    @property
    def as_of(self) -> date:
        return self.context.as_of

    def service(self, key: type[S] | str) -> S | None:
        """The service registered under ``key`` (its type, or a name), or None."""
        return cast("S | None", self.services.get(key))

    def require(self, key: type[S] | str) -> Result[S]:
        """The service under ``key``, or ``not_configured`` naming it, for a tool to return as is."""
        found = self.services.get(key)
        if found is None:
            name = key if isinstance(key, str) else key.__name__
            return Err(ErrorCode.NOT_CONFIGURED, f"{name} is not available in this run")
        return Ok(cast(S, found))

    def with_context(self, context: DataContext) -> ToolContext:
        """The same open services for another run's data context (as-of date): services are shared,
        the as-of date is per run."""
        return ToolContext(self.router, self.sections, context, self.services)


ToolFn = Callable[[Any, ToolContext], Awaitable[Result[Any]]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    args: type[BaseModel]
    fn: ToolFn
    summarize: Callable[[Any], str] = field(default=lambda value: _default_summary(value))
    timeout_s: float = 30.0
    third_party: Genre | None = None  # the genre of stranger-written text it returns, if any
    # acts on the machine that runs it (sends email, writes files): an agent of a local run may call it,
    # an interface never offers it to a remote caller (the MCP server over HTTP)
    local_only: bool = False

    def spec(self) -> ToolSpec:
        schema = self.args.model_json_schema()
        schema.pop("title", None)
        return ToolSpec(name=self.name, description=self.description, parameters=schema)


@dataclass(frozen=True)
class ToolOutcome:
    name: str
    arguments: dict[str, Any]
    result: Result[Any]
    summary: str  # what a model sees: the value's summary, or the error's one-line message
    payload: Any  # JSON-able full result (or error), capped
    truncated: bool
    latency_ms: float
    quarantined: tuple[Quarantined, ...] = ()  # paragraphs withheld from this result, with why
    third_party: bool = False  # the result carries stranger-written text (fenced as data for a model)

    @property
    def ok(self) -> bool:
        return isinstance(self.result, Ok)

    @property
    def error_code(self) -> str | None:
        return self.result.code.value if isinstance(self.result, Err) else None


class ToolRegistry:
    def __init__(self, tools: Iterable[Tool] = ()) -> None:
        self._tools: dict[str, Tool] = {}
        for tool in tools:
            self.register(tool)

    def register(self, tool: Tool) -> None:
        if tool.name in self._tools:
            raise ValueError(f"tool {tool.name!r} is registered twice")
        self._tools[tool.name] = tool

    def get(self, name: str) -> Tool | None:
        return self._tools.get(name)

    def names(self) -> list[str]:
        return list(self._tools)

    def subset(self, names: Iterable[str]) -> list[Tool]:
        missing = [n for n in names if n not in self._tools]
        if missing:
            raise KeyError(f"unknown tools: {', '.join(missing)}")
        return [self._tools[n] for n in names]

    def __contains__(self, name: object) -> bool:
        return name in self._tools


async def execute(
    tool: Tool | None, name: str, arguments: Mapping[str, Any], ctx: ToolContext
) -> ToolOutcome:
    """Validate, run with a timeout, summarize and cap. Never raises."""
    started = time.perf_counter()
    args_dict = dict(arguments)
    result: Result[Any]
    if tool is None:
        result = Err(ErrorCode.INVALID_INPUT, f"there is no tool called {name!r}")
    else:
        try:
            parsed = tool.args.model_validate(args_dict)
        except ValidationError as exc:
            result = Err(
                ErrorCode.INVALID_INPUT,
                f"bad arguments for {name}: {validation_reason(exc, whole='arguments')}",
            )
        else:
            result = await _run(tool, parsed, ctx)
    withheld: list[Quarantined] = []
    if isinstance(result, Ok) and tool is not None and tool.third_party is not None:
        try:
            cleaned, withheld = await asyncio.to_thread(quarantine, result.value, tool.third_party)
            result = Ok(cleaned)
        except Exception as exc:  # fail closed: text that could not be screened is not passed on
            result = Err(
                ErrorCode.UNAVAILABLE,
                f"{name}: its result could not be screened for injected instructions "
                f"({type(exc).__name__}), so it is withheld",
                name,
            )
    latency_ms = (time.perf_counter() - started) * 1000
    if isinstance(result, Ok):
        summary = cap_text(_safe_summary(tool, result.value), MAX_SUMMARY_CHARS)
        payload, truncated = cap_payload(result.value)
    else:
        summary = result.message()
        payload, truncated = result.to_dict(), False
    third = tool is not None and tool.third_party is not None
    return ToolOutcome(
        name, args_dict, result, summary, payload, truncated, latency_ms, tuple(withheld), third
    )


async def _run(tool: Tool, args: BaseModel, ctx: ToolContext) -> Result[Any]:
    try:
        return await asyncio.wait_for(tool.fn(args, ctx), timeout=tool.timeout_s)
    except TimeoutError:
        return Err(ErrorCode.TIMEOUT, f"{tool.name} did not finish within {tool.timeout_s:g} s", tool.name)
    except Exception as exc:
        return Err(ErrorCode.UNAVAILABLE, f"{tool.name} failed: {type(exc).__name__}: {exc}", tool.name)


def _safe_summary(tool: Tool | None, value: Any) -> str:
    try:
        return tool.summarize(value) if tool is not None else _default_summary(value)
    except Exception as exc:
        return f"(summary unavailable: {type(exc).__name__}) {_default_summary(value)}"


def cap_payload(value: Any, limit: int = MAX_RESULT_CHARS) -> tuple[Any, bool]:
    """The JSON-able value, or a marked preview when its JSON is longer than ``limit``."""
    plain = _ANY.dump_python(value, mode="json")
    text = json.dumps(plain, ensure_ascii=False, separators=(",", ":"))
    if len(text) <= limit:
        return plain, False
    return {"truncated": True, "chars": len(text), "preview": text[:limit]}, True


def _default_summary(value: Any) -> str:
    plain = _ANY.dump_python(value, mode="json")
    return json.dumps(plain, ensure_ascii=False, separators=(",", ":"))


def cap_text(text: str, limit: int) -> str:
    """``text`` cut to ``limit`` characters, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[: limit - 40].rstrip() + f" … [{len(text) - limit + 40} more characters cut]"
