"""The pure risk score: exactly the design's four bands, each indicator inside its band whatever the
counts, the strongest indicator first in the reasoning chain, and wording that is never a legal finding."""

from __future__ import annotations

import pytest

from findesk.analytics.compliance_risk import BANDS, Link, RiskInputs, band_of, link_points, score_risk

A, B, C, D = "0xaaaa", "0xbbbb", "0xcccc", "0xdddd"


def _link(hops: int, flag: str = "sanctioned", transfers: int = 1) -> Link:
    path = [f"0x{i:04x}" for i in range(hops)] + [A]
    return Link(path=path, flag=flag, flagged=path[0], detail="test list of 2024-08-20", transfers=transfers)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("score", "band", "label"),
    [
        (0, "0-20", "clean"),
        (20, "0-20", "clean"),
        (21, "21-50", "indirect link 3+ hops"),
        (50, "21-50", "indirect link 3+ hops"),
        (51, "51-80", "two-hop link or mixer interaction"),
        (80, "51-80", "two-hop link or mixer interaction"),
        (81, "81-100", "sanctioned or one hop"),
        (100, "81-100", "sanctioned or one hop"),
    ],
)
def test_band_edges_are_exactly_the_designs(score: int, band: str, label: str) -> None:
    found = band_of(score)
    assert (found.name, found.label) == (band, label)


@pytest.mark.parametrize("score", [-1, 101])
def test_a_score_outside_0_to_100_has_no_band(score: int) -> None:
    with pytest.raises(ValueError):
        band_of(score)


def test_the_bands_cover_0_to_100_without_gaps_or_overlaps() -> None:
    covered = [s for band in BANDS for s in range(band.low, band.high + 1)]
    assert covered == list(range(101))


@pytest.mark.parametrize("transfers", [1, 2, 8, 10_000])
@pytest.mark.parametrize(
    ("hops", "flag", "band"),
    [
        (1, "sanctioned", "81-100"),
        (1, "mixer", "51-80"),
        (2, "sanctioned", "51-80"),
        (2, "mixer", "51-80"),
        (3, "sanctioned", "21-50"),
        (3, "mixer", "21-50"),
        (40, "sanctioned", "21-50"),
    ],
)
def test_each_link_stays_in_its_band_whatever_the_transfer_count(
    hops: int, flag: str, band: str, transfers: int
) -> None:
    risk = score_risk(RiskInputs(address=A, links=[_link(hops, flag, transfers)]))
    assert risk.band == band
    assert band_of(risk.score).name == band
    assert risk.paths == [_link(hops, flag, transfers).path]


def test_points_inside_the_bands() -> None:
    assert link_points(_link(1)) == 85 and link_points(_link(1, transfers=8)) == 99
    assert link_points(_link(1, transfers=11)) == 99  # capped below a listed address's 100
    assert link_points(_link(1, "mixer")) == 65 and link_points(_link(1, "mixer", 100)) == 80
    assert (link_points(_link(2)), link_points(_link(2, "mixer"))) == (60, 55)
    assert (link_points(_link(3)), link_points(_link(4)), link_points(_link(99))) == (45, 40, 21)


def test_a_listed_address_scores_100_and_says_which_list() -> None:
    risk = score_risk(RiskInputs(address=A, listed=["ETH sanctioned addresses list of 2024-08-20: X"]))
    assert (risk.score, risk.band) == (100, "81-100")
    assert "ETH sanctioned addresses list of 2024-08-20" in risk.reasons[0]


def test_the_strongest_indicator_decides_and_comes_first() -> None:
    risk = score_risk(
        RiskInputs(address=A, own_mixer="pool", links=[_link(3), _link(2, "mixer"), _link(1, transfers=3)])
    )
    assert risk.score == 89
    assert risk.reasons[0].startswith("risk indicator: one hop from a sanctioned address")
    assert [len(p) for p in risk.paths] == [2, 3, 4]


def test_no_indicator_is_clean_and_gaps_lower_the_assurance_not_the_band() -> None:
    clean = score_risk(RiskInputs(address=A))
    partial = score_risk(RiskInputs(address=A, gaps=["no recorded transactions for 0xbbbb"]))
    assert (clean.score, clean.band) == (0, "0-20")
    assert (partial.score, partial.band) == (10, "0-20")
    assert "coverage: no recorded transactions for 0xbbbb" in partial.reasons


def test_a_sanctioned_mixer_says_what_it_would_score_as_a_mixer_alone() -> None:
    link = _link(1, transfers=8).model_copy(update={"also_mixer": True})
    risk = score_risk(RiskInputs(address=A, links=[link], caveats=["X was delisted on 2025-03-21"]))
    assert risk.score == 99
    assert "as a mixer alone this link would give 79" in risk.reasons[0]
    assert "caveat: X was delisted on 2025-03-21" in risk.reasons


def test_wording_is_a_screening_result_never_a_legal_finding() -> None:
    risk = score_risk(RiskInputs(address=A, listed=["list"], links=[_link(1), _link(2, "mixer")]))
    text = " ".join(risk.reasons).lower()
    assert "screening result" in text and "risk indicator" in text
    for word in ("criminal", "illegal", "guilty", "laundering"):
        assert word not in text


def test_a_path_needs_two_addresses() -> None:
    with pytest.raises(ValueError):
        Link(path=[A], flag="mixer", flagged=A, detail="d")
