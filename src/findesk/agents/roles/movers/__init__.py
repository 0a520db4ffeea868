"""The movers analyzer's roles: gainers, history, news (code only), the program writer (a model, or the
reviewed program) and the sandbox runner."""
