"""The briefing's quote (issue 12): adjusted levels never shown as a close, a missing quote named by
data mode, one volume per session, and the 52-week range in the Snapshot section."""

from __future__ import annotations

from datetime import date

import pytest
from brief_kit import BriefRun

from findesk.workflows.brief.render_markdown import to_markdown as render_markdown


def test_an_adjusted_price_is_never_called_a_close(brief_run: BriefRun) -> None:
    b = brief_run("TSLA", at=date(2022, 1, 21)).briefing
    assert "closed at" not in b.headline
    assert "adjusted" in b.headline and "not an as-traded close" in b.headline
    text = render_markdown(b)
    assert (
        "split/dividend-adjusted price 314.63 USD (not the as-traded close; no as-traded price for this date)"
        in text
    )


def test_a_2020_briefing_has_a_quote_from_the_file_its_volume_check_reads(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", at=date(2020, 4, 24)).briefing
    q = b.snapshot.quote
    assert q is not None and q.session_date == date(2020, 4, 24) and q.basis == "adjusted"
    assert "starts 2021-01-04" not in render_markdown(b)


def test_offline_a_missing_quote_is_not_called_live(brief_run: BriefRun) -> None:
    b = brief_run("AAPL", at=date(2005, 1, 3)).briefing
    assert b.snapshot.quote is None
    assert b.snapshot.message is not None
    assert b.snapshot.message.startswith("Quote unavailable in the offline snapshot: ")
    assert "live" not in b.headline.lower()
    assert all("Live quote unavailable" not in w for w in b.audit.warnings)


@pytest.mark.parametrize(("symbol", "volume"), [("AAPL", 39_387_990), ("NVDA", 242_712_298)])
def test_one_session_shows_one_volume(brief_run: BriefRun, symbol: str, volume: int) -> None:
    b = brief_run(symbol).briefing
    q, v = b.snapshot.quote, b.social.report.volume
    assert q is not None and v is not None
    assert q.volume == v.anomaly.volume == volume  # the screener's figure, in both places
    assert v.anomaly.note is not None and "the quote's" in v.anomaly.note


def test_the_snapshot_section_shows_the_52_week_range(brief_run: BriefRun) -> None:
    text = render_markdown(brief_run("AAPL").briefing)
    assert (
        "52-week range (closes, as traded) 172.42 (2025-04-08) – 259.02 (2024-12-26), "
        "246 sessions 2024-09-03..2025-08-29" in text
    )
