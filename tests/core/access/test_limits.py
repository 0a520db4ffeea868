"""Per-key limits: requests per minute, the daily cost cap, run ownership, shared across processes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from zoneinfo import ZoneInfo

import pytest
from access_kit import at_once

from findesk.core.access import limits
from findesk.core.access.keys import ApiKey, KeyStore
from findesk.core.access.limits import (
    Admission,
    admit,
    owns_run,
    record_cost,
    retry_after_s,
    spent_today,
    tier_of,
)
from findesk.core.config import ApiSettings, ApiTier
from findesk.core.result import Err, ErrorCode, Ok, Result
from state_kit import count

T0 = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
TIERS = ("free", "pro")


def refused(result: Result[Admission]) -> Err:
    assert isinstance(result, Err), result
    return result


def test_the_fourth_request_in_a_minute_waits_until_the_first_ages_out(store: KeyStore, key: ApiKey) -> None:
    tier = ApiTier(rpm=3, daily_cost_usd=1.0)
    passed = [admit(store, key, tier, now=T0, costly=False).unwrap() for _ in range(3)]
    assert [a.remaining_rpm for a in passed] == [2, 1, 0]
    assert len({a.request_id for a in passed}) == 3

    fourth = refused(admit(store, key, tier, now=T0, costly=False))
    assert fourth.code is ErrorCode.LIMIT_REACHED
    assert fourth.reason.startswith("rate limit: 3 requests per minute for tier free; retry in ")
    wait = retry_after_s(fourth)
    assert wait is not None and 1 <= wait <= 60
    assert fourth.reason.endswith(f"retry in {wait} s")
    assert fourth.details["limit"] == "rpm"

    assert admit(store, key, tier, now=T0 + timedelta(seconds=61), costly=False).ok


def test_retry_after_counts_down_to_the_oldest_request_leaving_the_window(
    store: KeyStore, key: ApiKey, state_db: str
) -> None:
    tier = ApiTier(rpm=3, daily_cost_usd=1.0)
    for offset in (0, 10, 20):
        admit(store, key, tier, now=T0 + timedelta(seconds=offset), costly=False).unwrap()
    denied = refused(admit(store, key, tier, now=T0 + timedelta(seconds=30), costly=False))
    assert retry_after_s(denied) == 30  # the request at T0 leaves the window at T0 + 60 s
    assert count(state_db, "api_requests") == 3  # a refused request is not recorded and does not count
    assert admit(store, key, tier, now=T0 + timedelta(seconds=60), costly=False).unwrap().remaining_rpm == 0


def test_twenty_simultaneous_requests_admit_exactly_the_limit(key: ApiKey, state_db: str) -> None:
    tier = ApiTier(rpm=5, daily_cost_usd=1.0)
    # one store per thread, as separate server processes would have: separate engines and connections
    results = at_once(state_db, 20, lambda own: admit(own, key, tier, now=T0, costly=False))

    admitted = [r for r in results if isinstance(r, Ok)]
    denied = [r for r in results if isinstance(r, Err)]
    assert len(results) == 20
    assert len(admitted) == 5
    assert {r.code for r in denied} == {ErrorCode.LIMIT_REACHED}
    assert sorted(r.value.remaining_rpm for r in admitted) == [0, 1, 2, 3, 4]
    assert count(state_db, "api_requests") == 5


def test_the_daily_cost_cap_stops_briefings_but_not_reads_until_the_next_utc_day(
    store: KeyStore, key: ApiKey
) -> None:
    tier = ApiTier(rpm=100, daily_cost_usd=1.0)
    evening = T0.replace(hour=23)
    first = admit(store, key, tier, now=evening, costly=True).unwrap()
    assert (first.spent_today_usd, first.budget_left_usd) == (0.0, 1.0)
    record_cost(store, first.request_id, "run-1", 0.6).unwrap()

    second = admit(store, key, tier, now=evening, costly=True).unwrap()
    assert second.spent_today_usd == pytest.approx(0.6)
    assert second.budget_left_usd == pytest.approx(1.0 - 0.6)
    record_cost(store, second.request_id, "run-2", 0.42).unwrap()
    assert spent_today(store, key.id, evening).unwrap() == pytest.approx(1.02)

    over = refused(admit(store, key, tier, now=evening, costly=True))
    assert over.code is ErrorCode.LIMIT_REACHED
    assert over.reason == (
        "daily cost cap of $1.00 reached for tier free (spent $1.02 today); resets at 00:00 UTC"
    )
    assert retry_after_s(over) == 3600  # 23:00 UTC → midnight
    assert over.details["limit"] == "daily_cost"

    read = admit(store, key, tier, now=evening, costly=False).unwrap()  # reads still go through
    assert read.spent_today_usd == pytest.approx(1.02) and read.budget_left_usd == 0.0

    tomorrow = admit(store, key, tier, now=evening + timedelta(hours=1, seconds=1), costly=True).unwrap()
    assert (tomorrow.spent_today_usd, tomorrow.budget_left_usd) == (0.0, 1.0)


def test_the_day_is_the_utc_day_whatever_the_callers_time_zone(store: KeyStore, key: ApiKey) -> None:
    tier = ApiTier(rpm=100, daily_cost_usd=1.0)
    late = datetime(2025, 3, 4, 23, 30, tzinfo=UTC)
    record_cost(store, admit(store, key, tier, now=late, costly=True).unwrap().request_id, "r", 0.5).unwrap()
    new_york = ZoneInfo("America/New_York")
    same_utc_day = datetime(2025, 3, 4, 18, 45, tzinfo=new_york)  # 23:45 UTC
    next_utc_day = datetime(2025, 3, 4, 20, 30, tzinfo=new_york)  # 01:30 UTC on the 5th
    assert spent_today(store, key.id, same_utc_day).unwrap() == pytest.approx(0.5)
    assert spent_today(store, key.id, next_utc_day).unwrap() == 0.0


def test_a_key_owns_the_runs_it_started_and_no_others(store: KeyStore, key: ApiKey) -> None:
    other = store.create("other", "pro", tiers=TIERS).unwrap()[0]
    tier = ApiTier(rpm=10, daily_cost_usd=1.0)
    started = admit(store, key, tier, now=T0, costly=True, run_id="run-live").unwrap()
    assert owns_run(store, key.id, "run-live").unwrap()  # readable while it runs
    record_cost(store, started.request_id, "run-live", 0.1).unwrap()

    later = admit(store, key, tier, now=T0, costly=True).unwrap()
    assert not owns_run(store, key.id, "run-late").unwrap()
    record_cost(store, later.request_id, "run-late", 0.2).unwrap()
    assert owns_run(store, key.id, "run-late").unwrap()
    assert not owns_run(store, other.id, "run-late").unwrap()
    assert spent_today(store, key.id, T0).unwrap() == pytest.approx(0.3)
    assert spent_today(store, other.id, T0).unwrap() == 0.0


def test_recording_a_cost_for_nothing_or_a_negative_cost_is_refused(store: KeyStore, key: ApiKey) -> None:
    assert isinstance(missing := record_cost(store, 999, "r", 0.1), Err)
    assert missing.code is ErrorCode.NOT_FOUND
    admitted = admit(store, key, ApiTier(rpm=5, daily_cost_usd=1.0), now=T0, costly=True).unwrap()
    for bad in (-0.01, float("nan"), float("inf")):
        assert isinstance(error := record_cost(store, admitted.request_id, "r", bad), Err)
        assert error.code is ErrorCode.INVALID_INPUT
    record_cost(store, admitted.request_id, "r", 0.3).unwrap()
    record_cost(store, admitted.request_id, "r", 0.5).unwrap()  # a later total replaces the earlier one
    assert spent_today(store, key.id, T0).unwrap() == pytest.approx(0.5)


def test_admission_notes_when_a_key_was_last_used_and_refuses_a_key_revoked_since(
    store: KeyStore, key: ApiKey
) -> None:
    tier = ApiTier(rpm=5, daily_cost_usd=1.0)
    admit(store, key, tier, now=T0, costly=False).unwrap()
    assert store.get(key.id).unwrap().last_used_at == T0
    store.revoke(key.id, now=T0 + timedelta(seconds=1)).unwrap()
    gone = refused(admit(store, key, tier, now=T0 + timedelta(seconds=2), costly=False))
    assert gone.code is ErrorCode.UNAUTHORIZED and "revoked on 2025-03-04 12:00 UTC" in gone.reason
    assert retry_after_s(gone) is None


def test_old_request_rows_are_pruned_but_run_ownership_is_kept(
    store: KeyStore, key: ApiKey, state_db: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    tier = ApiTier(rpm=5, daily_cost_usd=1.0)
    old = T0 - timedelta(days=3)
    admit(store, key, tier, now=old, costly=False).unwrap()
    briefing = admit(store, key, tier, now=old, costly=True).unwrap()
    record_cost(store, briefing.request_id, "old-run", 0.2).unwrap()
    recent = T0 - timedelta(days=1)
    admit(store, key, tier, now=recent, costly=False).unwrap()
    assert count(state_db, "api_requests") == 3

    monkeypatch.setattr(limits, "PRUNE_EVERY", 1)  # every admission prunes
    admit(store, key, tier, now=T0, costly=False).unwrap()
    # the old read is gone; the old run, yesterday's read and this one stay
    assert count(state_db, "api_requests") == 3
    assert owns_run(store, key.id, "old-run").unwrap()


def test_a_tier_removed_from_the_settings_is_not_configured(key: ApiKey) -> None:
    assert tier_of(key, ApiSettings().tiers).unwrap() == ApiTier(rpm=10, daily_cost_usd=1.0)
    gone = tier_of(key, {"pro": ApiTier(rpm=60, daily_cost_usd=25.0)})
    assert isinstance(gone, Err) and gone.code is ErrorCode.NOT_CONFIGURED
    assert "tier 'free', which is not configured (tiers: pro)" in gone.reason
