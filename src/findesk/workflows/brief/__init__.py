"""The advisor briefing: ticker in, cited one-screen briefing out.

Modules: ``models`` (the typed ``Briefing``), ``graph`` (the LangGraph workflow: official and social
sub-agents in parallel, then the coordinator), ``assemble`` (sections, divergences and output guards:
pure), ``audit`` (the tool trace from the run's events), ``run`` (the entry point: ``run_briefing``),
``render_markdown`` and ``render_html`` (text outputs; the terminal view is in the CLI).
"""
