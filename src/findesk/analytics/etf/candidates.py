"""The candidate rules: which funds of a screened week go on to the news and analyst steps, in what order.

Rules:
- Each fund first gets its sector fields from the classifier's assignment (symbol → ``SectorAssignment``);
  a fund without one is ``UNCLASSIFIED`` with basis ``default``, neither leveraged nor inverse.
- Filters, in this order; a fund is counted once, under the first rule it fails (``excluded``):
  ``data_flag`` (a data-quality finding, never ranked), ``leveraged`` / ``inverse`` (unless
  ``include_leveraged`` / ``include_inverse``), ``price`` (close below ``min_price``),
  ``dollar_volume`` (20-day average dollar volume unknown or below ``min_avg_dollar_volume``),
  ``sector_excluded`` (in ``exclude_sectors``), ``sector_not_selected`` (``only_sectors`` set and the
  fund's sector not in it; sector names compare case-insensitively), ``weekly_return`` (the week's
  return above ``max_weekly_return_pct``), ``rsi`` (``max_rsi`` set and RSI unknown or above it).
- Ranking: ascending by ``rank_by`` (the most negative alpha residual first), funds without that
  figure last, ties by symbol; the first ``max_candidates`` are kept, the rest counted
  ``beyond_max_candidates``.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping

from findesk.analytics.etf.models import EtfFeatures, SectorAssignment
from findesk.analytics.etf.params import CandidateRules
from findesk.analytics.etf.sector_taxonomy import UNCLASSIFIED


def with_sector(fund: EtfFeatures, assignment: SectorAssignment | None) -> EtfFeatures:
    if assignment is None:
        return fund.model_copy(
            update={"sector": UNCLASSIFIED, "sector_basis": "default", "leveraged": False, "inverse": False}
        )
    return fund.model_copy(
        update={
            "sector": assignment.sector,
            "sector_basis": assignment.basis,
            "leveraged": assignment.leveraged,
            "inverse": assignment.inverse,
        }
    )


def _failed_rule(fund: EtfFeatures, rules: CandidateRules) -> str | None:
    sector = (fund.sector or UNCLASSIFIED).casefold()
    checks = (
        ("data_flag", bool(fund.flags)),
        ("leveraged", fund.leveraged and not rules.include_leveraged),
        ("inverse", fund.inverse and not rules.include_inverse),
        ("price", fund.close < rules.min_price),
        (
            "dollar_volume",
            fund.avg_dollar_volume is None or fund.avg_dollar_volume < rules.min_avg_dollar_volume,
        ),
        ("sector_excluded", sector in {name.casefold() for name in rules.exclude_sectors}),
        (
            "sector_not_selected",
            bool(rules.only_sectors) and sector not in {name.casefold() for name in rules.only_sectors},
        ),
        ("weekly_return", fund.pct_return > rules.max_weekly_return_pct),
        ("rsi", rules.max_rsi is not None and (fund.rsi_14 is None or fund.rsi_14 > rules.max_rsi)),
    )
    return next((reason for reason, failed in checks if failed), None)


def _rank_key(fund: EtfFeatures, rank_by: str) -> tuple[bool, float, str]:
    value = getattr(fund, rank_by)
    missing = value is None or not math.isfinite(value)
    return missing, 0.0 if missing else float(value), fund.symbol


def select_candidates(
    features: Iterable[EtfFeatures], sectors: Mapping[str, SectorAssignment], rules: CandidateRules
) -> tuple[list[EtfFeatures], dict[str, int]]:
    """The week's candidates, ranked and capped, and the count of funds each rule excluded."""
    excluded: dict[str, int] = {}
    passed: list[EtfFeatures] = []
    for fund in features:
        fund = with_sector(fund, sectors.get(fund.symbol))
        reason = _failed_rule(fund, rules)
        if reason is None:
            passed.append(fund)
        else:
            excluded[reason] = excluded.get(reason, 0) + 1
    passed.sort(key=lambda fund: _rank_key(fund, rules.rank_by))
    if len(passed) > rules.max_candidates:
        excluded["beyond_max_candidates"] = len(passed) - rules.max_candidates
    return passed[: rules.max_candidates], excluded
