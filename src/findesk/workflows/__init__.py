"""Workflows: LangGraph graphs that run agents and produce one typed report each.

Packages: ``brief`` (the advisor briefing).
"""
