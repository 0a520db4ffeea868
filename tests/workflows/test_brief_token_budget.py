"""The model path's input stays within budget for every focus ticker, counted in real cl100k tokens
(issue 12: characters ÷ 4 undercounted AAPL's input by 16 %)."""

from __future__ import annotations

import pytest
from brief_kit import BriefRun

from findesk.core.events.model import LlmCall
from findesk.testing.fake_briefing_models import briefing_models

MAX_INPUT_TOKENS = 15_000
FOCUS = ("AAPL", "NVDA", "MSFT", "AMZN", "GOOGL", "TSLA", "META", "F")


@pytest.mark.parametrize("symbol", FOCUS)
def test_model_input_is_at_most_15k_real_tokens(brief_run: BriefRun, symbol: str) -> None:
    resolve, _ = briefing_models()
    run = brief_run(symbol, models=resolve)
    calls = [e.data for e in run.sink.events if isinstance(e.data, LlmCall)]
    assert len(calls) == 3  # official, social, coordinator: none fell back
    total = sum(c.input_tokens for c in calls)
    assert 1_000 < total <= MAX_INPUT_TOKENS, total
