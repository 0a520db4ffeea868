"""The movers analyzer: top NASDAQ gainer → history vs SPY → news → analysis program in a sandbox →
chart → email."""
