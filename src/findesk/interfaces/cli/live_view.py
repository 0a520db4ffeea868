"""The live trace in the terminal: one line per event, indented by how deeply it is nested.

Rules:
- Presentation only: a line is built from the event alone (plus the depth of its parent), so a
  replay of recorded events (``findesk runs show``) prints exactly what the live run printed.
- Data cannot style the terminal: text is printed as ``rich.text.Text`` (no markup parsing, no
  highlighting), so a summary containing ``[red]`` prints those characters.
- Figures and clipping use ``findesk.core.formatting`` (``usd``, ``duration_ms``, ``clip_line``), so
  the trace prints costs and latencies as ``findesk runs`` and ``findesk keys`` do.
- Quiet by default: streamed model tokens appear only with ``verbose``; every other kind always
  prints, failures and warnings in colour.
"""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.text import Text

from findesk.core.events.model import (
    AgentEnd,
    AgentStart,
    Done,
    Error,
    Event,
    LlmCall,
    RunWarning,
    SectionReady,
    Token,
    ToolCallStarted,
    ToolResultReady,
)
from findesk.core.formatting import clip_line, duration_ms, usd

INDENT = "  "


def compact_args(arguments: dict[str, Any], limit: int = 80) -> str:
    parts = []
    for key, value in arguments.items():
        shown = value if isinstance(value, str) else json.dumps(value, default=str, separators=(",", ":"))
        parts.append(f"{key}={shown}")
    return clip_line(", ".join(parts), limit)


def describe(event: Event, summary_chars: int = 100) -> tuple[str, str] | None:
    """The line for one event (without indentation) and its style; None for token events."""
    d = event.data
    if isinstance(d, AgentStart):
        reason = f": {d.mode_reason}" if d.mode_reason else ""
        return f"▶ {d.agent} ({d.mode}{reason})", "bold"
    if isinstance(d, ToolCallStarted):
        prefetch = " [prefetch]" if d.prefetch else ""
        return f"→ {d.name}({compact_args(d.arguments)}){prefetch}", "cyan"
    if isinstance(d, ToolResultReady):
        cached = " (cached)" if d.cached else ""
        if d.ok:
            held = f" ⚠ {len(d.quarantined)} passage(s) quarantined" if d.quarantined else ""
            text = f"✓ {d.name} {duration_ms(d.latency_ms)}{cached}{held} — {d.summary}"
            return clip_line(text, summary_chars + 40), "green"
        text = f"✗ {d.name} {duration_ms(d.latency_ms)}{cached} — {d.error_code or 'error'}: {d.summary}"
        return clip_line(text, summary_chars + 40), "red"
    if isinstance(d, LlmCall):
        return _llm_line(d, summary_chars), "magenta" if d.ok else "red"
    if isinstance(d, RunWarning):
        return clip_line(f"! {d.code}: {d.message}", summary_chars + 40), "yellow"
    if isinstance(d, AgentEnd):
        status = ("done (deterministic fallback)" if d.fell_back else "done") if d.ok else "failed"
        calls = f"{d.tool_calls} tool call{'' if d.tool_calls == 1 else 's'}"
        text = f"■ {d.agent} {status} · {calls} · {usd(d.cost_usd)} · {duration_ms(d.latency_ms)}"
        return text, "bold" if d.ok else "bold red"
    if isinstance(d, SectionReady):
        return f"§ {d.title} ready", "dim"
    if isinstance(d, Error):
        return clip_line(f"✗ error {d.code}: {d.message}", summary_chars + 40), "bold red"
    if isinstance(d, Done):
        summary = f" — {d.summary}" if d.summary else ""
        return clip_line(f"● done{summary}", summary_chars + 40), "bold green"
    return None


def _llm_line(d: LlmCall, summary_chars: int) -> str:
    retry = f" (attempt {d.attempt})" if d.attempt > 1 else ""
    head = f"◆ {d.provider}:{d.model}{retry}"
    if not d.ok:
        why = ": ".join(part for part in (d.error_code, d.error) if part) or "error"
        return clip_line(f"{head} failed — {why} · {duration_ms(d.latency_ms)}", summary_chars + 60)
    cached = f" ({d.cached_tokens:,} cached)" if d.cached_tokens else ""
    tokens = f"{d.input_tokens:,} in{cached} / {d.output_tokens:,} out"
    return f"{head} {tokens} · {usd(d.cost_usd)} · {duration_ms(d.latency_ms)}"


class LiveView:
    """A ``Sink`` that prints each event as it happens (stderr unless given another console)."""

    def __init__(
        self,
        console: Console | None = None,
        verbose: bool = False,
        *,
        summary_chars: int = 100,
        wrap: bool = False,
    ) -> None:
        self.console = console or Console(stderr=True, highlight=False)
        self.verbose = verbose
        self.summary_chars = summary_chars
        self.wrap = wrap  # False: one terminal line per event, cut with an ellipsis
        self._depth: dict[str, int] = {}
        self._mid_tokens = False  # verbose tokens stream without newlines; the next line starts fresh

    def write(self, event: Event) -> None:
        parent_depth = self._depth.get(event.parent_id, -1) if event.parent_id else -1
        depth = parent_depth + 1
        if isinstance(event.data, Token):
            if self.verbose:
                self.console.print(Text(event.data.text, style="dim"), end="", soft_wrap=True)
                self._mid_tokens = True
            return
        self._depth[event.id] = depth
        line = describe(event, self.summary_chars)
        if line is None:
            return
        if self._mid_tokens:
            self.console.print()
            self._mid_tokens = False
        text, style = line
        self.console.print(
            Text(INDENT * depth + text, style=style),
            no_wrap=not self.wrap,
            overflow="fold" if self.wrap else "ellipsis",
            highlight=False,
        )

    def close(self) -> None:
        if self._mid_tokens:
            self.console.print()
            self._mid_tokens = False
