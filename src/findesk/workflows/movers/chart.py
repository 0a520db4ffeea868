"""The movers chart: the symbol's closes against SPY's, both rebased to 100, with the symbol's volume
below, as a PNG.

Rules:
- Pure rendering (matplotlib's Agg canvas, no display, no file): payload in, PNG bytes out.
- Only the payload's own figures are drawn; without SPY the chart draws the symbol alone and its title
  says SPY is missing; sessions without a volume are left blank.
"""

from __future__ import annotations

import io
from typing import Any

from findesk.analytics.movers.models import MoverPayload


def render_chart(p: MoverPayload, *, adjusted: bool) -> bytes:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure
    from matplotlib.ticker import FuncFormatter

    fig = Figure(figsize=(8, 4.8), dpi=100)
    FigureCanvasAgg(fig)
    grid = fig.add_gridspec(2, 1, height_ratios=(3, 1), hspace=0.08)
    ax = fig.add_subplot(grid[0])
    vol = fig.add_subplot(grid[1], sharex=ax)
    days: list[Any] = list(p.dates)
    base = p.close[0]
    ax.plot(days, [c / base * 100 for c in p.close], label=p.symbol, linewidth=1.8, color="#1f5fae")
    if p.spy_close is not None:
        spy0 = p.spy_close[0]
        ax.plot(days, [c / spy0 * 100 for c in p.spy_close], label="SPY", linewidth=1.4, color="#8a8a8a")
    basis = "adjusted" if adjusted else "as traded"
    missing = "" if p.spy_close is not None else " (SPY unavailable)"
    ax.set_title(
        f"{p.symbol} vs SPY, rebased to 100 ({basis} closes), "
        f"{p.dates[0].isoformat()}..{p.session.isoformat()}"
        f"{missing}",
        fontsize=9,
    )
    ax.set_ylabel("rebased to 100")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    ax.tick_params(labelbottom=False)
    heights = [0.0 if v is None else v for v in p.volume]
    vol.bar(days, heights, color="#9bb7d9", width=0.8)
    vol.set_ylabel("volume (M)", fontsize=8)
    vol.yaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v / 1e6:g}"))
    vol.grid(alpha=0.3)
    fig.autofmt_xdate()
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", bbox_inches="tight")
    return buffer.getvalue()
