"""The API server exports the runs it accepts, including those a worker process runs: one trace per run,
each span once (the worker does not export a run it was handed), parents as the events say."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from api_kit import MakeApi, run

from findesk.core.config import Settings, TelemetrySettings
from findesk.core.events.model import Event
from findesk.core.events.spans import EVENT_ID, trace_id_of
from otlp_kit import Receiver

AS_OF = "2025-08-29"


@pytest.fixture
def receiver() -> Iterator[Receiver]:
    with Receiver() as r:
        yield r


@pytest.fixture
def api_settings(snapshot_dir: Path, api_cache: Path, tmp_path: Path, receiver: Receiver) -> Settings:
    return Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=api_cache,
        state_dir=tmp_path / "state",
        chains={},
        mode="snapshot",
        telemetry=TelemetrySettings(otlp_endpoint=receiver.endpoint),
    )


def test_a_run_in_a_worker_process_is_exported_once_by_the_server(
    make_api: MakeApi, receiver: Receiver
) -> None:
    client = make_api(workers=1)
    status, frames, _ = run(client, "agents.quote_filings", {"input": {"symbol": "NVDA"}, "as_of": AS_OF})
    assert status == 200
    events = [Event.model_validate(f.data) for f in frames]
    run_id = events[0].run_id
    opening = {e.id: e for e in events if e.type in ("agent_start", "tool_call", "llm_call")}
    assert len(opening) >= 3  # the run, its agent, its tool calls
    got = receiver.wait_for(len(opening))
    assert len(got) == len(opening)  # each span once: the server exported it, the worker did not
    assert {r.span.trace_id for r in got} == {trace_id_of(run_id).to_bytes(16, "big")}
    assert {r.attributes[EVENT_ID] for r in got} == set(opening)
    by_id = {r.span.span_id: r for r in got}
    for r in got:
        parent = opening[r.attributes[EVENT_ID]].parent_id
        if parent is None:
            assert r.span.parent_span_id == b""
        else:
            assert by_id[r.span.parent_span_id].attributes[EVENT_ID] == parent
