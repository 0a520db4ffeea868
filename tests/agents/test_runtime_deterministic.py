"""The deterministic path: playbook stages, concurrency, events, errors as warnings."""

from __future__ import annotations

from runtime_kit import Harness, Lab, Q, Report, make_role


async def test_playbook_runs_each_stage_concurrently_and_composes(paired: Harness) -> None:
    harness, lab = paired, paired.lab
    outcome = await harness.runtime().run(make_role(), Q(symbol="AAA"), harness.tracer)

    assert isinstance(outcome.output, Report)
    assert (outcome.output.price, outcome.output.volume, outcome.output.doubled) == (101.5, 12345, 203.0)
    assert outcome.mode == "deterministic"
    assert "no model" in outcome.mode_reason
    assert outcome.tool_calls == 3
    # stage 1's two calls were running at the same time; stage 2 started only after both ended
    assert lab.met == {"price": True, "volume": True}
    assert lab.position("start", "double") > max(lab.position("end", "price"), lab.position("end", "volume"))


async def test_events_nest_under_the_agent(paired: Harness) -> None:
    harness = paired  # price and volume both start before either ends: a fixed event order
    await harness.runtime().run(make_role(), Q(symbol="AAA"), harness.tracer)
    events = harness.sink.events
    assert harness.types() == [
        "agent_start",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "tool_call",
        "tool_result",
        "agent_end",
    ]
    start = events[0]
    assert start.data.mode == "deterministic"  # type: ignore[union-attr]
    by_id = {e.id: e for e in events}
    for event in events[1:]:
        if event.type == "tool_result":
            call = by_id[event.parent_id]  # type: ignore[index]
            assert call.type == "tool_call" and call.data.call_id == event.data.call_id  # type: ignore[union-attr]
            assert call.parent_id == start.id
        elif event.type != "agent_end":
            assert event.parent_id == start.id
    assert all(e.run_id == start.run_id for e in events)
    assert [e.seq for e in events] == list(range(1, len(events) + 1))
    result = next(e for e in events if e.type == "tool_result")
    assert result.data.result in ({"price": 101.5}, {"volume": 12345})  # type: ignore[union-attr]


async def test_a_failed_source_is_a_warning_in_the_output_not_a_crash(lab: Lab) -> None:
    harness = Harness(lab, lab.registry(price_fails=True))
    outcome = await harness.runtime().run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.output.price is None
    assert outcome.output.doubled is None  # stage 2 had nothing to double and planned nothing
    assert outcome.output.volume == 12345
    assert outcome.output.warnings == ["unavailable: price is down"]
    failed = [e for e in harness.sink.of_type("tool_result") if not e.data.ok]  # type: ignore[union-attr]
    assert [e.data.error_code for e in failed] == ["unavailable"]  # type: ignore[union-attr]


async def test_deterministic_mode_can_be_forced_even_with_a_model(harness: Harness) -> None:
    from runtime_kit import chain

    from findesk.testing.fake_models import ScriptedModel

    model = ScriptedModel([])
    outcome = await harness.runtime(chain(model)).run(
        make_role(), Q(symbol="AAA"), harness.tracer, mode="deterministic"
    )
    assert outcome.mode == "deterministic" and outcome.mode_reason == "deterministic mode was requested"
    assert model.requests == []
