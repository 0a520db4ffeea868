"""Is the best parameter set of a grid real or luck? Walk-forward and the probability of backtest
overfitting (PBO) by combinatorially symmetric cross-validation (Bailey, Borwein, López de Prado, Zhu,
"The Probability of Backtest Overfitting", 2015).

Rules:
- Input is a matrix of daily returns, T sessions × N configs (``returns_matrix`` builds it from backtest
  results over the same sessions). Sharpe here is the metrics' Sharpe: mean daily excess return / its
  sample standard deviation × √252; a config whose returns do not vary scores 0 (no edge either way).
- ``grid(name, spec)``: every combination of the listed values; combinations the rule cannot run
  (e.g. fast ≥ slow) are left out; an unknown strategy or parameter, or a bad single value, is a
  ``ValueError``; a grid with nothing runnable is a ``ValueError``.
- ``walk_forward``: rolling windows of ``in_sample`` sessions followed by ``out_of_sample`` sessions,
  stepping by ``out_of_sample``. In each window the config with the best in-sample Sharpe is picked
  (first on ties) and its out-of-sample returns are recorded; the stitched out-of-sample series is the
  honest result of "re-optimise, then trade".
- ``pbo_cscv``: the T rows are cut into ``splits`` (even, >= 4) equal blocks of ⌊T / splits⌋ sessions
  (the earliest T mod splits sessions are dropped). For each of the C(splits, splits/2) ways to pick
  half the blocks as in-sample (the rest out-of-sample), the in-sample best config n* is found, its
  out-of-sample rank r among the N configs (1 = worst, ties share the mean rank) gives
  ω = r / (N + 1) and the logit λ = ln(ω / (1 − ω)). PBO = share of combinations with λ ≤ 0: how
  often the in-sample winner is at or below the out-of-sample median. Near 0: the winner's edge holds;
  near 1: choosing by the backtest picks losers.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from datetime import date

import numpy as np
from pydantic import BaseModel, ConfigDict

from findesk.analytics.backtest.metrics import SESSIONS_PER_YEAR, daily_risk_free, sharpe
from findesk.analytics.backtest.models import Array, BacktestResult
from findesk.analytics.backtest.rules import RULES
from findesk.analytics.backtest.strategies import RuleStrategy, check_params, label, make_strategy

MAX_GRID = 10_000


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class WalkForwardSplit(_Model):
    in_sample_start: date
    in_sample_end: date
    out_of_sample_start: date
    out_of_sample_end: date
    best: str  # the config picked in sample
    in_sample_sharpe: float | None
    out_of_sample_sharpe: float | None
    out_of_sample_return_pct: float


class WalkForwardResult(_Model):
    configs: list[str]
    in_sample: int
    out_of_sample: int
    splits: list[WalkForwardSplit]
    out_of_sample_return_pct: float  # compounded over the stitched out-of-sample sessions
    out_of_sample_sharpe: float | None
    mean_in_sample_sharpe: float | None  # of the picked configs, for the in-sample vs out-of-sample gap


class LogitSummary(_Model):
    mean: float
    median: float
    min: float
    max: float
    q25: float
    q75: float


class PboResult(_Model):
    pbo: float  # share of combinations whose in-sample best ranks at or below the OOS median
    n_combinations: int
    splits: int
    n_configs: int
    sessions_used: int
    logits: LogitSummary
    best_config: str  # the config with the best Sharpe over all sessions used
    best_sharpe: float  # its Sharpe over all sessions used
    most_chosen: str  # the config most often best in sample across combinations
    best_in_sample_sharpe: float  # mean over combinations of the in-sample winner's IS Sharpe
    best_out_of_sample_sharpe: float  # mean over combinations of the same winner's OOS Sharpe
    prob_out_of_sample_loss: float  # share of combinations where the winner's OOS Sharpe < 0


def grid(name: str, spec: Mapping[str, Sequence[float]]) -> list[RuleStrategy]:
    """Every runnable combination of the values in ``spec`` (other params at their defaults)."""
    rule = RULES.get(name)
    if rule is None:
        raise ValueError(f"unknown strategy {name!r} (known: {', '.join(RULES)})")
    keys = sorted(spec)
    for key in keys:
        if not spec[key]:
            raise ValueError(f"{name}: no values given for {key}")
        for v in spec[key]:
            # Unknown names and bad single values are errors; only conflicts between values are skipped.
            check_params(rule, {key: v}, cross=False)
    size = math.prod(len(spec[k]) for k in keys)
    if size > MAX_GRID:
        raise ValueError(f"{name}: grid of {size} combinations is above the limit of {MAX_GRID}")
    out: list[RuleStrategy] = []
    seen: set[str] = set()
    for values in itertools.product(*(spec[k] for k in keys)):
        try:
            s = make_strategy(name, dict(zip(keys, values, strict=True)))
        except ValueError:
            continue  # a cross-param conflict such as fast >= slow
        if label(s) not in seen:
            seen.add(label(s))
            out.append(s)
    if not out:
        raise ValueError(f"{name}: no combination of {dict(spec)} is runnable")
    return out


def returns_matrix(results: Sequence[BacktestResult]) -> tuple[list[date], Array, list[str]]:
    """Daily returns (T-1 sessions × N results) of backtests over the same sessions, with labels."""
    if not results:
        raise ValueError("no backtest results")
    dates = results[0].dates
    for r in results[1:]:
        if r.dates != dates:
            raise ValueError(f"{r.strategy} on {r.ticker} covers other sessions than the first result")
    eq = np.array([r.equity for r in results], dtype=np.float64).T
    labels = [f"{r.strategy}({','.join(f'{k}={v:g}' for k, v in sorted(r.params.items()))})" for r in results]
    return dates[1:], eq[1:] / eq[:-1] - 1.0, labels


def _sharpe0(r: Array, risk_free_pct: float) -> float:
    got = sharpe(r, risk_free_pct)
    return 0.0 if got is None else got


def walk_forward(
    returns: Array,
    dates: Sequence[date],
    labels: Sequence[str],
    in_sample: int,
    out_of_sample: int,
    risk_free_pct: float = 0.0,
) -> WalkForwardResult:
    r = np.asarray(returns, dtype=np.float64)
    if r.ndim != 2 or r.shape[0] != len(dates) or r.shape[1] != len(labels):
        raise ValueError(f"returns are {r.shape}; expected {len(dates)} sessions × {len(labels)} configs")
    if in_sample < 2 or out_of_sample < 1:
        raise ValueError("in_sample must be >= 2 sessions and out_of_sample >= 1")
    if in_sample + out_of_sample > r.shape[0]:
        raise ValueError(f"{r.shape[0]} sessions cannot hold {in_sample} in sample + {out_of_sample} out")
    splits: list[WalkForwardSplit] = []
    stitched: list[Array] = []
    for a in range(0, r.shape[0] - in_sample, out_of_sample):
        b, e = a + in_sample, min(a + in_sample + out_of_sample, r.shape[0])
        scores = [_sharpe0(r[a:b, k], risk_free_pct) for k in range(r.shape[1])]
        best = int(np.argmax(scores))
        oos = r[b:e, best]
        stitched.append(oos)
        splits.append(
            WalkForwardSplit(
                in_sample_start=dates[a],
                in_sample_end=dates[b - 1],
                out_of_sample_start=dates[b],
                out_of_sample_end=dates[e - 1],
                best=labels[best],
                in_sample_sharpe=sharpe(r[a:b, best], risk_free_pct),
                out_of_sample_sharpe=sharpe(oos, risk_free_pct),
                out_of_sample_return_pct=(float(np.prod(1.0 + oos)) - 1.0) * 100.0,
            )
        )
    joined = np.concatenate(stitched)
    ins = [s.in_sample_sharpe for s in splits if s.in_sample_sharpe is not None]
    return WalkForwardResult(
        configs=list(labels),
        in_sample=in_sample,
        out_of_sample=out_of_sample,
        splits=splits,
        out_of_sample_return_pct=(float(np.prod(1.0 + joined)) - 1.0) * 100.0,
        out_of_sample_sharpe=sharpe(joined, risk_free_pct),
        mean_in_sample_sharpe=float(np.mean(ins)) if ins else None,
    )


def _block_sharpe(total: Array, squares: Array, count: int) -> Array:
    """Annualised Sharpe from sums and sums of squares over ``count`` sessions (0 where flat)."""
    mean = total / count
    var = np.maximum((squares - total * total / count) / (count - 1), 0.0)
    sd = np.sqrt(var)
    safe = sd > 1e-12
    return np.where(safe, mean / np.where(safe, sd, 1.0), 0.0) * math.sqrt(SESSIONS_PER_YEAR)


def pbo_cscv(
    returns: Array,
    splits: int = 16,
    labels: Sequence[str] | None = None,
    risk_free_pct: float = 0.0,
) -> PboResult:
    r = np.asarray(returns, dtype=np.float64)
    if r.ndim != 2 or r.shape[1] < 2:
        raise ValueError("returns must be sessions × configs with at least 2 configs")
    if splits < 4 or splits % 2:
        raise ValueError(f"splits must be an even number >= 4, got {splits}")
    n_sessions, n = r.shape
    size = n_sessions // splits
    if size < 2:
        raise ValueError(f"{n_sessions} sessions are too few for {splits} blocks of at least 2 sessions")
    if not np.all(np.isfinite(r)):
        raise ValueError("returns contain NaN or infinite values")
    names = list(labels) if labels is not None else [f"config {k}" for k in range(n)]
    if len(names) != n:
        raise ValueError(f"{len(names)} labels for {n} configs")
    used = r[n_sessions - size * splits :] - daily_risk_free(risk_free_pct)
    blocks = used.reshape(splits, size, n)
    sums, squares = blocks.sum(axis=1), (blocks * blocks).sum(axis=1)  # splits × N
    combos = np.array(
        [[k in c for k in range(splits)] for c in itertools.combinations(range(splits), splits // 2)],
        dtype=np.float64,
    )  # C × splits, 1 = in sample
    count = size * (splits // 2)
    is_sum, is_sq = combos @ sums, combos @ squares
    oos_sum, oos_sq = sums.sum(axis=0) - is_sum, squares.sum(axis=0) - is_sq
    is_sr = _block_sharpe(is_sum, is_sq, count)
    oos_sr = _block_sharpe(oos_sum, oos_sq, count)
    rows = np.arange(len(combos))
    best = np.argmax(is_sr, axis=1)
    chosen = oos_sr[rows, best][:, None]
    below = (oos_sr < chosen).sum(axis=1)
    ties = (oos_sr == chosen).sum(axis=1) - 1  # others tied with the winner
    rank = 1.0 + below + 0.5 * ties
    omega = rank / (n + 1.0)
    logits = np.log(omega / (1.0 - omega))
    full = _block_sharpe(sums.sum(axis=0), squares.sum(axis=0), size * splits)
    top = int(np.argmax(full))
    return PboResult(
        pbo=float(np.mean(logits <= 0.0)),
        n_combinations=len(combos),
        splits=splits,
        n_configs=n,
        sessions_used=size * splits,
        logits=LogitSummary(
            mean=float(np.mean(logits)),
            median=float(np.median(logits)),
            min=float(np.min(logits)),
            max=float(np.max(logits)),
            q25=float(np.quantile(logits, 0.25)),
            q75=float(np.quantile(logits, 0.75)),
        ),
        best_config=names[top],
        best_sharpe=float(full[top]),
        most_chosen=names[int(np.bincount(best, minlength=n).argmax())],
        best_in_sample_sharpe=float(np.mean(is_sr[rows, best])),
        best_out_of_sample_sharpe=float(np.mean(chosen)),
        prob_out_of_sample_loss=float(np.mean(chosen < 0.0)),
    )
