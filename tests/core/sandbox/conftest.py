"""Fixtures for the sandbox tests.

Rules: a test that needs a working sandbox asks for ``sandbox_ready``; without bubblewrap (or
libseccomp, or a way to cap processes) it is skipped with the reason on a developer's machine and
fails under ``CI``, where skipping every escape test would hide a missing wall.
"""

from __future__ import annotations

import os

import pytest

from findesk.core.result import Err
from findesk.core.sandbox import sandbox_status


@pytest.fixture(scope="session")
def sandbox_ready() -> str:
    status = sandbox_status()
    if isinstance(status, Err):
        if os.environ.get("CI"):
            pytest.fail(f"the sandbox must work in CI: {status.message()}", pytrace=False)
        pytest.skip(status.message())
    return status.value
