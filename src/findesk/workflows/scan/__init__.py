"""The market scanner: ``findesk scan [--date D]`` (phase 1 in parallel, industry deep dive, synthesis)."""
