"""Prometheus metrics: HTTP requests and latency, runs by workflow, tool calls and errors by tool, tokens,
cost.

Rules:
- One ``CollectorRegistry`` per app (tests and several apps in one process never share counters).
- Tool, token and cost figures come from the run's events (``MetricsSink``), the same stream the audit
  log records, so ``/metrics`` and the audit log can never disagree about what happened.
- Runs and the time to a run's first event are labelled by workflow: the sink reads the name from the
  run's opening ``agent_start`` (its ``agent``), so it needs no other channel from the run. Workflow
  names come from the registry, never from the request, so their number stays small.
- Request labels use the route template (``/v1/runs/{run_id}``), never the raw path, so a scan of
  random URLs cannot blow up the number of series.
"""

from __future__ import annotations

import time

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from findesk.core.events.model import AgentStart, Done, Error, Event, LlmCall, ToolResultReady

UNKNOWN_WORKFLOW = "unknown"
_LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        r = self.registry
        self.requests = Counter(
            "findesk_http_requests", "HTTP requests answered", ["method", "route", "status"], registry=r
        )
        self.latency = Histogram(
            "findesk_http_request_duration_seconds",
            "Time from request to the last byte sent (SSE: the whole stream)",
            ["method", "route"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.first_event = Histogram(
            "findesk_run_first_event_seconds",
            "Time from a run request to its first streamed event",
            ["workflow"],
            buckets=_LATENCY_BUCKETS,
            registry=r,
        )
        self.runs = Counter(
            "findesk_runs", "Runs finished, by workflow and outcome", ["workflow", "status"], registry=r
        )
        self.in_progress = Gauge("findesk_runs_in_progress", "Runs streaming now", registry=r)
        self.tool_calls = Counter("findesk_tool_calls", "Tool calls", ["tool"], registry=r)
        self.tool_errors = Counter(
            "findesk_tool_errors", "Tool calls that failed", ["tool", "code"], registry=r
        )
        self.tokens = Counter("findesk_llm_tokens", "Model tokens", ["provider", "model", "kind"], registry=r)
        self.cost = Counter(
            "findesk_llm_cost_usd", "Model cost in US dollars", ["provider", "model"], registry=r
        )
        self.rejected = Counter(
            "findesk_requests_rejected", "Requests refused before any work, by code", ["code"], registry=r
        )

    @property
    def streaming(self) -> int:
        return int(self.in_progress._value.get())  # the gauge's own value; no second counter to drift

    def render(self) -> bytes:
        return generate_latest(self.registry)

    def observe(self, event: Event, workflow: str = UNKNOWN_WORKFLOW) -> None:
        d = event.data
        if isinstance(d, ToolResultReady):
            self.tool_calls.labels(d.name).inc()
            if not d.ok:
                self.tool_errors.labels(d.name, d.error_code or "error").inc()
        elif isinstance(d, LlmCall):
            for kind, n in (
                ("input", d.input_tokens),
                ("output", d.output_tokens),
                ("cached", d.cached_tokens),
            ):
                if n:
                    self.tokens.labels(d.provider, d.model, kind).inc(n)
            if d.cost_usd:
                self.cost.labels(d.provider, d.model).inc(d.cost_usd)
        elif isinstance(d, Done) and event.parent_id is None:
            self.runs.labels(workflow, "done").inc()
        elif isinstance(d, Error) and event.parent_id is None:
            self.runs.labels(workflow, d.code).inc()


class MetricsSink:
    """An event sink feeding ``Metrics`` for one run; the workflow label comes from the run's opening
    event (before it, e.g. a refusal of the input, the label is ``unknown``)."""

    def __init__(self, metrics: Metrics) -> None:
        self._metrics = metrics
        self.workflow = UNKNOWN_WORKFLOW

    def write(self, event: Event) -> None:
        if isinstance(event.data, AgentStart) and event.parent_id is None:
            self.workflow = event.data.agent
        self._metrics.observe(event, self.workflow)

    def close(self) -> None:
        pass


class RequestMetrics:
    """Pure ASGI middleware (streams pass through untouched): counts and times every HTTP request."""

    def __init__(self, app: ASGIApp, metrics: Metrics) -> None:
        self.app = app
        self.metrics = metrics

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        start = time.perf_counter()
        status = {"code": 500}

        async def sending(message: Message) -> None:
            if message["type"] == "http.response.start":
                status["code"] = message["status"]
            await send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            route = _route(scope)
            self.metrics.requests.labels(scope["method"], route, str(status["code"])).inc()
            self.metrics.latency.labels(scope["method"], route).observe(time.perf_counter() - start)


def _route(scope: Scope) -> str:
    route = scope.get("route")
    path = getattr(route, "path", None)
    return str(path) if path else "unmatched"
