"""The movers analyzer's pure computation: the day's NASDAQ gainers, the analysis payload and the
metrics a reviewed program (run in the sandbox) must reproduce."""
