"""SanctionsStore on the recorded OFAC lists: point in time, staleness, lists checked."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.models import SanctionsScreen
from findesk.data.vendors.snapshot import SnapshotVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sanctions import ETH_LIST, SDN_LIST, SanctionsStore

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="module")
def store(snapshot_dir: Path) -> SanctionsStore:
    return SanctionsStore(SnapshotFiles(snapshot_dir))


@pytest.fixture(scope="module")
def tornado_pool(snapshot_dir: Path) -> str:
    config = json.loads((snapshot_dir / "ofac/tornado/tornado_instances_from_config.json").read_text())
    pool = next(
        i
        for i in config["instances"]
        if i["chain_id"] == 1 and i["token"] == "eth" and i["denomination"] == "1"
    )
    return str(pool["address"])  # 0x47CE0C6eD5B0Ce3d3A51fdb1C52DC66a7c3c2936


def _screen(store: SanctionsStore, query: str, as_of: date) -> SanctionsScreen:
    got = store.screen(query, as_of)
    assert isinstance(got, Ok), got
    return got.value


def test_tornado_address_matches_via_2024_eth_list(store: SanctionsStore, tornado_pool: str) -> None:
    screen = _screen(store, tornado_pool.lower(), AS_OF)  # lower case still matches
    assert screen.hit
    eth = [m for m in screen.matches if m.list_name == ETH_LIST]
    assert len(eth) == 1
    match = eth[0]
    assert match.list_date == date(2024, 8, 20)
    assert (match.entity, match.entry_id, match.program, match.asset) == (
        "TORNADO CASH",
        "39796",
        "DPRK3, CYBER2",
        "ETH",
    )
    assert match.matched_value.lower() == tornado_pool.lower()
    assert match.source.ref == "ofac/eth_sanctioned_addresses_2024-08-20.csv"
    checked = {(c.name, c.list_date) for c in screen.lists_checked}
    assert (ETH_LIST, date(2024, 8, 20)) in checked
    assert (ETH_LIST, date(2026, 5, 26)) not in checked  # a future list is never visible
    eth_list = next(c for c in screen.lists_checked if c.name == ETH_LIST)
    assert (eth_list.stale_days, eth_list.stale) == (374, True)


def test_tornado_address_after_delisting(store: SanctionsStore, tornado_pool: str) -> None:
    screen = _screen(store, tornado_pool, date(2026, 6, 1))
    assert not screen.hit
    eth_list = next(c for c in screen.lists_checked if c.name == ETH_LIST)
    assert eth_list.list_date == date(2026, 5, 26)
    assert (eth_list.stale_days, eth_list.stale) == (6, False)
    # the older lists that still carry Tornado Cash are superseded for ETH and not consulted
    assert all(c.list_date == date(2026, 5, 26) or "ETH" not in c.name for c in screen.lists_checked)
    assert SDN_LIST not in {c.name for c in screen.lists_checked}


def test_before_the_eth_list_the_sdn_remarks_answer(store: SanctionsStore) -> None:
    screen = _screen(store, "0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc", date(2024, 6, 1))
    assert [(m.list_name, m.list_date, m.entry_id) for m in screen.matches] == [
        (SDN_LIST, date(2024, 5, 3), "39796")
    ]
    assert [(c.name, c.stale_days) for c in screen.lists_checked] == [(SDN_LIST, 29)]


def test_nothing_visible_is_no_data(store: SanctionsStore) -> None:
    got = store.screen("0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc", date(2023, 1, 1))
    assert isinstance(got, Err) and got.code == ErrorCode.NO_DATA
    assert "2024-05-03" in got.reason


def test_name_screen(store: SanctionsStore) -> None:
    screen = _screen(store, "tornado cash", AS_OF)
    assert [(m.entity, m.entry_id, m.list_date) for m in screen.matches] == [
        ("TORNADO CASH", "39796", date(2024, 5, 3))
    ]
    assert [(c.name, c.list_date, c.stale_days, c.stale) for c in screen.lists_checked] == [
        (SDN_LIST, date(2024, 5, 3), 483, True)
    ]
    assert not _screen(store, "Acme Widgets Nobody", AS_OF).hit


def test_btc_address_via_b10c_list(store: SanctionsStore) -> None:
    screen = _screen(store, "123WBUDmSJv4GctdVEz6Qq6z8nXSKrJ4KX", AS_OF)
    assert [(m.asset, m.list_date) for m in screen.matches] == [("XBT", date(2024, 9, 27))]
    assert (
        "digital_currency_addresses_2024-09-27/sanctioned_addresses_XBT.txt" in screen.matches[0].source.ref
    )


@pytest.mark.parametrize("query", ["0x12D66f87A04A9E220743712cE6d9bB1B5616B8F", "0xZZ", "", "x"])
def test_invalid_input(store: SanctionsStore, query: str) -> None:
    got = store.screen(query, AS_OF)
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT


def test_stale_threshold_is_configurable(snapshot_dir: Path) -> None:
    lenient = SanctionsStore(SnapshotFiles(snapshot_dir), stale_days=400)
    screen = _screen(lenient, "0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc", AS_OF)
    eth_list = next(c for c in screen.lists_checked if c.name == ETH_LIST)
    assert eth_list.stale is False


async def test_through_the_snapshot_vendor(snapshot_dir: Path) -> None:
    got = await SnapshotVendor(snapshot_dir).sanctions("Tornado Cash", AS_OF)
    assert isinstance(got, Ok) and got.value.hit
