"""Sections stream as they are final: what the API and the web page show before ``done``."""

from __future__ import annotations

from brief_kit import BriefRun, planting, post
from selectolax.lexbor import LexborHTMLParser

from findesk.core.events.model import AgentEnd, AgentStart, SectionReady
from findesk.guardrails.safe_markdown import block_html, inline_html
from findesk.workflows.brief.models import SECTION_NAMES, SECTION_TITLES
from findesk.workflows.brief.render_html import section_html

SCRIPT = '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned=2">'


def _inert(fragment: str) -> bool:
    """No element that runs code: no script/img/iframe/svg, no on* attribute, no javascript: link."""
    tree = LexborHTMLParser(f"<body>{fragment}</body>")
    if tree.css("script, img, iframe, svg, object, embed, style"):
        return False
    for node in tree.css("*"):
        for name, value in node.attributes.items():
            if name.lower().startswith("on") or (value or "").strip().lower().startswith("javascript:"):
                return False
    return True


def _positions(run: object) -> dict[str, int]:
    events = run.sink.events  # type: ignore[attr-defined]
    where: dict[str, int] = {}
    for i, e in enumerate(events):
        d = e.data
        if isinstance(d, SectionReady):
            where[f"section:{d.name}"] = i
        elif isinstance(d, AgentEnd) and e.parent_id is not None:
            where.setdefault(f"end:{d.agent}", i)
        elif isinstance(d, AgentStart):
            where.setdefault(f"start:{d.agent}", i)
        elif d.type == "done":
            where["done"] = i
    return where


def test_each_section_streams_once_when_its_agent_is_done_and_equals_the_final_one(
    brief_run: BriefRun,
) -> None:
    run = brief_run("AAPL")
    b = run.briefing
    sections = [e.data for e in run.sink.events if isinstance(e.data, SectionReady)]
    assert [s.name for s in sections if s.name in ("divergences", "audit")] == ["divergences", "audit"]
    assert sorted(s.name for s in sections) == sorted(SECTION_NAMES)
    for s in sections:
        assert s.title == SECTION_TITLES[s.index - 1]
        assert s.html == section_html(b, s.name), f"streamed {s.name} differs from the final briefing"
        assert s.message == getattr(b, s.name).message
    at = _positions(run)
    for name in ("snapshot", "business", "events", "risks"):
        assert at["end:official"] < at[f"section:{name}"] < at["start:coordinator"]
    assert at["end:social"] < at["section:social"] < at["start:coordinator"]
    assert at["section:audit"] < at["done"]
    by_name = {s.name: s.html for s in sections}
    assert "Apple Inc." in by_name["snapshot"] and '<a class="cite" href="#source-' in by_name["business"]


def test_a_script_planted_in_a_post_streams_as_text() -> None:
    # the renderer's sanitizer on its own: raw HTML escaped, nothing executable left
    assert not _inert(SCRIPT)  # the check itself sees a live payload
    for out in (inline_html(SCRIPT), block_html(SCRIPT + "\n\n[x](javascript:alert(1))")):
        assert _inert(out)
        assert "&lt;script&gt;" in out


def test_planted_script_in_a_post_is_escaped_in_the_social_section(brief_run: BriefRun) -> None:
    planted = post("xss1", f"AAPL to the moon {SCRIPT} **bold** [site](https://example.com)")
    run = brief_run("AAPL", overrides={"get_reddit_posts": planting(planted)})
    social = next(
        e.data for e in run.sink.events if isinstance(e.data, SectionReady) and e.data.name == "social"
    )
    assert "xss1" in social.html
    assert _inert(social.html)
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in social.html
    assert "<strong>bold</strong>" in social.html  # Markdown still renders
    assert 'href="https://example.com" rel="noopener noreferrer nofollow"' in social.html
