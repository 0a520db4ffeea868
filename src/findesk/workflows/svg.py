"""Inline SVG primitives for the reports' charts (the ETF dashboard's, the backtest's equity curves).

Rules:
- Self-contained SVG: presentation attributes only, no script, no ``style`` attribute, no link, no
  external reference; a label goes through ``report_parts.e`` (html-escaped on one printable line).
- Deterministic: coordinates printed with one decimal, never "-0.0", so a picture prints the same bytes.
- A path is lifted over gaps (None), never drawn through them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from findesk.workflows.report_parts import e

FONT = 'font-family="system-ui,sans-serif"'


def svg_n(value: float) -> str:
    """A coordinate: one decimal, never "-0.0" (the same picture must print the same bytes)."""
    text = f"{value:.1f}"
    return "0.0" if text == "-0.0" else text


def svg_text(x: float, y: float, body: str, *, anchor: str = "start", size: int = 11, extra: str = "") -> str:
    at = f'x="{svg_n(x)}" y="{svg_n(y)}" text-anchor="{anchor}" font-size="{size}"'
    return f"<text {at} {FONT}{extra}>{body}</text>"


def svg_line(x1: float, y1: float, x2: float, y2: float, colour: str, extra: str = "") -> str:
    ends = f'x1="{svg_n(x1)}" y1="{svg_n(y1)}" x2="{svg_n(x2)}" y2="{svg_n(y2)}"'
    return f'<line {ends} stroke="{colour}"{extra}/>'


def svg_open(kind: str, width: int, height: int, label: str) -> str:
    return (
        f'<svg class="chart chart-{kind}" xmlns="http://www.w3.org/2000/svg" role="img" '
        f'width="{width}" height="{height}" viewBox="0 0 {width} {height}" aria-label="{e(label)}">'
        f"<title>{e(label)}</title>"
    )


Point = tuple[float, float]


def svg_path(points: Sequence[Point | None]) -> str:
    """An SVG path through the points, lifted over gaps (None)."""
    parts: list[str] = []
    pen_down = False
    for p in points:
        if p is None:
            pen_down = False
            continue
        parts.append(f"{'L' if pen_down else 'M'}{svg_n(p[0])} {svg_n(p[1])}")
        pen_down = True
    return " ".join(parts)


@dataclass(frozen=True)
class Frame:
    """A line chart's plot area: ``n`` sessions across, the values' range padded 6 % above and below
    (a flat line gets a band of 1 % of its level, never a zero height)."""

    width: int
    height: int
    left: int
    right: int
    top: int
    bottom: int
    n: int
    lo: float
    hi: float

    @classmethod
    def fit(
        cls, width: int, height: int, margins: tuple[int, int, int, int], n: int, values: Sequence[float]
    ) -> Frame:
        """``margins``: left, right, top, bottom; ``values``: every finite value drawn (not empty)."""
        lo, hi = min(values), max(values)
        pad = (hi - lo) * 0.06 or max(abs(hi) * 0.01, 0.01)
        left, right, top, bottom = margins
        return cls(width, height, left, right, top, bottom, n, lo - pad, hi + pad)

    @property
    def plot_h(self) -> int:
        return self.height - self.top - self.bottom

    def x(self, i: int) -> float:
        return self.left + i * (self.width - self.left - self.right) / max(self.n - 1, 1)

    def y(self, v: float) -> float:
        return self.top + (self.hi - v) / (self.hi - self.lo) * self.plot_h

    def gridline(self, k: int, of: int = 4) -> float:
        """The value of horizontal grid line ``k`` of ``of`` (0: the bottom)."""
        return self.lo + (self.hi - self.lo) * k / of
