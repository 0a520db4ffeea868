"""The weekly ETF analyst's roles: quant (code only), news per sector, senior analyst, managing
director. Each is data (``agents.role.Role``) with a deterministic policy; the epistemic-honesty
protocol (``analytics.etf.protocol``) applies to every role's output in both modes."""
