"""The strategy file: defaults, unknown keys refused with their path, bad files refused in one line."""

from __future__ import annotations

from pathlib import Path

from findesk.core.result import Err, Ok
from findesk.workflows.etf_weekly.config import StrategyConfig, load_strategy


def test_empty_file_is_the_default_strategy(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("")
    got = load_strategy(path)
    assert isinstance(got, Ok) and got.value == StrategyConfig()


def test_parameters_are_read(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: deep drops\nprep:\n  beta_lookback: 90\ncandidates:\n  max_weekly_return_pct: -5\n"
        "  include_leveraged: true\nprotocol:\n  unexplained_alpha_pct: 2.0\n"
        "review:\n  quality_threshold: 7\n"
    )
    got = load_strategy(path)
    assert isinstance(got, Ok)
    s = got.value
    assert (s.prep.beta_lookback, s.candidates.max_weekly_return_pct, s.candidates.include_leveraged) == (
        90,
        -5,
        True,
    )
    assert s.protocol.unexplained_alpha_pct == 2.0 and s.review.quality_threshold == 7
    assert s.strategy_hash() != StrategyConfig().strategy_hash()


def test_a_typo_is_refused_with_its_path(tmp_path: Path) -> None:
    path = tmp_path / "s.yaml"
    path.write_text("candidates:\n  max_weekly_retrun_pct: -5\n")
    got = load_strategy(path)
    assert isinstance(got, Err) and "max_weekly_retrun_pct" in got.reason


def test_bad_files_are_one_line_errors(tmp_path: Path) -> None:
    missing = load_strategy(tmp_path / "nope.yaml")
    assert isinstance(missing, Err) and "does not exist" in missing.reason
    broken = tmp_path / "b.yaml"
    broken.write_text("prep: [unclosed\n")
    got = load_strategy(broken)
    assert isinstance(got, Err) and "not valid YAML" in got.reason and "\n" not in got.reason
    listy = tmp_path / "l.yaml"
    listy.write_text("- a\n- b\n")
    got = load_strategy(listy)
    assert isinstance(got, Err) and "mapping" in got.reason
    big = tmp_path / "big.yaml"
    big.write_text("name: x\n" + "#" * 300_000)
    got = load_strategy(big)
    assert isinstance(got, Err) and "bytes" in got.reason
    assert isinstance(load_strategy(tmp_path), Err)  # a folder


def test_output_folder_does_not_change_the_strategy_identity() -> None:
    a = StrategyConfig()
    b = StrategyConfig.model_validate({"output": {"folder": "/tmp/elsewhere"}})
    assert a.strategy_hash() == b.strategy_hash()


def test_the_example_strategy_file_is_valid_and_the_default() -> None:
    example = Path(__file__).parents[3] / "examples" / "strategy.yaml"
    got = load_strategy(example)
    assert isinstance(got, Ok)
    assert got.value.strategy_hash() == StrategyConfig().strategy_hash()  # it documents the defaults
