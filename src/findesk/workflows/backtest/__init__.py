"""Point-in-time backtests as a command: loading, the look-ahead audit of data reads, the desk strategy,
the process pool and cache, reports, and the paper comparison."""
