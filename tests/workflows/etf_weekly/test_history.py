"""Week-over-week history: appended per run, read back per strategy and week, torn lines skipped."""

from __future__ import annotations

from datetime import date
from pathlib import Path

from findesk.workflows.etf_weekly import history
from findesk.workflows.etf_weekly.models import HistoryEntry


def _entry(run: str, week: date, strategy: str = "abc", green: list[str] | None = None) -> HistoryEntry:
    return HistoryEntry(
        run_id=run,
        week_end=week,
        strategy_hash=strategy,
        candidates=3,
        sectors=2,
        evidence={"strong": 1, "none": 1},
        flags={"GREEN": 1, "RED": 2},
        quality_score=6.5,
        model_calls=0,
        input_tokens=0,
        output_tokens=0,
        cost_usd=0.0,
        green=green or [],
    )


def test_earlier_weeks_of_the_same_strategy_newest_first(tmp_path: Path) -> None:
    history.append(tmp_path, _entry("r1", date(2025, 5, 9), green=["XLK"]))
    history.append(tmp_path, _entry("r2", date(2025, 5, 16)))
    history.append(tmp_path, _entry("r3", date(2025, 5, 9), green=["SMH"]))  # a re-run of that week wins
    history.append(tmp_path, _entry("r4", date(2025, 5, 2), strategy="other"))
    got = history.earlier(tmp_path, "abc", date(2025, 5, 23))
    assert [e.run_id for e in got] == ["r2", "r3"]
    assert history.earlier(tmp_path, "abc", date(2025, 5, 16))[0].green == ["SMH"]  # not the week itself


def test_a_torn_line_is_skipped(tmp_path: Path) -> None:
    history.append(tmp_path, _entry("r1", date(2025, 5, 9)))
    with (tmp_path / history.FILE).open("a") as fh:
        fh.write('{"run_id": "half')
    history.append(tmp_path, _entry("r2", date(2025, 5, 16)))
    assert [e.run_id for e in history.read(tmp_path)] == ["r1", "r2"]  # the torn line alone is lost
