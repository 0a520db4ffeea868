"""Helpers for the sandbox tests: run a program and insist the sandbox itself worked.

Rules: ``run`` fails the test on ``Err`` (the sandbox was usable, so every outcome must be a
``SandboxRun``) and on a run slower than its wall time plus a margin (nothing may hang).
"""

from __future__ import annotations

import json
import time
from typing import Any

from findesk.core.result import Err
from findesk.core.sandbox import SandboxLimits, SandboxRun, run_python

MARGIN_S = 5.0  # wall time + this: generous for a loaded CI machine, far below a hang


async def run(program: str, limits: SandboxLimits | None = None, **kwargs: Any) -> SandboxRun:
    limits = limits or SandboxLimits()
    started = time.monotonic()
    result = await run_python(program, limits=limits, **kwargs)
    elapsed = time.monotonic() - started
    assert not isinstance(result, Err), result.message()
    assert elapsed < limits.wall_seconds + MARGIN_S, f"the run took {elapsed:.1f} s"
    return result.value


def last_json(run: SandboxRun) -> Any:
    """The JSON document a probe program printed on its last line."""
    assert run.status == "ok", (run.status, run.reason, run.stderr)
    return json.loads(run.stdout.strip().splitlines()[-1])
