"""The Social section as an advisor reads it: an honest window, and tone counted only from opinion.

Defect 7 (issue 12): the label said 2025-07-30..2025-08-29 while Reddit was cut to the newest 50 posts
(NVDA: 08-12..08-27 of 94) and the window's first day was dropped (MSFT's "Q4 beat" post of 07-30).
Defect 11: AutoModerator's daily threads were counted as bullish (4 of AAPL's 19), posts about other
companies (Comcast) counted as AAPL's tone, and "0 flags" said nothing of the features Reddit rows lack.
"""

from __future__ import annotations

from datetime import date

from brief_kit import BriefRun

from findesk.workflows.brief.render_markdown import to_markdown


def test_nvda_reads_every_post_of_the_window_and_says_what_it_covers(brief_run: BriefRun) -> None:
    b = brief_run("NVDA").briefing
    r = b.social.report
    reddit = next(c for c in r.coverage if c.source == "Reddit")
    assert (reddit.read, reddit.first, reddit.last, reddit.complete) == (
        94,
        date(2025, 7, 30),
        date(2025, 8, 27),
        True,
    )
    assert r.posts_scored == 94
    text = to_markdown(b)
    assert "Window 2025-07-30..2025-08-29 (both days included)" in text
    assert "Reddit: 94 posts published 2025-07-30..2025-08-27, all read" in text


def test_the_windows_first_day_is_included(brief_run: BriefRun) -> None:
    r = brief_run("MSFT").briefing.social.report
    assert any(p.text.startswith("Microsoft posts Q4 beat on top and bottom line") for p in r.posts)
    assert all(p.published_at.date() >= date(2025, 7, 30) for p in r.posts)


def test_automoderator_threads_and_other_companies_news_are_not_aapl_tone(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    r = b.social.report
    bots = [p for p in r.posts if p.author == "AutoModerator"]
    assert len(bots) == 4 and all(p.excluded == "bot or moderator posts" for p in bots)
    comcast = next(p for p in r.posts if p.text.startswith("Comcast Gets Serious"))
    assert comcast.excluded == "naming the company only in passing"
    reddit = next(c for c in r.coverage if c.source == "Reddit")
    assert reddit.excluded["bot or moderator posts"] == 4
    # tone counts only the counted posts, and the counts add up to what the coverage line says
    assert r.reddit is not None and r.reddit.total == reddit.counted == reddit.read - sum(
        reddit.excluded.values()
    )
    counted_ids = {p.id for p in r.posts if p.excluded is None}
    assert all(set(t.post_ids) <= counted_ids for t in r.themes)
    text = to_markdown(b)
    assert "4 bot or moderator posts" in text
    assert "Read but not counted in tone and themes" in text


def test_pump_bot_check_says_which_features_the_data_allowed(brief_run: BriefRun) -> None:
    b = brief_run("AAPL").briefing
    r = b.social.report
    assert "account age (no account creation dates)" in r.pump_features_missing
    assert "followers (no follower counts)" in r.pump_features_missing
    assert "promotional phrases" in r.pump_features
    assert (
        f"Pump-bot check: 0 of {r.posts_scored} posts flagged; features available: promotional phrases"
        in to_markdown(b)
    )
    assert "not available in this data: account age" in to_markdown(b)
