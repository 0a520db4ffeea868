"""findesk: a multi-agent research desk for US markets.

Every figure is computed by code from dated, cited data; the offline snapshot and the live sources
answer through the same typed models.
"""

from findesk.core.version import VERSION

__version__ = VERSION

__all__ = ["__version__", "backtest", "brief", "run"]


def __getattr__(name: str) -> object:
    # ``from findesk import backtest, brief, run`` without importing LangGraph for every CLI command.
    if name == "brief":
        from findesk.workflows.brief.run import brief

        return brief
    if name == "backtest":
        from findesk.workflows.backtest.api import backtest

        return backtest
    if name == "run":
        from findesk.workflows.inprocess import run

        return run
    raise AttributeError(f"module 'findesk' has no attribute {name!r}")
