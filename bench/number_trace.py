"""Number trace speed: tracing a long text's figures against a large pool of a run's numbers.

A pool of ``--values`` numbers (``collect_numbers``; several sizes give the scaling) and a text that
writes ``--figures`` of them as dollar amounts, plus one planted figure that is in no pool. Reported
per pool size: building the pool, then ``untraced_numbers`` over the whole text (median of
``--repeat``) and per figure. Pools are sorted and searched, not scanned, so the time per figure
should barely grow with the pool. The planted figure must be the only one reported (checked).
The unit test only checks the answer (tests/guardrails/test_number_trace.py); this is where the time is.

    python bench/number_trace.py [--values 1000,10000,100000] [--figures 1000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import statistics
import time

from findesk.guardrails.number_trace import collect_numbers, untraced_numbers

PLANTED = "$250.01"  # no multiple of 1.37 rounds to it


def run(values: int, figures: int, repeat: int) -> dict[str, float]:
    data = [i * 1.37 for i in range(values)]
    step = max(1, values // figures)
    text = " ".join(f"${i * 1.37:,.2f} and" for i in range(0, values, step)[:figures]) + f" {PLANTED}."
    written = min(figures, len(range(0, values, step)))

    t0 = time.perf_counter()
    pool = collect_numbers(data)
    build_s = time.perf_counter() - t0

    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        got = untraced_numbers(text, pool)
        times.append(time.perf_counter() - t0)
        assert [u.text for u in got] == [PLANTED], got
    trace_s = statistics.median(times)
    return {
        "build_s": build_s,
        "trace_s": trace_s,
        "per_figure_s": trace_s / (written + 1),
        "figures": written,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--values", default="1000,10000,100000", help="pool sizes, comma-separated")
    parser.add_argument("--figures", type=int, default=1000, help="figures written in the text")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()

    print("number trace: untraced_numbers over a text of dollar figures, against pools of n values")
    print(f"{'pool values':>12} {'figures':>8} {'build ms':>10} {'trace ms':>10} {'µs / figure':>12}")
    for size in (int(v) for v in args.values.split(",")):
        got = run(size, args.figures, args.repeat)
        print(
            f"{size:>12,} {got['figures']:>8.0f} {got['build_s'] * 1e3:>10.1f} {got['trace_s'] * 1e3:>10.1f} "
            f"{got['per_figure_s'] * 1e6:>12.1f}"
        )


if __name__ == "__main__":
    main()
