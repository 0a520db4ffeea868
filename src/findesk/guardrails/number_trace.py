"""Number trace: every number in a final text must come from the run's data.

Rules this module keeps:
- Numbers come from code, never from a model. ``untraced_numbers`` lists each number in a text that
  no value of the run's data explains, so a guard can block or flag the text.
- A number is traced when a pool value equals it after the rounding the text implies: "$232.14"
  is 232.14 ± 0.005, "3.45T" is 3.45e12 ± 0.005e12, "94 billion" is 94e9 ± 0.5e9. A percent also
  matches a fraction ("-0.18%" ↔ -0.0018) and an unsigned number matches a signed value ("down 1.2%"
  ↔ -1.2); "(0.18%)" is read as negative but traces with either sign.
- Not numbers of the data, so skipped: ISO/slashed/month-name dates, times, plain years 1900–2100,
  integers ≤ 10 without unit (counts in prose), item/section/exhibit numbers ("Item 2.02"), form and
  period labels glued to letters ("10-K", "Q3", "FY2024", "52-week", "14A"), URLs, accession numbers,
  index names ("S&P 500"), citation markers ("[12]") and zero-padded identifiers.
- Pure; never raises. Lookups are a binary search over sorted values (pools of ~10k numbers are cheap).
"""

from __future__ import annotations

import dataclasses
import math
import re
from bisect import bisect_left
from collections.abc import Iterable
from datetime import date, datetime
from decimal import Decimal
from enum import Enum
from functools import lru_cache
from typing import Any

from pydantic import BaseModel, ConfigDict

_CLIP = 240
_UNITS = {"k": 1e3, "thousand": 1e3, "m": 1e6, "mm": 1e6, "mn": 1e6, "million": 1e6, "b": 1e9, "bn": 1e9}
_UNITS |= {"billion": 1e9, "t": 1e12, "trillion": 1e12, "x": 1.0, "bp": 1.0, "bps": 1.0}

_CORE = re.compile(r"(?<![\w.,])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?!\d)")
_SUFFIX = re.compile(
    r"\s?%|\s?(?i:thousand|million|billion|trillion|bn|mn|mm|bps|bp)\b|(?:[KkMBTx])(?![A-Za-z0-9])"
)
_MONTH = (
    r"(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sept?(?:ember)?"
    r"|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\b\.?"
)
_MASK = re.compile(
    r"https?://\S+|www\.\S+|\b\d{10}-\d{2}-\d{6}\b"
    r"|\b\d{4}-\d{2}(?:-\d{2})?(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
    r"|\b\d{1,2}/\d{1,2}/\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b"
    rf"|\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}})?|\b\d{{1,2}}\s+{_MONTH}\s+\d{{4}}\b"
    r"|\b(?:Items?|ITEMS?|Sections?|Rules?|Parts?|Notes?|Exhibits?|Ex\.|Forms?|Schedules?|Articles?)\s+"
    r"\d+(?:\.\d+)?[A-Za-z]?(?:\s*(?:,|and|or|&|/)\s*\d+(?:\.\d+)?[A-Za-z]?)*"
    r"|(?i:S&P\s?500|Nasdaq[-\s]?100|Russell\s?[123]000|Dow\s(?:Jones\s)?30|Nikkei\s?225|FTSE\s?100)"
    r"|\[\^?\d+\]"
)
_BREAK = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=\D)|\s*\n\s*")


class UntracedNumber(BaseModel):
    model_config = ConfigDict(frozen=True)

    text: str  # as written, e.g. "$232.14", "3.45T", "-0.18%", "94 billion"
    value: float  # unit applied ("3.45T" -> 3.45e12); percents in points ("-0.18%" -> -0.18)
    sentence: str  # clipped to 240


@dataclasses.dataclass(frozen=True)
class _Written:
    text: str
    value: float
    step: float  # one unit of the last shown digit, in the value's scale
    percent: bool
    paren: bool  # "(0.18%)": accounting negative in tables, a plain aside in prose; either sign traces
    skip: bool  # a date part, year, small count, label or identifier: not a data number


class NumberPool:
    """The numbers of one run's data, sorted for binary search. Holds each value and its magnitude."""

    def __init__(self, values: Iterable[float] = ()) -> None:
        clean = {float(v) for v in values if math.isfinite(v)}
        self._sorted = sorted(clean | {abs(v) for v in clean})

    def __len__(self) -> int:
        return len(self._sorted)

    def _near(self, target: float, tol: float) -> bool:
        i = bisect_left(self._sorted, target - tol)
        return i < len(self._sorted) and self._sorted[i] <= target + tol

    def traces(self, value: float, text: str) -> bool:
        """Whether a pool value equals ``value`` after the rounding ``text`` (as written) implies."""
        if not math.isfinite(value):
            return False
        written = _parse_one(text)
        tol = (written.step if written else 0.0) / 2 + 1e-9 * max(1.0, abs(value))  # float noise: 232.1400001
        signs = (1.0, -1.0) if written and written.paren else (1.0,)
        scales = (1.0, 0.01) if written and written.percent else (1.0,)  # "-0.18%" is also -0.0018
        return any(self._near(sign * scale * value, scale * tol) for sign in signs for scale in scales)


def _numbers_in(text: str) -> Iterable[tuple[int, int, _Written]]:
    """Each number written in ``text`` with its span; masked spans (dates, items, URLs …) are blanked."""
    masked = _MASK.sub(lambda m: " " * len(m.group(0)), text)
    for m in _CORE.finditer(masked):
        start, end = m.start(), m.end()
        digits, decimals = m.group(1), m.group(2) or ""
        unit = _SUFFIX.match(masked, end)
        suffix = unit.group(0) if unit else ""
        after = end + len(suffix)
        nxt = masked[after : after + 2]
        glued = bool(re.match(r"[A-Za-z]|-[A-Za-z]", nxt))  # "1A", "13F", "2nd", "10-K", "52-week"
        sign, signed, cur, paren, i = 1.0, False, False, False, start
        if i > 0 and masked[i - 1] == "$":
            cur, i = True, i - 1
        if i > 0 and masked[i - 1] in "-+−":
            before = masked[i - 2] if i > 1 else " "
            if before.isalpha():  # "S-1", "T-5": part of a label
                glued = True
            elif not before.isdigit():  # "5-10%" is a range, not a negative 10
                sign, signed, i = (1.0 if masked[i - 1] == "+" else -1.0), True, i - 1
                if not cur and i > 0 and masked[i - 1] == "$":  # "-$1.2B"
                    cur, i = True, i - 1
        if i > 0 and masked[i - 1] == "(" and masked[after : after + 1] == ")" and not signed:
            paren, sign, i, after = True, -1.0, i - 1, after + 1  # accounting negative "(0.18%)"
        if i > 0 and masked[i - 1].isalpha():
            glued = True  # "Q3", "FY2024", "H1"
        key = suffix.strip().lower()
        percent = key == "%"
        mult = _UNITS.get(key, 1.0)
        number = float(digits.replace(",", "") + decimals)
        step = 10.0 ** -(len(decimals) - 1 if decimals else 0) * mult
        bare = not (decimals or cur or suffix or paren or "," in digits)
        skip = glued or (
            bare and (number <= 10 or 1900 <= number <= 2100 or (len(digits) > 1 and digits[0] == "0"))
        )
        yield i, after, _Written(masked[i:after], sign * number * mult, step, percent, paren, skip)


def _values_of(text: str) -> tuple[float, ...]:
    return tuple(written.value for _, _, written in _numbers_in(text))


# tool results repeat across a run's pools and across warm runs: each (short) text is parsed once
_values_in = lru_cache(maxsize=16_384)(_values_of)


def _parse_one(text: str) -> _Written | None:
    for _, _, written in _numbers_in(text.strip() if isinstance(text, str) else ""):
        return written
    return None


def _walk(sources: Iterable[Any]) -> Iterable[float]:
    stack: list[Any] = list(sources)
    seen: set[int] = set()
    while stack:
        item = stack.pop()
        if item is None or isinstance(item, bool):
            continue
        if isinstance(item, int | float | Decimal):
            try:
                yield float(item)
            except (OverflowError, ValueError):  # 10**400, Decimal("sNaN")
                continue
        elif isinstance(item, str):
            yield from (_values_in(item) if len(item) <= 20_000 else _values_of(item))
        elif isinstance(item, datetime | date):
            yield from (float(item.year), float(item.month), float(item.day))
        elif isinstance(item, Enum):
            stack.append(item.value)
        elif id(item) in seen:
            continue
        else:
            seen.add(id(item))
            # Children are pushed as they are (no temporary containers): ``seen`` holds ids, and a
            # freed temporary's id could be reused by a later object that would then be skipped.
            if isinstance(item, BaseModel):
                stack.extend(dict(item).values())
            elif dataclasses.is_dataclass(item) and not isinstance(item, type):
                stack.extend(getattr(item, f.name, None) for f in dataclasses.fields(item))
            elif isinstance(item, dict):
                stack.extend(item.keys())
                stack.extend(item.values())
            elif isinstance(item, list | tuple | set | frozenset):
                stack.extend(item)


def collect_numbers(*sources: Any) -> NumberPool:
    """All numbers in nested JSON-able data (dicts, lists, str, int, float, pydantic models, dates):
    numeric values as-is, and numbers written inside strings (units applied: "3.45T" -> 3.45e12)."""
    try:
        return NumberPool(_walk(sources))
    except Exception:  # a pool must never break a report; an odd object just adds no numbers
        return NumberPool()


class NumberCollector:
    """A run's numbers gathered once: each source is walked the first time it is added (by key), and
    every pool built later reuses those values. A briefing builds three pools (official, social, final)
    over the same 200-250 kB of tool results; walking them once saves a third of warm CPU."""

    def __init__(self) -> None:
        self._values: list[float] = []
        self._keys: set[object] = set()

    def add(self, key: object, source: Any) -> None:
        """Walk ``source`` unless a source was already added under ``key``."""
        if key in self._keys:
            return
        self._keys.add(key)
        try:
            self._values.extend(_walk([source]))
        except Exception:  # as collect_numbers: an odd object adds no numbers, never breaks a report
            return

    def pool(self, *extra: Any) -> NumberPool:
        """The numbers added so far plus those in ``extra`` (walked now, not kept)."""
        try:
            return NumberPool([*self._values, *_walk(extra)])
        except Exception:
            return NumberPool(self._values)


def _sentence_at(text: str, breaks: list[tuple[int, int]], pos: int) -> str:
    """The sentence around ``pos``; ``breaks`` are the (start, end) spans between sentences, in order."""
    k = bisect_left(breaks, (pos, pos))
    start = breaks[k - 1][1] if k else 0
    end = breaks[k][0] if k < len(breaks) else len(text)
    sentence = text[start:end].strip()
    return sentence if len(sentence) <= _CLIP else sentence[: _CLIP - 1] + "…"


def count_numbers(text: str) -> int:
    """How many numbers of the data the text states (the ones ``untraced_numbers`` would check)."""
    return sum(not w.skip for _s, _e, w in _numbers_in(text)) if isinstance(text, str) else 0


def untraced_numbers(text: str, pool: NumberPool) -> list[UntracedNumber]:
    """Each number in ``text`` that no value in ``pool`` explains, in order of appearance."""
    if not isinstance(text, str):
        return []
    breaks = [(m.start(), m.end()) for m in _BREAK.finditer(text)]
    return [
        UntracedNumber(text=written.text, value=written.value, sentence=_sentence_at(text, breaks, start))
        for start, _end, written in _numbers_in(text)
        if not (written.skip or pool.traces(written.value, written.text))
    ]
