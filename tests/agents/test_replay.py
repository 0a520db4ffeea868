"""A model run replayed from its events: the recorded outputs come back in order, tool calls are repeated,
fall-backs fall back the same way, and a replay spends nothing."""

from __future__ import annotations

import json

from runtime_kit import Harness, Lab, Q, Report, chain, make_role

from findesk.agents.role import Caps
from findesk.agents.runtime import AgentRuntime
from findesk.agents.runtime.replay import ReplayModel, recorded_agents, recorded_models
from findesk.core.events.model import AgentEnd, AgentStart, Event, LlmCall, ToolCallStarted
from findesk.core.llm.types import ModelRequest, UserText
from findesk.core.result import Err, ErrorCode, Ok
from findesk.testing.fake_models import Failure, ScriptedModel, reply, submit

FIRST = Report(symbol="AAA", price=101.5, volume=12345, summary="first model-written report")
SECOND = Report(symbol="AAA", price=101.5, summary="second model-written report, after a rebuttal")


def _in_a_run(h: Harness) -> Harness:
    """Roles run inside a workflow run: under its opening event, as every recorded run has them."""
    opening = h.tracer.emit(AgentStart(agent="a_workflow", mode="auto"))
    h.tracer = h.tracer.child(opening.id)
    return h


def _replayer(recorded: Harness, lab: Lab) -> tuple[Harness, AgentRuntime]:
    again = _in_a_run(Harness(lab, lab.registry()))
    runtime = AgentRuntime(
        again.registry,
        recorded.runtime().ctx,
        models=recorded_models(recorded.sink.events),
        budget=again.budget,
    )
    return again, runtime


def _ends(h: Harness) -> list[AgentEnd]:
    return [e.data for e in h.sink.events if isinstance(e.data, AgentEnd)]


async def test_agent_end_keeps_the_model_output_and_a_replay_gives_it_back_in_order(
    harness: Harness, lab: Lab
) -> None:
    _in_a_run(harness)
    model = ScriptedModel([submit(FIRST), submit(SECOND)])
    runtime = harness.runtime(chain(model))
    role = make_role()
    for _ in range(2):  # one role, two runs (like a debater's two turns)
        await runtime.run(role, Q(symbol="AAA"), harness.tracer)
    assert [end.output for end in _ends(harness)] == [
        FIRST.model_dump(mode="json"),
        SECOND.model_dump(mode="json"),
    ]
    assert all(end.stopped is None for end in _ends(harness))

    again, replay = _replayer(harness, lab)
    outcomes = [await replay.run(role, Q(symbol="AAA"), again.tracer) for _ in range(2)]
    assert [o.output for o in outcomes] == [FIRST, SECOND]
    assert all(o.mode == "model" and not o.fell_back for o in outcomes)
    assert all(o.cost_usd == 0.0 and o.usage.input_tokens == o.usage.output_tokens == 0 for o in outcomes)
    calls = [e.data for e in again.sink.events if isinstance(e.data, LlmCall)]
    assert [(c.provider, c.cost_usd, c.input_tokens) for c in calls] == [("replay", 0.0, 0)] * 2
    assert again.budget.spent_usd == 0.0
    # a third run of the role has no record left: it runs deterministically
    third = await replay.run(role, Q(symbol="AAA"), again.tracer)
    assert third.mode == "deterministic" and third.output.summary == "deterministic report for AAA"


async def test_the_models_own_tool_calls_are_repeated_turn_by_turn(harness: Harness, lab: Lab) -> None:
    _in_a_run(harness)
    model = ScriptedModel(
        [reply("", [("volume", {"symbol": "AAA"})]), reply("", [("double", {"x": 3.0})]), submit(FIRST)]
    )
    role = make_role(prefetch=False)
    await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)
    (record,) = recorded_agents(harness.sink.events)["tester"]
    assert [t.calls for t in record.turns] == [
        (("volume", {"symbol": "AAA"}),),
        (("double", {"x": 3.0}),),
        (),
    ]

    again, replay = _replayer(harness, lab)
    outcome = await replay.run(role, Q(symbol="AAA"), again.tracer)
    assert outcome.output == FIRST and outcome.iterations == 3
    asked = [
        (e.data.name, e.data.arguments) for e in again.sink.events if isinstance(e.data, ToolCallStarted)
    ]
    assert asked == [("volume", {"symbol": "AAA"}), ("double", {"x": 3.0})]


async def test_a_deterministic_agent_end_keeps_no_output_and_replays_deterministically(
    harness: Harness, lab: Lab
) -> None:
    _in_a_run(harness)
    outcome = await harness.runtime().run(make_role(), Q(symbol="AAA"), harness.tracer)
    (end,) = _ends(harness)
    assert end.mode == "deterministic" and end.output is None and end.stopped is None
    again, replay = _replayer(harness, lab)
    replayed = await replay.run(make_role(), Q(symbol="AAA"), again.tracer, mode="model")
    assert replayed.mode == "deterministic" and replayed.output == outcome.output
    assert [e.data.code for e in again.sink.of_type("warning")] == ["model_not_configured"]  # type: ignore[union-attr]


async def _fallback_round_trip(harness: Harness, lab: Lab, model: ScriptedModel, role_caps: Caps) -> str:
    """Record a model run that falls back, replay it, and return the replay's stop code (checked equal
    in fell_back and output to the recording)."""
    _in_a_run(harness)
    role = make_role(caps=role_caps, prefetch=False)
    recorded = await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)
    assert recorded.fell_back and _ends(harness)[0].output is None
    assert _ends(harness)[0].stopped == recorded.stopped
    again, replay = _replayer(harness, lab)
    replayed = await replay.run(role, Q(symbol="AAA"), again.tracer)
    assert replayed.fell_back and replayed.mode == "model"
    assert replayed.output == recorded.output  # the deterministic composer, as recorded
    assert replayed.stopped is not None
    if replayed.stopped in ("invalid_output", "max_iterations"):  # the same failure, stated the same way
        assert replayed.warnings == recorded.warnings
    else:  # an outage is not replayed as such: the replay says the recorded model was unavailable
        assert "recorded run: the model was unavailable" in replayed.warnings[0]
    return replayed.stopped


async def test_an_invalid_output_replays_as_invalid_output(harness: Harness, lab: Lab) -> None:
    bad = {"symbol": "AAA", "summary": "no"}  # summary too short: fails validation
    model = ScriptedModel([submit(bad), submit(bad)])
    assert await _fallback_round_trip(harness, lab, model, Caps(max_iterations=4)) == "invalid_output"


async def test_a_report_rejected_once_then_repaired_replays_the_same_two_turns(
    harness: Harness, lab: Lab
) -> None:
    _in_a_run(harness)
    bad = {"symbol": "AAA", "summary": "no"}
    model = ScriptedModel([submit(bad, "First try."), submit(FIRST)])
    role = make_role(prefetch=False)
    await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)
    (end,) = _ends(harness)
    assert end.rejected == [{"turn": 1, "report": bad}] and end.output == FIRST.model_dump(mode="json")

    again, replay = _replayer(harness, lab)
    outcome = await replay.run(role, Q(symbol="AAA"), again.tracer)
    assert outcome.output == FIRST and outcome.iterations == 2 and not outcome.fell_back
    assert [e.data.text for e in again.sink.of_type("token")] == ["First try."]  # type: ignore[union-attr]


async def test_running_out_of_turns_replays_as_running_out_of_turns(harness: Harness, lab: Lab) -> None:
    model = ScriptedModel([reply("", [("volume", {"symbol": "AAA"})]) for _ in range(3)])
    assert await _fallback_round_trip(harness, lab, model, Caps(max_iterations=3)) == "max_iterations"


async def test_an_unavailable_model_replays_as_unavailable(harness: Harness, lab: Lab) -> None:
    model = ScriptedModel([Failure(ErrorCode.UNAVAILABLE, "provider down")])
    assert await _fallback_round_trip(harness, lab, model, Caps(max_iterations=4)) == "model_unavailable"


async def test_the_workflows_closing_event_is_not_a_role_run(harness: Harness) -> None:
    # a one-node workflow may carry its role's name; its closing agent_end is no record of the role
    opening = harness.tracer.emit(AgentStart(agent="tester", mode="model"))
    scope = harness.tracer.child(opening.id)
    await harness.runtime(chain(ScriptedModel([submit(FIRST)]))).run(make_role(), Q(symbol="AAA"), scope)
    scope.emit(AgentEnd(agent="tester", mode="model", ok=True, summary="the workflow ended"))
    records = recorded_agents(harness.sink.events)["tester"]
    assert [r.output for r in records] == [FIRST.model_dump(mode="json")]


def test_an_agent_end_recorded_before_outputs_were_kept_still_loads() -> None:
    old = {
        "id": "e1",
        "run_id": "r1",
        "seq": 3,
        "ts": "2025-01-02T03:04:05Z",
        "parent_id": "e0",
        "data": {"type": "agent_end", "agent": "tester", "mode": "model", "ok": True, "summary": "s"},
    }
    event = Event.from_json(json.dumps(old))
    assert isinstance(event.data, AgentEnd)
    assert event.data.output is None and event.data.stopped is None
    (record,) = recorded_agents([event])["tester"]
    assert record.lacks_output  # a replay refuses it rather than guessing


async def test_the_replay_model_itself_never_raises_and_says_why_it_cannot_answer() -> None:
    from findesk.agents.runtime.replay import RecordedAgent

    request = ModelRequest(system="s", messages=(UserText(text="go"),))
    down = ReplayModel(RecordedAgent("tester", "model", fell_back=True, stopped="budget_exceeded"))
    answer = await down.complete(request)
    assert isinstance(answer, Err) and answer.code is ErrorCode.UNAVAILABLE
    assert "recorded run" in answer.reason
    silent = ReplayModel(RecordedAgent("tester", "model", fell_back=True, stopped="invalid_output"))
    said = await silent.complete(request)
    assert isinstance(said, Ok) and said.value.tool_calls == () and said.value.text
