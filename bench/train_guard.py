"""Fits the injection classifier (``findesk.guardrails.injection``) and reports cross-validated figures.

Data: the red-team DEVELOPMENT split only (``--redteam``: attacks, benign questions, injected and
clean 10-K passages) for everything labelled; ordinary third-party text as extra clean sentences
(``--corpus``: 10-K items, Reddit posts, news, call transcripts), so the detector learns what real
filings and posts look like. No held-out data is read.

Cross-validation: five folds grouped so that nothing about a test item is seen in training — BIPIA
attacks by upstream category (a fold's attacks are of kinds never trained on), the other attacks by
id, each injected passage with its attack and its clean twin, corpus sentences by document. For each
fold the model is fitted on the other four and the fold's items are screened with rules + classifier,
exactly as ``findesk eval guard`` screens them. The thresholds are chosen on the pooled out-of-fold
scores (``choose_thresholds``), then
the final model is fitted on everything and written with those thresholds.

    python bench/train_guard.py [--redteam DIR] [--corpus DIR ...] [--out PATH] [--folds 5] [--json]
"""

from __future__ import annotations

import argparse
import csv
import gzip
import json
import random
import sys
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from findesk.guardrails.advice import check_request
from findesk.guardrails.injection import model as injection_model
from findesk.guardrails.injection import rules
from findesk.guardrails.injection.features import DIMENSIONS, hashed, sentences

SHARED = Path(__file__).resolve().parents[2] / "shared"
DEFAULT_OUT = (
    Path(__file__).resolve().parents[1] / "src/findesk/guardrails/injection" / injection_model.WEIGHTS_FILE
)
csv.field_size_limit(sys.maxsize)


CORPUS_SOURCES = ("10-K items", "reddit", "news", "transcripts")


@dataclass
class Example:
    text: str
    label: int
    group: str
    weight: float = 1.0
    buckets: list[int] = field(default_factory=list)


def _jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _paragraphs(text: str) -> Iterator[str]:
    for para in text.split("\n"):
        para = " ".join(para.split())
        if 80 <= len(para) <= 3000:
            yield para


def corpus_sentences(dirs: Iterable[Path], rng: random.Random, per_source: int) -> list[Example]:
    """Ordinary third-party sentences, grouped by document: 10-K items, posts, news, transcripts."""
    out: list[Example] = []

    def take(source: str, docs: list[tuple[str, str]]) -> None:
        pool: list[Example] = []
        for doc_id, text in docs:
            for s in sentences(text):
                if 20 <= len(s) <= 600:
                    pool.append(Example(s, 0, f"{source}:{doc_id}"))
        rng.shuffle(pool)
        out.extend(pool[:per_source])
        print(f"corpus {source}: {min(per_source, len(pool))} of {len(pool)} sentences", file=sys.stderr)

    for root in dirs:
        items = sorted((root / "10-K").glob("*.json")) if (root / "10-K").is_dir() else []
        if items:
            docs = []
            for path in items:
                data = json.loads(path.read_text())
                for key in ("item_1", "item_1A", "item_7"):
                    docs += [
                        (f"{path.stem}:{key}:{i}", p) for i, p in enumerate(_paragraphs(data.get(key) or ""))
                    ]
            take("10-K items", docs)
        reddit = root / "social" / "reddit"
        if reddit.is_dir():
            docs = []
            for path in sorted(reddit.glob("*.csv*")):
                opener = gzip.open if path.suffix == ".gz" else open
                with opener(path, "rt", encoding="utf-8", errors="replace") as fh:
                    for i, row in enumerate(csv.DictReader(fh)):
                        docs.append(
                            (f"{path.name}:{i}", f"{row.get('title', '')}\n{row.get('selftext', '')}")
                        )
            take("reddit", docs)
        news = root / "news" / "finance_news_2025-05-01_2025-08-26.csv"
        tv = root / "news" / "tradingview_news_10tickers_2025-04-09_2025-05-25.csv.gz"
        docs = []
        if news.is_file():
            with news.open(encoding="utf-8", errors="replace") as fh:
                docs += [
                    (f"fn:{i}", f"{r.get('title', '')}\n{r.get('description', '')}")
                    for i, r in enumerate(csv.DictReader(fh))
                ]
        if tv.is_file():
            with gzip.open(tv, "rt", encoding="utf-8", errors="replace") as fh:
                rows = list(csv.DictReader(fh))
            for i, r in enumerate(rows):
                docs.append(
                    (
                        f"tv:{i}",
                        "\n".join(
                            str(v)
                            for k, v in r.items()
                            if k
                            and k.lower() in {"title", "headline", "description", "content", "text", "body"}
                        ),
                    )
                )
        if docs:
            take("news", docs)
        transcripts = root / "transcripts"
        if transcripts.is_dir():
            docs = [(p.name, p.read_text(errors="replace")) for p in sorted(transcripts.glob("*/*.txt"))]
            take("transcripts", docs)
    return out


def load_redteam(root: Path) -> dict[str, list[dict[str, Any]]]:
    def one(stem: str) -> list[dict[str, Any]]:
        found = [
            p
            for p in sorted(root.glob(f"{stem}_*.jsonl"))
            if stem == "indirect_clean" or "_clean" not in p.name
        ]
        if not found:
            raise SystemExit(f"no {stem}_*.jsonl in {root}")
        return [row for path in found for row in _jsonl(path)]

    return {
        "attacks": one("attacks"),
        "benign": one("benign"),
        "indirect": one("indirect"),
        "clean": one("indirect_clean"),
    }


def attack_group(row: dict[str, Any]) -> str:
    if row.get("dataset") == "bipia":
        return f"bipia:{row.get('category')}"
    return f"{row.get('dataset')}:{row.get('id')}"


def training_examples(data: dict[str, list[dict[str, Any]]], corpus: list[Example]) -> list[Example]:
    out: list[Example] = []
    for row in data["attacks"]:
        if row.get("expected") != "block":
            continue
        parts = sentences(row["text"])
        # a long jailbreak is many sentences, most of them scene-setting: together they weigh as one
        weight = 1.0 if len(parts) <= 2 else 3.0 / len(parts)
        out += [Example(s, 1, attack_group(row), weight) for s in parts]
    for row in data["benign"]:
        out.append(Example(row["text"], 0, f"benign:{row['id']}"))
    for i, row in enumerate(data["clean"]):
        out += [Example(s, 0, f"carrier:{i}") for s in sentences(row["text"])]
    out += corpus
    for ex in out:
        ex.buckets = hashed(ex.text)
    return out


def fit(
    examples: list[Example], *, l2: float = 1e-4, epochs: int = 300, lr: float = 0.1
) -> tuple[np.ndarray[Any, Any], float]:
    """Weighted logistic regression with balanced classes, full-batch Adam over sparse binary rows."""
    n = len(examples)
    labels = np.array([e.label for e in examples], dtype=np.float64)
    pos = labels.sum()
    balance = np.where(labels == 1, n / (2 * max(pos, 1)), n / (2 * max(n - pos, 1)))
    sample_w = balance * np.array([e.weight for e in examples]) / n
    rows = np.concatenate([np.full(len(e.buckets), i) for i, e in enumerate(examples)]).astype(np.int64)
    cols = np.concatenate([np.asarray(e.buckets, dtype=np.int64) for e in examples])
    w = np.zeros(DIMENSIONS)
    b = 0.0
    m, v = np.zeros(DIMENSIONS), np.zeros(DIMENSIONS)
    mb = vb = 0.0
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    for t in range(1, epochs + 1):
        z = np.bincount(rows, weights=w[cols], minlength=n) + b
        p = 1.0 / (1.0 + np.exp(-np.clip(z, -40, 40)))
        g_row = (p - labels) * sample_w
        g = np.bincount(cols, weights=g_row[rows], minlength=DIMENSIONS) + l2 * w
        gb = float(g_row.sum())
        m = beta1 * m + (1 - beta1) * g
        v = beta2 * v + (1 - beta2) * g * g
        w -= lr * (m / (1 - beta1**t)) / (np.sqrt(v / (1 - beta2**t)) + eps)
        mb = beta1 * mb + (1 - beta1) * gb
        vb = beta2 * vb + (1 - beta2) * gb * gb
        b -= lr * (mb / (1 - beta1**t)) / (np.sqrt(vb / (1 - beta2**t)) + eps)
    return w.astype(np.float32), float(b)


def fold_of(group: str, folds: int, assignment: dict[str, int]) -> int:
    if group not in assignment:
        assignment[group] = len(assignment) % folds
    return assignment[group]


@dataclass
class Scored:
    """Out-of-fold classifier probabilities and rule hits for every evaluation item."""

    direct: list[tuple[dict[str, Any], float, bool]] = field(default_factory=list)  # attacks and benign
    corpus: list[tuple[str, float]] = field(default_factory=list)  # (source, probability) of clean sentences
    indirect: list[tuple[dict[str, Any], float, bool]] = field(default_factory=list)
    clean: list[tuple[dict[str, Any], float, bool]] = field(default_factory=list)


def _best(weights: injection_model.Weights, text: str) -> float:
    return max((injection_model.score(s, weights) for s in sentences(text)), default=0.0)


def cross_validate(
    data: dict[str, list[dict[str, Any]]], corpus: list[Example], folds: int, seed: int
) -> Scored:
    rng = random.Random(seed)
    groups = sorted({attack_group(r) for r in data["attacks"]})
    rng.shuffle(groups)
    assignment = {g: i % folds for i, g in enumerate(groups)}
    # an injected passage is tested with its attack's fold, and its clean twin with it
    carrier_fold = {}
    attack_by_id = {r["id"]: r for r in data["attacks"]}
    for i, row in enumerate(data["indirect"]):
        carrier_fold[i] = assignment[attack_group(attack_by_id[row["attack_id"]])]
    for i, f in carrier_fold.items():
        assignment[f"carrier:{i}"] = f
    examples = training_examples(data, corpus)
    for e in examples:
        fold_of(e.group, folds, assignment)
    for r in data["benign"]:
        fold_of(f"benign:{r['id']}", folds, assignment)
    scored = Scored()
    for k in range(folds):
        started = time.perf_counter()
        train = [e for e in examples if assignment[e.group] != k]
        vec, bias = fit(train)
        w = injection_model.from_arrays(vec, bias, 0.5, 0.5, {})
        for r in data["attacks"]:
            if assignment[attack_group(r)] == k:
                scored.direct.append((r, _best(w, r["text"]), bool(rules.match(r["text"], "input"))))
        for r in data["benign"]:
            if assignment[f"benign:{r['id']}"] == k:
                scored.direct.append((r, _best(w, r["text"]), bool(rules.match(r["text"], "input"))))
        for i, r in enumerate(data["indirect"]):
            if carrier_fold[i] == k:
                scored.indirect.append(
                    (r, _best(w, r["combined_text"]), bool(rules.match(r["combined_text"], "filing")))
                )
                clean = data["clean"][i]
                scored.clean.append(
                    (clean, _best(w, clean["text"]), bool(rules.match(clean["text"], "filing")))
                )
        for e in examples:
            if e.group.split(":", 1)[0] in CORPUS_SOURCES and assignment[e.group] == k:
                scored.corpus.append((e.group.split(":", 1)[0], injection_model.probability(w, e.buckets)))
        print(
            f"fold {k + 1}/{folds}: {len(train)} training sentences, {time.perf_counter() - started:.1f} s",
            file=sys.stderr,
        )
    return scored


def rates(
    scored: Scored, passage_t: float, input_t: float, *, use_rules: bool = True, use_model: bool = True
) -> dict[str, Any]:
    def flagged(p: float, hit: bool, t: float) -> bool:
        return (use_rules and hit) or (use_model and p >= t)

    direct_attacks = [
        (r, p, h)
        for r, p, h in scored.direct
        if r.get("expected") == "block" and r.get("channel") == "direct"
    ]
    advice = [r for r, _p, _h in scored.direct if r.get("expected") == "refuse_advice"]
    bipia_direct = [(r, p, h) for r, p, h in scored.direct if r.get("channel") == "indirect_payload"]
    benign = [(r, p, h) for r, p, h in scored.direct if r.get("expected") == "allow"]
    caught = sum(flagged(p, h, input_t) for _r, p, h in direct_attacks)
    refused = sum(1 for r in advice if not hasattr(check_request(r["text"]), "value"))
    fp = [r for r, p, h in benign if flagged(p, h, input_t)]
    ind = sum(flagged(p, h, passage_t) for _r, p, h in scored.indirect)
    cln = [r for r, p, h in scored.clean if flagged(p, h, passage_t)]
    n_attack = len(direct_attacks) + len(advice)
    return {
        "attack_recall": (caught + refused) / max(n_attack, 1),
        "attacks": {
            "caught": caught + refused,
            "of": n_attack,
            "injection_jailbreak": f"{caught}/{len(direct_attacks)}",
            "advice_refused": f"{refused}/{len(advice)}",
        },
        "bipia_as_direct_messages": (
            f"{sum(flagged(p, h, input_t) for _r, p, h in bipia_direct)}/{len(bipia_direct)}"
        ),
        "benign_false_positive_rate": len(fp) / max(len(benign), 1),
        "benign": {"flagged": len(fp), "of": len(benign), "examples": [r["text"][:120] for r in fp[:5]]},
        "indirect_flag_rate": ind / max(len(scored.indirect), 1),
        "indirect": {
            "flagged": int(ind),
            "of": len(scored.indirect),
            "missed": [r["attack_text"] for r, p, h in scored.indirect if not flagged(p, h, passage_t)][:10],
        },
        "clean_flag_rate": len(cln) / max(len(scored.clean), 1),
        "clean": {"flagged": len(cln), "of": len(scored.clean)},
        "corpus_sentence_flag_rate": {
            src: round(
                sum(p >= passage_t for s, p in scored.corpus if s == src)
                / max(1, sum(s == src for s, _p in scored.corpus)),
                4,
            )
            for src in CORPUS_SOURCES
        }
        if use_model
        else None,
    }


def choose_thresholds(scored: Scored) -> tuple[float, float]:
    """The lowest thresholds at which the classifier, out of fold, flags no benign question, no clean
    passage, and at most 1 in 10,000 ordinary corpus sentences of any source: the rules carry recall; the
    classifier is a net for phrasings the rules miss, and must not quarantine real filings or posts."""
    grid = [round(float(x), 2) for x in np.arange(0.30, 0.995, 0.01)]
    benign = [p for r, p, _h in scored.direct if r.get("expected") == "allow"]
    input_t = next((t for t in grid if all(p < t for p in benign)), 0.99)

    def corpus_ok(t: float) -> bool:
        for src in CORPUS_SOURCES:
            ps = [p for s, p in scored.corpus if s == src]
            if ps and sum(p >= t for p in ps) > 0.0001 * len(ps):
                return False
        return True

    passage_t = next((t for t in grid if all(p < t for _r, p, _h in scored.clean) and corpus_ok(t)), 0.99)
    return passage_t, input_t


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--redteam", type=Path, default=SHARED / "bench" / "redteam")
    parser.add_argument(
        "--corpus", type=Path, nargs="*", default=[SHARED / "bench" / "edgar_items", SHARED / "snapshot"]
    )
    parser.add_argument(
        "--per-source", type=int, default=20000, help="clean sentences taken from each corpus source"
    )
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--seed", type=int, default=20261124)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    parser.add_argument("--no-write", action="store_true", help="report the cross-validated figures only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    data = load_redteam(args.redteam)
    corpus = corpus_sentences(args.corpus, rng, args.per_source)
    scored = cross_validate(data, corpus, args.folds, args.seed)
    passage_t, input_t = choose_thresholds(scored)
    figures = rates(scored, passage_t, input_t)
    figures["rules_only"] = {
        k: v
        for k, v in rates(scored, passage_t, input_t, use_model=False).items()
        if k.endswith("rate") or k == "attack_recall"
    }
    figures["classifier_only"] = {
        k: v
        for k, v in rates(scored, passage_t, input_t, use_rules=False).items()
        if k.endswith("rate") or k == "attack_recall"
    }
    figures["thresholds"] = {"passage": passage_t, "input": input_t}
    figures["folds"] = args.folds
    if not args.no_write:
        vec, bias = fit(training_examples(data, corpus))
        meta = {
            "trained_on": str(args.redteam.name) + " (dev) + clean corpus sentences",
            "corpus_sentences": len(corpus),
            "cross_validated": {
                k: figures[k]
                for k in (
                    "attack_recall",
                    "benign_false_positive_rate",
                    "indirect_flag_rate",
                    "clean_flag_rate",
                )
            },
            "command": "python bench/train_guard.py",
            "seed": args.seed,
        }
        np.savez_compressed(
            args.out,
            vector=vec.astype(np.float16).astype(np.float32),
            bias=np.float64(bias),
            passage_threshold=np.float64(passage_t),
            input_threshold=np.float64(input_t),
            meta=np.str_(json.dumps(meta)),
        )
        figures["written"] = str(args.out)
    if args.json:
        print(json.dumps(figures, indent=2))
    else:
        for key, value in figures.items():
            print(f"{key}: {value}")


if __name__ == "__main__":
    main()
