"""Formatting primitives: numbers, money, durations and short text, the same wherever they are printed.

Rules:
- Pure: no I/O, no clock, no locale (``,`` groups thousands, ``.`` is the decimal point), and no
  workflow types: a value in, a ``str`` (or ``bool``) out. Same input, same text.
- Never raises on odd input. A missing number (``None``) prints as ``NONE`` ("—"), and so does a NaN
  or ±inf in every number primitive: a non-finite value is a gap in the data, never a figure.
- Figures are printed, never estimated: ``exact`` keeps every digit of a reported figure; rounding
  happens only where the primitive says so (``price`` and ``signed`` to 2 decimals, ``compact`` to
  2 decimals of T/B/M, ``number`` to ``digits``); Python's round-half-even applies (``price(0.125)``
  is "0.12").
- Text primitives return one line (runs of whitespace, newlines included, collapse to one space),
  except ``clip``, which cuts the text it is given. The one-line primitives also drop explicit bidi
  embeddings, overrides and isolates (U+202A–U+202E, U+2066–U+2069): one unclosed right-to-left
  override in a post title or author name would make the rest of the line (a date, a URL, a figure)
  read reversed in a terminal, a Markdown viewer or a page. Clipped text ends with "…" and, for ``limit`` ≥ 1,
  stays within ``limit`` characters (``word_clip``: within ``limit`` + 2, for its " …").
- Markdown helpers (``md``, ``md_url``) make data text inert: it can never become Markdown structure
  or raw HTML; only a whole ``http(s)://`` URL (``is_http``) becomes a link.
"""

from __future__ import annotations

import math
import re

NONE = "—"  # a missing or non-finite value

_HTTP = re.compile(r"https?://[^\s<>\"'`]+", re.IGNORECASE)
# "_" is left alone: intraword underscores (get_quote, file names) never start emphasis in CommonMark
_MD_SPECIAL = re.compile(r"([\\`*\[\]<>|~])")


def finite(value: float | None) -> bool:
    """True for a number that can be printed as a figure: not None, NaN or ±inf."""
    # Vendors already turn NaN into None; this keeps a stray one from printing as "nan" or "infT"
    # (the CLI tables once did) or raising (the live trace's durations once did).
    return value is not None and math.isfinite(value)


# ---- numbers ----


def price(value: float | None) -> str:
    """Two decimals with thousands separators: 1,234.50; a price, a change or a level."""
    return f"{value:,.2f}" if finite(value) else NONE


def signed(value: float | None, digits: int = 2) -> str:
    """Always signed: +1.25, -0.40, +0.00 (a change or a percent, without the % sign)."""
    return f"{value:+,.{digits}f}" if finite(value) else NONE


def count(value: int | None) -> str:
    """A whole count with thousands separators: 243,257,900."""
    return f"{value:,}" if value is not None else NONE


def number(value: float | None, digits: int = 2) -> str:
    """An int as a count (1,234), a float with ``digits`` decimals (1,234.50): a table cell."""
    if isinstance(value, int):  # bool is an int: printed as 1 / 0 like any count
        return f"{value:,}"
    return f"{value:,.{digits}f}" if finite(value) else NONE


def compact(value: float | None) -> str:
    """A size in short form, 2 decimals of the largest unit reached: 3.45T, 812.30B, 95.10M; below a
    million, a whole number (950,000). Negative sizes keep their sign (-1.20B)."""
    if value is None or not math.isfinite(value):
        return NONE
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f}{unit}"
    return f"{value:,.0f}"


def exact(value: float | None) -> str:
    """A reported figure as filed: thousands separators, never rounded (391,035,000,000; 6.08)."""
    if value is None:
        return NONE
    if isinstance(value, int):  # int.is_integer() is 3.12+: an int is whole by definition
        return f"{value:,}"
    if not math.isfinite(value):
        return NONE
    return f"{int(value):,}" if value.is_integer() else f"{value:,}"


def plural(n: int, noun: str) -> str:
    """'1 tool call', '0 errors', '1,204 sources': the count, then the noun with an "s" unless 1."""
    return f"{n:,} {noun}" + ("" if n == 1 else "s")


def usd(value: float) -> str:
    """Dollars: cents from $1 up ($1,234.50), four decimals below a dollar ($0.0042: model calls
    cost fractions of a cent), $0.00 for nothing."""
    if not math.isfinite(value):
        return NONE
    if value == 0:
        return "$0.00"
    return f"${value:,.2f}" if abs(value) >= 1 else f"${value:.4f}"


def duration_ms(value: float) -> str:
    """A duration given in milliseconds, in the unit a person reads: 4.2 ms, 850 ms, 12.3 s, 2m 05s."""
    if not math.isfinite(value):
        return NONE
    if value < 10:
        return f"{value:.1f} ms"
    if value < 1000:
        return f"{value:,.0f} ms"
    if value < 60_000:
        return f"{value / 1000:.1f} s"
    minutes, seconds = divmod(int(value / 1000), 60)
    return f"{minutes}m {seconds:02d}s"


# ---- text ----


_BIDI_CONTROLS = str.maketrans("", "", "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069")


# C0/C1 control characters other than whitespace (ESC, BEL, NUL…): a terminal would act on them
_CONTROLS = str.maketrans(
    "", "", "".join(chr(c) for c in (*range(0, 32), *range(127, 160)) if not chr(c).isspace())
)


def _flat(text: str) -> str:
    return " ".join(text.translate(_BIDI_CONTROLS).translate(_CONTROLS).split())


def one_line(text: object) -> str:
    """Any value as one line of text: whitespace collapsed, bidi and control characters dropped (a
    terminal escape in a post never reaches a terminal), None as ``NONE``."""
    return NONE if text is None else _flat(str(text))


def clip(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters, "…" included, with no space before the "…".
    Does not flatten: pass ``one_line(text)`` for one line."""
    return text if len(text) <= limit else text[: max(0, limit - 1)].rstrip() + "…"


def clip_line(text: str, limit: int) -> str:
    """``text`` on one line, cut hard to ``limit`` characters, "…" included. Unlike ``clip`` a space
    before the cut is kept ("abc …"): the live trace has always printed its lines so."""
    flat = _flat(text)
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def word_clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at the last word boundary within ``limit`` characters and ended with
    " …" (a word longer than ``limit`` is cut inside); trailing ", ; :" are dropped before the mark."""
    flat = _flat(text)
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return cut.rstrip(" ,;:") + " …"


def is_http(url: str | None) -> bool:
    """True only for a whole ``http(s)://`` URL without spaces or quotes: the only thing made a link."""
    return url is not None and _HTTP.fullmatch(url.strip()) is not None


# ---- Markdown ----


def md(text: object) -> str:
    """Data text as inert Markdown: one line, structure and HTML characters (``< > [ ] * ` | ~ \\``)
    backslash-escaped."""
    return _MD_SPECIAL.sub(r"\\\1", one_line(text))


def md_url(url: str | None) -> str:
    """An ``http(s)`` URL as a Markdown autolink (``<https://…>``); anything else as escaped text."""
    if url is None or not url.strip():
        return "no URL"
    return f"<{url.strip()}>" if is_http(url) else md(url)
