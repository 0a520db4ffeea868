"""Where the tests find the recorded snapshot, and what happens when it is missing: a skip with a
clear reason on a developer's machine, a failure in CI (``CI`` set), where a run that skipped the 43 %
of the suite that reads the snapshot would otherwise still pass."""

from __future__ import annotations

from pathlib import Path

import pytest

MISSING = "the recorded snapshot (../shared/snapshot or FINDESK_SNAPSHOT_DIR) is not available"


def require_snapshot(root: Path | None, *, ci: bool) -> Path:
    if root is None:
        if ci:
            pytest.fail(f"{MISSING}; CI must run with the snapshot beside the checkout", pytrace=False)
        pytest.skip(MISSING)
    return root
