"""``findesk eval guard``: the injection detector alone on files in the schema of the red-team data
(``../shared/bench/redteam/``), no workflow, no model.

Rules:
- Attacks (``expected`` ``block`` or ``refuse_advice``) count as caught when the input guard's detector
  flags them or the advice check refuses them; BIPIA payloads (``channel`` ``indirect_payload``) are
  indirect by design, so they are reported apart and judged on the indirect files, where they sit in
  a passage.
- Benign questions count as false positives when the detector flags them or the advice check refuses
  them (the topic check is reported apart: it is a polite decline, not the detector).
- Indirect and clean passages are screened as filing text (``filing``), as a retrieved 10-K paragraph
  is; the flag rate on each is reported, and the pairs by position.
- Files are read here; a file that does not parse is an ``Err`` naming the file and line.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.guardrails.advice import check_request
from findesk.guardrails.injection import screen_input, screen_passage
from findesk.guardrails.injection.model import shipped
from findesk.guardrails.scope import off_topic

_EXAMPLES = 5


class Rate(BaseModel):
    hits: int
    of: int

    @property
    def rate(self) -> float:
        return self.hits / self.of if self.of else 0.0


class GuardResult(BaseModel):
    attack_recall: float | None
    benign_false_positive_rate: float | None
    indirect_flag_rate: float | None
    clean_flag_rate: float | None
    counts: dict[str, dict[str, int]] = Field(default_factory=dict)  # per figure and per dataset
    missed: dict[str, list[str]] = Field(default_factory=dict)  # a few examples of each kind of miss
    detector: dict[str, Any] = Field(default_factory=dict)  # thresholds and the shipped CV figures
    seconds: float = 0.0


def load_jsonl(path: Path) -> Result[list[dict[str, Any]]]:
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        return Err(ErrorCode.INVALID_INPUT, f"cannot read {path}: {exc}")
    rows = []
    for n, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            return Err(ErrorCode.INVALID_INPUT, f"{path}:{n}: not JSON ({exc.msg})")
        if not isinstance(row, dict) or not isinstance(row.get("text", row.get("combined_text")), str):
            return Err(ErrorCode.INVALID_INPUT, f"{path}:{n}: a row needs a text (or combined_text) string")
        rows.append(row)
    return Ok(rows)


def _blocked(text: str) -> tuple[bool, str]:
    if screen_input(text).flagged:
        return True, "injection"
    if isinstance(check_request(text), Err):
        return True, "advice"
    return False, ""


def evaluate(
    attacks: list[dict[str, Any]],
    benign: list[dict[str, Any]],
    indirect: list[dict[str, Any]] | None = None,
    clean: list[dict[str, Any]] | None = None,
) -> GuardResult:
    began = time.perf_counter()
    counts: dict[str, Counter[str]] = {}
    missed: dict[str, list[str]] = {}

    def tally(key: str, hit: bool, example: str | None = None) -> None:
        c = counts.setdefault(key, Counter())
        c["of"] += 1
        c["hits"] += int(hit)
        if example is not None:
            bucket = missed.setdefault(key, [])
            if len(bucket) < _EXAMPLES:
                bucket.append(example[:160])

    for row in attacks:
        text = row.get("text", "")
        caught, _why = _blocked(text)
        dataset = str(row.get("dataset", "?"))
        if row.get("channel") == "indirect_payload":
            tally(f"direct_message:{dataset}", caught)
            continue
        tally("attacks", caught, None if caught else text)
        tally(f"attacks:{dataset}", caught)
    for row in benign:
        text = row.get("text", "")
        flagged, why = _blocked(text)
        tally("benign", flagged, text if flagged else None)
        tally(f"benign:{row.get('dataset', '?')}", flagged)
        if flagged:
            tally(f"benign_{why}", True)
        tally("benign_declined_off_topic", off_topic(text), text if off_topic(text) else None)
    for row in indirect or []:
        text = row.get("combined_text", row.get("text", ""))
        flagged = screen_passage(text, "filing").flagged
        tally("indirect", flagged, None if flagged else str(row.get("attack_text", text)))
    for row in clean or []:
        flagged = screen_passage(row.get("text", ""), "filing").flagged
        tally("clean", flagged, row.get("text", "")[:160] if flagged else None)

    def rate(key: str) -> float | None:
        c = counts.get(key)
        return round(c["hits"] / c["of"], 4) if c and c["of"] else None

    weights = shipped()
    return GuardResult(
        attack_recall=rate("attacks"),
        benign_false_positive_rate=rate("benign"),
        indirect_flag_rate=rate("indirect"),
        clean_flag_rate=rate("clean"),
        counts={k: dict(v) for k, v in sorted(counts.items())},
        missed=missed,
        detector={
            "passage_threshold": weights.passage_threshold,
            "input_threshold": weights.input_threshold,
            "trained": weights.meta,
        },
        seconds=round(time.perf_counter() - began, 3),
    )


def report_lines(result: GuardResult, files: dict[str, str]) -> list[str]:
    def pct(x: float | None) -> str:
        return "n/a" if x is None else f"{x * 100:.1f} %"

    def count(key: str) -> str:
        c = result.counts.get(key)
        return f"{c['hits']}/{c['of']}" if c else "0/0"

    lines = ["# Injection detector evaluation", ""]
    lines += [f"- {k}: `{v}`" for k, v in files.items()]
    lines += [
        "",
        "| figure | value | count |",
        "|---|---|---|",
        f"| attack recall (blocked or refused) | {pct(result.attack_recall)} | {count('attacks')} |",
        f"| benign false positives | {pct(result.benign_false_positive_rate)} | {count('benign')} |",
        f"| indirect (injected passages) flagged | {pct(result.indirect_flag_rate)} | {count('indirect')} |",
        f"| clean passages flagged | {pct(result.clean_flag_rate)} | {count('clean')} |",
        "",
        "Per dataset:",
    ]
    lines += [f"- {k}: {v['hits']}/{v['of']}" for k, v in result.counts.items() if ":" in k]
    if result.counts.get("benign_declined_off_topic"):
        lines.append(
            f"- benign questions the topic check would decline (not counted above): "
            f"{count('benign_declined_off_topic')}"
        )
    for key, examples in result.missed.items():
        lines += ["", f"Examples ({key}):", *[f"- {e}" for e in examples]]
    trained = result.detector.get("trained", {})
    if trained.get("cross_validated"):
        lines += ["", "Cross-validated figures of the shipped detector (bench/train_guard.py):"]
        lines += [f"- {k}: {v}" for k, v in trained["cross_validated"].items()]
    lines.append(f"\n{result.seconds:.2f} s")
    return lines
