"""The earnings-calendar tool: the latest earnings date and the next one, as known at the run's date.

Rules:
- Thin: the router is asked with ``ctx.as_of`` and its ``Result`` is returned; which dates are
  visible is the data layer's point-in-time rule (a calendar recorded after ``as_of`` shows only
  dates on or before it).
- The summary is the briefing's own "Next earnings date" sentence (``analytics.key_figures``), so
  a model and the desk say the same thing; the calendar's public link is in the full result.
"""

from __future__ import annotations

from findesk.analytics.key_figures import last_earnings, next_earnings
from findesk.core.result import Result
from findesk.data.models import EarningsCalendar
from findesk.tools.args import POINT_IN_TIME, QUOTE_RULE, SymbolArgs
from findesk.tools.base import Tool, ToolContext


async def _earnings_calendar(args: SymbolArgs, ctx: ToolContext) -> Result[EarningsCalendar]:
    return await ctx.router.earnings_calendar(args.symbol, ctx.as_of)


def summarize_calendar(cal: EarningsCalendar) -> str:
    last = last_earnings(cal)
    # The data file names the source in a few tokens; the public link is in the result and the briefing.
    return (
        f"{cal.ticker} next earnings date: {next_earnings(cal).text}"
        f"{'; ' + last if last else ''}. Source: {cal.source.cite()}"
    )


get_earnings_calendar = Tool(
    name="get_earnings_calendar",
    description=(
        "A US company's next earnings date (when the calendar known at the as-of date lists one) and "
        f"its latest earnings call. {POINT_IN_TIME} {QUOTE_RULE}"
    ),
    args=SymbolArgs,
    fn=_earnings_calendar,
    summarize=summarize_calendar,
)

TOOLS: tuple[Tool, ...] = (get_earnings_calendar,)
