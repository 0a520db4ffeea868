"""``findesk scan --date 2025-08-29`` on the snapshot, deterministic: every phase's report, 8-10 distinct
candidates each named on a board, valid JSON, every figure traced; the movers the report carries are the
snapshot table's own rows for that session; a later date is refused with the command to run."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.compute as pc
import pyarrow.parquet as pq
from scan_kit import DAY, ScanRun, run_scan

from findesk.agents.roles.scan.models import SynthesisReport
from findesk.analytics.scan.candidates import Boards, board_tickers
from findesk.core.config import Settings
from findesk.core.events.model import AgentEnd, AgentStart, SectionReady
from findesk.core.result import Err
from findesk.tools.base import ToolContext
from findesk.workflows.scan.models import ScanReport
from findesk.workflows.scan.spec import SPEC
from findesk.workflows.scan.stream import SECTIONS

MOVERS_TABLE = "prices/market/us_listed_stocks_daily_close_pctchange_volume_2024-01-02_2025-12-31.parquet"


def test_every_phase_reports_and_the_synthesis_lists_8_to_10_board_tickers(scan_run: ScanRun) -> None:
    r = scan_run.ok
    assert r.date.isoformat() == DAY and r.mode == "deterministic"
    for phase in (r.geopolitical, r.movers, r.sectors, r.industries):
        assert phase.status in {"ok", "partial"}, (phase.phase, phase.summary)
        assert phase.board is not None and phase.summary
    assert r.movers.board is not None and r.movers.board.session.isoformat() == DAY
    assert r.industries.board is not None
    # the deep dive covers the sector board's three leaders, decided by code
    assert r.sectors.board is not None and len(r.top_sectors) == 3
    assert [d.etf for d in r.industries.board.sectors] == r.top_sectors == r.sectors.board.leaders[:3]
    s = r.synthesis
    assert s is not None
    tickers = [c.ticker for c in s.stocks_to_investigate]
    assert 8 <= len(tickers) <= 10 and len(set(tickers)) == len(tickers)
    named = board_tickers(Boards(r.geopolitical.board, r.movers.board, r.sectors.board, r.industries.board))
    assert set(tickers) <= named
    for c in s.stocks_to_investigate:
        assert c.rationale.startswith(c.ticker) and "%" in c.rationale  # the board figures that put it there
        assert c.risks and c.conviction in {"high", "medium", "low"}
    assert s.executive_summary and s.macro_context.startswith("The market regime is")
    assert s.key_themes and all(t.evidence for t in s.key_themes)
    assert "not advice" in s.executive_summary and "not investment advice" in r.disclaimer


def test_a_candidates_sector_says_whose_classification_it_is(scan_run: ScanRun) -> None:
    s = scan_run.ok.synthesis
    assert s is not None
    gics = {
        "Health Care",
        "Materials",
        "Consumer Discretionary",
        "Information Technology",
        "Financials",
        "Industrials",
        "Energy",
        "Utilities",
        "Real Estate",
        "Consumer Staples",
        "Communication Services",
    }
    movers = [c for c in s.stocks_to_investigate if c.angle in {"momentum", "catalyst", "reversal"}]
    assert movers, "2025-08-29 has large liquid gainers"
    # Nasdaq files BABA under Real Estate: a mover's sector is labelled as the listing directory's
    assert all(c.sector.endswith("(Nasdaq's sector)") for c in movers)
    leaders = [c for c in s.stocks_to_investigate if c.angle == "relative-strength"]
    assert leaders and all(c.sector in gics for c in leaders)
    # a one-member sub-industry's "100% breadth" is only that stock: the count is stated
    nem = next(c for c in leaders if c.ticker == "NEM")
    assert "Gold (1 member, median 1M" in nem.rationale


def test_every_figure_is_traced_and_the_json_round_trips(scan_run: ScanRun) -> None:
    r = scan_run.ok
    assert r.guard.untraced_numbers == [] and r.guard.clean, r.guard
    assert r.warnings == []
    data = json.loads(r.model_dump_json())
    again = ScanReport.model_validate(data)
    assert again == r and r.synthesis is not None
    synthesis = SynthesisReport.model_validate(data["synthesis"])
    assert synthesis.stocks_to_investigate == r.synthesis.stocks_to_investigate
    # the macro context is the regime tool's: it was called once, by the synthesis, and its figures traced
    regime = [t for t in r.tool_calls if t.name == "get_market_regime"]
    assert len(regime) == 1 and regime[0].agent == "scan_synthesis" and regime[0].status == "ok"
    assert {t.name for t in r.tool_calls} >= {
        "get_topic_news",
        "get_market_movers",
        "get_sector_performance",
        "get_industry_performance",
    }


def test_the_movers_carried_are_the_snapshot_tables_rows(scan_run: ScanRun, snapshot_dir: Path) -> None:
    board = scan_run.ok.movers.board
    assert board is not None and board.gainers and board.losers and board.most_active
    table = pq.read_table(snapshot_dir / MOVERS_TABLE, filters=[("date", "=", DAY)])
    rows = {r["symbol"]: r for r in table.to_pylist()}
    assert board.universe == len(rows) == 6617
    for row in (*board.gainers, *board.losers, *board.most_active):
        raw = rows[row.symbol]
        assert (row.close, row.pct_change, row.volume) == (raw["close"], raw["pct_change"], raw["volume"])
    # gainers best first, losers worst first, as the table ranks them
    assert [g.pct_change for g in board.gainers] == sorted(
        (g.pct_change for g in board.gainers), reverse=True
    )
    assert [x.pct_change for x in board.losers] == sorted(x.pct_change for x in board.losers)
    best = pc.max(table.column("pct_change")).as_py()
    assert board.gainers[0].pct_change <= best  # filters may drop the raw best, never invent a better one
    # the synthesis's momentum picks quote those rows' own figures
    s = scan_run.ok.synthesis
    assert s is not None
    for c in s.stocks_to_investigate:
        if c.angle in {"momentum", "catalyst"} and c.ticker in rows:
            assert f"{rows[c.ticker]['pct_change']:+.2f}%" in c.rationale


def test_phases_stream_in_order_with_phase_one_concurrent(scan_run: ScanRun) -> None:
    events = scan_run.events
    sections = [e.data for e in events if isinstance(e.data, SectionReady)]
    assert {s.name for s in sections} == {name for name, _ in SECTIONS}
    first = {s.name: i for i, s in reversed(list(enumerate(sections)))}
    assert (
        max(first["geopolitical"], first["movers"], first["sectors"])
        < first["industries"]
        < first["synthesis"]
    )
    synthesis = [s for s in sections if s.name == "synthesis"][-1]
    assert synthesis.message is not None and "stocks to investigate" in synthesis.message
    # phase 1: the three analysts all start before any of them ends (one superstep)
    order = [(e.data.agent, type(e.data)) for e in events if isinstance(e.data, AgentStart | AgentEnd)]
    phase1 = {"scan_geopolitical", "scan_movers", "scan_sectors"}
    starts = [i for i, (a, k) in enumerate(order) if a in phase1 and k is AgentStart]
    ends = [i for i, (a, k) in enumerate(order) if a in phase1 and k is AgentEnd]
    assert len(starts) == 3 and max(starts) < min(ends)
    assert (
        max(ends) < order.index(("scan_industries", AgentStart)) < order.index(("scan_synthesis", AgentStart))
    )


def test_renderers_lead_with_the_stocks_to_investigate(scan_run: ScanRun) -> None:
    r = scan_run.ok
    assert r.synthesis is not None
    first = r.synthesis.stocks_to_investigate[0].ticker
    terminal = SPEC.renderers["terminal"](r, False)
    assert terminal.splitlines()[3] == "STOCKS TO INVESTIGATE" and first in terminal.splitlines()[4]
    markdown = SPEC.renderers["markdown"](r, True)
    assert markdown.index("## Stocks to investigate") < markdown.index("## Market movers")
    assert "## Tool trace" in markdown and "get_market_regime" in markdown
    page = SPEC.renderers["html"](r, False)
    assert f'id="candidate-{first}"' in page and 'id="disclaimer"' in page and "<script" not in page


def test_a_date_after_the_as_of_date_is_refused_with_the_command(
    scan_settings: Settings, scan_tools: ToolContext
) -> None:
    refused = run_scan(scan_settings, scan_tools, {"date": "2025-09-30"}).report
    assert isinstance(refused, Err)
    assert "--as-of 2025-09-30" in refused.reason
    unknown = run_scan(scan_settings, scan_tools, {"date": DAY, "tickers": ["NVDA"]}).report
    assert isinstance(unknown, Err) and "tickers" in unknown.reason


def test_an_earlier_date_scans_that_day_only(scan_settings: Settings, scan_tools: ToolContext) -> None:
    r = run_scan(scan_settings, scan_tools, {"date": "2024-05-10"}, as_of="2024-05-10").ok
    assert r.date.isoformat() == "2024-05-10"
    assert r.movers.board is not None and r.movers.board.session.isoformat() <= "2024-05-10"
    assert r.sectors.board is not None and r.sectors.board.session.isoformat() <= "2024-05-10"
    assert r.guard.untraced_numbers == []
    if r.synthesis is not None:
        assert 8 <= len(r.synthesis.stocks_to_investigate) <= 10
    else:
        assert any("synthesis: no_data" in w for w in r.warnings)
