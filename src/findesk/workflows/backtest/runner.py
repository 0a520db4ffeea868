"""Running many backtests: jobs in a process pool, results cached as JSON files.

Rules:
- A job is pure: one ticker's ``Bars`` (loaded by the caller), a strategy name and parameters, the
  window and the config; it reads nothing else, so it runs the same anywhere. Jobs go through an
  executor (``core.executor``): the local ``spawn`` process pool (in this process with one job or one
  worker) or a Ray cluster, with the same rows in the same order. A failing job fails its own row only.
- Every row carries buy & hold over the same window under the same fills and costs (the engine's
  ``buy_hold`` strategy), so a strategy is always read against it.
- The cache key is the hash of (cache version, the engine's source code, strategy, parameters, ticker,
  window, config, path, the data fingerprint): any change to the data, the engine or the question is
  a new entry, so a stale row is never served. Entries are JSON files under
  ``<state_dir>/backtest-cache/`` written atomically (temporary file, then rename). ``use_cache=False``
  neither reads nor writes them.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import date
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from findesk.analytics.backtest.models import BacktestConfig, BacktestResult, Bars, Metrics
from findesk.core.executor import Executor, LocalExecutor
from findesk.core.result import Err
from findesk.workflows.backtest.loader import fingerprint
from findesk.workflows.backtest.models import BacktestRow, Timing

CACHE_VERSION = "1"
CACHE_FOLDER = "backtest-cache"
BUY_HOLD = "buy_hold"


@dataclass(frozen=True)
class Job:
    ticker: str
    strategy: str
    params: dict[str, float]
    start: date
    end: date
    config: BacktestConfig
    bars: Bars
    extra_key: str = ""  # anything else the result depends on (the desk's mode and data identity)

    def key(self) -> str:
        return cache_key(
            self.strategy,
            self.params,
            self.ticker,
            self.start,
            self.end,
            self.config,
            "event_loop",
            fingerprint(self.bars) + self.extra_key,
        )


@cache
def engine_version() -> str:
    """A hash of the engine's source (``findesk.analytics.backtest``): a new engine is a new cache."""
    import findesk.analytics.backtest as pkg

    digest = hashlib.sha256(CACHE_VERSION.encode())
    for path in sorted(Path(pkg.__file__).parent.glob("*.py")):
        digest.update(path.name.encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


def cache_key(
    strategy: str,
    params: dict[str, float],
    ticker: str,
    start: date,
    end: date,
    config: BacktestConfig,
    path: str,
    data: str,
) -> str:
    material = {
        "engine": engine_version(),
        "strategy": strategy,
        "params": dict(sorted(params.items())),
        "ticker": ticker,
        "window": [start.isoformat(), end.isoformat()],
        "config": config.model_dump(mode="json"),
        "path": path,
        "data": data,
    }
    return hashlib.sha256(json.dumps(material, sort_keys=True).encode()).hexdigest()[:32]


@dataclass
class ResultCache:
    """Rows by key as JSON files in ``folder``; ``enabled=False`` is a cache that holds nothing."""

    folder: Path
    enabled: bool = True
    hits: int = 0
    problems: list[str] = field(default_factory=list)

    def get(self, key: str) -> BacktestRow | None:
        if not self.enabled:
            return None
        path = self.folder / f"{key}.json"
        try:
            row = BacktestRow.model_validate_json(path.read_bytes())
        except (OSError, ValueError):  # missing, unreadable or from an older shape: computed again
            return None
        self.hits += 1
        return row.model_copy(update={"timing": row.timing.model_copy(update={"cached": True})})

    def put(self, key: str, row: BacktestRow) -> None:
        if not self.enabled:
            return
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            temp = self.folder / f".{key}.{os.getpid()}.tmp"
            temp.write_text(row.model_dump_json())
            temp.replace(self.folder / f"{key}.json")
        except OSError as exc:  # a cache that cannot be written costs speed, not the result
            self.problems.append(f"backtest cache not written in {self.folder}: {exc}")


def cache_folder(state_dir: Path) -> Path:
    return state_dir / CACHE_FOLDER


# ---- one job ----------------------------------------------------------------------------------------


def row_of(
    result: BacktestResult,
    buy_hold: BacktestResult,
    path: str,
    seconds: float,
    extra_warnings: Sequence[str] = (),
) -> BacktestRow:
    bh = dict(zip(buy_hold.dates, buy_hold.equity, strict=False))
    sessions = max(result.metrics.sessions, 1)
    return BacktestRow(
        ticker=result.ticker,
        strategy=result.strategy,
        params=dict(result.params),
        path=path,
        start=result.start,
        end=result.end,
        metrics=result.metrics,
        buy_hold=buy_hold.metrics,
        dates=list(result.dates),
        equity=list(result.equity),
        buy_hold_equity=[bh.get(d, float("nan")) for d in result.dates],
        log=list(result.log),
        timing=Timing(seconds=round(seconds, 6), sessions=sessions, seconds_per_session=seconds / sessions),
        risk_free_pct=result.config.risk_free_pct,
        warnings=[*result.warnings, *extra_warnings],
    )


def run_job(job: Job, strategy: Any | None = None) -> BacktestRow:
    """Run one job in this process; ``strategy``: a ready strategy object (the desk's), else the
    baseline named by ``job.strategy``."""
    from findesk.analytics.backtest.engine import run_event_loop
    from findesk.analytics.backtest.strategies import make_strategy

    began = time.perf_counter()
    chosen = strategy if strategy is not None else make_strategy(job.strategy, job.params or None)
    result = run_event_loop(job.bars, chosen, job.config, job.start, job.end)
    seconds = time.perf_counter() - began
    holder = run_event_loop(job.bars, make_strategy(BUY_HOLD, None), job.config, job.start, job.end)
    return row_of(result, holder, "event_loop", seconds)


def _run_job_alone(job: Job) -> BacktestRow:
    return run_job(job)  # the executor's function: one argument, importable by name in any worker


def run_jobs(
    jobs: Sequence[Job],
    *,
    workers: int,
    cache: ResultCache,
    progress: Callable[[BacktestRow], None] | None = None,
    executor: Executor | None = None,
) -> tuple[list[BacktestRow], list[str]]:
    """Every job's row, in the jobs' order, from the cache or computed on ``executor`` (default: the
    local pool of ``workers`` processes); and the failures. Raises ``LookAheadError``."""
    from findesk.analytics.backtest.history import LookAheadError

    rows: dict[int, BacktestRow] = {}
    failures: list[str] = []
    todo: list[tuple[int, Job, str]] = []
    for i, job in enumerate(jobs):
        key = job.key()
        hit = cache.get(key)
        if hit is not None:
            rows[i] = hit
        else:
            todo.append((i, job, key))
    pool = executor if executor is not None else LocalExecutor(workers)
    # a look-ahead fails the whole backtest: never a row with a warning
    done = pool.map(_run_job_alone, [job for _, job, _ in todo], fatal=(LookAheadError,)) if todo else []
    for (i, job, key), got in zip(todo, done, strict=True):
        if isinstance(got, Err):
            failures.append(f"{job.ticker} {job.strategy}: {got.reason}")
            continue
        cache.put(key, got.value)
        rows[i] = got.value
    ordered = [rows[i] for i in sorted(rows)]
    if progress is not None:
        for row in ordered:
            progress(row)
    return ordered, failures


# ---- the vectorized path ----------------------------------------------------------------------------


def run_fast(
    bars: Sequence[Bars],
    strategy: str,
    params: dict[str, float],
    config: BacktestConfig,
    start: date,
    end: date,
    cache: ResultCache,
) -> list[BacktestRow]:
    """One baseline over many tickers on the vectorized path, each ticker's row cached on its own."""
    from findesk.analytics.backtest.strategies import make_strategy
    from findesk.analytics.backtest.vectorized import run_vectorized
    from findesk.workflows.backtest.loader import panel_of

    keys = {
        b.ticker: cache_key(strategy, params, b.ticker, start, end, config, "vectorized", fingerprint(b))
        for b in bars
    }
    found = {t: cache.get(k) for t, k in keys.items()}
    missing = [b for b in bars if found[b.ticker] is None]
    if missing:
        panel = panel_of(missing)
        began = time.perf_counter()
        results = run_vectorized(
            list(panel.tickers),
            panel.dates,
            panel.open,
            panel.high,
            panel.low,
            panel.close,
            make_strategy(strategy, params or None),
            config,
            start,
            end,
        )
        seconds = (time.perf_counter() - began) / max(len(missing), 1)
        holders = run_vectorized(
            list(panel.tickers),
            panel.dates,
            panel.open,
            panel.high,
            panel.low,
            panel.close,
            make_strategy(BUY_HOLD, None),
            config,
            start,
            end,
        )
        for b in missing:
            row = row_of(results[b.ticker], holders[b.ticker], "vectorized", seconds)
            cache.put(keys[b.ticker], row)
            found[b.ticker] = row
    return [r for b in bars if (r := found[b.ticker]) is not None]


def nan_free(values: Sequence[float]) -> list[float | None]:
    return [None if (isinstance(v, float) and np.isnan(v)) else v for v in values]


__all__ = ["Job", "Metrics", "ResultCache", "cache_folder", "cache_key", "run_fast", "run_job", "run_jobs"]
