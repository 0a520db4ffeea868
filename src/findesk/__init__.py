"""findesk: a multi-agent research desk for US markets.

Every figure is computed by code from dated, cited data; the offline snapshot and the live sources
answer through the same typed models.
"""

__version__ = "0.1.0"


def __getattr__(name: str) -> object:
    # ``from findesk import brief`` without importing LangGraph for every CLI command.
    if name == "brief":
        from findesk.workflows.brief.run import brief

        return brief
    raise AttributeError(f"module 'findesk' has no attribute {name!r}")
