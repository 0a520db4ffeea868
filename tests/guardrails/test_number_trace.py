"""Number trace: every number in a final text is traced to the run's data, after the rounding the
text implies; dates, item numbers, form names and small counts are not data numbers; a planted
figure is reported."""

from __future__ import annotations

import dataclasses
from datetime import date
from pathlib import Path

import pytest
from pydantic import BaseModel

from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.prices import PriceStore
from findesk.guardrails.advice import find_advice
from findesk.guardrails.number_trace import NumberPool, UntracedNumber, collect_numbers, untraced_numbers

AS_OF = date(2025, 8, 29)


def untraced(text: str, *data: object) -> list[str]:
    return [u.text for u in untraced_numbers(text, collect_numbers(*data))]


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("$232.14", 232.1400001),
        ("$232.14", 232.14),
        ("$232.1", 232.14),  # fewer digits shown: rounded
        ("232", 232.14),
        ("$1,234.56", 1234.56),
        ("3.45T", 3_452_000_000_000),
        ("$274.29B", 274_290_000_000),
        ("94 billion", 94_036_000_000),
        ("1.5 million", 1_460_000),
        ("12k", 12_000),
        ("-0.18%", -0.18),
        ("-0.18%", -0.0018),  # a fraction in the data
        ("-0.18%", -0.181),
        ("+1.2%", 1.2),
        ("down 1.2%", -1.2),  # unsigned in prose, signed in the data
        ("(0.18%)", -0.18),
        ("(0.18%)", 0.18),
        ("25 bps", 25),
        ("1.8x", 1.79),
    ],
)
def test_numbers_traced_after_the_rounding_the_text_implies(text: str, value: float) -> None:
    assert untraced(f"The figure was {text} that day.", {"v": value}) == []


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("$232.15", 232.14),
        ("$232.14", 232.1),  # more precision shown than the data has, and it differs
        ("3.46T", 3_452_000_000_000),
        ("3.45B", 3_452_000_000_000),  # right digits, wrong unit
        ("95 billion", 94_036_000_000),
        ("12k", 12),
        ("-0.18%", 0.18),  # the data says up, the text says down
        ("-0.19%", -0.0018),
        ("0.18", 0.0018),  # no % sign: not a fraction
    ],
)
def test_numbers_the_data_does_not_explain_are_reported(text: str, value: float) -> None:
    assert untraced(f"The figure was {text} that day.", {"v": value}) == [text]


def test_dates_items_forms_periods_and_small_counts_are_skipped() -> None:
    text = (
        "On 2025-08-29 (August 29, 2025; 8/29/2025 at 16:00 ET) the 10-K Item 1A and the 8-K Items "
        "2.02 and 9.01 were read, with the 10-Q for Q3 FY2024 and 3Q25 and the 52-week range. "
        "Two sub-agents read 3 posts in 2025 [12]; see Exhibit 99.1, DEF 14A and the S&P 500 filing at "
        "https://www.sec.gov/Archives/edgar/data/320193/000032019325000073/aapl-20250628.htm "
        "(accession 0000320193-25-000073, CIK 0000320193)."
    )
    assert untraced(text) == []


def test_a_planted_target_is_reported_with_its_sentence() -> None:
    text = "Apple closed at $232.14 (-0.18%). Our view implies $250 by year-end."
    (found,) = untraced_numbers(text, collect_numbers({"price": 232.14, "change_pct": -0.181}))
    assert found == UntracedNumber(text="$250", value=250.0, sentence="Our view implies $250 by year-end.")


def test_values_keep_units_and_signs() -> None:
    got = untraced_numbers(
        "Cap 3.45T, change (0.25%), (+1.5%), -$1.2B, 94 billion, 1,234 posts.", NumberPool()
    )
    assert [(u.text, u.value) for u in got] == [
        ("3.45T", 3.45e12),
        ("(0.25%)", -0.25),
        ("+1.5%", 1.5),
        ("-$1.2B", -1.2e9),
        ("94 billion", 94e9),
        ("1,234", 1234.0),
    ]


def test_collects_nested_models_dicts_lists_and_strings() -> None:
    class Row(BaseModel):
        label: str
        value: float | None
        day: date

    @dataclasses.dataclass
    class Point:
        x: float

    cyclic: list[object] = [51.5, Point(x=7.25), [Point(x=8.5) for _ in range(50)]]
    cyclic.append(cyclic)
    pool = collect_numbers(
        {"rows": [Row(label="market cap 3.45T, up 1.2%", value=None, day=AS_OF)], "flag": True},
        ("volume 39,387,990",),
        cyclic,
        float("nan"),
        10**400,
        None,
        object(),
    )
    assert pool.traces(3.45e12, "3.45T") and pool.traces(1.2, "1.2%") and pool.traces(51.5, "51.5")
    assert pool.traces(7.25, "7.25") and pool.traces(8.5, "8.5")
    assert pool.traces(39_387_990, "39,387,990") and pool.traces(29, "29")
    assert not pool.traces(1.0, "1.0")  # True is not the number 1
    assert not pool.traces(float("nan"), "nan")


def test_real_snapshot_quote_traces_and_a_planted_target_is_caught(snapshot_dir: Path) -> None:
    quote = PriceStore(SnapshotFiles(snapshot_dir)).quote("AAPL", AS_OF).unwrap()
    pool = collect_numbers(quote)
    text = (
        f"Apple Inc. (AAPL) last closed at ${quote.price:.2f} ({quote.change_pct:+.2f}%) on "
        f"{quote.session_date}, after ${quote.previous_close:.2f}; volume {quote.volume / 1e6:.1f} million, "
        f"market cap {quote.market_cap / 1e12:.2f}T."
    )
    assert "$232.14 (-0.18%)" in text
    assert untraced_numbers(text, pool) == [] and find_advice(text) == []
    planted = text + " We rate AAPL a buy with a price target of $250."
    assert [u.text for u in untraced_numbers(planted, pool)] == ["$250"]
    assert [f.kind for f in find_advice(planted)] == ["recommendation", "price_target"]


def test_a_planted_figure_is_found_among_a_thousand_traced_ones_in_a_large_pool() -> None:
    # how long this takes is measured by bench/number_trace.py, not asserted here
    pool = collect_numbers([i * 1.37 for i in range(10_000)])
    text = " ".join(f"${i * 1.37:,.2f} and" for i in range(0, 10_000, 10)) + " $250.01."
    got = untraced_numbers(text, pool)
    assert [u.text for u in got] == ["$250.01"]


@pytest.mark.parametrize("text", ["", "$", "%", "(%)", "1,2,3", "--5", "1e10", "....", "$-", "(((12)))"])
def test_odd_text_never_raises(text: str) -> None:
    assert isinstance(untraced_numbers(text, NumberPool()), list)
    assert NumberPool().traces(1.0, text) is False
