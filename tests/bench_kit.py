"""Where the tests find the red-team bench (``../shared/bench/redteam``, beside the checkout like the
snapshot), and what happens when it is missing: a skip with a clear reason on a developer's machine, a
failure in CI (``CI`` set), mirroring ``snapshot_kit.require_snapshot``."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

_CHECKOUT = Path(__file__).resolve().parents[1]
MISSING = "the red-team bench (../shared/bench/redteam) is not available"


def require_bench(*, ci: bool) -> Path:
    for base in (Path.cwd(), _CHECKOUT):
        candidate = (base / ".." / "shared" / "bench" / "redteam").resolve()
        if (candidate / "benign_dev.jsonl").is_file():
            return candidate
    if ci:
        pytest.fail(f"{MISSING}; CI must run with the bench beside the checkout", pytrace=False)
    pytest.skip(MISSING)


def rows(bench: Path, name: str) -> list[dict[str, Any]]:
    """The rows of ``<name>_dev.jsonl``."""
    lines = (bench / f"{name}_dev.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]
