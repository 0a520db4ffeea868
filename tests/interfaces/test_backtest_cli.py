"""``findesk backtest`` as a user types it: metrics next to buy & hold in JSON, every renderer, one-line
errors with exit code 2, and a strategy that reads tomorrow's close stopped by the audit."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from findesk.interfaces.cli.main import app

runner = CliRunner()


def findesk(*args: str) -> Result:
    return runner.invoke(app, list(args))


def test_json_has_metrics_next_to_buy_and_hold_the_curve_and_the_log() -> None:
    got = findesk(
        "backtest",
        "AAPL",
        "--start",
        "2024-01-02",
        "--end",
        "2024-03-28",
        "--strategy",
        "macd",
        "sma",
        "--costs",
        "commission_bps=2,slippage_bps=3",
        "-f",
        "json",
    )
    assert got.exit_code == 0, got.stderr
    report = json.loads(got.stdout)
    assert [r["strategy"] for r in report["rows"]] == ["macd", "sma"]
    row = report["rows"][0]
    for key in (
        "cumulative_return_pct",
        "annualized_return_pct",
        "sharpe",
        "max_drawdown_pct",
        "trades",
        "turnover",
        "exposure_pct",
    ):
        assert key in row["metrics"] and key in row["buy_hold"]
    assert len(row["dates"]) == len(row["equity"]) == len(row["buy_hold_equity"]) == len(row["log"]) == 61
    assert report["config"]["costs"] == {"commission_bps": 2.0, "slippage_bps": 3.0}
    assert "FEDFUNDS" in report["risk_free"]["source"]


@pytest.mark.parametrize(
    ("fmt", "says"), [("markdown", "| ticker |"), ("html", "<svg"), ("terminal", "buy_hold")]
)
def test_every_format_renders(fmt: str, says: str, tmp_path: Path) -> None:
    out = tmp_path / f"bt.{fmt}"
    got = findesk(
        "backtest",
        "NVDA",
        "--start",
        "2024-01-02",
        "--end",
        "2024-02-28",
        "-s",
        "all",
        "-f",
        fmt,
        "--out",
        str(out),
        "-q",
    )
    assert got.exit_code == 0, got.stderr
    text = out.read_text()
    assert says in text and "kdj_rsi" in text


def test_the_terminal_table_shows_buy_and_hold_once_per_ticker_first() -> None:
    got = findesk(
        "backtest", "AAPL", "GOOGL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "macd", "sma", "-q"
    )
    assert got.exit_code == 0, got.stderr
    lines = [line for line in got.stdout.splitlines() if line.startswith(("AAPL", "GOOGL"))]
    assert [line.split()[1] for line in lines] == ["buy", "macd", "sma", "buy", "macd", "sma"]
    assert "buy & hold (benchmark)" in lines[0] and "-6.85" in lines[0]  # AAPL, next-open fill, default costs


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (["AAPL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "rsi2"], "unknown strategy 'rsi2'"),
        (["AAPL", "--start", "2024-03-28", "--end", "2024-01-02", "-s", "sma"], "before --start"),
        (
            ["AAPL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "sma", "--as-of", "2024-03-01"],
            "after the as-of",
        ),
        (["ZZZZQ", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "sma"], "ZZZZQ"),
        (
            ["AAPL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "sma", "--costs", "fee=1"],
            "--costs",
        ),
        (
            [
                "AAPL",
                "--start",
                "2024-01-02",
                "--end",
                "2024-03-28",
                "-s",
                "macd",
                "--params",
                '{"fast": 40}',
            ],
            "macd",
        ),
    ],
)
def test_bad_input_is_one_line_and_exit_code_2(args: list[str], says: str) -> None:
    got = findesk("backtest", *args, "-q")
    assert got.exit_code == 2, (args, got.stderr)
    assert says in got.stderr and "Traceback" not in got.stderr
    assert len(got.stderr.strip().splitlines()) == 1, got.stderr


def test_a_strategy_that_reads_tomorrows_close_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    from findesk.analytics.backtest import strategies
    from findesk.analytics.backtest.history import History

    real = strategies.make_strategy

    class Peek:
        name = "macd"
        params: dict[str, float] = {}  # noqa: RUF012
        warmup = 0

        def decide(self, h: History) -> Any:
            tomorrow = h.bar(1)  # the next session's bar: a look-ahead
            return strategies.Decision(1.0 if tomorrow.close > h.close[-1] else 0.0, "peeked")

    def make(name: str, params: Any = None) -> Any:
        return Peek() if name == "macd" else real(name, params)

    monkeypatch.setattr(strategies, "make_strategy", make)
    got = findesk(
        "backtest", "AAPL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "macd", "--no-cache", "-q"
    )
    assert got.exit_code != 0
    assert "look-ahead" in got.stderr and "2024-01-02" in got.stderr and "2024-01-03" in got.stderr


@pytest.mark.parametrize(
    ("window", "says"),
    [
        ("2023-01-03", "write START:END"),
        ("2023-12-29:2023-01-03", "is before"),
        ("2023-01-03:2026-01-02", "as-of"),
    ],
)
def test_a_bad_window_is_one_line_and_exit_code_2(window: str, says: str) -> None:
    got = findesk(
        "backtest", "AAPL", "--start", "2024-01-02", "--end", "2024-03-28", "-s", "sma", "--window", window
    )
    assert got.exit_code == 2 and says in got.stderr, got.stderr
