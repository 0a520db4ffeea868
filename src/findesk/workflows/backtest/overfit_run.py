"""The overfitting check of one (ticker, rule strategy) over a parameter grid: the best in-sample result
next to walk-forward results and the probability of backtest overfitting (CSCV).

Rules:
- Every runnable combination of the grid (``analytics.backtest.overfit.grid``) runs on the event loop
  over the same window and bars, so all configs share the sessions.
- "Best in sample" is the config with the best Sharpe over the whole window: what a backtest that
  simply picks the winner would report.
- Walk-forward: in-sample windows of a third of the sessions (at least 20), out-of-sample steps of a
  sixth (at least 5); the config best in each in-sample window trades the next out-of-sample step.
- PBO: CSCV with 16 blocks, or fewer (an even number ≥ 4) when the window is short, so that each block
  has at least 2 sessions; a window too short for 4 blocks gives no PBO and says why.
"""

from __future__ import annotations

from datetime import date

from findesk.analytics.backtest.models import BacktestConfig, Bars
from findesk.workflows.backtest.models import OverfitReport

MIN_IN_SAMPLE, MIN_OUT_OF_SAMPLE = 20, 5


def _splits(sessions: int) -> int | None:
    for s in (16, 14, 12, 10, 8, 6, 4):
        if sessions // s >= 2:
            return s
    return None


def overfit_report(
    bars: Bars, strategy: str, spec: dict[str, list[float]], config: BacktestConfig, start: date, end: date
) -> OverfitReport:
    from findesk.analytics.backtest.engine import run_event_loop
    from findesk.analytics.backtest.overfit import grid, pbo_cscv, returns_matrix, walk_forward
    from findesk.analytics.backtest.strategies import label

    configs = grid(strategy, spec)
    results = [run_event_loop(bars, s, config, start, end) for s in configs]
    dates, returns, labels = returns_matrix(results)
    scored = [
        (r.metrics.sharpe if r.metrics.sharpe is not None else float("-inf"), i)
        for i, r in enumerate(results)
    ]
    best = results[max(scored)[1]]
    best_in_sample = {
        "config": label(configs[max(scored)[1]]),
        **best.metrics.model_dump(mode="json"),
    }
    detail: dict[str, object] = {"configs": [label(s) for s in configs]}
    n = len(dates)
    in_sample = max(MIN_IN_SAMPLE, n // 3)
    out_of_sample = max(MIN_OUT_OF_SAMPLE, n // 6)
    wf = None
    if in_sample + out_of_sample <= n:
        wf = walk_forward(returns, dates, labels, in_sample, out_of_sample, config.risk_free_pct).model_dump(
            mode="json"
        )
    else:
        detail["walk_forward"] = (
            f"{n} sessions cannot hold {in_sample} in sample + {out_of_sample} out of sample"
        )
    pbo = None
    splits = _splits(n)
    if len(configs) < 2:
        detail["pbo"] = "one runnable config: nothing to overfit over"
    elif splits is None:
        detail["pbo"] = f"{n} sessions are too few for 4 blocks of 2"
    else:
        found = pbo_cscv(returns, splits, labels, config.risk_free_pct)
        pbo = found.pbo
        detail["pbo_detail"] = found.model_dump(mode="json")
    return OverfitReport(
        ticker=bars.ticker,
        strategy=strategy,
        grid_size=len(configs),
        best_in_sample=best_in_sample,
        walk_forward=wf,
        pbo=pbo,
        detail=detail,
    )
