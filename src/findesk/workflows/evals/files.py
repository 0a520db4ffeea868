"""Where an evaluation writes its result: ``<out>/<name>.json`` (the whole result) and
``<out>/<name>.md`` (the readable report), the folder made when missing.

Rules: never raises; a folder that cannot be written is an ``Err`` naming it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result


def prepare(out: Path) -> Result[Path]:
    """The results folder, made when missing, or why it cannot be written — checked before an
    evaluation runs, so a bad ``--out`` never hides a finished run's verdict."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".findesk-write-check"
        probe.write_text("")
        probe.unlink()
    except OSError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"cannot write the evaluation result into {out}: {exc}")
    return Ok(out)


def write_result(out: Path, name: str, result: Any, report_lines: list[str]) -> Result[list[Path]]:
    """Writes ``name.json`` and ``name.md`` into ``out``; the paths written."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        as_json = out / f"{name}.json"
        as_md = out / f"{name}.md"
        as_json.write_text(json.dumps(result, indent=2, ensure_ascii=False, default=str) + "\n")
        as_md.write_text("\n".join(report_lines) + "\n")
    except OSError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"cannot write the evaluation result into {out}: {exc}")
    return Ok([as_json, as_md])
