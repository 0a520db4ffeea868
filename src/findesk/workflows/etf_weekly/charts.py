"""The weekly ETF dashboard's charts as inline SVG: the sectors' beta/alpha split and each candidate's
price with its moving averages and Bollinger bands.

Rules:
- Presentation only: pure, never raises on odd input (empty or misaligned series, None, NaN, ±inf are
  gaps, never points).
- Self-contained SVG: presentation attributes only, no script, no ``style`` attribute, no link, no
  external reference (font, image, ``url()``); every text from data goes through ``report_parts.e``
  (html-escaped on one printable line, as in the rest of the dashboard).
- Deterministic: the same input gives the same bytes (coordinates printed with one decimal, nothing
  read from the clock or a random source).
- Figures shown are the report's, rounded for display only. In the beta/alpha chart the three labels
  add up exactly as printed: total and alpha are rounded, the beta part is printed as their difference
  (within 0.01 of the unrounded beta part), so a reader never sees a sum that does not add up.
- Every chart carries ``class="chart …"`` and a ``<title>`` saying what it shows, for a browser and a
  screen reader alike.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date

from findesk.agents.roles.etf_weekly.models import SectorGroup
from findesk.analytics.etf.models import PriceSeries
from findesk.core.formatting import NONE, clip, finite, price, signed
from findesk.workflows.report_parts import e, printable
from findesk.workflows.svg import Frame, Point, svg_line, svg_n, svg_open, svg_path, svg_text

BETA_COLOUR = "#8ea4bd"
ALPHA_COLOUR = "#d9822b"
CLOSE_COLOUR = "#1d232b"
SMA50_COLOUR = "#e07b00"
SMA200_COLOUR = "#6a3d9a"
BAND_COLOUR = "#cfe0f3"
WEEK_COLOUR = "#fff1c2"


# ---- the sectors' beta / alpha split ----


@dataclass(frozen=True)
class BetaAlpha:
    """One sector's week as the chart prints it: total = beta part + alpha part, as displayed."""

    sector: str
    total: float  # % (rounded to 2 decimals)
    alpha: float  # pp (rounded to 2 decimals)
    beta: float  # % (total - alpha: the market's share of the move)


def beta_alpha_parts(group: SectorGroup) -> BetaAlpha | None:
    """The sector's split, rounded as shown; None when a figure is missing or not finite."""
    if not (finite(group.avg_return) and finite(group.avg_alpha_residual)):
        return None
    total = round(group.avg_return, 2)
    alpha = round(group.avg_alpha_residual, 2)
    return BetaAlpha(group.sector, total, alpha, round(total - alpha, 2))


def beta_alpha_label(parts: BetaAlpha) -> str:
    """ "beta -3.87 + alpha +0.48 = -3.39%": the parts and the total as the chart prints them."""
    return f"beta {signed(parts.beta)} + alpha {signed(parts.alpha)} = {signed(parts.total)}%"


_STEPS = (
    0.5,
    1.0,
    2.0,
    3.0,
    4.0,
    5.0,
    6.0,
    8.0,
    10.0,
    15.0,
    20.0,
    30.0,
    40.0,
    50.0,
    100.0,
    200.0,
    500.0,
    1000.0,
)


def _domain(extent: float) -> float:
    """The smallest round half-width that holds ``extent`` (percent)."""
    return next((s for s in _STEPS if extent <= s), math.ceil(extent / 1000.0) * 1000.0)


def _segments(parts: BetaAlpha) -> list[tuple[str, float, float]]:
    """(colour, from, to) per part: positive parts stack rightwards from zero, negative leftwards, so a
    beta and an alpha of opposite signs diverge from the zero line instead of overlapping."""
    out: list[tuple[str, float, float]] = []
    pos = neg = 0.0
    for colour, value in ((BETA_COLOUR, parts.beta), (ALPHA_COLOUR, parts.alpha)):
        if value >= 0:
            out.append((colour, pos, pos + value))
            pos += value
        else:
            out.append((colour, neg, neg + value))
            neg += value
    return out


def beta_alpha_svg(groups: Mapping[str, SectorGroup]) -> str:
    """Per sector, the week's average return as its beta part and its alpha part (diverging horizontal
    bars around a zero line), the total marked and labelled."""
    rows = list(groups.values())
    width, name_w, value_w, row_h, top, bottom = 780, 190, 270, 30, 40, 30
    height = top + bottom + row_h * max(1, len(rows))
    label = f"Beta and alpha parts of each sector's average weekly return ({len(rows)} sectors)"
    out = [svg_open("beta-alpha", width, height, label)]
    # legend
    out.append(f'<rect x="{name_w}" y="10" width="12" height="12" fill="{BETA_COLOUR}"/>')
    out.append(svg_text(name_w + 17, 20, "beta part (average return - average alpha residual)"))
    out.append(f'<rect x="{name_w + 330}" y="10" width="12" height="12" fill="{ALPHA_COLOUR}"/>')
    out.append(svg_text(name_w + 347, 20, "alpha part (average alpha residual)"))
    if not rows:
        out.append(svg_text(width / 2, top + 18, "no sectors this week", anchor="middle"))
        return "".join(out) + "</svg>"
    split = [(g, beta_alpha_parts(g)) for g in rows]
    ends = [0.0]
    for _group, parts in split:
        if parts is not None:
            ends += [abs(end) for _colour, start, end in _segments(parts)] + [abs(parts.total)]
    half = _domain(max(ends))
    x0, x1 = name_w + 10, width - value_w
    zero = (x0 + x1) / 2

    def x(value: float) -> float:
        return zero + value / half * (x1 - x0) / 2

    axis_y = top + row_h * len(rows)
    for tick in (-half, -half / 2, 0.0, half / 2, half):
        out.append(svg_line(x(tick), top - 4, x(tick), axis_y, "#e3e7ec"))
        out.append(svg_text(x(tick), axis_y + 16, f"{tick:+g}%" if tick else "0", anchor="middle", size=10))
    for i, (group, parts) in enumerate(split):
        y = top + i * row_h
        name = e(clip(printable(group.sector), 28))
        if parts is None:
            out.append(f'<g class="sector-bar" data-sector="{e(group.sector)}">')
            out.append(svg_text(name_w, y + 19, name, anchor="end", extra=' font-weight="600"'))
            out.append(svg_text(x1 + 8, y + 19, f"no figures ({NONE})") + "</g>")
            continue
        out.append(
            f'<g class="sector-bar" data-sector="{e(group.sector)}" data-beta="{parts.beta:.2f}" '
            f'data-alpha="{parts.alpha:.2f}" data-total="{parts.total:.2f}">'
            f"<title>{e(group.sector)}: {e(beta_alpha_label(parts))}</title>"
        )
        out.append(svg_text(name_w, y + 19, name, anchor="end", extra=' font-weight="600"'))
        for colour, a, b in _segments(parts):
            left, right = sorted((x(a), x(b)))
            out.append(
                f'<rect x="{svg_n(left)}" y="{y + 7}" width="{svg_n(right - left)}" height="16" '
                f'fill="{colour}"/>'
            )
        tx = x(parts.total)
        out.append(svg_line(tx, y + 3, tx, y + 27, CLOSE_COLOUR, ' stroke-width="2" class="total"'))
        out.append(svg_text(x1 + 8, y + 19, e(beta_alpha_label(parts)), extra=' class="bar-label"'))
        out.append("</g>")
    out.append(svg_line(zero, top - 4, zero, axis_y, "#5b6675"))
    return "".join(out) + "</svg>"


# ---- a candidate's price chart ----


def _clean(values: Sequence[float | None], n: int) -> list[float | None]:
    return [v if finite(v) else None for v in list(values)[:n]]


def _band_paths(upper: Sequence[Point | None], lower: Sequence[Point | None]) -> list[str]:
    """One closed area per run of sessions where both bands exist."""
    runs: list[list[tuple[Point, Point]]] = [[]]
    for u, lo in zip(upper, lower, strict=True):
        if u is None or lo is None:
            runs.append([])
        else:
            runs[-1].append((u, lo))
    paths = []
    for run in runs:
        if len(run) < 2:
            continue
        ring = [u for u, _ in run] + [lo for _, lo in reversed(run)]
        paths.append(svg_path(ring) + " Z")
    return paths


def price_svg(series: PriceSeries, week_start: date, week_end: date) -> str:
    """Closes with SMA50, SMA200 and the Bollinger bands; the week (from the close it is measured from
    to its last session) shaded; the last close labelled."""
    width, height = 560, 250
    left, right, top, bottom = 58, 70, 28, 30
    n = min(
        len(series.dates),
        len(series.close),
        len(series.sma_50),
        len(series.sma_200),
        len(series.upper_band),
        len(series.lower_band),
    )
    dates = series.dates[:n]
    close = _clean(series.close, n)
    sma50, sma200 = _clean(series.sma_50, n), _clean(series.sma_200, n)
    upper, lower = _clean(series.upper_band, n), _clean(series.lower_band, n)
    last = dates[-1].isoformat() if dates else NONE
    label = (
        f"{series.symbol}: close with SMA50, SMA200 and Bollinger bands, {n} sessions to {last}; "
        f"week {week_start.isoformat()} to {week_end.isoformat()} shaded"
    )
    out = [svg_open("price", width, height, label)]
    values = [v for line in (close, sma50, sma200, upper, lower) for v in line if v is not None]
    if n < 2 or not values:
        out.append(svg_text(width / 2, height / 2, "not enough price data for a chart", anchor="middle"))
        return "".join(out) + "</svg>"
    frame = Frame.fit(width, height, (left, right, top, bottom), n, values)
    px, py, plot_h = frame.x, frame.y, frame.plot_h

    def points(line: Sequence[float | None]) -> list[Point | None]:
        return [None if v is None else (px(i), py(v)) for i, v in enumerate(line)]

    # the week: from the session it is measured from (or the first after it) to its last session
    inside = [i for i, d in enumerate(dates) if week_start <= d <= week_end]
    if inside:
        a, b = px(inside[0]), px(inside[-1])
        w = max(b - a, 4.0)
        out.append(
            f'<rect class="week" x="{svg_n(min(a, width - right - w))}" y="{top}" width="{svg_n(w)}" '
            f'height="{plot_h}" fill="{WEEK_COLOUR}"/>'
        )
        out.append(svg_text(a + w / 2, top - 4, "week", anchor="middle", size=10))
    for k in range(5):
        v = frame.gridline(k)
        out.append(svg_line(left, py(v), width - right, py(v), "#eceff3"))
        out.append(svg_text(left - 6, py(v) + 4, e(price(v)), anchor="end", size=10))
    for band in _band_paths(points(upper), points(lower)):
        out.append(f'<path class="bands" d="{band}" fill="{BAND_COLOUR}" fill-opacity="0.6" stroke="none"/>')
    for cls, line, colour, extra in (
        ("sma200", sma200, SMA200_COLOUR, 'stroke-width="1.2" stroke-dasharray="5 3"'),
        ("sma50", sma50, SMA50_COLOUR, 'stroke-width="1.2"'),
        ("close", close, CLOSE_COLOUR, 'stroke-width="1.6"'),
    ):
        d = svg_path(points(line))
        if d:
            out.append(f'<path class="{cls}" d="{d}" fill="none" stroke="{colour}" {extra}/>')
    final = next(((i, v) for i, v in reversed(list(enumerate(close))) if v is not None), None)
    if final is not None:
        i, v = final
        out.append(f'<circle cx="{svg_n(px(i))}" cy="{svg_n(py(v))}" r="2.5" fill="{CLOSE_COLOUR}"/>')
        out.append(svg_text(px(i) + 6, py(v) + 4, e(price(v)), size=10, extra=' class="last-close"'))
    out.append(svg_text(left, height - 10, dates[0].isoformat(), size=10))
    out.append(svg_text(width - right, height - 10, dates[-1].isoformat(), anchor="end", size=10))
    legend = (
        ("close", CLOSE_COLOUR),
        ("SMA50", SMA50_COLOUR),
        ("SMA200", SMA200_COLOUR),
        ("Bollinger bands", "#7fa7d6"),
    )
    lx = float(left)
    for name, colour in legend:
        out.append(svg_line(lx, 12, lx + 14, 12, colour, ' stroke-width="2"'))
        out.append(svg_text(lx + 18, 16, name, size=10))
        lx += 30 + len(name) * 6
    return "".join(out) + "</svg>"
