"""``findesk brief`` as a real process: whatever the format, the first thing printed states the data
mode and date (the README's promise), before the headline."""

from __future__ import annotations

import json
import re
from pathlib import Path

from test_brief_cli import findesk

LINE = "offline snapshot as of 2025-03-03 · MSFT briefing"


def test_every_format_starts_with_the_data_mode_and_date(snapshot_dir: Path, tmp_path: Path) -> None:
    firsts: dict[str, str] = {}
    for fmt in ("terminal", "markdown", "json"):
        proc = findesk("brief", "MSFT", "--as-of", "2025-03-03", "--format", fmt, "--quiet")
        assert proc.returncode == 0, proc.stderr
        firsts[fmt] = proc.stdout.split("\n", 1)[0] if fmt != "json" else proc.stdout
    assert firsts["terminal"] == LINE
    assert firsts["markdown"] == f"# {LINE}"
    doc = json.loads(firsts["json"])
    assert next(iter(doc.items())) == ("data_line", LINE)
    page = tmp_path / "msft.html"
    proc = findesk("brief", "MSFT", "--as-of", "2025-03-03", "--format", "html", "-o", str(page))
    assert proc.returncode == 0, proc.stderr
    text = page.read_text(encoding="utf-8")
    assert re.search(r"<title>(.*?)</title>", text).group(1) == LINE  # type: ignore[union-attr]
    assert f'<header><p class="meta">{LINE}</p><h1>' in text
