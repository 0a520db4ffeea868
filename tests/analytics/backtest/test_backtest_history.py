"""The point-in-time view: a strategy sees bars up to its session and nothing later."""

from __future__ import annotations

from datetime import date

import numpy as np
import pytest
from backtest_synth import bars_of, random_panel

from findesk.analytics.backtest.history import History, LookAheadError
from findesk.analytics.backtest.models import Bars


def _bars() -> Bars:
    days = np.array(
        ["2024-02-28", "2024-02-29", "2024-03-01", "2024-03-04", "2024-03-05"], dtype="datetime64[D]"
    )
    close = np.array([10.0, 11.0, 12.0, 13.0, 14.0])
    return Bars("ABC", days, close - 0.5, close + 1.0, close - 1.0, close, np.full(5, 1e6))


def test_arrays_stop_at_the_session_and_cannot_be_written() -> None:
    h = History(_bars(), 2)
    assert h.session == date(2024, 3, 1)
    assert h.close.tolist() == [10.0, 11.0, 12.0]
    assert len(h.open) == len(h.high) == len(h.low) == len(h.volume) == 3
    with pytest.raises(ValueError, match="read-only"):
        h.close[0] = 99.0


def test_no_route_to_a_later_bar_through_the_array_base() -> None:
    h = History(_bars(), 1)
    base = h.close.base
    # A numpy view would expose the whole series through .base; the prefix is a copy.
    assert base is None or len(base) <= 2


def test_reading_tomorrows_close_names_both_dates() -> None:
    h = History(_bars(), 2)
    with pytest.raises(LookAheadError) as err:
        h.close_on(date(2024, 3, 4))
    assert str(err.value) == "look-ahead: at the session of 2024-03-01 the strategy read 2024-03-04's close"
    assert err.value.session == date(2024, 3, 1)
    assert err.value.wanted == date(2024, 3, 4)


def test_bar_offsets_past_and_future() -> None:
    h = History(_bars(), 2)
    assert h.bar(0).close == 12.0
    assert h.bar(-2).session == date(2024, 2, 28)
    assert h.close_on(date(2024, 2, 29)) == 11.0
    with pytest.raises(LookAheadError, match="2024-03-04's bar"):
        h.bar(1)
    with pytest.raises(LookAheadError, match="the session 5 after"):
        h.bar(5)
    with pytest.raises(LookAheadError, match="2024-03-05"):
        h.bar_at(4)
    with pytest.raises(LookAheadError):
        h.bar(date(2024, 3, 2))  # a later weekend is still the future
    with pytest.raises(KeyError, match="no session on 2024-02-25"):
        h.close_on(date(2024, 2, 25))
    with pytest.raises(IndexError):
        h.bar(-3)


def test_warm_up_bars_are_visible() -> None:
    bars = bars_of(random_panel(1, 60, seed=3), 0)
    h = History(bars, 59)
    assert len(h.close) == 60
    assert h.close[-1] == bars.close[59]
