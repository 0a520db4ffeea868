"""The epistemic-honesty protocol's rules, each on its own, with thresholds from the strategy."""

from __future__ import annotations

from findesk.analytics.etf.params import ProtocolParams
from findesk.analytics.etf.protocol import (
    BETA_MOVE,
    NO_CATALYST,
    NO_NEWS,
    UNEXPLAINED,
    capped,
    data_constrained_note,
    evidence_quality,
    verdict,
)

P = ProtocolParams()


def test_evidence_is_counted_articles_and_publishers() -> None:
    assert evidence_quality(0, 0, P) == "none"
    assert evidence_quality(1, 1, P) == "weak"
    assert evidence_quality(5, 1, P) == "weak"  # one publisher repeating itself is not strong
    assert evidence_quality(3, 2, P) == "strong"
    assert evidence_quality(2, 2, ProtocolParams(strong_min_items=2)) == "strong"


def test_no_news_and_small_alpha_is_a_market_move_yellow() -> None:
    v = verdict("none", -0.3, P)
    assert v.flag == "YELLOW" and v.reason.startswith(BETA_MOVE) and v.narrative == NO_NEWS


def test_no_news_and_large_alpha_is_unexplained_red() -> None:
    v = verdict("none", -2.4, P)
    assert v.flag == "RED" and v.reason.startswith(UNEXPLAINED) and v.narrative == NO_NEWS
    assert verdict("none", 1.6, P).flag == "RED"  # either sign


def test_no_news_between_thresholds_says_no_catalyst() -> None:
    v = verdict("none", -1.0, P)
    assert v.flag == "YELLOW" and v.reason.startswith(NO_CATALYST) and v.narrative == NO_NEWS


def test_thresholds_come_from_the_strategy() -> None:
    strict = ProtocolParams(beta_alpha_pct=0.2, unexplained_alpha_pct=0.8)
    assert verdict("none", -0.3, P).reason.startswith(BETA_MOVE)
    assert verdict("none", -0.3, strict).reason.startswith(NO_CATALYST)
    assert verdict("none", -1.0, strict).flag == "RED"


def test_weak_evidence_caps_at_yellow_and_says_no_catalyst() -> None:
    v = verdict("weak", -2.0, P)
    assert v.flag is None and v.cap == "YELLOW" and NO_CATALYST in v.reason
    assert capped("GREEN", v.cap) == "YELLOW"
    assert capped("RED", v.cap) == "RED"


def test_strong_evidence_leaves_the_flag_to_the_analyst() -> None:
    v = verdict("strong", -2.0, P)
    assert v.flag is None and v.cap == "GREEN" and v.narrative is None


def test_data_constrained_note_when_most_sectors_lack_evidence() -> None:
    note = data_constrained_note({"Technology": "strong", "Energy": "none", "Gold": "weak"}, P)
    assert note is not None and "2 of 3 sectors" in note and "Energy" in note
    assert data_constrained_note({"Technology": "strong", "Energy": "strong", "Gold": "none"}, P) is None
    assert data_constrained_note({}, P) is None
