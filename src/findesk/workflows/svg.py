"""Inline SVG primitives for the reports' charts (the ETF dashboard's, the backtest's equity curves).

Rules:
- Self-contained SVG: presentation attributes only, no script, no ``style`` attribute, no link, no
  external reference; a label goes through ``report_parts.e`` (html-escaped on one printable line).
- Deterministic: coordinates printed with one decimal, never "-0.0", so a picture prints the same bytes.
- A path is lifted over gaps (None), never drawn through them.
"""

from __future__ import annotations

from collections.abc import Sequence

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
