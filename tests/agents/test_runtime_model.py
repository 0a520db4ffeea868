"""The model-driven path: tool loop, parallel calls, caps, budget, fallback models, repair."""

from __future__ import annotations

from runtime_kit import SLEEPS, Harness, Lab, Q, Report, chain, make_role

from findesk.agents.role import Caps
from findesk.core.llm.types import TokenUsage, ToolResults
from findesk.core.result import ErrorCode
from findesk.testing.fake_models import Failure, ScriptedModel, rate_limited, reply, submit

GOOD = Report(symbol="AAA", price=101.5, volume=12345, summary="model-written report on AAA")


def _warnings(h: Harness) -> list[str]:
    return [e.data.code for e in h.sink.of_type("warning")]  # type: ignore[union-attr]


async def test_model_calls_tools_in_parallel_then_submits(paired: Harness) -> None:
    harness, lab = paired, paired.lab
    model = ScriptedModel(
        [reply("Fetching.", [("price", {"symbol": "AAA"}), ("volume", {"symbol": "AAA"})]), submit(GOOD)]
    )
    role = make_role(prefetch=False)
    outcome = await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)

    assert outcome.output == GOOD and outcome.mode == "model" and not outcome.fell_back
    assert outcome.iterations == 2
    assert lab.met == {"price": True, "volume": True}  # the two calls were running at the same time
    # the second turn saw both results, in the order the model asked for them
    results = model.requests[1].messages[-1]
    assert isinstance(results, ToolResults)
    assert [p.name for p in results.results] == ["price", "volume"]
    assert "101.5" in results.results[0].content
    assert harness.types().count("llm_call") == 2
    assert "token" in harness.types()  # the model's text is an event


async def test_prefetch_gives_the_model_the_playbook_results_before_its_first_turn(harness: Harness) -> None:
    model = ScriptedModel([submit(GOOD)])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.output == GOOD and outcome.iterations == 1
    first = model.requests[0]
    shown = [p.name for m in first.messages if isinstance(m, ToolResults) for p in m.results]
    assert shown == ["price", "volume", "double"]
    assert all(e.data.prefetch for e in harness.sink.of_type("tool_call"))  # type: ignore[union-attr]
    assert first.tools[-1].name == "submit_report"
    assert "price" in first.tools[-1].parameters["properties"]


async def test_iteration_cap_ends_on_the_deterministic_composer(harness: Harness) -> None:
    looping = [reply("", [("volume", {"symbol": "AAA"})]) for _ in range(10)]
    model = ScriptedModel(looping)
    role = make_role(caps=Caps(max_iterations=3), prefetch=False)
    outcome = await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)
    assert len(model.requests) == 3
    assert outcome.fell_back and outcome.output.summary == "deterministic report for AAA"
    assert _warnings(harness) == ["max_iterations"]
    assert outcome.output.price == 101.5  # the composer still had every playbook call


async def test_budget_abort_is_clean_and_explicit(lab: Lab) -> None:
    harness = Harness(lab, lab.registry(), budget_usd=0.01)
    big = TokenUsage(input_tokens=6_000, output_tokens=1_000)  # $0.006 + $0.002 per call at $1/$2 per M
    model = ScriptedModel([reply("", [("volume", {"symbol": "AAA"})], usage=big) for _ in range(5)])
    outcome = await harness.runtime(chain(model)).run(
        make_role(prefetch=False), Q(symbol="AAA"), harness.tracer
    )
    assert len(model.requests) == 2  # the second call crossed $0.01; no third call was made
    assert _warnings(harness) == ["budget_exceeded"]
    assert outcome.fell_back and outcome.output.summary.startswith("deterministic")
    assert abs(outcome.cost_usd - 0.016) < 1e-9 and abs(harness.budget.spent_usd - 0.016) < 1e-9
    costs = [e.data.cost_usd for e in harness.sink.of_type("llm_call")]  # type: ignore[union-attr]
    assert costs == [0.008, 0.008]
    end = harness.sink.of_type("agent_end")[0].data
    assert end.fell_back and end.input_tokens == 12_000 and end.output_tokens == 2_000  # type: ignore[union-attr]


async def test_role_cap_applies_before_the_first_turn_when_the_run_budget_is_spent(lab: Lab) -> None:
    harness = Harness(lab, lab.registry(), budget_usd=0.5)
    harness.budget.charge(0.5)  # another agent of this run spent it all
    model = ScriptedModel([submit(GOOD)])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert model.requests == [] and outcome.fell_back and _warnings(harness) == ["budget_exceeded"]


async def test_429_is_retried_then_answered_by_the_fallback_model(harness: Harness) -> None:
    primary = ScriptedModel([rate_limited(retry_after=2.0), rate_limited(), rate_limited()], model="scripted")
    backup = ScriptedModel([submit(GOOD)], model="backup")
    outcome = await harness.runtime(chain(primary, backup, max_retries=2)).run(
        make_role(), Q(symbol="AAA"), harness.tracer
    )
    assert outcome.output == GOOD and not outcome.fell_back
    calls = [
        (e.data.model, e.data.attempt, e.data.ok, e.data.error_code) for e in harness.sink.of_type("llm_call")
    ]  # type: ignore[union-attr]
    assert calls == [
        ("scripted", 1, False, "rate_limited"),
        ("scripted", 2, False, "rate_limited"),
        ("scripted", 3, False, "rate_limited"),
        ("backup", 1, True, None),
    ]
    assert len(SLEEPS) == 2 and SLEEPS[0] == 2.0  # retry-after honoured, then backoff


async def test_invalid_output_is_repaired_once(harness: Harness) -> None:
    model = ScriptedModel([submit({"symbol": "AAA", "summary": "x"}), submit(GOOD)])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.output == GOOD and not outcome.fell_back and _warnings(harness) == []
    feedback = model.requests[1].messages[-1]
    assert isinstance(feedback, ToolResults) and feedback.results[0].is_error
    assert "summary" in feedback.results[0].content  # the model is told what was wrong


async def test_invalid_output_twice_falls_back_with_a_warning(harness: Harness) -> None:
    bad = {"symbol": "AAA", "price": "a lot", "summary": "x"}
    model = ScriptedModel([submit(bad), submit(bad), submit(GOOD)])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert len(model.requests) == 2
    assert outcome.fell_back and isinstance(outcome.output, Report)
    assert outcome.output.summary == "deterministic report for AAA"
    assert _warnings(harness) == ["invalid_output"]
    assert any("invalid_output" in w for w in outcome.warnings)


async def test_a_json_report_in_plain_text_is_accepted(harness: Harness) -> None:
    model = ScriptedModel([reply("Here it is: " + GOOD.model_dump_json())])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.output == GOOD


async def test_prose_without_a_report_gets_one_reminder(harness: Harness) -> None:
    model = ScriptedModel([reply("AAA looks fine."), submit(GOOD)])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.output == GOOD
    assert "submit_report" in model.requests[1].messages[-1].text  # type: ignore[union-attr]


async def test_model_chain_down_falls_back_to_the_composer(harness: Harness) -> None:
    model = ScriptedModel([Failure(ErrorCode.UNAVAILABLE, "503 from upstream")])
    outcome = await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert outcome.fell_back and outcome.output.price == 101.5
    assert _warnings(harness) == ["model_unavailable"]


async def test_tool_mistakes_go_back_to_the_model_as_errors(harness: Harness, lab: Lab) -> None:
    model = ScriptedModel(
        [
            reply(
                "",
                [
                    ("nonexistent", {}),
                    ("price", {"ticker": "AAA"}),  # wrong argument name
                    ("broken", {"symbol": "AAA"}),  # raises inside
                ],
            ),
            submit(GOOD),
        ]
    )
    outcome = await harness.runtime(chain(model)).run(
        make_role(prefetch=False), Q(symbol="AAA"), harness.tracer
    )
    assert outcome.output == GOOD
    parts = model.requests[1].messages[-1].results  # type: ignore[union-attr]
    assert [p.is_error for p in parts] == [True, True, True]
    assert "no tool called 'nonexistent'" in parts[0].content
    assert parts[1].content.startswith("invalid_input") and "ticker" in parts[1].content
    assert "broken failed: RuntimeError: boom" in parts[2].content
    assert "price" not in lab.executions  # invalid arguments never reach the tool


async def test_too_many_calls_in_one_turn_are_refused_beyond_the_cap(harness: Harness, lab: Lab) -> None:
    calls = [("double", {"x": float(i)}) for i in range(5)]
    model = ScriptedModel([reply("", calls), submit(GOOD)])
    role = make_role(prefetch=False, caps=Caps(max_tool_calls_per_turn=3))
    await harness.runtime(chain(model)).run(role, Q(symbol="AAA"), harness.tracer)
    parts = model.requests[1].messages[-1].results  # type: ignore[union-attr]
    assert [p.is_error for p in parts] == [False, False, False, True, True]
    assert lab.executions["double"] == 3


async def test_identical_calls_run_once(harness: Harness, lab: Lab) -> None:
    model = ScriptedModel([reply("", [("price", {"symbol": "AAA"})]), submit(GOOD)])
    await harness.runtime(chain(model)).run(make_role(), Q(symbol="AAA"), harness.tracer)
    assert lab.executions["price"] == 1  # prefetched, then asked again by the model
    cached = [e.data.cached for e in harness.sink.of_type("tool_result") if e.data.name == "price"]  # type: ignore[union-attr]
    assert cached == [False, True]


async def test_asking_for_a_model_without_one_is_stated(harness: Harness) -> None:
    outcome = await harness.runtime().run(make_role(), Q(symbol="AAA"), harness.tracer, mode="model")
    assert outcome.mode == "deterministic"
    assert _warnings(harness) == ["model_not_configured"]
