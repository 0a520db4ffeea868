"""EIP-55 checksums with the module's own Keccak-256: known vectors, every checksummed Tornado Cash
contract address in the snapshot, and a flipped letter caught."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from findesk.data.formats.eip55 import checksum_ok, keccak256, to_checksum


def test_keccak256_known_vectors() -> None:
    assert keccak256(b"").hex() == "c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470"
    assert keccak256(b"abc").hex() == "4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45"
    assert len(keccak256(b"x" * 1000)) == 32  # several blocks


def test_eip55_reference_vector() -> None:
    assert (
        to_checksum("0x5aaeb6053f3e94c9b9a09f33669435e7ef1beaed")
        == "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"
    )


def test_every_mixed_case_tornado_address_in_the_snapshot_checks_out(snapshot_dir: Path) -> None:
    config = json.loads((snapshot_dir / "ofac/tornado/tornado_instances_from_config.json").read_text())
    spelled = [c["address"] for c in config["instances"] + config["other_contracts"]]
    verdicts = [checksum_ok(a) for a in spelled]
    assert verdicts.count(True) >= 70 and False not in verdicts


@pytest.mark.parametrize(
    ("address", "verdict"),
    [
        ("0x817E4317e50eF0E4721d020bd8b5AB775D207D6D", True),
        ("0x817e4317e50eF0E4721d020bd8b5AB775D207D6D", False),
        ("0x817e4317e50ef0e4721d020bd8b5ab775d207d6d", None),
        ("0x817E4317E50EF0E4721D020BD8B5AB775D207D6D", None),
        ("0x817e", None),
        ("0x" + "a" * 100_000, None),
    ],
)
def test_checksum_verdicts(address: str, verdict: bool | None) -> None:
    assert checksum_ok(address) is verdict
