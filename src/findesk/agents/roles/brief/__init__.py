"""The advisor briefing's agents: the official (filings) and social sub-agents and the coordinator.

Modules: ``reports`` (the typed reports they hand on), ``official`` and ``social`` (the sub-agent
roles and the code that builds their evidence), ``coordinator`` (the synthesis role).
"""
