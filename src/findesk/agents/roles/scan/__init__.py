"""The market scanner's roles: geopolitical, movers and sector analysts (phase 1), the industry deep
dive (phase 2) and the macro synthesis (phase 3)."""
