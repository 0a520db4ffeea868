"""The Business section's "Next earnings date" (issue 12, key figures): the date only when the earnings
calendar known at the as-of date lists it, scheduled and cited; never a date from after the as-of date."""

from __future__ import annotations

import dataclasses
import io
from datetime import date
from typing import Any

from brief_kit import BriefRun, failing
from rich.console import Console

from findesk.core.result import Result
from findesk.data.router import DataRouter
from findesk.interfaces.cli.brief_view import draw
from findesk.tools.base import Tool, ToolContext
from findesk.workflows.brief.models import Briefing
from findesk.workflows.brief.render_html import to_html
from findesk.workflows.brief.render_markdown import to_markdown

LINK = "https://github.com/lingtouyangLeo/Tariff_Sentiment/blob/"


def _terminal(b: Briefing) -> str:
    console = Console(width=200, record=True, file=io.StringIO(), color_system=None)
    draw(console, b, details=False)
    return console.export_text()


def test_at_2025_08_29_the_next_date_is_not_known(brief_run: BriefRun) -> None:
    run = brief_run("MSFT", at=date(2025, 8, 29))
    b = run.briefing
    said = "not known at this date: the data's earnings calendar was recorded 2025-10-01"
    for text in (to_markdown(b), _terminal(b), to_html(b).replace("&#x27;", "'")):
        shown = text.split("Next earnings date:", 1)[1].split("\n", 1)[0]
        assert shown.split("<", 1)[0].strip() == said, shown  # nothing after it: no date, no [n]
    kf = b.business.key_figures
    assert kf is not None and kf.next_earnings is not None and kf.next_earnings.citation is None
    assert not any("Tariff_Sentiment" in s.key for s in b.sources)
    # MSFT's 2025-10-29 date is in the calendar file but was not known on 2025-08-29: nowhere in the run
    assert "2025-10-29" not in b.model_dump_json() and "2025-10-29" not in repr(run.sink.events)


def test_at_2025_10_06_msft_shows_its_scheduled_date_cited(brief_run: BriefRun) -> None:
    b = brief_run("MSFT", at=date(2025, 10, 6)).briefing
    kf = b.business.key_figures
    assert kf is not None and kf.next_earnings is not None
    assert kf.next_earnings.text.startswith(
        "2025-10-29 (fiscal 2026 Q1), scheduled, per the earnings calendar recorded 2025-10-01"
    )
    key = kf.next_earnings.citation
    assert key is not None and key.startswith(LINK)
    n = b.source_number(key)
    assert n is not None
    md = to_markdown(b)
    assert "- Next earnings date: 2025-10-29 (fiscal 2026 Q1), scheduled" in md
    assert f"[{n}]" in md.split("Next earnings date:", 1)[1].split("\n", 1)[0]
    assert f"[{n}] MSFT earnings dates, earnings calendar recorded 2025-10-01" in md
    assert "Next earnings date: 2025-10-29 (fiscal 2026 Q1), scheduled" in _terminal(b)
    assert f'href="{key}"' in to_html(b)


def test_a_failed_calendar_says_so(brief_run: BriefRun) -> None:
    b = brief_run("MSFT", overrides={"get_earnings_calendar": failing}).briefing
    kf = b.business.key_figures
    assert kf is not None and kf.next_earnings is not None
    assert kf.next_earnings.text == "not available: get_earnings_calendar is down (planted failure)"


def test_live_mode_without_a_calendar_vendor_says_so(brief_run: BriefRun) -> None:
    def unconfigured(tool: Tool) -> Tool:
        async def fn(args: Any, ctx: ToolContext) -> Result[Any]:
            return await DataRouter({}).earnings_calendar(args.symbol, ctx.as_of)

        return dataclasses.replace(tool, fn=fn)

    b = brief_run("MSFT", overrides={"get_earnings_calendar": unconfigured}).briefing
    kf = b.business.key_figures
    assert kf is not None and kf.next_earnings is not None
    assert kf.next_earnings.text == "not available: no vendor is configured for earnings_calendar"
