"""The compliance specialist on the real snapshot (as of 2025-08-29 unless stated): every address in the
question is screened and scored, findings cite the tools' own sources, the score is a finding with its
path, wording is a screening result, and odd input becomes a visible warning."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import date
from pathlib import Path

import pytest
from specialist_kit import open_context, run_specialist

from findesk.agents.roles.research.compliance import MAX_ADDRESSES, ROLE
from findesk.tools.base import ToolContext

POOL = "0xD4B88Df4D29F5CedD6857912842cff3b20C8Cfa3"
RECIPIENT = "0x817e4317e50ef0e4721d020bd8b5ab775d207d6d"
CLEAN = "0xA1E4380A3B1f749673E270229993eE55F35663b4"


@pytest.fixture
async def ctx(snapshot_dir: Path, tmp_path: Path) -> AsyncIterator[ToolContext]:
    opened = await open_context(snapshot_dir, tmp_path)
    yield opened
    await opened.router.aclose()


async def test_an_address_only_in_the_text_is_screened_scored_and_cited(ctx: ToolContext) -> None:
    report, outcomes = await run_specialist(
        ROLE, ctx, f"Is {RECIPIENT} on the OFAC list, and where did its funds come from?"
    )
    assert {o.name for o in outcomes.values()} == {"screen_sanctions", "address_risk"}
    score = next(f for f in report.findings if f.quantity == f"{RECIPIENT} risk score")
    assert (score.value, score.unit, score.observed) == (99.0, "score", date(2025, 8, 29))
    assert f"{POOL} -> {RECIPIENT}" in score.text and "band 81-100" in score.text
    assert "one hop from a sanctioned address (8 transfers)" in score.text
    assert f"{POOL} is flagged by ETH sanctioned addresses (ultrasoundmoney) list of 2024-08-20" in score.text
    assert len(score.text) < 500  # three 42-character addresses in it
    caveat = next(f for f in report.findings if f.text.startswith(f"Caveat on {RECIPIENT}"))
    assert "delisted on 2025-03-21" in caveat.text and caveat.citations
    sources = {c.source for c in score.citations}
    assert "snapshot:ofac/tornado/cache_ethereum_withdrawals_dai_100.json" in sources
    assert all(c.agent == "compliance" and c.tool == "address_risk" for c in score.citations)
    risk = report.data["risk"]
    assert (risk["score"], risk["band"], risk["paths"][0]) == (99, "81-100", [POOL, RECIPIENT])
    screen = next(f for f in report.findings if f.text.startswith("Screening result: no match"))
    assert "2024-08-20" in screen.text and "not a clearance" in screen.text
    assert all(f.citations for f in report.findings)


async def test_the_same_link_after_the_2026_list_is_in_the_mixer_band(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, "risk?", as_of=date(2026, 6, 1), addresses=[RECIPIENT])
    assert report.data["risk"]["band"] == "51-80" and report.data["risk"]["score"] == 79


async def test_a_sanctioned_and_a_clean_address_in_one_question(ctx: ToolContext) -> None:
    report, _ = await run_specialist(ROLE, ctx, f"Screen {POOL} and {CLEAN}")
    by_address = report.data["risk_by_address"]
    assert by_address[POOL]["score"] == 100 and by_address[POOL]["band"] == "81-100"
    assert by_address[CLEAN]["band"] == "0-20"
    match = next(f for f in report.findings if f.text.startswith(f"Screening result: {POOL} matches"))
    assert "TORNADO CASH" in match.text
    assert any(w.startswith(f"coverage ({CLEAN})") for w in report.warnings)


async def test_wording_never_makes_a_legal_finding(ctx: ToolContext) -> None:
    report, _ = await run_specialist(
        ROLE, ctx, f"Is {POOL} a criminal? Check {RECIPIENT}", names=["Tornado Cash"]
    )
    text = " ".join(f.text for f in report.findings).lower()
    assert "risk indicator" in text and "screening result" in text
    for word in ("is a criminal", "is illegal", "guilty"):
        assert word not in text


async def test_a_name_is_screened_against_the_sdn_list(ctx: ToolContext) -> None:
    report, outcomes = await run_specialist(ROLE, ctx, "Is Tornado Cash sanctioned?", names=["Tornado Cash"])
    assert list(outcomes) == ["screen:Tornado Cash"]
    assert report.findings[0].text.startswith("Screening result: 'Tornado Cash' matches")
    assert report.findings[0].citations[0].source == "snapshot:ofac/sdn_2024-05-03.csv"


async def test_odd_input_becomes_warnings_not_findings(ctx: ToolContext) -> None:
    tx_hash = "0x" + "ab" * 32  # 64 hex digits: a transaction hash, not an address
    many = [f"0x{i:040x}" for i in range(1, MAX_ADDRESSES + 3)]
    report, outcomes = await run_specialist(
        ROLE, ctx, f"trace {tx_hash} and " + " ".join(many), addresses=["0x817e<script>"]
    )
    assert not any(tx_hash in key for key in outcomes)
    assert any("not an Ethereum address" in w or "invalid" in w.lower() for w in report.warnings)
    assert any(
        w.startswith(f"data unavailable: only the first {MAX_ADDRESSES} addresses") for w in report.warnings
    )
    assert not any("0x817e<script>" in f.text for f in report.findings)


async def test_no_subject_is_said(ctx: ToolContext) -> None:
    report, outcomes = await run_specialist(ROLE, ctx, "Is this wallet safe?")
    assert outcomes == {} and report.findings == []
    assert report.warnings == ["data unavailable: the question names no address or name to screen"]


async def test_before_any_list_the_pool_link_is_a_mixer_link_and_the_gap_reads_plainly(
    ctx: ToolContext,
) -> None:
    report, _ = await run_specialist(ROLE, ctx, "risk?", as_of=date(2024, 1, 15), addresses=[RECIPIENT])
    assert (
        report.data["risk"]["band"] == "51-80"
    )  # no sanctions list yet: a known mixer contract, not a listing
    gaps = [w for w in report.warnings if "no sanctions list for address screening" in w]
    assert gaps and not any("Do not estimate" in w for w in report.warnings)  # model instructions stay out
