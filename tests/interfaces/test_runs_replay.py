"""``findesk runs replay RUN_ID``: a trading-desk model run (scripted models) replayed from the audit log
alone gives the same decision and the same debates, spends nothing, and is recorded as a new run; a
deterministic run is refused, and a replay that lands elsewhere says so and exits non-zero."""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog
from findesk.core.events.model import AgentEnd, Done, Event, LlmCall
from findesk.core.events.trace import MemorySink
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.interfaces.cli.main import app
from findesk.testing.fake_trade_models import garbage_risk_manager, trade_models
from findesk.workflows.runner import run_workflow
from findesk.workflows.trading.spec import SPEC

DAY = "2024-05-10"
DECIDED = ("investment_debate", "investment_decision", "trader_plan", "risk_debate", "final_decision")


def _record(settings: Settings, mode: str, models: Any = None) -> list[Event]:
    """A `findesk trade NVDA --date 2024-05-10` run, as the audit log would hold its events."""
    context = resolve_context(settings, mode="snapshot", as_of=DAY)
    assert not isinstance(context, Err), context
    sink = MemorySink()
    done = asyncio.run(
        run_workflow(
            SPEC,
            {"ticker": "NVDA", "date": DAY},
            settings=settings,
            context=context.value,
            sinks=[sink],
            mode=mode,  # type: ignore[arg-type]
            models=models,
        )
    )
    assert not isinstance(done, Err), done
    return list(sink.events)


@pytest.fixture(scope="module")
def recordings(
    snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[dict[str, list[Event]]]:
    settings = Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=tmp_path_factory.mktemp("replay-cache"),
        state_dir=tmp_path_factory.mktemp("replay-state"),
    )
    yield {
        "model": _record(settings, "model", trade_models()[0]),
        "garbage": _record(settings, "model", trade_models({"risk_manager": [garbage_risk_manager] * 4})[0]),
        "deterministic": _record(settings, "deterministic"),
    }


def _into_audit_log(events: list[Event]) -> str:
    """The events written to this test's audit log (FINDESK_STATE_DIR); the run id."""
    log = AuditLog.open(Settings().resolved_audit_url()).unwrap()
    for event in events:
        log.write(event)
    assert log.flush(timeout=10)
    log.close()
    return events[0].run_id


def _replay(run_id: str, *extra: str) -> Result:
    return CliRunner().invoke(app, ["runs", "replay", run_id, "-f", "json", "-q", *extra])


def _report(events: list[Event]) -> dict[str, Any]:
    done = next(e.data for e in events if isinstance(e.data, Done))
    assert isinstance(done, Done) and isinstance(done.result, dict)
    return done.result


def _runs() -> list[Any]:
    log = AuditLog.open(Settings().resolved_audit_url(), read_only=True).unwrap()
    try:
        return log.list_runs(10)
    finally:
        log.close()


def test_a_model_run_replays_to_the_same_decision_and_debates(
    recordings: dict[str, list[Event]], snapshot_dir: Path
) -> None:
    events = recordings["model"]
    recorded = _report(events)
    assert recorded["mode"] == "model" and recorded["cost_usd"] > 0  # the scripted models were paid for
    run_id = _into_audit_log(events)

    got = _replay(run_id[:12])  # a unique prefix names the run, as for every `findesk runs` command
    assert got.exit_code == 0, got.output
    replayed = json.loads(got.stdout)
    assert replayed["run_id"] != run_id  # a new recorded run
    final, was = replayed["final_decision"], recorded["final_decision"]
    assert (final["rating"], final["position_pct"]) == (was["rating"], was["position_pct"])
    assert len(replayed["investment_debate"]) == 4  # default rounds: bull and bear, twice
    for key in DECIDED:
        assert replayed[key] == recorded[key], key
    assert "gives the recorded headline" in got.stderr and "NVDA" in got.stderr
    assert replayed["cost_usd"] == 0.0 and replayed["model_calls"] == recorded["model_calls"]

    runs = {r.run_id: r for r in _runs()}
    assert set(runs) == {run_id, replayed["run_id"]}
    assert runs[replayed["run_id"]].status == "done" and runs[replayed["run_id"]].cost_usd == 0.0


def test_a_decision_that_failed_validation_replays_to_review_again(
    recordings: dict[str, list[Event]], snapshot_dir: Path
) -> None:
    events = recordings["garbage"]
    recorded = _report(events)
    assert recorded["final_decision"]["rating"] == "REVIEW"
    ends = [e.data for e in events if isinstance(e.data, AgentEnd) and e.data.agent == "trade_risk_manager"]
    assert [(end.fell_back, end.stopped, end.output) for end in ends] == [(True, "invalid_output", None)]

    got = _replay(_into_audit_log(events))
    assert got.exit_code == 0, got.output
    final = json.loads(got.stdout)["final_decision"]
    assert final["rating"] == "REVIEW"
    assert final == recorded["final_decision"]


def test_a_deterministic_run_is_refused(recordings: dict[str, list[Event]], snapshot_dir: Path) -> None:
    run_id = _into_audit_log(recordings["deterministic"])
    got = _replay(run_id)
    assert got.exit_code == 2
    said = " ".join(got.stderr.split())  # as one line, however the terminal wrapped it
    assert (
        f"run {run_id} ran deterministically: re-run it with the same inputs; it is reproducible "
        "byte for byte" in said
    )
    assert json.loads(got.stdout)["error"]["code"] == "invalid_input"
    assert [r.run_id for r in _runs()] == [run_id]  # nothing was run


def test_a_replay_that_lands_elsewhere_exits_non_zero_with_both_headlines(
    recordings: dict[str, list[Event]], snapshot_dir: Path
) -> None:
    events = recordings["model"]
    recorded = _report(events)
    # the recording claims another decision than its models' answers lead to
    rating = "SELL" if recorded["final_decision"]["rating"] != "SELL" else "BUY"
    tampered = {**recorded, "final_decision": {**recorded["final_decision"], "rating": rating}}
    changed = [
        e.model_copy(update={"data": Done(result=tampered, summary="tampered")})
        if isinstance(e.data, Done)
        else e
        for e in events
    ]
    got = _replay(_into_audit_log(changed))
    assert got.exit_code == 1
    assert "differs from the recording" in got.stderr
    assert "recorded: NVDA" in got.stderr and f": {rating}" in got.stderr
    assert "replayed: NVDA" in got.stderr and recorded["final_decision"]["rating"] in got.stderr


def test_an_unfinished_or_unknown_run_is_not_replayed(recordings: dict[str, list[Event]]) -> None:
    events = recordings["model"]
    unfinished = [e for e in events if not isinstance(e.data, Done)]
    run_id = _into_audit_log(unfinished)
    got = _replay(run_id)
    assert got.exit_code == 2 and "only a finished run can be replayed" in got.stderr
    assert _replay("ffffffffffff").exit_code == 4


def test_no_model_is_called_for_the_replay(recordings: dict[str, list[Event]], snapshot_dir: Path) -> None:
    run_id = _into_audit_log(recordings["model"])
    got = _replay(run_id)
    assert got.exit_code == 0, got.output
    new = json.loads(got.stdout)["run_id"]
    log = AuditLog.open(Settings().resolved_audit_url(), read_only=True).unwrap()
    calls = [e.data for e in log.events(new) if isinstance(e.data, LlmCall)]
    log.close()
    assert calls and {c.provider for c in calls} == {"replay"}
    assert sum(c.input_tokens + c.output_tokens for c in calls) == 0
