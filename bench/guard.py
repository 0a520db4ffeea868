"""Injection detector speed: milliseconds per passage on one core (issue 17's target: p95 ≤ 5 ms), so
screening every retrieved chunk costs little.

Passages come from JSONL files in the red-team schema (``text`` or ``combined_text``; default: the dev
split's injected and clean 10-K passages and the benign questions), so the same script measures any
corpus. The process is pinned to one CPU; each passage is screened uncached (``detector.screen``, not
the per-process cache a run uses) as filing text and as a post, ``--repeat`` times, after a warm-up.

    python bench/guard.py [FILE.jsonl ...] [--repeat 3] [--json]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path

from findesk.guardrails.injection.detector import screen
from findesk.guardrails.injection.model import shipped

SHARED = Path(__file__).resolve().parents[2] / "shared" / "bench" / "redteam"
DEFAULT = [SHARED / "indirect_dev.jsonl", SHARED / "indirect_clean_dev.jsonl", SHARED / "benign_dev.jsonl"]


def passages(files: list[Path]) -> list[str]:
    out = []
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                text = row.get("combined_text") or row.get("text")
                if isinstance(text, str) and text.strip():
                    out.append(text)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="*", default=DEFAULT)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    texts = passages(args.files)
    weights = shipped()
    for text in texts[:20]:  # warm-up: regex compilation, the weights
        screen(text, "filing", weights)
    times: list[float] = []
    chars = 0
    for _ in range(args.repeat):
        for text in texts:
            for genre in ("filing", "passage"):
                began = time.perf_counter()
                screen(text, genre, weights)
                times.append((time.perf_counter() - began) * 1000)
                chars += len(text)
    times.sort()
    figures = {
        "passages": len(texts),
        "screens": len(times),
        "mean_chars": round(chars / len(times)),
        "p50_ms": round(statistics.median(times), 3),
        "p95_ms": round(times[int(0.95 * (len(times) - 1))], 3),
        "max_ms": round(times[-1], 3),
        "per_second": round(len(times) / (sum(times) / 1000)),
        "cpus": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "target_p95_ms": 5.0,
    }
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
