"""Rich renderings of the data models for the terminal.

Rules:
- Presentation only: one function per data model, printing to the given console.
- Figures are formatted by ``findesk.core.formatting`` (``number`` for table cells, ``compact`` for
  sizes such as market caps), as every other rendering does; a missing value prints as "—".
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.console import Console
from rich.markup import escape
from rich.panel import Panel
from rich.table import Table

from findesk.core.formatting import compact, number
from findesk.data.models import (
    Company,
    Fact,
    Filing,
    FilingSection,
    MacroSeries,
    MaterialEvent,
    NewsItem,
    OnchainTx,
    PriceBars,
    ProtocolTVL,
    Quote,
    SanctionsScreen,
    SocialPost,
    TokenInfo,
    Transcript,
)


def quote(console: Console, q: Quote) -> None:
    table = Table(title=f"{q.symbol} quote — session {q.session_date}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    change = "—" if q.change is None else f"{q.change:+,.2f} ({(q.change_pct or 0):+.2f}%)"
    rows = [
        ("price", f"{number(q.price)} {q.currency}"),
        ("change", change),
        ("previous close", number(q.previous_close)),
        ("open", number(q.open)),
        ("day range", f"{number(q.day_low)} – {number(q.day_high)}"),
        ("volume", number(q.volume)),
        (
            "market cap",
            f"{compact(q.market_cap)}"
            + (f" (shares as of {q.market_cap_date})" if q.market_cap_date else ""),
        ),
        ("source", q.source.cite()),
    ]
    for name, value in rows:
        table.add_row(name, escape(value))
    console.print(table)
    for note in q.notes:
        console.print(f"[dim]note: {escape(note)}[/dim]")


def company(console: Console, c: Company) -> None:
    table = Table(title=f"{c.ticker}", show_header=False)
    for name, value in (
        ("name", c.name),
        ("CIK", c.cik),
        ("exchange", c.exchange),
        ("sector", c.sector),
        ("industry", c.industry),
        ("ETF", "yes" if c.is_etf else "no"),
        ("source", c.source.cite()),
    ):
        table.add_row(name, escape("—" if value is None else str(value)))
    console.print(table)


def bars(console: Console, b: PriceBars) -> None:
    basis = "adjusted" if b.adjusted else "as traded / index level"
    table = Table(title=f"{b.symbol} daily bars {b.start} → {b.end} ({basis})")
    for col in ("date", "open", "high", "low", "close", "volume"):
        table.add_column(col, justify="right" if col != "date" else "left", no_wrap=True)
    for bar in b.bars:
        table.add_row(
            str(bar.date),
            number(bar.open),
            number(bar.high),
            number(bar.low),
            number(bar.close),
            number(bar.volume),
        )
    console.print(table)
    console.print(f"[dim]{len(b.bars)} bars · source {escape(b.source.cite())}[/dim]")


def filings(console: Console, items: Sequence[Filing]) -> None:
    table = Table(title="filings (newest first)")
    for col in ("filed", "form", "period/event", "items", "accession", "document"):
        table.add_column(col)
    for f in items:
        table.add_row(
            str(f.filing_date),
            f.form,
            str(f.report_date or "—"),
            ", ".join(f.items) or "—",
            f.accession_number or "—",
            escape(f.local_path or f.url or "—"),
        )
    console.print(table)


def events(console: Console, items: Sequence[MaterialEvent]) -> None:
    table = Table(title="8-K material events (newest first)")
    for col in ("filed", "form", "item", "title", "link"):
        table.add_column(col)
    for e in items:
        table.add_row(str(e.filing_date), e.form, e.item, escape(e.title), escape(e.url or "—"))
    console.print(table)


def section(console: Console, s: FilingSection, max_chars: int | None) -> None:
    text = s.text if max_chars is None else s.text[:max_chars]
    console.print(Panel(escape(text), title=escape(f"{s.ticker} {s.form} Item {s.item} — {s.title}")))
    if max_chars is not None and len(s.text) > max_chars:
        console.print(f"[dim]… {len(s.text) - max_chars:,} more characters (use --full)[/dim]")
    console.print(f"[dim]cite: {escape(s.citation())}[/dim]")


def facts(console: Console, items: Sequence[Fact]) -> None:
    table = Table(title=f"XBRL facts: {items[0].taxonomy}:{items[0].concept}" if items else "XBRL facts")
    for col in ("filed", "form", "FY", "FP", "period", "value", "unit", "accession"):
        table.add_column(
            col, justify="right" if col == "value" else "left", no_wrap=col in ("value", "period")
        )
    for f in items:
        period = f"{f.period_start} → {f.period_end}" if f.period_start else f"at {f.period_end}"
        table.add_row(
            str(f.filed),
            f.form or "—",
            str(f.fiscal_year or "—"),
            f.fiscal_period or "—",
            period,
            number(f.value, 0) if abs(f.value) >= 1000 else number(f.value, 4),
            f.unit,
            f.accession_number or "—",
        )
    console.print(table)


def macro(console: Console, m: MacroSeries, last: int) -> None:
    title = f"{m.series_id}" + (f" — {m.title}" if m.title else "") + (f" ({m.units})" if m.units else "")
    table = Table(title=escape(title))
    table.add_column("date")
    table.add_column("value", justify="right")
    for obs in m.observations[-last:]:
        table.add_row(str(obs.date), "—" if obs.value is None else f"{obs.value:,.4g}")
    console.print(table)
    lag = f" · release lag applied: {m.release_lag_days} days" if m.release_lag_days else ""
    console.print(f"[dim]{len(m.observations)} observations · source {escape(m.source.cite())}{lag}[/dim]")


def news(console: Console, items: Sequence[NewsItem]) -> None:
    table = Table(title="news (newest first)")
    for col in ("published", "publisher", "title", "sentiment", "url"):
        table.add_column(col, overflow="fold")
    for n in items:
        table.add_row(
            n.published_at.strftime("%Y-%m-%d %H:%M"),
            escape(n.publisher or "—"),
            escape(n.title),
            escape(n.sentiment or "—"),
            escape(n.url or n.source.ref),
        )
    console.print(table)


def posts(console: Console, items: Sequence[SocialPost]) -> None:
    table = Table(title="social posts — UNVERIFIED user content (newest first)")
    for col in ("published", "platform", "where", "author", "score", "label", "text"):
        table.add_column(col, overflow="fold")
    for p in items:
        text = (p.title + " — " if p.title else "") + p.text
        table.add_row(
            p.published_at.strftime("%Y-%m-%d %H:%M"),
            p.platform,
            escape(p.community or "—"),
            escape(p.author.username if p.author else "—"),
            number(p.score),
            escape(p.sentiment or "—"),
            escape(text[:160] + ("…" if len(text) > 160 else "")),
        )
    console.print(table)


def sanctions(console: Console, s: SanctionsScreen) -> None:
    verdict = "[bold red]MATCH[/bold red]" if s.hit else "[green]no match[/green]"
    console.print(f"sanctions screen for {escape(s.query)}: {verdict}")
    if s.matches:
        table = Table(title="matches")
        for col in ("list", "matched", "entity", "program", "asset", "list date"):
            table.add_column(col, overflow="fold")
        for m in s.matches:
            table.add_row(
                escape(m.list_name),
                escape(m.matched_value),
                escape(m.entity or "—"),
                escape(m.program or "—"),
                escape(m.asset or "—"),
                str(m.list_date),
            )
        console.print(table)
    table = Table(title="lists checked")
    for col in ("list", "list date", "age (days)", "stale", "source"):
        table.add_column(col, overflow="fold")
    for lst in s.lists_checked:
        table.add_row(
            escape(lst.name),
            str(lst.list_date),
            str(lst.stale_days),
            "yes" if lst.stale else "no",
            escape(lst.source.cite()),
        )
    console.print(table)


def txs(console: Console, items: Sequence[OnchainTx]) -> None:
    table = Table(title="on-chain transactions (newest first)")
    for col in ("time (UTC)", "kind", "from", "to", "value", "asset", "hash"):
        table.add_column(col, overflow="fold", no_wrap=col == "value")
    for t in items:
        table.add_row(
            t.timestamp.strftime("%Y-%m-%d %H:%M"),
            t.kind + (" (failed)" if t.is_error else ""),
            t.from_address,
            t.to_address or "(contract creation)",
            f"{t.value:,f}".rstrip("0").rstrip("."),
            escape(t.asset),
            t.hash,
        )
    console.print(table)


def token(console: Console, t: TokenInfo) -> None:
    table = Table(title=escape(f"{t.name} ({t.symbol.upper()})"), show_header=False)
    for name, value in (
        (
            "price (USD)",
            number(t.price_usd, 6) if t.price_usd is not None and t.price_usd < 1 else number(t.price_usd),
        ),
        ("market cap (USD)", compact(t.market_cap_usd)),
        ("24h volume (USD)", compact(t.volume_24h_usd)),
        ("price as of", str(t.price_as_of or "—")),
        ("contracts", ", ".join(f"{k}: {v}" for k, v in t.contracts.items()) or "—"),
        ("source", t.source.cite()),
    ):
        table.add_row(name, escape(value))
    console.print(table)
    if t.source.note:
        console.print(f"[dim]note: {escape(t.source.note)}[/dim]")


def tvl(console: Console, p: ProtocolTVL) -> None:
    console.print(f"{escape(p.protocol)}: TVL {compact(p.tvl_usd)} USD as of {p.as_of:%Y-%m-%d}")
    for chain, value in sorted(p.chain_tvls.items(), key=lambda kv: -kv[1]):
        console.print(f"  {escape(chain)}: {compact(value)}")
    console.print(f"[dim]source {escape(p.source.cite())}[/dim]")


def transcripts(console: Console, items: Sequence[Transcript], max_chars: int | None) -> None:
    table = Table(title="earnings calls (newest first)")
    for col in ("held (New York)", "fiscal period", "characters", "source"):
        table.add_column(col)
    for t in items:
        table.add_row(
            t.conference_at.strftime("%Y-%m-%d %H:%M"),
            f"FY{t.fiscal_year} Q{t.fiscal_quarter}",
            f"{len(t.text):,}",
            escape(t.source.cite()),
        )
    console.print(table)
    newest = items[0]
    text = newest.text if max_chars is None else newest.text[:max_chars]
    title = f"{newest.ticker} FY{newest.fiscal_year} Q{newest.fiscal_quarter} call"
    console.print(Panel(escape(text), title=escape(title)))
    if max_chars is not None and len(newest.text) > max_chars:
        console.print(f"[dim]… {len(newest.text) - max_chars:,} more characters (use --full)[/dim]")
