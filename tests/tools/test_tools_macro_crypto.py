"""Macro, crypto and sanctions tools on the real snapshot: how current each figure is, and its source."""

from __future__ import annotations

from collections.abc import Callable

from findesk.tools.base import ToolOutcome

Call = Callable[..., ToolOutcome]

TORNADO = "0x722122dF12D4e14e13Ac3b6895a86e84145b6967"
B855 = "0xb8553D9ee35dd23BB96fbd679E651B929821969B"


def test_daily_treasury_yield(call: Call) -> None:
    out = call("get_macro_series", series_id="dgs10")
    assert out.ok, out.summary
    lines = out.summary.splitlines()
    assert lines[0] == "DGS10 — 10Y Treasury, frequency D: latest 4.23 for 2025-08-29"
    assert "2025-08-28 4.22" in lines[1]
    assert "no release lag" in out.summary and "Source: snapshot:fred/DGS10.csv" in out.summary
    # the default window keeps the audit payload small: five years, not the series since 1962
    assert out.payload["observations"][0]["date"] >= "2020-08-28"


def test_monthly_cpi_applies_the_release_lag(call: Call) -> None:
    out = call("get_macro_series", series_id="CPIAUCSL")
    assert out.ok, out.summary
    assert out.summary.startswith("CPIAUCSL — CPI (Headline), frequency M: latest 321.5 for 2025-06-01")
    assert "published 61 days after its period date" in out.summary
    assert "2025-07-01" not in out.summary  # July CPI was not yet released on 2025-08-29


def test_bad_series_id_is_rejected(call: Call) -> None:
    assert call("get_macro_series", series_id="../prices/x").error_code == "invalid_input"
    unknown = call("get_macro_series", series_id="NOSUCHSERIES")
    assert unknown.error_code == "not_found"


def test_onchain_transactions_in_whole_units_with_hashes(call: Call) -> None:
    out = call("get_onchain_txs", address=B855.lower(), limit=3)
    assert out.ok, out.summary
    lines = out.summary.splitlines()
    assert lines[1] == (
        "- 2022-12-30 05:32Z normal: 0xb8553d9ee35dd23bb96fbd679e651b929821969b -> "
        "0x8731d54e9d02c286767d56ac03e8037c07e01e98 0.000444264835797091 ETH "
        "tx 0x375f529c5ed649b257abca3da182c48310e78cbb0ded2c8de264f3f1924144cf"
    )
    assert "11 USDC" in lines[3]
    assert "blocks 0-16295684 only" in out.summary  # the recording's coverage limit is stated


def test_token_price_states_its_own_date(call: Call) -> None:
    out = call("get_token", token_id="ETH")
    assert out.ok, out.summary
    assert out.summary.startswith("Ethereum (ETH, id ethereum): price 2,279.94 USD as of 2024-01-01 00:00Z")
    assert "coins_ethereum_history_01-01-2024.json" in out.summary


def test_tvl_missing_from_the_snapshot_says_do_not_estimate(call: Call) -> None:
    out = call("get_protocol_tvl", protocol="aave")
    assert out.error_code == "no_data" and "Do not estimate" in out.summary


def test_sanctioned_address_matches_with_entity_program_and_list_date(call: Call) -> None:
    out = call("screen_sanctions", query=TORNADO)
    assert out.ok, out.summary
    assert out.summary.startswith(f"MATCH: '{TORNADO}' is on 2 sanctions list entries:")
    assert (
        "- ETH sanctioned addresses (ultrasoundmoney) (list of 2024-08-20): matched "
        "0x722122df12d4e14e13ac3b6895a86e84145b6967; entity TORNADO CASH, program DPRK3, CYBER2, "
        "SDN id 39796, asset ETH — snapshot:ofac/eth_sanctioned_addresses_2024-08-20.csv"
    ) in out.summary.splitlines()
    assert "374 days before the as-of date (STALE)" in out.summary


def test_name_screen_match_and_no_match(call: Call) -> None:
    hit = call("screen_sanctions", query="Lazarus Group")
    assert hit.ok and "entity LAZARUS GROUP, program DPRK3, SDN id 27307" in hit.summary
    miss = call("screen_sanctions", query="John Smith")
    assert miss.ok and miss.payload["matches"] == []
    assert miss.summary.splitlines() == [
        "NO MATCH for 'John Smith' on the lists checked (not a clearance if a list is stale):",
        "- OFAC SDN: list of 2024-05-03, 483 days before the as-of date (STALE) — "
        "snapshot:ofac/sdn_2024-05-03.csv",
    ]
