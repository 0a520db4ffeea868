"""The Divergences section and summary as an advisor reads them (issue 12, defects 1-3): only real
contradictions are counted as divergences; the other verdicts are grouped and counted with their reasons."""

from __future__ import annotations

from brief_kit import BriefRun, planting, post

from findesk.workflows.brief.render_markdown import to_markdown


def test_amzn_missing_filings_are_not_divergences(brief_run: BriefRun) -> None:
    b = brief_run("AMZN").briefing
    assert b.divergences.divergences == []
    assert b.divergences.others, "AMZN's real posts carry claims"
    assert {(c.verdict, c.reason) for c in b.divergences.others} == {("not_checkable", "no_data")}
    assert "No social claim is contradicted by the filings" in b.summary
    assert "not supported" not in b.summary and "contradicted or" not in b.summary
    md = to_markdown(b)
    assert "NOT SUPPORTED" not in md and "CONTRADICTED" not in md
    assert f"Not checkable: no data ({len(b.divergences.others)})" in md


def test_a_contradiction_is_listed_first_and_counted_alone(brief_run: BriefRun) -> None:
    planted = post("p9", "AAPL revenue came in at $120 billion last quarter, a huge blowout.")
    b = brief_run("AAPL", overrides={"get_reddit_posts": planting(planted)}).briefing
    assert [d.claim.post_id for d in b.divergences.divergences] == ["reddit:p9"]
    total = len(b.divergences.divergences) + len(b.divergences.others)
    assert f"1 social claim contradicted by the filings ({total} checked)." in b.summary
    md = to_markdown(b)
    section = md[md.index("1 of ") :]
    assert section.index("CONTRADICTED by the filings") < section.index("Consistent with the filings (")
    # the real March-quarter post (defect 2) is among the consistent claims, naming the quarter
    assert "fiscal Q2 2025" in section


def test_memes_wishes_and_other_companies_are_shown_but_not_counted(brief_run: BriefRun) -> None:
    for symbol, verdict in (("NVDA", "not_a_claim"), ("UNH", "not_a_claim"), ("META", "not_checkable")):
        b = brief_run(symbol).briefing
        assert b.divergences.divergences == [], symbol
        assert any(c.verdict == verdict for c in b.divergences.others), symbol
    meta = brief_run("META").briefing
    google = [c for c in meta.divergences.others if c.claim.about_other == "Google"]
    assert [c.reason for c in google] == ["not_about_company"]
    assert "Not checkable: not about this company (1)" in to_markdown(meta)
