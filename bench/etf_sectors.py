"""ETF sector grouping: accuracy on the hand-checked sample, and coverage of the 1,670-fund universe.

Accuracy: each row of the sample CSV (``ticker,name,category,expected_sector,note``; labels decided by
reading each fund's name, category and description, never by running the classifier) is classified
from its name and category; printed overall, by the rule that decided (basis), and every miss.
Coverage: every fund of the snapshot's ETF metadata with ``in_liquid_price_file=True`` (the ETF price
panel's universe) is classified; printed as shares by basis, the Unclassified share, the leveraged and
inverse counts and the largest groups. Always exits 0: the figures are the result.

The sample was drawn with ``--draw``: funds per provider category, sorted by ticker and picked with
``random.Random("etf-sectors:<category>")``, one per 20 funds of the category (at least one), and for
categories whose funds span several groups (``MIXED``) one per 7 (at least two). The report says whether
the sample's tickers still equal that draw.

    python bench/etf_sectors.py [SAMPLE.csv] [--metadata etf_metadata_yfinance_info.csv] [--json]
    python bench/etf_sectors.py --draw > draft.csv   # the unlabelled draw, for a new sample
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import sys
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

from findesk.analytics.etf.sector_taxonomy import UNCLASSIFIED
from findesk.analytics.etf.sectors import classify
from findesk.core.config import Settings

SAMPLE = Path(__file__).resolve().parent / "data" / "etf_sector_sample.csv"
METADATA = "reference/etf_metadata_yfinance_info.csv"  # under the snapshot
SEED = "etf-sectors"
MIXED = frozenset(
    {
        "Technology", "Trading--Leveraged Equity", "Trading--Inverse Equity", "Derivative Income",
        "Digital Assets", "Miscellaneous Region", "Commodities Focused", "Financial", "Health",
        "Natural Resources", "Industrials", "Equity Energy", "China Region", "Trading--Miscellaneous",
        "Miscellaneous Sector", "Consumer Cyclical", "Real Estate", "Infrastructure", "Ultrashort Bond",
        "Mid-Cap Growth",
    }
)  # fmt: skip


def universe(metadata: Path) -> list[dict[str, str]]:
    """The funds of the ETF price panel: ticker, name (long, else short) and category."""
    with metadata.open(encoding="utf-8", newline="") as handle:
        return [
            {
                "ticker": row["ticker"],
                "name": row["longName"] or row["shortName"],
                "category": row["category"],
            }
            for row in csv.DictReader(handle)
            if row["in_liquid_price_file"] == "True"
        ]


def draw(funds: list[dict[str, str]]) -> list[dict[str, str]]:
    """The stratified, seeded sample of the module docstring, in category order."""
    by_category: dict[str, list[dict[str, str]]] = defaultdict(list)
    for fund in funds:
        by_category[fund["category"]].append(fund)
    picked: list[dict[str, str]] = []
    for category in sorted(by_category):
        members = sorted(by_category[category], key=lambda fund: fund["ticker"])
        size = len(members)
        k = max(2, (size + 3) // 7) if category in MIXED else max(1, (size + 10) // 20)
        picked.extend(random.Random(f"{SEED}:{category}").sample(members, min(k, size)))
    return picked


def accuracy(sample: list[dict[str, str]]) -> dict[str, Any]:
    hits = 0
    by_basis: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    misses = []
    for row in sample:
        got = classify(row["ticker"], row["name"], row["category"])
        ok = got.sector == row["expected_sector"]
        hits += ok
        by_basis[got.basis][0] += ok
        by_basis[got.basis][1] += 1
        if not ok:
            misses.append(
                {
                    "ticker": row["ticker"],
                    "name": row["name"],
                    "category": row["category"],
                    "expected": row["expected_sector"],
                    "got": got.sector,
                    "basis": got.basis,
                }
            )
    return {
        "funds": len(sample),
        "correct": hits,
        "accuracy": round(hits / len(sample), 4) if sample else None,
        "by_basis": {
            basis: {"correct": c, "funds": n, "accuracy": round(c / n, 4)}
            for basis, (c, n) in by_basis.items()
        },
        "misses": misses,
    }


def coverage(funds: list[dict[str, str]]) -> dict[str, Any]:
    assignments = [classify(f["ticker"], f["name"], f["category"]) for f in funds]
    total = len(assignments)
    bases = Counter(a.basis for a in assignments)
    sectors = Counter(a.sector for a in assignments)
    return {
        "funds": total,
        "by_basis": {basis: {"funds": n, "share": round(n / total, 4)} for basis, n in bases.most_common()},
        "unclassified": {"funds": sectors[UNCLASSIFIED], "share": round(sectors[UNCLASSIFIED] / total, 4)},
        "unclassified_funds": [
            f["ticker"] for f, a in zip(funds, assignments, strict=True) if a.sector == UNCLASSIFIED
        ],
        "leveraged": sum(a.leveraged for a in assignments),
        "inverse": sum(a.inverse for a in assignments),
        "groups_used": len(sectors),
        "largest_groups": dict(sectors.most_common(12)),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("sample", type=Path, nargs="?", default=SAMPLE)
    parser.add_argument("--metadata", type=Path, default=None, help=f"default: <snapshot>/{METADATA}")
    parser.add_argument("--draw", action="store_true", help="print the seeded draw as an unlabelled CSV")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    metadata = args.metadata
    if metadata is None:
        snapshot = Settings().resolved_snapshot_dir()
        if snapshot is None:
            print("no snapshot found: pass --metadata", file=sys.stderr)
            return
        metadata = snapshot / METADATA
    funds = universe(metadata)
    if args.draw:
        writer = csv.writer(sys.stdout, lineterminator="\n")
        writer.writerow(["ticker", "name", "category", "expected_sector", "note"])
        for fund in draw(funds):
            writer.writerow([fund["ticker"], fund["name"], fund["category"], "", ""])
        return
    with args.sample.open(encoding="utf-8", newline="") as handle:
        sample = list(csv.DictReader(handle))
    figures: dict[str, Any] = {
        "sample": str(args.sample),
        "sample_is_seeded_draw": [row["ticker"] for row in sample] == [f["ticker"] for f in draw(funds)],
        "accuracy": accuracy(sample),
        "coverage": coverage(funds),
    }
    if args.json:
        print(json.dumps(figures, indent=2))
        return
    acc, cov = figures["accuracy"], figures["coverage"]
    print(f"sample {args.sample} ({acc['funds']} funds; seeded draw: {figures['sample_is_seeded_draw']})")
    print(f"accuracy: {acc['correct']}/{acc['funds']} = {acc['accuracy']:.1%}")
    for basis, row in sorted(acc["by_basis"].items()):
        print(f"  {basis:9} {row['correct']}/{row['funds']} = {row['accuracy']:.1%}")
    print(f"misses ({len(acc['misses'])}):")
    for miss in acc["misses"]:
        where = f"{miss['ticker']:6} {miss['name']} [{miss['category']}]"
        print(f"  {where}: expected {miss['expected']!r}, got {miss['got']!r} ({miss['basis']})")
    print(f"coverage of the universe ({cov['funds']} funds, {cov['groups_used']} groups used):")
    for basis, row in cov["by_basis"].items():
        print(f"  {basis:9} {row['funds']:5} = {row['share']:.1%}")
    unclassified, listed = cov["unclassified"], " ".join(cov["unclassified_funds"])
    print(f"  unclassified {unclassified['funds']} = {unclassified['share']:.1%} {listed}")
    print(f"  leveraged {cov['leveraged']}, inverse {cov['inverse']}")
    print("  largest groups: " + ", ".join(f"{name} {n}" for name, n in cov["largest_groups"].items()))


if __name__ == "__main__":
    main()
