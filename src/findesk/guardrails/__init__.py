"""Guardrails: pure checks on what goes into and comes out of a workflow (no I/O).

Modules: ``advice`` (advice requests refused on input; recommendations, price targets and
allocations caught on output), ``number_trace`` (every number in a text traced to the run's data).
"""
