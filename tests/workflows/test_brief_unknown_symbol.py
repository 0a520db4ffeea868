"""Unknown tickers end with ``not_found`` before any agent runs (issue 12, defect 9)."""

from __future__ import annotations

import pytest
from brief_kit import BriefRun

from findesk.core.result import Err, ErrorCode


@pytest.mark.parametrize("symbol", ["NESN", "BMW", "HSBA"])
def test_a_ticker_no_source_knows_is_not_found_not_a_briefing_of_errors(
    brief_run: BriefRun, symbol: str
) -> None:
    run = brief_run(symbol)
    assert isinstance(run.result, Err)
    assert run.result.code is ErrorCode.NOT_FOUND
    assert symbol in run.result.reason and "US listing" in run.result.reason
    types = run.types()
    assert types[-1] == "error" and "done" not in types and "section" not in types
    # no agent started: the check ran before the graph
    assert not any(e.data.type == "agent_start" and e.data.agent != "brief" for e in run.sink.events)


def test_a_known_ticker_with_thin_data_still_gets_its_briefing(brief_run: BriefRun) -> None:
    # F has prices but no filings in the snapshot: a briefing that says what is missing, not not_found
    run = brief_run("F")
    assert run.briefing.snapshot.quote is not None
