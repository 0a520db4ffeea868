"""Vendors: one module per source. Each parses the real upstream format and answers point in time."""
