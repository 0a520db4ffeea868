"""A missing snapshot skips on a developer's machine and fails in CI (issue 13's guard rail)."""

from __future__ import annotations

from pathlib import Path

import pytest

from snapshot_kit import require_snapshot


def test_missing_snapshot_fails_in_ci() -> None:
    with pytest.raises(pytest.fail.Exception, match="CI must run with the snapshot"):
        require_snapshot(None, ci=True)


def test_missing_snapshot_skips_elsewhere() -> None:
    with pytest.raises(pytest.skip.Exception, match="not available"):
        require_snapshot(None, ci=False)


def test_a_present_snapshot_is_used(tmp_path: Path) -> None:
    assert require_snapshot(tmp_path, ci=True) == tmp_path
