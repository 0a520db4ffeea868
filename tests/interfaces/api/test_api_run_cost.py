"""What a key pays for its runs: a client that disconnects from an in-process run is charged what the
run spent; runs admitted at the same time can never spend more than what was left of the key's daily
cap; a worker run still going when the server stops stays charged at least its reservation. The app
is served by uvicorn on 127.0.0.1 in a thread, so a disconnect is a real one (Starlette's TestClient
cannot hang up mid-stream). The worker path with real worker processes is ``test_serve_limits``."""

from __future__ import annotations

import dataclasses
import itertools
import socket
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import Future
from datetime import UTC, datetime
from typing import Any

import httpx
import pytest
import uvicorn

from findesk.agents.runtime import ModelResolver
from findesk.core.access import KeyStore, spent_today
from findesk.core.config import ApiTier, Settings
from findesk.core.events.model import LlmCall
from findesk.core.events.trace import EventBus, Sink, Tracer
from findesk.core.llm.types import ModelRequest
from findesk.core.result import Err
from findesk.interfaces.api import run_tasks
from findesk.interfaces.api.app import create_app
from findesk.interfaces.api.services import ApiServices
from findesk.testing.fake_briefing_models import REPLIES, briefing_models
from findesk.testing.fake_models import Reply, Step
from findesk.tools.base import ToolContext
from findesk.workflows.pool import WorkflowJob

CAP_USD = 0.05  # a fake briefing costs well under a cent: far below the cap, but its budget is $1


def slow(reply: Callable[[ModelRequest], Reply], delay_s: float) -> Step:
    """The fake briefing model's answer, taking ``delay_s`` like a real model turn."""
    return lambda request: dataclasses.replace(reply(request), delay_s=delay_s)


class Served:
    """The API with fake priced models, keys required, served on a loopback port from a thread."""

    def __init__(
        self, settings: Settings, tools: ToolContext, models: ModelResolver, pool: Any = None
    ) -> None:
        tiers = {"tiny": ApiTier(rpm=100, daily_cost_usd=CAP_USD)}
        settings = settings.model_copy(update={"api": settings.api.model_copy(update={"tiers": tiers})})
        opened = ApiServices.open(settings, require_keys=True, models=models, tools=tools)
        assert not isinstance(opened, Err), opened
        self.services = opened.value
        self.services.pool = pool
        made = self.services.keys.create("desk", "tiny", tiers=tiers)
        assert not isinstance(made, Err), made
        self.key, secret = made.value
        self.headers = {"Authorization": f"Bearer {secret}"}
        self._sock = socket.socket()
        self._sock.bind(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self._sock.getsockname()[1]}"
        config = uvicorn.Config(create_app(self.services), log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(target=self._server.run, kwargs={"sockets": [self._sock]})
        self._thread.start()
        deadline = time.monotonic() + 30
        while not self._server.started:
            assert time.monotonic() < deadline and self._thread.is_alive(), "uvicorn did not start"
            time.sleep(0.02)

    def spent(self) -> float:
        spent = spent_today(self.services.keys, self.key.id, datetime.now(UTC))
        assert not isinstance(spent, Err), spent
        return spent.value

    def run_costs(self, run_id: str) -> tuple[str, float]:
        """How the run ended ("running" if it has not: else the code of its ``error`` event or
        "done"), and what its model calls cost, from the audit log."""
        with httpx.Client(base_url=self.url, headers=self.headers, timeout=10) as client:
            run = client.get(f"/v1/runs/{run_id}").json()["run"]
            events = [e["data"] for e in client.get(f"/v1/runs/{run_id}/events").json()["events"]]
        cost = sum(e["cost_usd"] for e in events if e["type"] == "llm_call")
        ended = next(
            (e.get("code", e["type"]) for e in reversed(events) if e["type"] in ("done", "error")), None
        )
        return ("running" if run["status"] == "running" else str(ended)), cost

    def stop(self) -> None:
        if self._thread.is_alive():
            self._server.should_exit = True
            self._thread.join(30)
            self._sock.close()


class BusyPool:
    """A worker pool whose every run is taken by a worker at once, spends a cent, and is still going
    when the server stops (a long model run); it never ends the run itself."""

    def __init__(self) -> None:
        self.closed = False

    def submit(self, job: WorkflowJob, sinks: list[Sink], on_end: Callable[[], None]) -> Future[None]:
        future: Future[None] = Future()
        future.set_running_or_notify_cancel()  # a worker has it: cancelling no longer stops it
        tracer = Tracer(EventBus(sinks), job.start.run_id, _counter=itertools.count(job.start.next_seq))
        tracer.emit(LlmCall(provider="openai", model="m", ok=True, input_tokens=10_000, cost_usd=0.01))
        return future

    def close(self) -> None:
        self.closed = True


@pytest.fixture
def serve(api_settings: Settings, api_tools: ToolContext) -> Iterator[Callable[..., Served]]:
    started: list[Served] = []

    def start(delay_s: float, pool: Any = None) -> Served:
        resolve, _ = briefing_models({name: [slow(fn, delay_s)] for name, fn in REPLIES.items()})
        started.append(Served(api_settings, api_tools, resolve, pool))
        return started[-1]

    yield start
    for served in started:
        served.stop()


def stream_until(served: Served, body: dict[str, Any], event: str) -> str:
    """POST a briefing, read its stream up to the first ``event``, hang up; the run id."""
    with (
        httpx.Client(base_url=served.url, headers=served.headers, timeout=30) as client,
        client.stream("POST", "/v1/brief", json=body) as response,
    ):
        assert response.status_code == 200, response.read()
        for line in response.iter_lines():
            if line == f"event: {event}":
                return response.headers["x-run-id"]
    raise AssertionError(f"the stream ended without a {event} event")


def wait_for_end(served: Served, run_id: str) -> tuple[str, float]:
    deadline = time.monotonic() + 30
    while (found := served.run_costs(run_id))[0] == "running":
        assert time.monotonic() < deadline, "the run never ended"
        time.sleep(0.05)
    return found


def test_a_client_that_hangs_up_is_charged_what_its_run_spent(serve: Callable[[float], Served]) -> None:
    served = serve(0.3)
    run_id = stream_until(served, {"ticker": "AAPL", "mode": "model"}, "llm_call")  # money was spent
    status, cost = wait_for_end(served, run_id)
    assert status == "interrupted" and cost > 0  # an in-process run stops with its client
    deadline = time.monotonic() + 10
    while served.spent() != pytest.approx(cost):  # settled as the run unwinds
        assert time.monotonic() < deadline, (served.spent(), cost)
        time.sleep(0.05)


def test_runs_admitted_together_cannot_spend_more_than_is_left_of_the_cap(
    serve: Callable[[float], Served],
) -> None:
    served = serve(0.5)
    body = {"ticker": "AAPL", "mode": "model"}
    first: dict[str, Any] = {}

    def brief() -> None:
        with httpx.Client(base_url=served.url, headers=served.headers, timeout=30) as client:
            response = client.post("/v1/brief", json=body)
            first.update(status=response.status_code, run_id=response.headers.get("x-run-id"))

    running = threading.Thread(target=brief)
    running.start()
    deadline = time.monotonic() + 10
    while served.spent() == 0:  # the first run is admitted: its $1 budget holds the whole cap
        assert time.monotonic() < deadline
        time.sleep(0.02)
    assert served.spent() == pytest.approx(CAP_USD)
    with httpx.Client(base_url=served.url, headers=served.headers, timeout=30) as client:
        second = client.post("/v1/brief", json=body)
    assert second.status_code == 429, second.text
    assert "daily cost cap of $0.05 reached" in second.json()["error"]["message"]
    running.join(30)
    assert first["status"] == 200
    _, cost = served.run_costs(first["run_id"])
    assert served.spent() == pytest.approx(cost) and 0 < cost < CAP_USD  # settled to what it cost
    with httpx.Client(base_url=served.url, headers=served.headers, timeout=30) as client:
        assert client.post("/v1/brief", json={"ticker": "MSFT"}).status_code == 200  # room again


def test_a_worker_run_still_going_at_shutdown_stays_charged_its_reservation(
    serve: Callable[..., Served], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(run_tasks, "SETTLE_GRACE_S", 0.2)
    pool = BusyPool()
    served = serve(0.0, pool)
    stream_until(served, {"ticker": "AAPL", "mode": "model"}, "llm_call")
    assert served.spent() == pytest.approx(CAP_USD)  # reserved: its budget is all that was left
    assert len(served.services.run_tasks) == 1  # the client left; the run is still held
    served.stop()  # shutdown settles it before the pool closes
    assert pool.closed and len(served.services.run_tasks) == 0
    keys = KeyStore.open(served.services.settings.resolved_audit_url()).unwrap()
    try:
        # it spent $0.01 that we saw, but its worker may still be spending: the reservation stays
        assert spent_today(keys, served.key.id, datetime.now(UTC)).unwrap() == pytest.approx(CAP_USD)
    finally:
        keys.close()
