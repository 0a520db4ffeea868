"""The MCP server: every data tool, every workflow and the backtester as MCP tools (``findesk mcp``).

Rules: an adapter only. Tool schemas come from the tool catalog and the workflow registry, runs go
through ``workflows.runner.run_workflow`` (the backtester through ``run_backtest``), keys and limits
through ``core.access``; nothing here computes a figure.
"""
