"""Scan to trade: ``findesk pipeline [--date D] [--top N]`` (the scan, then the desk on the top picks)."""
