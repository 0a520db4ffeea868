"""The trading desk's pure computations: indicators, regime, fundamentals trends, scoring, outcomes."""
