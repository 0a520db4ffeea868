"""Point in time: later prices, filings, XBRL facts, posts and news planted into a temporary copy of the
snapshot change nothing in a run at an earlier date (and do change a later run, so the plants work)."""

from __future__ import annotations

from pathlib import Path

import pytest
from trade_kit import run_trade

from findesk.core.config import Settings
from planting_kit import PLANTED, mirror, plant

KEEP = {
    "identity", "market", "fundamentals", "news", "social", "investment_debate",
    "investment_decision", "trader_plan", "risk_debate", "final_decision",
}  # fmt: skip


def _settings(root: Path, tmp: Path) -> Settings:
    return Settings(snapshot_dir=root, cache_dir=tmp / "cache", state_dir=tmp / "state", chains={})


@pytest.mark.parametrize("day", ["2025-08-29", "2025-06-30"])
def test_planted_later_data_changes_no_earlier_decision(snapshot_dir: Path, tmp_path: Path, day: str) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    mirror(snapshot_dir, planted, PLANTED)
    plant(snapshot_dir, planted)
    inputs = {"ticker": "AAPL", "date": day}
    real = run_trade(_settings(snapshot_dir, tmp_path / "a"), None, inputs).ok
    moved = run_trade(_settings(planted, tmp_path / "b"), None, inputs).ok
    assert real.model_dump_json(include=KEEP) == moved.model_dump_json(include=KEEP)


def test_the_plants_are_seen_after_their_date(snapshot_dir: Path, tmp_path: Path) -> None:
    planted = tmp_path / "planted"
    planted.mkdir()
    mirror(snapshot_dir, planted, PLANTED)
    plant(snapshot_dir, planted)
    later = run_trade(_settings(planted, tmp_path / "b"), None, {"ticker": "AAPL", "date": "2025-08-31"}).ok
    assert later.market.technicals is not None
    assert later.market.technicals.close == pytest.approx(999.99)
