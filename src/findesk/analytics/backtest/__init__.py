"""Point-in-time backtests: rule strategies, the daily event loop, the vectorized fast path, metrics
and the overfitting check. Pure: prices come in as arrays; no I/O here."""
