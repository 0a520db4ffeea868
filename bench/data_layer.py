"""Data-layer latency: cold and warm, for a quote, a filings list and a 10-K section.

Cold = the first call in a fresh process with an empty cache directory (file loads, indexing and
parsing included; interpreter start-up and imports excluded). New process = the first call in a
fresh process whose cache directory was filled by an earlier run (price indexes mapped from disk,
parsed sections read back). Warm = median of repeated calls in one process once loaded.
Parse: ``parse_document`` alone on whole 10-K files of the snapshot (default: TSLA's, 2.6 MB, the
largest), cold (the first parse in a fresh process, imports excluded) and warm (median of
``--parse-repeat``). Targets (issue #2): warm section < 20 ms; cold 10-K parse < 1.5 s.

    python bench/data_layer.py [--as-of 2025-08-29] [--repeat 20]
                               [--parse TSLA/10-K_2025-01-30.htm ...] [--parse-repeat 3]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path
from typing import Any

CASES: dict[str, str] = {
    "quote AAPL": "router.quote('AAPL', as_of)",
    "filings NVDA": "router.filings('NVDA', as_of, None, 20)",
    "10-K section AAPL 1A": "sections.section('AAPL', '10-K', '1A', as_of)",
    "10-K section NVDA 7": "sections.section('NVDA', '10-K', '7', as_of)",
}
LARGEST_10K = "TSLA/10-K_2025-01-30.htm"  # under the snapshot's sec/filings/

_SETUP = """
import asyncio, json, sys, time
from datetime import date
from pathlib import Path
from findesk.core.config import Settings
from findesk.core.result import Ok
from findesk.data.context import resolve_context
from findesk.data.registry import build_router
from findesk.knowledge.filings.sections import SectionService

settings = Settings(cache_dir=Path(sys.argv[1]))
ctx = resolve_context(settings, mode="snapshot", as_of=sys.argv[2]).unwrap()
router = build_router(settings, ctx).unwrap()
sections = SectionService(router, settings.cache_dir)
as_of = ctx.as_of
"""


def cold(expr: str, as_of: date, cache: str) -> float:
    code = (
        _SETUP
        + f"""
async def main():
    t0 = time.perf_counter()
    r = await {expr}
    dt = time.perf_counter() - t0
    assert isinstance(r, Ok), r
    print(json.dumps(dt))
asyncio.run(main())
"""
    )
    out = subprocess.run(
        [sys.executable, "-c", code, cache, as_of.isoformat()], capture_output=True, text=True, check=True
    )
    return float(json.loads(out.stdout.strip().splitlines()[-1]))


def warm(repeat: int, as_of: date) -> dict[str, float]:
    from pathlib import Path

    from findesk.core.config import Settings
    from findesk.core.result import Ok
    from findesk.data.context import resolve_context
    from findesk.data.registry import build_router
    from findesk.knowledge.filings.sections import SectionService

    results: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as cache:
        settings = Settings(cache_dir=Path(cache))
        ctx = resolve_context(settings, mode="snapshot", as_of=as_of).unwrap()
        router = build_router(settings, ctx).unwrap()
        sections = SectionService(router, settings.cache_dir)
        env = {"router": router, "sections": sections, "as_of": as_of}

        async def run() -> None:
            for name, expr in CASES.items():
                first = await eval(expr, env)
                assert isinstance(first, Ok), first
                times = []
                for _ in range(repeat):
                    t0 = time.perf_counter()
                    await eval(expr, env)
                    times.append(time.perf_counter() - t0)
                results[name] = statistics.median(times)

        asyncio.run(run())
    return results


def _document(rel: str) -> Any:
    """The snapshot's ``sec/filings/<rel>`` (``TICKER/FORM_YYYY-MM-DD.htm`` or ``.md``) as a document."""
    from findesk.core.config import Settings
    from findesk.data.models.base import Source
    from findesk.data.models.filings import Filing, FilingDocument

    root = Settings().resolved_snapshot_dir()
    assert root is not None, "no snapshot (../shared/snapshot or FINDESK_SNAPSHOT_DIR)"
    path = f"sec/filings/{rel}"
    ticker, stem = Path(rel).parent.name, Path(rel).stem
    form, filed = stem.rsplit("_", 1)
    filing = Filing(
        ticker=ticker,
        cik=1,
        form=form,
        filing_date=date.fromisoformat(filed),
        url=f"https://www.sec.gov/Archives/{rel}",
        local_path=path,
        source=Source(vendor="snapshot", ref=path),
    )
    content = (root / path).read_text(encoding="utf-8")
    fmt = "markdown" if rel.endswith(".md") else "html"
    return FilingDocument(filing=filing, format=fmt, content=content, source=filing.source)


def _parse_once(rel: str) -> None:
    """In a fresh process: time one ``parse_document`` (imports and the file read excluded)."""
    from findesk.knowledge.filings.sections import parse_document

    doc = _document(rel)
    t0 = time.perf_counter()
    sections = parse_document(doc)
    print(json.dumps({"s": time.perf_counter() - t0, "sections": len(sections), "chars": len(doc.content)}))


def parse(rel: str, repeat: int) -> dict[str, float]:
    """Cold (fresh process) and warm (median of ``repeat`` in this process) ``parse_document`` times."""
    from findesk.knowledge.filings.sections import parse_document

    out = subprocess.run(
        [sys.executable, __file__, "--parse-once", rel], capture_output=True, text=True, check=True
    )
    first = json.loads(out.stdout.strip().splitlines()[-1])
    doc = _document(rel)
    parse_document(doc)
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        parse_document(doc)
        times.append(time.perf_counter() - t0)
    return {**first, "warm_s": statistics.median(times)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--as-of", default="2025-08-29")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--parse", nargs="+", default=[LARGEST_10K], metavar="TICKER/FORM_DATE.htm")
    parser.add_argument("--parse-repeat", type=int, default=3)
    parser.add_argument("--parse-once", help=argparse.SUPPRESS)  # the fresh process of a cold parse
    args = parser.parse_args()
    if args.parse_once:
        _parse_once(args.parse_once)
        return
    as_of = date.fromisoformat(args.as_of)

    warm_times = warm(args.repeat, as_of)
    print(f"data layer latency, offline snapshot as of {as_of} (cold: fresh process, empty cache)")
    print(f"{'case':<24} {'cold ms':>10} {'new process ms':>15} {'warm ms':>10}")
    for name, expr in CASES.items():
        with tempfile.TemporaryDirectory() as cache:
            first = cold(expr, as_of, cache)
            again = cold(expr, as_of, cache)
        print(f"{name:<24} {first * 1000:>10.1f} {again * 1000:>15.1f} {warm_times[name] * 1000:>10.3f}")
    print()
    print(f"{'parse_document':<32} {'M chars':>8} {'sections':>9} {'cold ms':>10} {'warm ms':>10}")
    for rel in args.parse:
        got = parse(rel, args.parse_repeat)
        size, count = got["chars"] / 1e6, got["sections"]
        print(f"{rel:<32} {size:>8.1f} {count:>9.0f} {got['s'] * 1e3:>10.1f} {got['warm_s'] * 1e3:>10.1f}")
    print("targets: warm section < 20 ms; cold 10-K parse < 1500 ms")


if __name__ == "__main__":
    main()
