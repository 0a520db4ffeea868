"""OFAC list parsing on the snapshot's real SDN CSV and address lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats import ofac

TORNADO_POOL = "0x12D66f87A04A9E220743712cE6d9bB1B5616B8Fc"  # 0.1 ETH pool, tornado/ config


@pytest.fixture(scope="module")
def sdn(snapshot_dir: Path) -> list[ofac.SdnEntry]:
    got = ofac.parse_sdn_csv((snapshot_dir / "ofac" / "sdn_2024-05-03.csv").read_bytes())
    assert isinstance(got, Ok)
    return got.value


def test_sdn_layout(sdn: list[ofac.SdnEntry]) -> None:
    assert len(sdn) == 14965
    first = sdn[0]
    assert (first.uid, first.name, first.sdn_type, first.programs) == (
        "36",
        "AEROCARIBBEAN AIRLINES",
        None,
        ("CUBA",),
    )
    assert sdn[-1].uid == "48907"  # the trailing 0x1A byte is not a row
    tornado = next(e for e in sdn if e.uid == "39796")
    assert tornado.name == "TORNADO CASH" and tornado.programs == ("DPRK3", "CYBER2")
    # 12 complete ETH addresses survive OFAC's 1,000-character remarks cut
    assert len(tornado.addresses) == 12
    assert ("ETH", TORNADO_POOL) in tornado.addresses
    bnc = next(e for e in sdn if e.uid == "306")
    assert bnc.aliases == ("BNC",)


def test_name_matching(sdn: list[ofac.SdnEntry]) -> None:
    assert [e.uid for e, _ in ofac.sdn_name_matches(sdn, "tornado cash")] == ["39796"]
    assert "44718" in [e.uid for e, _ in ofac.sdn_name_matches(sdn, "Roman Semenov")]  # word order free
    assert ofac.name_matches("semenov roman", "SEMENOV, Roman")
    assert not ofac.name_matches("tornado cash", "TORNADO")


def test_address_index_is_case_insensitive(sdn: list[ofac.SdnEntry]) -> None:
    index = ofac.sdn_address_index(sdn)
    hits = index["ETH"][TORNADO_POOL.lower()]
    assert [(e.uid, listed) for e, listed in hits] == [("39796", TORNADO_POOL)]


def test_truncated_remark_address_is_dropped() -> None:
    btc = "123WBUDmSJv4GctdVEz6Qq6z8nXSKrJ4KX"
    prefix = "x" * 950 + "; Digital Currency Address - XBT "
    cut = (prefix + btc)[:1000]  # OFAC's cut leaves a plausible-looking but partial address
    assert len(cut) == 1000 and ofac.remark_addresses(cut) == ()
    assert ofac.remark_addresses(prefix[:-50] + "; Digital Currency Address - XBT " + btc + ".") == (
        ("XBT", btc),
    )
    # a partial EVM address is rejected by its length even inside the remarks
    assert ofac.remark_addresses("Digital Currency Address - ETH 0x12D66f87; x") == ()


def test_bad_sdn_file() -> None:
    got = ofac.parse_sdn_csv(b"<html>Service unavailable</html>")
    assert isinstance(got, Err) and got.code == ErrorCode.BAD_RESPONSE


def test_eth_lists_both_layouts(snapshot_dir: Path) -> None:
    old = ofac.parse_eth_address_csv(
        (snapshot_dir / "ofac/eth_sanctioned_addresses_2024-08-20.csv").read_text()
    )
    new = ofac.parse_eth_address_csv(
        (snapshot_dir / "ofac/eth_sanctioned_addresses_2026-05-26.csv").read_text()
    )
    assert isinstance(old, Ok) and isinstance(new, Ok)
    assert len(old.value) == 157 and sum(a.name == "TORNADO CASH" for a in old.value) == 91
    assert len(new.value) == 97 and not any(a.name == "TORNADO CASH" for a in new.value)
    assert old.value[0].date_added is not None and new.value[0].date_added is None


def test_b10c_lists(snapshot_dir: Path) -> None:
    folder = snapshot_dir / "ofac/digital_currency_addresses_2024-09-27"
    txt = ofac.parse_address_txt((folder / "sanctioned_addresses_ETH.txt").read_text())
    js = ofac.parse_address_json((folder / "sanctioned_addresses_ETH.json").read_bytes())
    assert len(txt) == 152 and js == Ok(txt)


@pytest.mark.parametrize(
    ("query", "kind"),
    [
        (TORNADO_POOL, "evm"),
        ("123WBUDmSJv4GctdVEz6Qq6z8nXSKrJ4KX", "address"),
        ("tornado cash", "name"),
        ("GARANTEX", "name"),
    ],
)
def test_classify_query(query: str, kind: str) -> None:
    assert ofac.classify_query(query) == Ok(kind)


@pytest.mark.parametrize("query", ["0x1234", "0x" + "g" * 40, "", "ab"])
def test_classify_rejects(query: str) -> None:
    got = ofac.classify_query(query)
    assert isinstance(got, Err) and got.code == ErrorCode.INVALID_INPUT
