"""``findesk.backtest`` from Python: the same report as the CLI for a dict request, and bad input as an
``Err`` naming the problem (never an exception)."""

from __future__ import annotations

from pathlib import Path

import pytest

import findesk
from findesk.core.config import Settings
from findesk.core.result import Err, Ok


@pytest.fixture
def settings(snapshot_dir: Path, tmp_path: Path) -> Settings:
    return Settings(snapshot_dir=snapshot_dir, cache_dir=tmp_path / "cache", state_dir=tmp_path / "state")


def test_a_dict_request_runs_like_the_cli(settings: Settings) -> None:
    request = {"tickers": ["AAPL"], "start": "2024-01-02", "end": "2024-03-28", "strategies": ["macd", "sma"]}
    done = findesk.backtest(request, settings=settings, as_of="2025-08-29")
    assert isinstance(done, Ok), done
    rows = {r.strategy: r for r in done.value.rows}
    assert set(rows) == {"macd", "sma"}
    # the AAPL rows of the README's example: next-open fills, 1 bp commission, 5 bp slippage
    assert rows["macd"].metrics.cumulative_return_pct == pytest.approx(-6.06, abs=0.01)
    assert rows["sma"].metrics.cumulative_return_pct == pytest.approx(0.89, abs=0.01)
    assert rows["macd"].buy_hold.cumulative_return_pct == pytest.approx(-6.85, abs=0.01)


@pytest.mark.parametrize(
    ("request_", "says"),
    [
        ({"tickers": [], "start": "2024-01-02", "end": "2024-03-28", "strategies": ["sma"]}, "tickers"),
        ({"tickers": ["AAPL"], "start": "2024-03-28", "end": "2024-01-02", "strategies": ["sma"]}, "before"),
        ({"tickers": ["AAPL"], "start": "2024-01-02", "end": "2024-03-28", "strategies": ["rsi2"]}, "rsi2"),
        ({"tickers": ["AAPL"], "start": "2024-01-02", "end": "2026-03-28", "strategies": ["sma"]}, "as-of"),
        (
            {"tickers": ["AAPL"], "start": "2024-01-02", "end": "2024-03-28", "strategies": ["sma"], "x": 1},
            "x",
        ),
    ],
)
def test_bad_input_is_an_err_naming_the_problem(
    settings: Settings, request_: dict[str, object], says: str
) -> None:
    done = findesk.backtest(request_, settings=settings, as_of="2025-08-29")
    assert isinstance(done, Err) and done.code.value == "invalid_input" and says in done.reason, done
