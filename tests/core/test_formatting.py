"""``core.formatting``: every primitive pinned on its edge cases (None, NaN, ±inf, 0, negatives, large
values, rounding), so a change to how a figure prints is a deliberate one."""

from __future__ import annotations

import math
from collections.abc import Callable

import pytest

from findesk.core import formatting as fmt
from findesk.core.formatting import (
    NONE,
    clip,
    clip_line,
    compact,
    count,
    duration_ms,
    exact,
    finite,
    is_http,
    md,
    md_url,
    number,
    one_line,
    plural,
    price,
    signed,
    usd,
    word_clip,
)

NAN, INF = math.nan, math.inf


def test_the_missing_mark_is_an_em_dash() -> None:
    assert NONE == "—"


@pytest.mark.parametrize(
    "primitive", [price, signed, compact, exact, number, usd, duration_ms], ids=lambda f: f.__name__
)
@pytest.mark.parametrize("value", [NAN, INF, -INF], ids=["nan", "inf", "-inf"])
def test_a_non_finite_number_is_a_gap_never_a_figure(primitive: Callable[[float], str], value: float) -> None:
    assert primitive(value) == NONE


@pytest.mark.parametrize(
    "primitive", [price, signed, compact, exact, number, count], ids=lambda f: f.__name__
)
def test_none_prints_as_the_missing_mark(primitive: Callable[[None], str]) -> None:
    assert primitive(None) == NONE


@pytest.mark.parametrize(
    ("value", "finite_"),
    [(0.0, True), (-1.5, True), (1e308, True), (None, False), (NAN, False), (INF, False)],
)
def test_finite(value: float | None, finite_: bool) -> None:
    assert finite(value) is finite_


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0.00"),
        (-0.0, "-0.00"),
        (1234.5, "1,234.50"),
        (-1234.567, "-1,234.57"),
        (0.125, "0.12"),  # round half to even on the binary value
        (0.375, "0.38"),
        (2.675, "2.67"),  # 2.675 is stored just below .675: no decimal rounding of the written value
        (1e12, "1,000,000,000,000.00"),
        (7, "7.00"),  # an int is still a price: two decimals
    ],
)
def test_price(value: float, text: str) -> None:
    assert price(value) == text


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (0, 2, "+0.00"),
        (-0.0, 2, "-0.00"),
        (1.234, 2, "+1.23"),
        (-0.4, 2, "-0.40"),
        (1234.5, 2, "+1,234.50"),
        (2.1149, 1, "+2.1"),
        (-3, 0, "-3"),
    ],
)
def test_signed(value: float, digits: int, text: str) -> None:
    assert signed(value, digits) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [(0, "0"), (-12, "-12"), (243_257_900, "243,257,900"), (10**20, "100,000,000,000,000,000,000")],
)
def test_count(value: int, text: str) -> None:
    assert count(value) == text


@pytest.mark.parametrize(
    ("value", "digits", "text"),
    [
        (1234, 2, "1,234"),  # an int is a count: no decimals whatever ``digits`` says
        (-5, 4, "-5"),
        (True, 2, "1"),
        (1234.5, 2, "1,234.50"),
        (1234.0, 2, "1,234.00"),
        (0.0, 2, "0.00"),
        (-0.004, 2, "-0.00"),
        (0.0001234, 6, "0.000123"),
        (391_035_000_000.0, 0, "391,035,000,000"),
        (2.5, 0, "2"),  # half to even
        (1.23456, 4, "1.2346"),
    ],
)
def test_number(value: float, digits: int, text: str) -> None:
    assert number(value, digits) == text


def test_number_defaults_to_two_decimals() -> None:
    assert number(3.14159) == "3.14"


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0"),
        (950_000, "950,000"),
        (999_999.4, "999,999"),
        (999_999.5, "1,000,000"),  # below a million stays a whole number, even when it rounds up to one
        (1e6, "1.00M"),
        (95_100_000, "95.10M"),
        (999_999_999, "1,000.00M"),  # the unit is the one reached, not the one rounding would reach
        (1e9, "1.00B"),
        (812_300_000_000, "812.30B"),
        (3.4567e12, "3.46T"),
        (1.5e15, "1,500.00T"),
        (-1.2e9, "-1.20B"),
        (-500, "-500"),
    ],
)
def test_compact(value: float, text: str) -> None:
    assert compact(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (391_035_000_000.0, "391,035,000,000"),
        (6.08, "6.08"),
        (0.0, "0"),
        (-0.0, "0"),
        (-1_500.0, "-1,500"),
        (-2.5, "-2.5"),
        (1234.5678, "1,234.5678"),  # never rounded
        (1e21, "1,000,000,000,000,000,000,000"),
        (42, "42"),  # an int is whole by definition
    ],
)
def test_exact(value: float, text: str) -> None:
    assert exact(value) == text


@pytest.mark.parametrize(
    ("n", "noun", "text"),
    [
        (0, "error", "0 errors"),
        (1, "tool call", "1 tool call"),
        (2, "source", "2 sources"),
        (1204, "warning", "1,204 warnings"),
        (-1, "error", "-1 errors"),
    ],
)
def test_plural(n: int, noun: str, text: str) -> None:
    assert plural(n, noun) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "$0.00"),
        (-0.0, "$0.00"),
        (0.0042, "$0.0042"),
        (0.00004, "$0.0000"),
        (0.99999, "$1.0000"),  # below a dollar keeps four decimals even when it rounds to one
        (1, "$1.00"),
        (1234.5, "$1,234.50"),
        (-0.5, "$-0.5000"),
        (-2, "$-2.00"),
    ],
)
def test_usd(value: float, text: str) -> None:
    assert usd(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (0, "0.0 ms"),
        (4.25, "4.2 ms"),
        (9.99, "10.0 ms"),
        (10, "10 ms"),
        (850.4, "850 ms"),
        (999.6, "1,000 ms"),
        (1000, "1.0 s"),
        (12_345, "12.3 s"),
        (59_999, "60.0 s"),
        (60_000, "1m 00s"),
        (125_000, "2m 05s"),
        (3_600_000, "60m 00s"),
        (-5, "-5.0 ms"),
    ],
)
def test_duration_ms(value: float, text: str) -> None:
    assert duration_ms(value) == text


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, NONE),
        ("", ""),
        ("  a \n\t b  ", "a b"),
        (12.5, "12.5"),
        (0, "0"),
        (["x"], "['x']"),
    ],
)
def test_one_line(value: object, text: str) -> None:
    assert one_line(value) == text


@pytest.mark.parametrize(
    ("text", "limit", "out"),
    [
        ("short", 10, "short"),
        ("exactly10!", 10, "exactly10!"),
        ("abcdefghijk", 10, "abcdefghi…"),
        ("abc   defgh", 6, "abc…"),  # no space before the mark
        ("a\nb", 10, "a\nb"),  # not flattened
        ("abc", 1, "…"),
        ("abc", 0, "…"),
    ],
)
def test_clip(text: str, limit: int, out: str) -> None:
    assert clip(text, limit) == out


@pytest.mark.parametrize(
    ("text", "limit", "out"),
    [
        ("a  b\nc", 10, "a b c"),
        ("abcdefghijk", 10, "abcdefghi…"),
        ("abc defgh", 5, "abc …"),  # the space before the cut is kept
        ("abc", 1, "…"),
    ],
)
def test_clip_line(text: str, limit: int, out: str) -> None:
    assert clip_line(text, limit) == out


@pytest.mark.parametrize(
    ("text", "limit", "out"),
    [
        ("fits  on\none line", 40, "fits on one line"),
        ("Apple designs iPhone, Mac and more", 20, "Apple designs …"),
        ("one, two; three", 10, "one, two …"),  # trailing , ; : dropped before the mark
        ("Supercalifragilistic", 5, "Super …"),  # one long word is cut inside
        ("a b", 0, " …"),
    ],
)
def test_word_clip(text: str, limit: int, out: str) -> None:
    assert word_clip(text, limit) == out


def test_word_clip_stays_within_limit_plus_its_mark() -> None:
    text = "lorem ipsum dolor sit amet " * 20
    for limit in range(1, 120):
        assert len(word_clip(text, limit)) <= limit + 2


@pytest.mark.parametrize(
    ("url", "http"),
    [
        ("https://www.sec.gov/x.htm", True),
        ("HTTP://EXAMPLE.COM", True),
        ("  https://a.b/c  ", True),  # surrounding space is trimmed
        ("https://a.b/c d", False),
        ('https://a.b/"x', False),
        ("javascript:alert(1)", False),
        ("ftp://a.b", False),
        ("snapshot:prices/AAPL.csv", False),
        ("", False),
        (None, False),
    ],
)
def test_is_http(url: str | None, http: bool) -> None:
    assert is_http(url) is http


@pytest.mark.parametrize(
    ("text", "out"),
    [
        ("get_quote(AAPL)", "get_quote(AAPL)"),  # "_" is left alone
        ("<b>[x](y)</b>", "\\<b\\>\\[x\\](y)\\</b\\>"),
        ("*a* `b` |c| ~d~ \\", "\\*a\\* \\`b\\` \\|c\\| \\~d\\~ \\\\"),
        ("# heading\n- item", "# heading - item"),  # one line: no block structure can start
        (None, NONE),
    ],
)
def test_md(text: object, out: str) -> None:
    assert md(text) == out


@pytest.mark.parametrize(
    ("url", "out"),
    [
        ("https://a.b/c", "<https://a.b/c>"),
        (" https://a.b/c ", "<https://a.b/c>"),
        ("javascript:alert(1)", "javascript:alert(1)"),
        ("snapshot:[x]", "snapshot:\\[x\\]"),
        ("", "no URL"),
        ("   ", "no URL"),
        (None, "no URL"),
    ],
)
def test_md_url(url: str | None, out: str) -> None:
    assert md_url(url) == out


def test_the_module_is_pure() -> None:
    """No I/O and no workflow types: the module imports only the standard library's math and re."""
    imported = {name for name, value in vars(fmt).items() if type(value).__name__ == "module"}
    assert imported <= {"math", "re"}


@pytest.mark.parametrize("shown", [one_line, md, lambda t: clip_line(t, 80), lambda t: word_clip(t, 80)])
def test_a_right_to_left_override_in_data_text_cannot_reverse_the_rest_of_the_line(
    shown: Callable[[str], str],
) -> None:
    # a post author "\u202eevil" would print every later character of the line right to left
    title = "Buy now \u202e2025-08-29 \u2066isolated\u2069 \u202aembedded\u202c"
    out = shown(title)
    assert not any(ch in out for ch in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")
    assert "2025-08-29 isolated embedded" in out


def test_one_line_drops_control_characters_a_terminal_would_act_on() -> None:
    from findesk.core.formatting import one_line

    # ESC (a colour or cursor sequence), BEL, NUL and C1 controls go; letters and whitespace stay
    assert one_line("red\x1b[31m alert\x07 bell\x00 nul\x9b csi\tend") == "red[31m alert bell nul csi end"
    assert one_line("Zoë — 株式") == "Zoë — 株式"
