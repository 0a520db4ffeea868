"""A costly request reserves its model budget at admission, so runs in flight count against the daily
cap before they report what they spent; the run's end settles the reservation to its real cost."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from access_kit import at_once

from findesk.core.access.keys import ApiKey, KeyStore
from findesk.core.access.limits import admit, record_cost, spent_today
from findesk.core.config import ApiTier
from findesk.core.result import Err, ErrorCode, Ok

T0 = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
TIER = ApiTier(rpm=100, daily_cost_usd=1.0)


def test_a_run_reserves_its_budget_until_it_settles_to_what_it_spent(store: KeyStore, key: ApiKey) -> None:
    first = admit(store, key, TIER, now=T0, costly=True, reserve_usd=0.4).unwrap()
    assert first.reserved_usd == pytest.approx(0.4)
    assert spent_today(store, key.id, T0).unwrap() == pytest.approx(0.4)  # in flight: its whole budget

    second = admit(store, key, TIER, now=T0, costly=True, reserve_usd=0.4).unwrap()
    assert second.spent_today_usd == pytest.approx(0.4) and second.reserved_usd == pytest.approx(0.4)
    third = admit(store, key, TIER, now=T0, costly=True, reserve_usd=0.4).unwrap()
    assert third.reserved_usd == pytest.approx(0.2)  # only what is left of the cap
    over = admit(store, key, TIER, now=T0, costly=True, reserve_usd=0.4)
    assert isinstance(over, Err) and over.code is ErrorCode.LIMIT_REACHED

    record_cost(store, first.request_id, "run-1", 0.05).unwrap()  # the run ended: settled
    assert spent_today(store, key.id, T0).unwrap() == pytest.approx(0.65)
    assert admit(store, key, TIER, now=T0, costly=True, reserve_usd=0.4).unwrap().reserved_usd == (
        pytest.approx(0.35)
    )


def test_reads_and_runs_that_spend_nothing_reserve_nothing(store: KeyStore, key: ApiKey) -> None:
    read = admit(store, key, TIER, now=T0, costly=False, reserve_usd=0.4).unwrap()
    plain = admit(store, key, TIER, now=T0, costly=True).unwrap()
    assert read.reserved_usd == 0.0 and plain.reserved_usd == 0.0
    assert spent_today(store, key.id, T0).unwrap() == 0.0


def test_a_bad_reservation_is_refused_with_a_clear_reason(store: KeyStore, key: ApiKey) -> None:
    for bad in (-1.0, float("nan"), float("inf")):
        refused = admit(store, key, TIER, now=T0, costly=True, reserve_usd=bad)
        assert isinstance(refused, Err) and refused.code is ErrorCode.INVALID_INPUT
        assert "reserve" in refused.reason


def test_an_unsettled_reservation_stays_charged(state_db: str, key: ApiKey) -> None:
    # a server that dies mid-run never settles: the reservation is what the key is charged
    crashed = KeyStore.open(state_db).unwrap()
    admit(crashed, key, TIER, now=T0, costly=True, reserve_usd=0.7).unwrap()
    crashed.close()
    restarted = KeyStore.open(state_db).unwrap()
    assert spent_today(restarted, key.id, T0).unwrap() == pytest.approx(0.7)
    restarted.close()


def test_simultaneous_runs_never_reserve_more_than_the_cap(key: ApiKey, state_db: str) -> None:
    # ten server processes admit one run each at the same moment, each wanting the full model budget
    results = at_once(state_db, 10, lambda own: admit(own, key, TIER, now=T0, costly=True, reserve_usd=0.3))
    admitted = [r.value for r in results if isinstance(r, Ok)]
    assert len(results) == 10 and len(admitted) == 4  # 0.3 + 0.3 + 0.3 + the last 0.1
    assert sum(a.reserved_usd for a in admitted) == pytest.approx(1.0)
