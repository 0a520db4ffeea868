"""The scan-to-trade pipeline with its desk runs on a Ray cluster equals the run in this process: the same
rows (every candidate's rating, size and headline), the same summary, and the same child runs in the audit
log with the same events (kinds, nesting, agents). A Ray address where nothing listens is one line before
any scan runs, and a remote caller can neither set nor see the executor fields.

The test starts its own Ray head on loopback (``ray_kit``) and stops it by its process group.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from findesk.core.config import Settings
from findesk.core.events.audit import AuditLog, open_audit_log
from findesk.core.events.model import Done, Event
from findesk.core.result import Err, Ok
from findesk.data.context import resolve_context
from findesk.workflows.pipeline.models import PipelineReport
from findesk.workflows.pipeline.spec import SPEC
from findesk.workflows.runner import run_workflow
from findesk.workflows.spec import RunCaller
from ray_kit import LOOPBACK_ENV, free_port, ray_head

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

# Ray reads this when it is imported: the driver in this process then keeps the head's loopback address
os.environ.setdefault(LOOPBACK_ENV, "0")

DAY = "2025-08-29"
TOP = 3


@dataclass
class Piped:
    report: PipelineReport
    audit: AuditLog
    seconds: float


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    yield from ray_head()


def _settings(snapshot_dir: Path, tmp: pytest.TempPathFactory, name: str) -> Settings:
    # a state folder per run: the desk's decision log of one run must not be read by the other
    return Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=tmp.mktemp(f"{name}-cache"),
        state_dir=tmp.mktemp(f"{name}-state"),
        chains={},
    )


def _pipeline(settings: Settings, inputs: dict[str, Any]) -> Piped:
    context = resolve_context(settings, mode="snapshot", as_of=DAY)
    assert not isinstance(context, Err), context
    opened = open_audit_log(settings)
    assert isinstance(opened, Ok), opened
    began = time.perf_counter()
    done = asyncio.run(
        run_workflow(
            SPEC, inputs, settings=settings, context=context.value, sinks=[opened.value], mode="deterministic"
        )
    )
    seconds = time.perf_counter() - began
    opened.value.flush(10)
    assert isinstance(done, Ok), done
    return Piped(done.value.report, opened.value, seconds)


def _shape(events: list[Event]) -> Counter[tuple[str, str | None, tuple[str, str | None] | None]]:
    """A run's events as (kind, agent, parent's kind and agent): what the audit shows, without ids and
    times. A multiset: parallel tool calls finish in any order, on Ray as in two runs in this process."""
    by_id = {e.id: e for e in events}
    parent = {e.id: by_id.get(e.parent_id or "") for e in events}
    return Counter(
        (e.type, e.agent, (p.type, p.agent) if (p := parent[e.id]) is not None else None) for e in events
    )


# what differs between two identical runs: ids, wall times, and whether a tool's answer came from a cache
# another run warmed (a worker opens its own tools)
_VARYING = {"run_id", "latency_ms", "seconds", "ts", "started_at", "ended_at", "duration_ms", "cached"}


def _scrub(value: Any) -> Any:
    """A report as JSON without what differs between two identical runs; lists of records in a stable
    order (parallel agents and tool calls end in any order)."""
    if isinstance(value, dict):
        return {k: _scrub(v) for k, v in value.items() if k not in _VARYING}
    if isinstance(value, list):
        items = [_scrub(v) for v in value]
        if items and all(isinstance(i, dict) for i in items):
            return sorted(items, key=lambda i: json.dumps(i, sort_keys=True, default=str))
        return items
    return value


def _desk_report(audit: AuditLog, run_id: str) -> dict[str, Any]:
    done = audit.events(run_id)[-1].data
    assert isinstance(done, Done), done
    return dict(done.result)


def test_desk_runs_on_ray_equal_the_local_run(
    snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory, ray_address: str
) -> None:
    local = _pipeline(_settings(snapshot_dir, tmp_path_factory, "local"), {"date": DAY, "top": TOP})
    on_ray = _pipeline(
        _settings(snapshot_dir, tmp_path_factory, "ray"),
        {"date": DAY, "top": TOP, "executor": "ray", "address": ray_address},
    )
    print(f"\npipeline top {TOP}: desks in this process {local.seconds:.2f} s, on Ray {on_ray.seconds:.2f} s")

    mine, theirs = on_ray.report, local.report
    assert theirs.scan_status == "ok" and len(theirs.rows) == TOP
    assert all(r.status == "ok" and r.rating for r in theirs.rows), theirs.rows
    # every candidate's decision and figures, the summary, the budget: identical
    assert [r.model_dump(exclude={"run_id"}) for r in mine.rows] == [
        r.model_dump(exclude={"run_id"}) for r in theirs.rows
    ]
    assert mine.candidates == theirs.candidates and mine.scan_headline == theirs.scan_headline
    assert (mine.mode, mine.budget_usd, mine.spent_usd, mine.cost_usd) == (
        theirs.mode,
        theirs.budget_usd,
        theirs.spent_usd,
        theirs.cost_usd,
    )
    assert mine.warnings == theirs.warnings
    assert SPEC.headline(mine) == SPEC.headline(theirs)

    # the audit log: the same child runs, each recorded alike (same events, same nesting, same report)
    for ray_row, local_row in zip(mine.rows, theirs.rows, strict=True):
        for audit, run_id in ((on_ray.audit, ray_row.run_id), (local.audit, local_row.run_id)):
            found = audit.find_run(run_id)
            assert isinstance(found, Ok) and found.value.status == "done", found
        ray_events, local_events = on_ray.audit.events(ray_row.run_id), local.audit.events(local_row.run_id)
        assert all(e.run_id == ray_row.run_id for e in ray_events)
        assert [e.seq for e in ray_events] == list(range(1, len(local_events) + 1))
        assert ray_events[0].type == "agent_start" and ray_events[-1].type == "done"
        assert _shape(ray_events) == _shape(local_events), ray_row.ticker
        ray_report = _scrub(_desk_report(on_ray.audit, ray_row.run_id))
        local_report = _scrub(_desk_report(local.audit, local_row.run_id))
        assert ray_report.keys() == local_report.keys()
        for key in ray_report:
            assert ray_report[key] == local_report[key], (ray_row.ticker, key)
    assert on_ray.audit.find_run(str(mine.run_id)).value.status == "done"  # type: ignore[union-attr]


def test_ray_where_nothing_listens_is_one_line(
    monkeypatch: pytest.MonkeyPatch, snapshot_dir: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from findesk.interfaces.cli.main import app

    monkeypatch.setenv("FINDESK_SNAPSHOT_DIR", str(snapshot_dir))
    monkeypatch.setenv("FINDESK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FINDESK_CACHE_DIR", str(tmp_path / "cache"))
    address = f"127.0.0.1:{free_port()}"
    args = ["pipeline", "--date", DAY, "--top", "1", "--mode", "deterministic", "-q"]
    began = time.perf_counter()
    result = CliRunner().invoke(app, [*args, "--executor", "ray", "--address", address])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert len(lines) == 1, result.output
    try:
        import ray  # noqa: F401
    except ImportError:
        assert lines[0].startswith("findesk: not_configured: --executor ray needs Ray"), lines
    else:
        refused = f"findesk: unavailable: cannot connect to Ray: nothing answers at {address}"
        assert lines[0].startswith(refused), lines
    assert time.perf_counter() - began < 15  # refused before the scan, not after it


def test_a_remote_caller_can_neither_set_nor_see_the_executor() -> None:
    props = SPEC.remote_schema()["properties"]
    assert "executor" not in props and "address" not in props and "top" in props
    parsed = SPEC.parse({"date": DAY, "executor": "ray", "address": "10.0.0.5:6379"})
    assert isinstance(parsed, Ok), parsed
    refused = SPEC.bind(parsed.value, RunCaller(user="key:1", remote=True))
    assert isinstance(refused, Err) and "`executor`, `address`" in refused.reason
    assert "local runs only" in refused.reason
    local = SPEC.bind(parsed.value, RunCaller(user="local"))
    assert isinstance(local, Ok) and local.value.address == "10.0.0.5:6379"
