"""Text helpers for tool summaries: the compact, cited text a model reads.

Rules: pure and deterministic (same value, same text). Exact figures are printed exactly
(``exact``); only sizes such as market caps are abbreviated (``compact``), and the long form stays in
the full result. Summaries stay within ``SUMMARY_BUDGET``, below the executor's 4,000-character cap,
so they are never cut mid-line. A cited source carries its note (``cited``), so a caveat such as
"derived" or "partial" travels with the citation.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime

from findesk.data.models import Source

SUMMARY_BUDGET = 3_200


def exact(value: float | int) -> str:
    """A figure as the source gave it, with thousands separators (46,743,000,000; 4.23)."""
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e18:
        return f"{int(value):,}"
    return f"{value:,}"


def money(value: float | None, digits: int = 2) -> str:
    if value is None:
        return "n/a"
    if value != 0 and abs(value) < 1:
        return f"{value:,.6g}"
    return f"{value:,.{digits}f}"


def compact(value: float | None) -> str:
    """Sizes for reading (3.45T, 274.29B); the exact number stays in the full result."""
    if value is None:
        return "n/a"
    for unit, size in (("T", 1e12), ("B", 1e9), ("M", 1e6)):
        if abs(value) >= size:
            return f"{value / size:,.2f}{unit}"
    return f"{value:,.0f}"


def when(moment: datetime) -> str:
    """A timestamp in UTC to the minute (naive times are taken as UTC), e.g. 2025-08-27 20:22Z."""
    aware = moment if moment.tzinfo else moment.replace(tzinfo=UTC)
    return aware.astimezone(UTC).strftime("%Y-%m-%d %H:%MZ")


def cited(source: Source) -> str:
    """A source's citation, followed by its note in brackets when it has one."""
    return source.cite() + (f" ({source.note})" if source.note else "")


def sources_line(sources: Iterable[Source]) -> str:
    """``Sources: a; b``: each distinct citation (with its note) once, sorted."""
    return "Sources: " + "; ".join(sorted({cited(source) for source in sources}))


def clip(text: str, limit: int) -> str:
    """``text`` on one line, cut at a word boundary near ``limit`` characters."""
    flat = " ".join(text.split())
    if len(flat) <= limit:
        return flat
    cut = flat[:limit].rsplit(" ", 1)[0] if " " in flat[:limit] else flat[:limit]
    return cut.rstrip(" ,;:") + " …"


def fit_lines(head: str, lines: Sequence[str], tail: str = "", budget: int = SUMMARY_BUDGET) -> str:
    """``head``, as many whole lines as fit in ``budget``, a count of those left out, ``tail``."""
    used = len(head) + len(tail) + 80
    kept: list[str] = []
    for line in lines:
        if used + len(line) + 1 > budget:
            break
        kept.append(line)
        used += len(line) + 1
    parts = [head, *kept]
    left = len(lines) - len(kept)
    if left:
        parts.append(f"… {left} more not shown in this summary.")
    if tail:
        parts.append(tail)
    return "\n".join(parts)
