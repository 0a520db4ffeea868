"""Parsers of real upstream formats (SEC JSON, Yahoo, FRED, Stocktwits, OFAC, ...).

Rule: pure functions from upstream bytes/JSON to typed models; shared by the snapshot vendor and the
live vendors so both read the same format the same way. No I/O here.
"""
