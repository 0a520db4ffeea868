"""The candidate rules on a real week: 2025-04-04, the tariff sell-off (SPY -9.1 %), when most funds fell.

Sectors come from a hand-written assignment here (the classifier is tested on its own): geared and
inverse funds are marked by what they are (GUSH and ERX are 2x energy bulls, SMST a 2x short of
MicroStrategy, SQQQ a 3x short of the Nasdaq-100...).
"""

from __future__ import annotations

from datetime import date

import pytest

from findesk.analytics.etf.candidates import select_candidates
from findesk.analytics.etf.features import week_features
from findesk.analytics.etf.models import EtfFeatures, SectorAssignment
from findesk.analytics.etf.params import CandidateRules, PrepParams
from findesk.analytics.etf.sector_taxonomy import UNCLASSIFIED
from findesk.data.models.funds import PricePanel

LEVERAGED = {"GUSH", "ERX", "DIG", "AGQ", "BOIL", "SOXL", "TQQQ", "MSOX"}
INVERSE = {"ETHD", "TSLZ", "TSLQ", "TSDD", "SBIT", "BTCZ", "TSLS", "SQQQ", "SOXS", "SMST"}
SECTORS = {"XLE": "Energy", "XOP": "Energy", "GUSH": "Energy", "ERX": "Energy", "XLK": "Technology"}


def _assignments() -> dict[str, SectorAssignment]:
    symbols = LEVERAGED | INVERSE | set(SECTORS)
    return {
        symbol: SectorAssignment(
            sector=SECTORS.get(symbol, "Other"),
            basis="override",
            leveraged=symbol in LEVERAGED or symbol in {"SQQQ", "SOXS", "SMST"},
            inverse=symbol in INVERSE,
        )
        for symbol in symbols
    }


@pytest.fixture(scope="module")
def features(etf_panel: PricePanel) -> list[EtfFeatures]:
    return week_features(etf_panel, date(2025, 4, 4), PrepParams()).features


def test_default_rules_leave_out_geared_and_inverse_funds(features: list[EtfFeatures]) -> None:
    candidates, excluded = select_candidates(features, _assignments(), CandidateRules())

    chosen = {fund.symbol for fund in candidates}
    assert len(candidates) == 30
    assert not chosen & (LEVERAGED | INVERSE)
    present = {fund.symbol for fund in features}
    geared = present & (LEVERAGED | {"SQQQ", "SOXS", "SMST"})
    assert excluded["leveraged"] == len(geared)
    assert excluded["inverse"] == len(present & INVERSE - geared)
    assert len(candidates) + sum(excluded.values()) == len(features)


def test_geared_and_inverse_funds_enter_when_asked(features: list[EtfFeatures]) -> None:
    rules = CandidateRules(include_leveraged=True, include_inverse=True)
    candidates, excluded = select_candidates(features, _assignments(), rules)

    ranked = [fund.symbol for fund in candidates]
    # SMST fell 6.9 % while SPY fell 9.1 %: for a -6-beta fund that is the week's worst alpha
    assert ranked[0] == "SMST"
    assert {"GUSH", "ERX"} <= set(ranked)
    assert "leveraged" not in excluded and "inverse" not in excluded
    only_leveraged = CandidateRules(include_leveraged=True)
    chosen = {fund.symbol for fund in select_candidates(features, _assignments(), only_leveraged)[0]}
    assert "GUSH" in chosen and "SMST" not in chosen


def test_candidates_are_ranked_by_alpha_and_capped(features: list[EtfFeatures]) -> None:
    rules = CandidateRules(max_candidates=5)
    candidates, excluded = select_candidates(features, _assignments(), rules)
    everyone, _ = select_candidates(features, _assignments(), CandidateRules(max_candidates=200))

    alphas = [fund.alpha_residual for fund in everyone if fund.alpha_residual is not None]
    assert len(alphas) == len(everyone)
    assert alphas == sorted(alphas)
    assert [fund.symbol for fund in candidates] == [fund.symbol for fund in everyone[:5]]
    assert excluded["beyond_max_candidates"] > 0
    assert len(candidates) + sum(excluded.values()) == len(features)
    by_return, _ = select_candidates(features, _assignments(), CandidateRules(rank_by="pct_return"))
    returns = [fund.pct_return for fund in by_return]
    assert returns == sorted(returns) and returns[0] < alphas[0]


def test_every_candidate_passes_the_floors_and_the_weekly_fall(features: list[EtfFeatures]) -> None:
    rules = CandidateRules(max_candidates=200, max_rsi=35.0)
    candidates, excluded = select_candidates(features, _assignments(), rules)

    assert candidates
    for fund in candidates:
        assert fund.close >= rules.min_price
        assert fund.avg_dollar_volume is not None and fund.avg_dollar_volume >= rules.min_avg_dollar_volume
        assert fund.pct_return <= rules.max_weekly_return_pct
        assert fund.rsi_14 is not None and fund.rsi_14 <= 35.0
    for reason in ("price", "dollar_volume", "weekly_return", "rsi"):
        assert excluded[reason] > 0, reason


def test_sectors_are_attached_and_filter(features: list[EtfFeatures]) -> None:
    candidates, _ = select_candidates(features, _assignments(), CandidateRules(max_candidates=200))
    by_symbol = {fund.symbol: fund for fund in candidates}

    assert by_symbol["XLE"].sector == "Energy" and by_symbol["XLE"].sector_basis == "override"
    unassigned = next(fund for fund in candidates if fund.symbol not in _assignments())
    assert (unassigned.sector, unassigned.sector_basis) == (UNCLASSIFIED, "default")

    energy, excluded = select_candidates(
        features, _assignments(), CandidateRules(max_candidates=200, only_sectors=["energy"])
    )
    assert {fund.symbol for fund in energy} == {"XLE", "XOP"}
    assert excluded["sector_not_selected"] > 0
    no_energy, excluded = select_candidates(
        features, _assignments(), CandidateRules(max_candidates=200, exclude_sectors=["Energy"])
    )
    assert excluded["sector_excluded"] == 2
    assert not {fund.symbol for fund in no_energy} & {"XLE", "XOP"}


def test_flagged_funds_and_missing_rank_figures(features: list[EtfFeatures]) -> None:
    xle = next(fund for fund in features if fund.symbol == "XLE")
    flagged = xle.model_copy(update={"symbol": "BAD", "flags": ["bad_tick: planted"]})
    no_beta = xle.model_copy(update={"symbol": "NEW", "beta": None, "alpha_residual": None})

    candidates, excluded = select_candidates([flagged, no_beta, xle], {}, CandidateRules())

    assert [fund.symbol for fund in candidates] == ["XLE", "NEW"]  # no alpha: ranked last, not dropped
    assert excluded == {"data_flag": 1}
