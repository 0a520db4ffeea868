"""A workflow is a spec: what it takes, the graph it runs, how its state becomes a typed report, what it
streams, and how the report renders. One runner (``workflows.runner.run_workflow``) runs every spec.

Rules:
- A spec is data. It never opens tools, emits opening/closing events or catches errors: the runner
  owns that envelope, identically for every workflow and for single-agent runs.
- Graph state is serializable (pydantic models, dates, plain containers), so a run can be checkpointed
  and resumed; everything a node needs that is not state (the agent runtime, the tracer, the mode, the
  data context) reaches it through LangGraph's runtime context as a ``RunKit``, never a closure.
- Progress leaves a node through LangGraph's stream writer; the spec's ``stream`` handler turns those
  chunks into ``section`` events while the graph runs.
- ``check`` refuses out-of-scope or malformed input before any tool is called; ``precheck`` may refuse
  with the tools open (e.g. an unknown ticker) before the graph starts.
- ``local_only`` fields name files or folders of the machine the run happens on: a remote caller (HTTP,
  with or without a key) may not set them, and the schema the HTTP API lists leaves them out.
"""

from __future__ import annotations

import operator
import sys
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import date
from enum import Enum
from typing import TYPE_CHECKING, Annotated, Any, Generic, Protocol, TypeVar

from pydantic import BaseModel, Field

from findesk.agents.runtime import AgentRuntime
from findesk.agents.runtime.outcome import RequestedMode
from findesk.core.events.model import SectionReady
from findesk.core.events.trace import MemorySink, Tracer
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.context import DataContext
from findesk.guardrails.number_trace import NumberCollector, NumberPool
from findesk.tools.base import ToolContext
from findesk.workflows import records
from findesk.workflows.records import AgentRecord, ToolCallRecord

if TYPE_CHECKING:
    from langgraph.graph import StateGraph

    from findesk.core.access.keys import ApiKey
    from findesk.core.config import Settings

InT = TypeVar("InT", bound=BaseModel)
RepT = TypeVar("RepT", bound=BaseModel)


class AgentNote(BaseModel):
    """What the state keeps of one agent's run (its typed output lives in the workflow's own keys)."""

    mode: str
    warnings: list[str] = Field(default_factory=list)


# The state key every agent node writes; parallel nodes merge their notes.
AgentNotes = Annotated[dict[str, AgentNote], operator.or_]


async def _nothing() -> None:
    return None


@dataclass(frozen=True)
class RunKit:
    """What graph nodes use that is not state: the agent runtime, the tracer of the run's scope, the
    requested mode and the data context. Passed as LangGraph's runtime context.

    ``durable``: awaited by a node when its update is ready, before LangGraph checkpoints it; it makes
    the node's events durable first (the audit log flushed), so a run killed after a checkpoint never
    resumes with a step whose events were lost."""

    runtime: AgentRuntime
    tracer: Tracer
    mode: RequestedMode
    context: DataContext
    durable: Callable[[], Awaitable[None]] = _nothing
    # the run's settings, for a node that hands work to another process (the pipeline's desk runs on
    # an executor open their own tools there); None where a run was built without them
    settings: Settings | None = None


@dataclass(frozen=True)
class RunFacts:
    """The run's audit facts, read from its events when the graph is done."""

    run_id: str
    data_mode: str
    as_of: date
    mode: str  # "deterministic" / "model"
    agents: list[AgentRecord]
    tool_calls: list[ToolCallRecord]
    warnings: list[str]  # the agents' own warnings (fallbacks, budget, invalid output)
    round_trips: int

    def usage(self) -> dict[str, Any]:
        """The report fields every workflow carries for audit: its agents and tool calls, model calls,
        tokens and cost (summed over the agents)."""
        return {
            "agents": self.agents,
            "tool_calls": self.tool_calls,
            "model_calls": sum(a.model_turns for a in self.agents),
            "input_tokens": sum(a.input_tokens for a in self.agents),
            "output_tokens": sum(a.output_tokens for a in self.agents),
            "cost_usd": round(sum(a.cost_usd for a in self.agents), 6),
        }


DatedT = TypeVar("DatedT", bound=BaseModel)


def on_its_date(
    name: str, inputs: DatedT, context: DataContext, **update: Any
) -> Result[tuple[DatedT, DataContext]]:
    """A ``prepare`` for a workflow whose input ``date`` (default: the run's as-of date) is its run's
    as-of date, so nothing after it is read; a later date is refused (``refuse_later``). ``update``:
    more input fields to settle with the date (e.g. default parameters)."""
    day: date = getattr(inputs, "date", None) or context.as_of
    refused = refuse_later(name, day, context)
    if refused is not None:
        return refused
    prepared = inputs.model_copy(update={"date": day, **update})
    return Ok((prepared, context.model_copy(update={"as_of": day, "as_of_is_default": False})))


def refuse_later(name: str, day: date, context: DataContext) -> Err | None:
    """A workflow date after the run's as-of date, refused with the command that runs it (never moved
    silently): the date a workflow decides on is its run's as-of date."""
    if day > context.as_of:
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{name}: the date {day.isoformat()} is after the run's as-of date {context.as_of.isoformat()}; "
            f"pass --as-of {day.isoformat()} (or later) to run it",
        )
    return None


@dataclass
class RunScope:
    """One run as its stream handler and assembler see it."""

    run_id: str
    opening_id: str
    tracer: Tracer  # the workflow's scope: its events nest under the opening event
    memory: MemorySink  # every event of the run so far
    context: DataContext
    sections: tuple[tuple[str, str], ...] = ()  # the spec's streamed sections (name, title), in order
    numbers: NumberCollector = field(default_factory=NumberCollector)
    _records: tuple[int, list[AgentRecord], list[ToolCallRecord], int] | None = None

    def section(self, name: str, html: str, message: str | None = None) -> None:
        """Emit the spec's section ``name`` (its title and 1-based position from ``sections``)."""
        names = [n for n, _title in self.sections]
        index = names.index(name)
        self.tracer.emit(
            SectionReady(
                name=name, title=self.sections[index][1], index=index + 1, html=html, message=message
            )
        )

    def pool(self, *extra: object) -> NumberPool:
        """The numbers of every tool result so far, plus ``extra`` (each tool result walked once)."""
        return records.collect_tool_numbers(list(self.memory.events), self.numbers).pool(*extra)

    def facts(self, state: Mapping[str, Any], *, skip_warnings: tuple[str, ...] = ()) -> RunFacts:
        """The run's audit facts; the records are read from the events once per number of events, so
        the assembler and the runner's closing event share one pass."""
        events = list(self.memory.events)
        if self._records is None or self._records[0] != len(events):
            self._records = (
                len(events),
                records.agent_records(events, skip=self.opening_id),
                records.tool_calls(events),
                records.model_round_trips(events),
            )
        _, agents, calls, round_trips = self._records
        notes: dict[str, AgentNote] = dict(state.get("agents") or {})
        modes = {n.mode for n in notes.values()}
        return RunFacts(
            run_id=self.run_id,
            data_mode=self.context.describe(),
            as_of=self.context.as_of,
            mode="model" if "model" in modes else "deterministic",
            agents=agents,
            tool_calls=calls,
            warnings=[w for name, n in notes.items() if name not in skip_warnings for w in n.warnings],
            round_trips=round_trips,
        )


@dataclass(frozen=True)
class RunCaller:
    """Who starts a run, as the interface knows it (the API key, or the local user of the CLI and the
    Python API): a workflow with per-user state (memory) binds its input to it with ``bind_caller``, so
    a request body can never name another user."""

    user: str  # "local", or "key:<id>" for an API key
    tier: str | None = None  # the key's tier; None for the local user
    # over HTTP, with a key or without one (a server that requires none): the request may not name
    # files or folders of the machine it runs on, whoever the user is
    remote: bool = False

    @classmethod
    def of_key(cls, key: ApiKey | None) -> RunCaller:
        """The HTTP caller an API key is (its user, whose memory the key reads and writes, is ``key:<id>``
        wherever a key is turned into a user); no key is the local user, still remote."""
        if key is None:
            return cls(user=LOCAL_CALLER.user, remote=True)
        return cls(user=f"key:{key.id}", tier=key.tier, remote=True)


LOCAL_CALLER = RunCaller(user="local")


class StreamHandler(Protocol):
    """Turns the graph's progress chunks into ``section`` events; ``finish`` emits the rest."""

    def update(self, chunk: Any) -> None: ...

    def finish(self, report: Any) -> None: ...


Renderer = Callable[[Any, bool], str]  # (report, details) -> text


@dataclass(frozen=True)
class WorkflowSpec(Generic[InT, RepT]):
    name: str  # the registry key: CLI command, ``POST /v1/runs/{name}``, audit title
    title: str
    description: str
    input_model: type[InT]
    report_model: type[RepT]
    graph: Callable[[], StateGraph]  # type: ignore[type-arg]  # uncompiled; the runner compiles it
    initial_state: Callable[[InT, DataContext], dict[str, Any]]
    assemble: Callable[[Mapping[str, Any], RunScope, StreamHandler | None], RepT]
    headline: Callable[[RepT], str]
    check: Callable[[InT], Result[InT]] = Ok
    precheck: Callable[[ToolContext, InT], Awaitable[Err | None]] | None = None
    stream: Callable[[RunScope, InT], StreamHandler] | None = None
    sections: tuple[tuple[str, str], ...] = ()  # (key, title) of the streamed sections, in order
    renderers: Mapping[str, Renderer] = field(default_factory=dict)  # "markdown", "html", "terminal"
    cli_arguments: tuple[str, ...] = ()  # input fields taken as positional arguments by the CLI
    opening_inputs: Callable[[InT, DataContext], dict[str, Any]] | None = None
    # the input again from the opening event's ``inputs`` (``findesk runs resume``); default: minus as_of
    resume_inputs: Callable[[Mapping[str, Any]], dict[str, Any]] | None = None
    kind: str = "workflow"  # "workflow" or "agent" (a one-node workflow around one role)
    # the input bound to its caller (identity, tier), or why this caller may not run it so
    bind_caller: Callable[[InT, RunCaller], Result[InT]] | None = None
    aliases: tuple[str, ...] = ()  # further CLI command names (e.g. "ask" for "research")
    # the input and data context the run really uses (a strategy file read, a week's last day as the
    # as-of date), or why it cannot run; called before the opening event, so it must be idempotent
    prepare: Callable[[InT, DataContext, Settings], Result[tuple[InT, DataContext]]] | None = None
    # after the report is assembled: write what the workflow keeps outside the audit log (a run folder,
    # a history) and return the report as published; never raises (problems become report warnings)
    publish: Callable[[InT, RepT, Settings], RepT] | None = None
    # input fields that name files or folders of the machine the workflow runs on (a strategy file, an
    # output folder): set only by a local caller (CLI, Python API); a remote caller's request naming one
    # is refused, and the input schema the HTTP API lists leaves them out
    local_only: tuple[str, ...] = ()

    def parse(self, raw: InT | Mapping[str, Any]) -> Result[InT]:
        """The input as the model (validated) and checked, or why it is refused."""
        from pydantic import ValidationError

        from findesk.core.result import ErrorCode, validation_reason

        if isinstance(raw, self.input_model):
            return self.check(raw)
        if not isinstance(raw, Mapping):  # a list, a string, None: never coerced into fields
            return Err(ErrorCode.INVALID_INPUT, f"{self.name}: the input must be a JSON object")
        try:
            parsed = self.input_model.model_validate(dict(raw))
        except ValidationError as exc:
            return Err(ErrorCode.INVALID_INPUT, f"{self.name}: {validation_reason(exc, limit=1)}")
        return self.check(parsed)

    def prepared(
        self, inputs: InT, context: DataContext, settings: Settings
    ) -> Result[tuple[InT, DataContext]]:
        """The input and data context the run uses (unchanged without a ``prepare`` hook)."""
        return Ok((inputs, context)) if self.prepare is None else self.prepare(inputs, context, settings)

    def bind(self, inputs: InT, caller: RunCaller) -> Result[InT]:
        """``inputs`` bound to ``caller`` (unchanged for a workflow without per-user state); a remote
        caller may not set a ``local_only`` field."""
        if caller.remote:
            named = [f for f in self.local_only if getattr(inputs, f, None) is not None]
            if named:
                from findesk.core.result import ErrorCode

                fields = ", ".join(f"`{f}`" for f in named)
                return Err(
                    ErrorCode.INVALID_INPUT,
                    f"{self.name}: {fields} name the server's files, folders or machines: "
                    "for local runs only",
                )
        return Ok(inputs) if self.bind_caller is None else self.bind_caller(inputs, caller)

    def remote_schema(self) -> dict[str, Any]:
        """The input's JSON schema as a remote caller may fill it (``local_only`` fields left out)."""
        schema = self.input_model.model_json_schema()
        if not self.local_only:
            return schema
        props = {k: v for k, v in schema.get("properties", {}).items() if k not in self.local_only}
        required = [r for r in schema.get("required", []) if r not in self.local_only]
        return {**schema, "properties": props, **({"required": required} if "required" in schema else {})}

    def inputs_from_opening(self, opening: Mapping[str, Any]) -> dict[str, Any]:
        if self.resume_inputs is not None:
            return self.resume_inputs(opening)
        return {k: v for k, v in opening.items() if k != "as_of"}

    def state_classes(self) -> list[type]:
        """The data classes defined beside the graph (a plug-in's own models): a checkpoint store
        rebuilds only allow-listed classes, and findesk's are allowed already."""
        module = sys.modules.get(self.graph.__module__)
        if module is None or module.__name__.startswith("findesk."):
            return []
        return [
            v
            for v in vars(module).values()
            if isinstance(v, type) and issubclass(v, BaseModel | Enum) and v.__module__ == module.__name__
        ]

    def opening(self, inputs: InT, context: DataContext) -> dict[str, Any]:
        if self.opening_inputs is not None:
            return self.opening_inputs(inputs, context)
        return {**inputs.model_dump(mode="json"), "as_of": context.as_of.isoformat()}
