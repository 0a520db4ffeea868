"""Fixtures for runtime tests (the kit itself is ``runtime_kit``)."""

from __future__ import annotations

import pytest
from runtime_kit import SLEEPS, Harness, Lab


@pytest.fixture
def lab() -> Lab:
    return Lab()


@pytest.fixture
def harness(lab: Lab) -> Harness:
    SLEEPS.clear()
    return Harness(lab, lab.registry())


@pytest.fixture
def paired() -> Harness:
    """A harness whose ``price`` and ``volume`` tools each wait until both are running (``Lab.together``)."""
    SLEEPS.clear()
    lab = Lab(together=("price", "volume"))
    return Harness(lab, lab.registry())
