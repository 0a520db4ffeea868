"""Concurrent briefings over HTTP: N clients ``POST /v1/brief`` at once against ``findesk serve``.

Starts ``findesk serve`` on a free loopback port (no API key needed there) in deterministic mode: the
server's environment drops ANTHROPIC_API_KEY / OPENAI_API_KEY / FINDESK_LLM__*, and each request asks
for ``mode: deterministic``. Runs are recorded in a temporary state directory, never the user's audit
log; the user's cache directory is kept so disk caches are warm (``--clear-cache``: a temporary one).
``--url`` targets a server that is already running instead.

Warm-up: ``--warmup`` sequential briefings per distinct ticker first, so the burst does not measure
cold-start parsing; the very first is reported as "cold first briefing". Burst: ``--concurrency``
requests fired at once (asyncio + httpx streaming, one connection each; by default one small
``httpx.AsyncClient`` per request, since one client's pool of N connections costs the client seconds of
CPU on a small machine — ``--shared-client`` measures that way anyway), tickers cycling over
``--tickers``; ``--rounds`` repeats it. Per request: time to the response headers, to the first SSE
``data:`` frame (first event) and to the run's ``done`` event (completion), and the event count; a
request that does not end with ``done`` is an error (HTTP status, error event code, or the exception).
Cross-checks: the server's own ``findesk_run_first_event_seconds{workflow="brief"}`` histogram from
``/metrics``; how long ``GET /healthz`` takes during the burst (is the server's event loop free?); CPU
seconds of the client, the server and the server's event-loop thread (a server this script started;
Linux).
Targets (issue #5): 100 concurrent, 0 errors, p95 first event < 250 ms. Client and server share the
machine's cores, so the figures include the client's own CPU.

``--kill-worker``: the crash profile (issue #14). ``--kill-after`` seconds into the first round, one of the
server's worker processes (a child of a server this script started; Linux) is killed with SIGKILL. A dead
worker must cost only its own run: the profile passes when at most one request errors, with the code
``unavailable``, every other run ends with ``done``, and a new worker has taken the dead one's place.

    python bench/api_load.py [--concurrency 100] [--rounds 1] [--tickers AAPL,NVDA,...] [--warmup 1]
                             [--as-of 2025-08-29] [--clear-cache] [--url http://127.0.0.1:8000]
                             [--shared-client] [--kill-worker [--kill-after 1.0]] [--json]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import math
import os
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import IO, Any

import httpx

TICKERS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "F")
TARGET_FIRST_EVENT_S = 0.25
TARGET_CONCURRENCY = 100
_FIRST_EVENT_METRIC = "findesk_run_first_event_seconds"
_WORKFLOW_LABEL = 'workflow="brief"'  # the histogram is labelled by workflow; this bench runs briefings


@dataclass
class Sample:
    """One request's timings, seconds from just before it was sent; None where it never got there."""

    ticker: str
    headers_s: float | None = None
    first_event_s: float | None = None
    done_s: float | None = None
    events: int = 0
    error: str | None = None  # None: ended with the run's done event
    code: str | None = None  # the error event's code, "http_<status>" or the exception's name


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _server_env(state_dir: str, cache_dir: str | None) -> dict[str, str]:
    """The user's environment without model keys, recording runs in ``state_dir``."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("ANTHROPIC_API_KEY", "OPENAI_API_KEY") and not k.upper().startswith("FINDESK_LLM__")
    }
    env["FINDESK_STATE_DIR"] = state_dir
    # an audit URL from the environment would point back at the user's log
    env["FINDESK_AUDIT_URL"] = f"sqlite:///{Path(state_dir) / 'audit.sqlite3'}"
    if cache_dir is not None:
        env["FINDESK_CACHE_DIR"] = cache_dir
    return env


class Server:
    """``findesk serve`` as a child process; its output goes to ``log`` (a file, shown if it fails: a
    pipe nobody reads could fill up and stall the server)."""

    def __init__(self, port: int, env: dict[str, str], log: IO[bytes]) -> None:
        self.url = f"http://127.0.0.1:{port}"
        self._log = log
        command = [sys.executable, "-m", "findesk", "serve", "--host", "127.0.0.1", "--port", str(port)]
        self.proc = subprocess.Popen([*command, "--no-keys"], env=env, stdout=log, stderr=subprocess.STDOUT)

    def output(self) -> str:
        return Path(self._log.name).read_text(errors="replace")

    async def wait_healthy(self, timeout_s: float = 120.0) -> None:
        deadline = time.perf_counter() + timeout_s
        async with httpx.AsyncClient(timeout=5.0) as client:
            while time.perf_counter() < deadline:
                if self.proc.poll() is not None:
                    raise SystemExit(f"findesk serve exited with {self.proc.returncode}:\n{self.output()}")
                with contextlib.suppress(httpx.HTTPError):
                    if (await client.get(f"{self.url}/healthz")).status_code == 200:
                        return
                await asyncio.sleep(0.1)
        raise SystemExit(f"findesk serve did not answer /healthz within {timeout_s:.0f} s:\n{self.output()}")

    def stop(self) -> None:
        # SIGINT is what Ctrl-C sends: uvicorn shuts down gracefully and the services close the audit log
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.proc.terminate()
                try:
                    self.proc.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    self.proc.kill()
                    self.proc.wait()


async def _one(client: httpx.AsyncClient, url: str, body: dict[str, Any]) -> Sample:
    sample = Sample(ticker=str(body["ticker"]))
    started = time.perf_counter()
    kind = ""
    try:
        async with client.stream("POST", f"{url}/v1/brief", json=body) as response:
            sample.headers_s = time.perf_counter() - started
            if response.status_code != 200:
                text = (await response.aread()).decode(errors="replace")
                sample.error = f"HTTP {response.status_code}: {text[:200]}"
                sample.code = f"http_{response.status_code}"
                return sample
            async for line in response.aiter_lines():
                if line.startswith("event:"):
                    kind = line[6:].strip()
                elif line.startswith("data:"):
                    now = time.perf_counter() - started
                    sample.events += 1
                    if sample.first_event_s is None:
                        sample.first_event_s = now
                    # only done/error are parsed (the done payload is the whole briefing); a nested
                    # run's done/error carries a parent_id and does not end the stream
                    if kind in ("done", "error"):
                        event = json.loads(line[5:])
                        if event.get("parent_id") is None:
                            if kind == "done":
                                sample.done_s = now
                            else:
                                data = event.get("data", {})
                                sample.error = f"error event {data.get('code')}: {data.get('message')}"
                                sample.code = str(data.get("code"))
    except (httpx.HTTPError, OSError, ValueError) as exc:
        sample.error = f"{type(exc).__name__}: {exc}"
        sample.code = type(exc).__name__
    if sample.error is None and sample.done_s is None:
        sample.error = f"stream ended after {sample.events} events without done"
        sample.code = "no_done"
    return sample


def _bodies(tickers: list[str], n: int, as_of: str | None, mode: str) -> list[dict[str, Any]]:
    out = []
    for i in range(n):
        body: dict[str, Any] = {"ticker": tickers[i % len(tickers)], "mode": mode}
        if as_of:
            body["as_of"] = as_of
        out.append(body)
    return out


def _pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (p95 of 100 values is the 95th smallest); NaN when empty."""
    if not values:
        return math.nan
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)]


async def _histogram(client: httpx.AsyncClient, url: str) -> dict[str, float]:
    """The briefing's first-event histogram series (``_sum``, ``_count``, ``_bucket{le=...}``) from
    /metrics, its workflow label dropped."""
    out: dict[str, float] = {}
    try:
        text = (await client.get(f"{url}/metrics")).text
    except httpx.HTTPError:
        return out
    for line in text.splitlines():
        if line.startswith(_FIRST_EVENT_METRIC) and _WORKFLOW_LABEL in line:
            name, _, value = line.rpartition(" ")
            key = name[len(_FIRST_EVENT_METRIC) :].replace("," + _WORKFLOW_LABEL, "")
            out[key.replace("{" + _WORKFLOW_LABEL + "}", "")] = float(value)
    return out


def _server_view(before: dict[str, float], after: dict[str, float]) -> dict[str, Any]:
    """The server's first-event figures for what happened between two scrapes: count, mean and the
    histogram bucket holding its p95 (an upper bound)."""
    count = after.get("_count", 0.0) - before.get("_count", 0.0)
    total = after.get("_sum", 0.0) - before.get("_sum", 0.0)
    p95_le: float | None = None
    if count > 0:
        buckets = []
        for key, value in after.items():
            if key.startswith('_bucket{le="'):
                bound = key[len('_bucket{le="') : -2]
                buckets.append((math.inf if bound == "+Inf" else float(bound), value - before.get(key, 0.0)))
        for le, cumulative in sorted(buckets):
            if cumulative >= 0.95 * count:
                p95_le = le
                break
    return {
        "count": int(count),
        "sum_s": total,
        "mean_s": total / count if count else None,
        "p95_le_s": p95_le,
    }


def _summary(samples: list[Sample], wall_s: float) -> dict[str, Any]:
    ok = [s for s in samples if s.error is None]
    first = [s.first_event_s for s in samples if s.first_event_s is not None]
    done = [s.done_s for s in ok if s.done_s is not None]
    headers = [s.headers_s for s in samples if s.headers_s is not None]
    return {
        "n": len(samples),
        "wall_s": wall_s,
        "throughput_per_s": len(ok) / wall_s if wall_s > 0 else math.nan,
        "headers_p50_s": _pct(headers, 0.5),
        "headers_p95_s": _pct(headers, 0.95),
        "first_event_p50_s": _pct(first, 0.5),
        "first_event_p95_s": _pct(first, 0.95),
        "first_event_max_s": max(first, default=math.nan),
        "done_p50_s": _pct(done, 0.5),
        "done_p95_s": _pct(done, 0.95),
        "done_max_s": max(done, default=math.nan),
        "events_per_briefing": round(sum(s.events for s in ok) / len(ok), 1) if ok else 0,
        "errors": len(samples) - len(ok),
        "error_codes": dict(Counter(s.code or "?" for s in samples if s.error is not None)),
        "error_reasons": [f"{s.ticker}: {s.error}" for s in samples if s.error is not None][:5],
    }


def _clients(args: argparse.Namespace, stack: contextlib.AsyncExitStack) -> list[httpx.AsyncClient]:
    """The burst's clients: by default one per request (a one-connection pool each), else one client
    with a pool of N connections (``--shared-client``). httpx's pool grows costly with many connections
    in it (on this machine 100 concurrent GET /healthz through one pool took ~0.3 s of client CPU, and
    ~1.7 s once the 100 connections were kept alive, against ~0.1 s with a client each), and that CPU is
    taken from the server on a small machine; a client each measures the server, not the pool."""
    timeout = httpx.Timeout(args.timeout, connect=60.0, pool=args.timeout)
    verify = ssl.create_default_context()  # built once: each client would otherwise load the CA store
    count, size = (1, args.concurrency) if args.shared_client else (args.concurrency, 1)
    limits = httpx.Limits(max_connections=size, max_keepalive_connections=size)
    return [
        stack.push_async_exit(httpx.AsyncClient(timeout=timeout, limits=limits, verify=verify))
        for _ in range(count)
    ]


def _cpu_s(pid: int | None) -> dict[str, float] | None:
    """CPU seconds used so far by a local process and by its main thread (the event loop's); Linux only."""
    if pid is None:
        return None
    ticks = os.sysconf("SC_CLK_TCK")

    def used(stat: Path) -> float:
        fields = stat.read_text().rpartition(")")[2].split()
        return (int(fields[11]) + int(fields[12])) / ticks  # utime + stime

    try:
        return {"total": used(Path(f"/proc/{pid}/stat")), "loop": used(Path(f"/proc/{pid}/task/{pid}/stat"))}
    except (OSError, ValueError, IndexError):
        return None


def _workers(server_pid: int) -> list[int]:
    """The server's worker processes: its children started by multiprocessing's spawn (Linux)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            ppid = int((entry / "stat").read_text().rpartition(")")[2].split()[1])
            command = (entry / "cmdline").read_bytes()
        except (OSError, IndexError, ValueError):
            continue
        if ppid == server_pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return sorted(found)


async def _kill_worker(server_pid: int, after_s: float, started: float) -> dict[str, Any]:
    """SIGKILL one worker ``after_s`` into the burst; which, when, and the workers before and after."""
    await asyncio.sleep(after_s)
    before = _workers(server_pid)
    if not before:
        return {"pid": None, "at_s": None, "workers_before": [], "problem": "no worker process found"}
    victim = before[0]
    os.kill(victim, signal.SIGKILL)
    return {"pid": victim, "at_s": time.perf_counter() - started, "workers_before": before}


async def _probe(client: httpx.AsyncClient, url: str, stop: asyncio.Event, out: list[float]) -> None:
    """GET /healthz (no data source touched) every 250 ms during the burst: how long the server takes to
    answer anything at all while it is busy."""
    while not stop.is_set():
        started = time.perf_counter()
        with contextlib.suppress(httpx.HTTPError):
            await client.get(f"{url}/healthz")
            out.append(time.perf_counter() - started)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stop.wait(), 0.25)


async def _bench(args: argparse.Namespace, url: str, tickers: list[str], pid: int | None) -> dict[str, Any]:
    async with contextlib.AsyncExitStack() as stack:
        clients = _clients(args, stack)
        side = await stack.enter_async_context(httpx.AsyncClient(timeout=args.timeout))
        warm: list[Sample] = []
        started = time.perf_counter()
        for body in _bodies(list(dict.fromkeys(tickers)), len(set(tickers)), args.as_of, args.mode):
            for _ in range(args.warmup):
                warm.append(await _one(side, url, body))
        warmup_s = time.perf_counter() - started
        rounds = []
        everything: list[Sample] = []
        before = await _histogram(side, url)
        health: list[float] = []
        stop = asyncio.Event()
        probe = asyncio.create_task(_probe(side, url, stop, health))
        cpu_before, client_cpu = _cpu_s(pid), time.process_time()
        kill: dict[str, Any] | None = None
        for index in range(args.rounds):
            bodies = _bodies(tickers, args.concurrency, args.as_of, args.mode)
            started = time.perf_counter()
            killer = (
                asyncio.create_task(_kill_worker(pid, args.kill_after, started))
                if args.kill_worker and index == 0 and pid is not None
                else None
            )
            samples = await asyncio.gather(
                *(_one(clients[i % len(clients)], url, body) for i, body in enumerate(bodies))
            )
            wall = time.perf_counter() - started
            if killer is not None:
                kill = await killer
                kill["workers_after"] = _workers(pid) if pid is not None else []
            rounds.append(_summary(samples, wall))
            everything.extend(samples)
        cpu_after, client_cpu = _cpu_s(pid), time.process_time() - client_cpu
        stop.set()
        await probe
        after = await _histogram(side, url)
    total = _summary(everything, sum(r["wall_s"] for r in rounds))
    passed = (
        args.concurrency >= TARGET_CONCURRENCY
        and total["errors"] == 0
        and total["first_event_p95_s"] < TARGET_FIRST_EVENT_S
    )
    server_cpu = {k: cpu_after[k] - cpu_before[k] for k in cpu_before} if cpu_before and cpu_after else None
    return {
        "url": url,
        "concurrency": args.concurrency,
        "client": "shared pool" if args.shared_client else "one client per request",
        "rounds": rounds,
        "total": total,
        "warmup": {
            "briefings": len(warm),
            "seconds": warmup_s,
            "cold_first": asdict(warm[0]) if warm else None,
            "errors": [f"{s.ticker}: {s.error}" for s in warm if s.error is not None][:5],
        },
        "server_first_event": _server_view(before, after),
        "healthz_during_burst": {
            "n": len(health),
            "p50_s": _pct(health, 0.5),
            "max_s": max(health, default=math.nan),
        },
        "cpu_during_burst": {
            "client_s": client_cpu,
            "server_s": server_cpu["total"] if server_cpu else None,
            "server_loop_thread_s": server_cpu["loop"] if server_cpu else None,
            "cores": os.cpu_count(),
        },
        "pass": passed,
        "kill": _kill_verdict(kill, rounds[0]) if kill is not None else None,
    }


def _kill_verdict(kill: dict[str, Any], burst: dict[str, Any]) -> dict[str, Any]:
    """Only the victim's run may fail: at most one error, coded ``unavailable``, and a new worker."""
    codes: dict[str, int] = burst["error_codes"]
    replaced = bool(kill.get("workers_after")) and kill["pid"] not in kill["workers_after"]
    only_victim = burst["errors"] <= 1 and set(codes) <= {"unavailable"}
    return kill | {"replaced": replaced, "pass": kill["pid"] is not None and only_victim and replaced}


def _finite(value: Any) -> Any:
    """NaN (a percentile of nothing) and infinity (the +Inf bucket) as None: ``--json`` prints strict JSON."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def _ms(seconds: float | None) -> str:
    return "n/a" if seconds is None or math.isnan(seconds) else f"{seconds * 1000:,.0f} ms"


def _print(result: dict[str, Any]) -> None:
    warm = result["warmup"]
    cold = warm["cold_first"]
    print(
        f"findesk API load: {result['url']} · {result['concurrency']} concurrent POST /v1/brief "
        f"({result['client']})"
    )
    if cold:
        print(
            f"cold first briefing ({cold['ticker']}): first event {_ms(cold['first_event_s'])}, "
            f"done {_ms(cold['done_s'])} · warm-up {warm['briefings']} briefings in {warm['seconds']:.1f} s"
            + (f" · warm-up errors: {warm['errors']}" if warm["errors"] else "")
        )
    rows = [*(("round " + str(i + 1), r) for i, r in enumerate(result["rounds"]))]
    if len(rows) > 1:
        rows.append(("all", result["total"]))
    print(
        f"{'':<9}{'N':>5}{'wall s':>8}{'brief/s':>9}{'headers p95':>13}"
        f"{'first p50':>11}{'first p95':>11}{'first max':>11}"
        f"{'done p50':>10}{'done p95':>10}{'done max':>10}{'events':>8}{'errors':>8}"
    )
    for name, r in rows:
        print(
            f"{name:<9}{r['n']:>5}{r['wall_s']:>8.2f}{r['throughput_per_s']:>9.1f}{_ms(r['headers_p95_s']):>13}"
            f"{_ms(r['first_event_p50_s']):>11}{_ms(r['first_event_p95_s']):>11}"
            f"{_ms(r['first_event_max_s']):>11}{_ms(r['done_p50_s']):>10}{_ms(r['done_p95_s']):>10}"
            f"{_ms(r['done_max_s']):>10}{r['events_per_briefing']:>8}{r['errors']:>8}"
        )
    for reason in result["total"]["error_reasons"]:
        print(f"  error: {reason}")
    kill = result["kill"]
    if kill is not None:
        first = result["rounds"][0]
        codes = ", ".join(f"{code} × {n}" for code, n in sorted(first["error_codes"].items())) or "none"
        if kill["pid"] is None:
            print(f"kill -9 of a worker: not done ({kill.get('problem')})")
        else:
            print(
                f"kill -9 of worker pid {kill['pid']} at {kill['at_s']:.2f} s into round 1 "
                f"(workers before {kill['workers_before']}, after {kill['workers_after']}): "
                f"{first['n'] - first['errors']} of {first['n']} runs done, errors by code: {codes}"
            )
        print(
            f"{'PASS' if kill['pass'] else 'FAIL'}: a dead worker costs only its own run "
            f"(errors ≤ 1, all unavailable: {first['errors']} · replaced by a new worker: {kill['replaced']})"
        )
    server = result["server_first_event"]
    if server["count"]:
        le = server["p95_le_s"]
        print(
            f"server {_FIRST_EVENT_METRIC} over the burst: count {server['count']}, "
            f"sum {server['sum_s']:.2f} s, mean {_ms(server['mean_s'])}, "
            f"p95 ≤ {'+Inf' if le is None or math.isinf(le) else _ms(le)} (histogram bucket)"
        )
    else:
        print(f"server {_FIRST_EVENT_METRIC}: not available from /metrics")
    health, cpu = result["healthz_during_burst"], result["cpu_during_burst"]
    if health["n"]:
        print(
            f"GET /healthz during the burst (every 250 ms, own connection): {health['n']} answered, "
            f"p50 {_ms(health['p50_s'])}, max {_ms(health['max_s'])}"
        )
    wall = result["total"]["wall_s"]
    line = f"CPU during the burst ({wall:.1f} s wall, {cpu['cores']} cores): client {cpu['client_s']:.1f} s"
    if cpu["server_s"] is not None:
        line += (
            f" · server {cpu['server_s']:.1f} s, of which its event-loop thread "
            f"{cpu['server_loop_thread_s']:.1f} s ({cpu['server_loop_thread_s'] / wall:.0%} of one core)"
        )
    print(line)
    t = result["total"]
    print(
        ("(the no-kill profile's targets) " if kill is not None else "")
        + f"{'PASS' if result['pass'] else 'FAIL'}: concurrency {result['concurrency']} (target ≥ "
        f"{TARGET_CONCURRENCY}) · errors {t['errors']} (target 0) · p95 first event "
        f"{_ms(t['first_event_p95_s'])} (target < {TARGET_FIRST_EVENT_S * 1000:.0f} ms) · "
        f"{os.cpu_count()} cores shared by client and server"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--concurrency", "-n", type=int, default=TARGET_CONCURRENCY)
    parser.add_argument("--rounds", type=int, default=1, help="repeat the burst")
    parser.add_argument("--tickers", default=",".join(TICKERS))
    parser.add_argument("--warmup", type=int, default=1, help="sequential briefings per ticker first")
    parser.add_argument("--as-of", default=None, help="as-of date sent (default: the server's)")
    parser.add_argument("--mode", default="deterministic", choices=("auto", "deterministic", "model"))
    parser.add_argument("--timeout", type=float, default=600.0, help="per-request read timeout, seconds")
    parser.add_argument("--clear-cache", action="store_true", help="serve from an empty cache dir")
    parser.add_argument("--url", help="target this running server instead of starting one")
    parser.add_argument(
        "--shared-client", action="store_true", help="one httpx client with an N-connection pool"
    )
    parser.add_argument(
        "--kill-worker", action="store_true", help="SIGKILL one server worker during round 1 (Linux)"
    )
    parser.add_argument("--kill-after", type=float, default=1.0, help="seconds into round 1 (--kill-worker)")
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args()
    tickers = [t.strip().upper() for t in args.tickers.split(",") if t.strip()]
    if not tickers or args.concurrency < 1 or args.rounds < 1 or args.warmup < 0:
        parser.error("need at least one ticker, --concurrency ≥ 1, --rounds ≥ 1, --warmup ≥ 0")
    if args.kill_worker and (args.url or not sys.platform.startswith("linux")):
        parser.error("--kill-worker needs a server this script starts (no --url), on Linux")
    if args.kill_after < 0:
        parser.error("--kill-after must be ≥ 0")
    server: Server | None = None
    with contextlib.ExitStack() as stack:
        if args.url:
            url = args.url.rstrip("/")
        else:
            state_dir = stack.enter_context(tempfile.TemporaryDirectory(prefix="findesk-bench-state-"))
            cache_dir = (
                stack.enter_context(tempfile.TemporaryDirectory(prefix="findesk-bench-cache-"))
                if args.clear_cache
                else None
            )
            log = stack.enter_context(Path(state_dir, "serve.log").open("w+b"))
            server = Server(_free_port(), _server_env(state_dir, cache_dir), log)
            stack.callback(server.stop)  # runs before the directories are removed
            url = server.url
            asyncio.run(server.wait_healthy())
        pid = server.proc.pid if server is not None else None
        result = _finite(asyncio.run(_bench(args, url, tickers, pid)))
    if args.json:
        print(json.dumps(result, default=str))
    else:
        _print(result)


if __name__ == "__main__":
    main()
