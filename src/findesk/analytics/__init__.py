"""Analytics: pure computation over typed data, no I/O.

Modules: ``volume`` (volume anomaly z-score), ``pump_bot`` (pump-bot scoring of social posts),
``social_claims`` and ``claim_rules`` (event and numeric claims extracted from posts),
``divergence`` (claims checked against 8-K items and XBRL facts), ``social_themes`` (sentiment
counts and themes of posts).
"""
