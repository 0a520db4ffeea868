"""The event envelope and the tracer: what every sink, the audit log and the API rely on."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from findesk.core.events.model import (
    EVENT_TYPES,
    AgentEnd,
    AgentStart,
    Done,
    Error,
    Event,
    LlmCall,
    Payload,
    RunWarning,
    SectionReady,
    Token,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.events.trace import EventBus, MemorySink, Tracer, new_run_id

ONE_OF_EACH: list[Payload] = [
    Token(text="AAPL "),
    ToolCallStarted(call_id="c1", name="get_quote", arguments={"symbol": "AAPL", "fields": ["price"]}),
    ToolResultReady(
        call_id="c1", name="get_quote", ok=False, latency_ms=2.5, summary="none", error_code="no_data"
    ),
    LlmCall(provider="openai", model="gpt-4.1", ok=True, input_tokens=10, cost_usd=0.001),
    AgentStart(agent="quote", mode="deterministic", inputs={"symbol": "AAPL"}),
    AgentEnd(agent="quote", mode="deterministic", ok=True, summary="fine"),
    RunWarning(code="stale", message="old"),
    SectionReady(name="risks", title="Top risks", index=4, html="<p>x</p>"),
    Done(result={"price": 232.14}, summary="done"),
    Error(code="unavailable", message="down"),
]


def test_every_kind_round_trips_through_json() -> None:
    assert sorted(p.type for p in ONE_OF_EACH) == sorted(EVENT_TYPES)
    sink = MemorySink()
    tracer = Tracer(EventBus([sink]))
    for payload in ONE_OF_EACH:
        tracer.emit(payload)
    for event in sink.events:
        back = Event.from_json(event.to_json())
        assert back == event
        assert type(back.data) is type(event.data)
        assert back.ts.utcoffset() is not None
        assert json.loads(event.to_json()) == event.to_dict()


def test_unknown_kinds_and_fields_are_rejected() -> None:
    good = MemorySink()
    Tracer(EventBus([good])).emit(RunWarning(code="w", message="m"))
    data = good.events[0].to_dict()
    with pytest.raises(ValidationError):
        Event.model_validate({**data, "data": {"type": "telemetry", "x": 1}})
    with pytest.raises(ValidationError):
        Event.model_validate({**data, "extra": True})
    with pytest.raises(ValidationError):
        Event.model_validate({**data, "data": {**data["data"], "colour": "red"}})


def test_child_tracers_share_one_sequence_and_nest_by_parent() -> None:
    sink = MemorySink()
    tracer = Tracer(EventBus([sink]))
    root = tracer.emit(AgentStart(agent="desk", mode="model"))
    child = tracer.child(root.id, "analyst")
    call = child.emit(ToolCallStarted(call_id="c", name="get_quote", arguments={}))
    child.emit(
        ToolResultReady(call_id="c", name="get_quote", ok=True, latency_ms=1, summary="s"), parent_id=call.id
    )
    tracer.emit(Done())

    assert [e.seq for e in sink.events] == [1, 2, 3, 4]
    assert {e.run_id for e in sink.events} == {tracer.run_id}
    assert [e.parent_id for e in sink.events] == [None, root.id, call.id, None]
    assert [e.agent for e in sink.events] == [None, "analyst", "analyst", None]
    assert len({e.id for e in sink.events}) == 4


def test_run_ids_sort_by_start_time_and_do_not_collide() -> None:
    ids = [new_run_id() for _ in range(200)]
    assert len(set(ids)) == 200
    assert ids == sorted(ids, key=lambda i: i[:11])


def test_a_failing_sink_is_detached_and_the_run_goes_on(capsys: pytest.CaptureFixture[str]) -> None:
    class Broken:
        def write(self, event: Event) -> None:
            raise OSError("disk full")

        def close(self) -> None:
            pass

    sink = MemorySink()
    tracer = Tracer(EventBus([Broken(), sink]))
    tracer.emit(RunWarning(code="a", message="1"))
    tracer.emit(RunWarning(code="b", message="2"))
    assert len(sink.events) == 2
    err = capsys.readouterr().err
    assert err.count("disk full") == 1 and "Broken" in err
