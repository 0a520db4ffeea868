"""Fixtures for the weekly ETF analytics tests: the snapshot's ETF panel as a ``PricePanel``.

Rules: the panel is read once per session straight from the snapshot parquet with pyarrow (the data
layer's ``DataRouter.etf_panel`` is the production path; this fixture only feeds the pure analytics),
covering every session of the file so a test can prove that sessions after its week never count.
Tests that need the snapshot are skipped (or fail under CI) through ``snapshot_dir`` when it is absent.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from findesk.data.models.base import Source
from findesk.data.models.funds import PricePanel

ETF_PANEL = "prices/etfs/etf_daily_ohlcv_adj_1670_2021-01-04_2025-12-24.parquet"
_FIELDS = ("open", "high", "low", "close", "volume", "stock_splits")


def load_etf_panel(snapshot_dir: Path) -> PricePanel:
    """Pivot the long parquet (date, ticker, fields) into tickers × sessions matrices, NaN where no bar."""
    table = pq.read_table(snapshot_dir / ETF_PANEL, columns=["date", "ticker", *_FIELDS])
    days = table.column("date").to_numpy().astype("datetime64[D]")
    names = pc.dictionary_encode(table.column("ticker")).combine_chunks()
    dates, col = np.unique(days, return_inverse=True)
    order = np.argsort(np.asarray(names.dictionary.to_pylist()))
    tickers = tuple(np.asarray(names.dictionary.to_pylist())[order].tolist())
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    row = rank[names.indices.to_numpy()]
    matrices: dict[str, np.ndarray] = {}
    for field in _FIELDS:
        matrix = np.full((len(tickers), dates.size), np.nan)
        matrix[row, col] = table.column(field).to_numpy().astype(np.float64)
        matrices[field] = matrix
    return PricePanel(
        tickers=tickers,
        dates=dates,
        open=matrices["open"],
        high=matrices["high"],
        low=matrices["low"],
        close=matrices["close"],
        volume=matrices["volume"],
        splits=matrices["stock_splits"],
        source=Source(vendor="snapshot", ref=ETF_PANEL),
    )


@pytest.fixture(scope="session")
def etf_panel(snapshot_dir: Path) -> PricePanel:
    return load_etf_panel(snapshot_dir)
