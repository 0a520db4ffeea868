"""Weekly ETF analytics: features per fund (returns, beta/alpha, technicals), data-quality checks,
candidate rules, sector grouping, the quant view and the epistemic-honesty protocol. Pure computation:
arrays and typed models in, typed models out; no I/O."""
