"""The briefing in the terminal: one screen by default, everything with ``details``.

Rules:
- Presentation only; never raises on odd input. Content and figures come from the plain-text lines of
  ``findesk.workflows.brief.lines``, the primitives of ``findesk.core.formatting`` and the tool-trace row
  of ``findesk.workflows.report_parts``, as the Markdown and HTML renderings do, so the three agree.
- Every piece of data text goes through ``rich.markup.escape`` and is printed without emoji codes or
  highlighting: "[bold red]x[/]" or ":rocket:" in a post is printed as written, never interpreted.
- The one-screen view keeps to ``SCREEN_LINES`` lines at 120 columns: each part has a fixed line budget
  and is clipped with "…" (data line 1, headline 1, summary 2, snapshot 3, business 2, last
  ``MAX_FILINGS`` filings and top ``MAX_RISKS`` risk headings one line each, social 6, divergences
  1 + ``MAX_DIVERGENCES``, audit 1 + one line per source cited on the screen, disclaimer 2), and ends
  with the hint to use ``--details``. A client question adds its own block after the summary (rule,
  question, ``QUESTION_POINTS`` pointers and the note, one line each).
- The first line states the data mode and date (``Briefing.data_line``).
- Every ``[n]`` printed resolves: the one-screen view lists each source it cited (``_cite`` records
  them while the screen is drawn) as "[n] label — URL", the label clipped so the URL stays whole; URLs
  are terminal hyperlinks.
"""

from __future__ import annotations

from contextvars import ContextVar

from rich import box
from rich.console import Console
from rich.markup import escape
from rich.style import Style
from rich.table import Table
from rich.text import Text

from findesk.core.formatting import clip, is_http, one_line, plural, word_clip
from findesk.workflows.brief import lines as txt
from findesk.workflows.brief.models import SECTION_TITLES, Briefing
from findesk.workflows.report_parts import TOOL_COLUMNS, tool_row

SCREEN_LINES = 60  # a maximised terminal; the numbered sources (up to ~10 lines) are part of it
MAX_FILINGS = 5
MAX_RISKS = 5
QUESTION_POINTS = 2
MAX_DIVERGENCES = 2
HINT = "… run with --details for the full briefing (findings, excerpts, claims, tool calls, sources)"
UNVERIFIED = f"[bold yellow]{escape(txt.UNVERIFIED)}[/]"
# the source numbers ``_cite`` printed while ``draw`` runs; None outside a draw
_CITED: ContextVar[set[int] | None] = ContextVar("findesk_brief_cited", default=None)


def _put(console: Console, markup: str, max_lines: int | None = None) -> None:
    """Print markup (data already escaped); with ``max_lines``, wrap and clip to that many lines."""
    text = Text.from_markup(markup, emoji=False)
    if max_lines is None:
        console.print(text, emoji=False, highlight=False)
        return
    width = max(10, console.width)
    lines = list(text.wrap(console, width))
    if len(lines) > max_lines:
        lines = lines[:max_lines]
        last = lines[-1]
        last.rstrip()
        last.truncate(width - 1)
        last.append("…")
    for line in lines:
        console.print(line, no_wrap=True, overflow="ellipsis", emoji=False, highlight=False)


def _clipped(console: Console, body: str, tail: str = "", style: str = "") -> None:
    """One line: plain ``body`` clipped with "…" so that the ``tail`` markup (a footnote) stays visible."""
    room = max(10, console.width - Text.from_markup(tail).cell_len - 1)
    text = escape(clip(one_line(body), room))
    _put(console, (f"[{style}]{text}[/]" if style else text) + (f" {tail}" if tail else ""), 1)


def _cite(b: Briefing, key: str) -> str:
    n = b.source_number(key)
    if n is None:
        return f"[cyan]({escape(key)})[/]"
    cited = _CITED.get()
    if cited is not None:
        cited.add(n)
    return f"[cyan]{escape(f'[{n}]')}[/]"


def _source_line(console: Console, n: int, label: str, key: str, details: bool) -> None:
    """'[n] label — URL', the URL a hyperlink where the terminal has them. On one screen it is one
    line: the label is clipped (or left out) so that the URL stays whole; a URL wider than the
    terminal folds onto the next line rather than lose its end."""
    url, label, number = one_line(key), one_line(label), f"[{n}] "
    if not details:
        room = console.width - len(number) - len(url) - 3
        label = word_clip(label, room - 2) if room >= 16 else ""  # "AAPL 8-K filed 2025-07-31 …"
    line = Text(number, style="cyan")
    line.append(f"{label} — " if label else "")
    line.append(url, style=Style(link=url) if is_http(url) else None)
    console.print(line, overflow="fold", emoji=False, highlight=False)


def _title(console: Console, n: int, stamp: str | None = None) -> None:
    # the age stamp rides on the rule: it costs no line of the one-screen budget
    extra = f" [dim]· {escape(stamp)}[/]" if stamp else ""
    console.rule(f"[bold]{escape(SECTION_TITLES[n])}[/]{extra}", align="left", style="dim")


def _stamp(b: Briefing, n: int) -> str | None:
    if _PARTS[n] is _business:
        return txt.age_stamp(b, b.business.findings, "Business description")
    if _PARTS[n] is _risks:
        return txt.age_stamp(b, b.risks.risks, "Risk factors")
    return None


def _message(console: Console, message: str | None, max_lines: int | None = None) -> None:
    if message:
        _put(console, f"[yellow]{escape(message)}[/]", max_lines)


def _header(console: Console, b: Briefing, details: bool) -> None:
    headline, summary = one_line(b.headline), one_line(b.summary)
    _put(console, f"[cyan]{escape(b.data_line)}[/]", None if details else 1)
    _put(console, f"[bold]{escape(headline)}[/]", None if details else 1)
    if not details:
        # the deterministic summary opens with the headline: on one screen, say it once
        summary = summary.removeprefix(headline).lstrip(". ") or summary
    _put(console, escape(summary), None if details else 2)


def _question(console: Console, b: Briefing, details: bool) -> None:
    """The client's question and where the briefing answers it; on one screen, the question, the first
    ``QUESTION_POINTS`` pointers and the note, one line each."""
    q = b.question
    if q is None:
        return
    console.rule("[bold]Client question[/]", align="left", style="dim")
    _put(console, f"[italic]“{escape(one_line(q.question))}”[/]", None if details else 1)
    rows = txt.question_lines(b)
    for title, text, keys in rows if details else rows[:QUESTION_POINTS]:
        tail = " ".join(_cite(b, k) for k in keys)
        if details:
            _put(console, f"{escape(title)}: {escape(text)} {tail}")
        else:
            _clipped(console, f"{title}: {text}", tail)
    _put(console, f"[{'dim' if q.addressed else 'yellow'}]{escape(q.note)}[/]", None if details else 1)


def _snapshot(console: Console, b: Briefing, details: bool) -> None:
    limit = None if details else 1
    _put(console, f"[bold]{escape(txt.company_line(b))}[/]", limit)
    _message(console, b.snapshot.message, limit)
    quote = txt.quote_lines(b)
    if quote:
        _put(console, f"[bold]{escape(quote[0])}[/] · {escape(txt.data_mode(b))}", limit)
        _put(console, escape(quote[1]), limit)
        if len(quote) > 2:  # the 52-week range
            _put(console, escape(quote[2]), limit)
    if details:
        source = txt.quote_source(b)
        if source:
            _put(console, f"[dim]{escape(source)}[/]")


def _business(console: Console, b: Briefing, details: bool) -> None:
    s = b.business
    _message(console, s.message, None if details else 1)
    if not details:
        if s.findings:
            first = s.findings[0]
            _put(console, f"{escape(one_line(first.claim))} {_cite(b, first.citation)}", 2)
    else:
        for f in s.findings:
            _put(console, f"{escape(f.claim)} {_cite(b, f.citation)}")
    if s.key_figures is not None and details:
        for text, cites in txt.key_figure_lines(s.key_figures, details):
            _put(console, f"  {escape(text)} {' '.join(_cite(b, c) for c in cites)}".rstrip())
    elif s.key_figures is not None:
        # Key figures belong on the one screen, one line each: figures first, clipped at the period.
        for text, cites in txt.key_figure_short_lines(s.key_figures):
            _clipped(console, text, " ".join(_cite(b, c) for c in cites))
    elif details:
        for fact in s.facts:
            _put(console, f"  {escape(txt.fact_text(fact))} {_cite(b, fact.citation)}")


def _events(console: Console, b: Briefing, details: bool) -> None:
    s = b.events
    _message(console, s.message, None if details else 1)
    shown = s.filings if details else s.filings[:MAX_FILINGS]
    for f in shown:
        if details:
            _put(console, f"{escape(txt.filing_head(f))} {_cite(b, f.citation)}")
        else:
            _clipped(console, txt.filing_head(f), _cite(b, f.citation))
        if details:
            for item in f.items:
                if item.excerpt:
                    _put(console, f"  [dim]Item {escape(item.item)}:[/] {escape(one_line(item.excerpt))}")
            if f.content_note:
                _put(console, f"  [dim]{escape(f.content_note)}[/]")
    if details:
        for x in s.findings:
            title = f"[bold]{escape(x.title)}[/]: " if x.title else ""
            _put(console, f"• {title}{escape(x.claim)} {_cite(b, x.citation)}")
    elif len(s.filings) > MAX_FILINGS:
        _put(console, f"[dim]+{len(s.filings) - MAX_FILINGS} more filings[/]", 1)


def _risks(console: Console, b: Briefing, details: bool) -> None:
    s = b.risks
    _message(console, s.message, None if details else 1)
    shown = s.risks if details else s.risks[:MAX_RISKS]
    for n, f in enumerate(shown, 1):
        heading = one_line(f.title or f.claim)
        if details:
            title = f"[bold]{escape(f.title)}[/] — " if f.title else ""
            _put(console, f"{n}. {title}{escape(f.claim)} {_cite(b, f.citation)}")
        else:
            _clipped(console, f"{n}. {heading}", _cite(b, f.citation))
    if not details and len(s.risks) > MAX_RISKS:
        _put(console, f"[dim]+{len(s.risks) - MAX_RISKS} more risks[/]", 1)


def _social(console: Console, b: Briefing, details: bool) -> None:
    r = b.social.report
    limit = None if details else 1
    _put(console, f"[bold yellow]{escape(r.disclaimer)}[/]", None if details else 2)
    _message(console, b.social.message, limit)
    _put(console, escape(txt.window_line(r) if details else txt.window_short(r)), limit)
    for covered in r.coverage if details else []:
        _put(console, f"[dim]{escape(txt.coverage_line(covered))}[/]")
    themes = txt.themes_line(r, limit=len(r.themes) if details else 3)
    if themes and not details:
        _put(console, escape(themes), 1)
    volume = txt.volume_line(r.volume.anomaly) if r.volume else "volume anomaly not computed"
    if not details:
        z = txt.volume_z(r.volume.anomaly) if r.volume else "volume anomaly not computed"
        missing = " (some features not in this data: --details)" if r.pump_features_missing else ""
        flags = f"pump-bot flags {len(r.pump_flags):,} of {r.posts_scored:,} posts{missing}"
        _put(console, escape(f"{flags} · {plural(len(r.claims), 'claim')} [UNVERIFIED] · {z}"), 1)
        return
    subs = txt.subreddits_line(r)
    if subs:
        _put(console, f"[dim]{escape(subs)}[/]")
    for t in r.themes:
        ids = ", ".join(t.post_ids)
        head = f"• [bold]{escape(t.theme)}[/]:"
        _put(console, f"{head} {escape(t.summary)} [dim]({escape(ids)})[/]")
    _put(console, f"[bold]Claims ({len(r.claims):,})[/]")
    for c in r.claims:
        _put(console, f"  {UNVERIFIED} {escape(txt.claim_head(c))} — {escape(c.url or 'no URL')}")
    _put(console, f"[bold]{escape(txt.pump_line(r))}[/]")
    for p in r.pump_flags:
        head = f"{txt.who(p.platform, p.author)} post {p.post_id}, score {p.score:.2f} — {p.url or 'no URL'}"
        _put(console, f"  {UNVERIFIED} {escape(head)}")
        for reason in p.reasons:
            _put(console, f"      - {escape(reason)}")
    source = f" [dim](source: {escape(r.volume.source)})[/]" if r.volume else ""
    _put(console, escape(volume) + source)
    _put(console, f"[dim]{len(r.posts):,} posts and articles in the window (listed in --format html)[/]")


def _divergences(console: Console, b: Briefing, details: bool) -> None:
    s = b.divergences
    limit = None if details else 1
    _put(console, escape(txt.verdict_line(s)), limit)
    shown = s.divergences if details else s.divergences[:MAX_DIVERGENCES]
    for n, d in enumerate(shown, 1):
        verdict = f"[bold red]{escape(txt.verdict_text(d))}[/]"
        if not details:
            _put(console, f"{n}. {UNVERIFIED} {verdict}: {escape(txt.claim_head(d.claim))}", 1)
            continue
        cites = " ".join(_cite(b, k) for k in d.official.citations) or "no citation"
        _put(
            console,
            f"{n}. {UNVERIFIED} {escape(txt.claim_head(d.claim))} — {escape(d.claim.url or 'no URL')}",
        )
        _put(console, f"   verdict: {verdict}")
        _put(console, f"   official: {escape(d.official.statement)} {cites}")
    if not details:
        return
    for label, checks in txt.other_groups(s):
        _put(console, f"{escape(label)}:")
        for d in checks:
            cites = " ".join(_cite(b, k) for k in d.official.citations)
            head = f"{escape(txt.claim_head(d.claim))} — {escape(d.claim.url or 'no URL')}"
            _put(console, f"  {UNVERIFIED} {head}")
            _put(console, f"     official: {escape(d.official.statement)} {cites}".rstrip())


def _tool_table(b: Briefing) -> Table:
    table = Table(box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False)
    for name in TOOL_COLUMNS:
        table.add_column(name, justify="right" if name == "latency ms" else "left", overflow="fold")
    for t in b.audit.tool_calls:
        cells = [escape(c) for c in tool_row(t)]
        if t.status != "ok":
            cells[2] = f"[bold red]{cells[2]}[/]"
        table.add_row(*(Text.from_markup(c, emoji=False) for c in cells))
    return table


def _audit(console: Console, b: Briefing, details: bool) -> None:
    a = b.audit
    _message(console, a.message, None if details else 1)
    if not details:
        _put(console, escape(txt.audit_line(b)), 1)
        # the sources of every [n] printed above, so each resolves without --details
        for n in sorted(_CITED.get() or ()):
            _source_line(console, n, b.sources[n - 1].label, b.sources[n - 1].key, details)
        return
    _put(console, escape(f"{txt.audit_line(b)} · run {b.audit.run_id}"))
    for line in txt.agents_mode_lines(b):
        _put(console, f"  {escape(line)}")
    usage = txt.usage_line(b)
    if usage:
        _put(console, escape(usage))
    _put(console, f"[bold]Warnings ({len(a.warnings):,})[/]")
    for w in a.warnings:
        _put(console, f"  [yellow]- {escape(w)}[/]")
    errors = plural(txt.tool_errors(b), "error")
    _put(console, f"[bold]Tool calls ({len(a.tool_calls):,}, {errors})[/]")
    if a.tool_calls:
        console.print(_tool_table(b), emoji=False, highlight=False)
    for u in a.untraced_numbers:
        _put(console, f"  [yellow]untraced number {escape(u.text)} in “{escape(u.sentence)}”[/]")
    for x in a.advice_removed:
        _put(console, f"  [yellow]advice removed ({escape(x.kind)}): “{escape(x.sentence)}”[/]")
    _put(console, f"[bold]Sources ({len(b.sources):,})[/]")
    for n, s in enumerate(b.sources, 1):
        _source_line(console, n, s.label, s.key, details)


_PARTS = (_snapshot, _business, _events, _risks, _social, _divergences, _audit)


def draw(console: Console, b: Briefing, *, details: bool = False) -> None:
    """Print the briefing: one screen (about ``SCREEN_LINES`` lines at 120 columns), or all of it."""
    cited = _CITED.set(set())
    try:
        _header(console, b, details)
        _question(console, b, details)
        for n, part in enumerate(_PARTS):
            _title(console, n, _stamp(b, n))
            part(console, b, details)
    finally:
        _CITED.reset(cited)
    console.print()
    _put(console, f"[dim]{escape(b.disclaimer)}[/]", None if details else 2)
    if not details:
        _put(console, f"[dim]{escape(HINT)}[/]", 1)
