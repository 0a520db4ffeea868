"""The TradingAgents paper's Table 1 next to our five baselines on real prices (issue 20).

AAPL, GOOGL, AMZN over 2024-01-02 … 2024-03-28 on the offline snapshot; every cell with our figure,
the paper's, the difference and the convention that explains it (``workflows.backtest.paper``).

    python bench/paper_table1.py [--table ../shared/bench/tradingagents_paper/table1.json]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

from findesk.core.config import Settings
from findesk.core.result import Err
from findesk.data.context import resolve_context
from findesk.tools.catalog import close_tool_context, open_tool_context
from findesk.workflows.backtest.desk_strategy import backtest_factories
from findesk.workflows.backtest.paper import DEFAULT_TABLE, paper_comparison, to_text


async def main(table: Path) -> int:
    with tempfile.TemporaryDirectory() as state:
        settings = Settings(state_dir=Path(state))
        context = resolve_context(settings, mode="snapshot", as_of="2024-12-31")
        if isinstance(context, Err):
            print(context.message(), file=sys.stderr)
            return 3
        tools = await open_tool_context(settings, context.value, backtest_factories())
        if isinstance(tools, Err):
            print(tools.message(), file=sys.stderr)
            return 3
        try:
            got = await paper_comparison(settings, tools.value, table)
        finally:
            await close_tool_context(tools.value, backtest_factories())
    if isinstance(got, Err):
        print(got.message(), file=sys.stderr)
        return 4
    print(to_text(got.value))
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--table", type=Path, default=DEFAULT_TABLE)
    sys.exit(asyncio.run(main(parser.parse_args().table)))
