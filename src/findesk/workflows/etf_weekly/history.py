"""Week over week: each run's figures appended to ``history.jsonl`` in the runs folder, read back so a
run compares with earlier weeks of the same strategy (did last week's GREEN flags mean-revert?), and
logged to MLflow when that optional extra is installed.

Rules:
- One JSON line per run (``HistoryEntry``), appended under an exclusive file lock, so two runs writing
  at once never interleave; a line that does not parse is skipped (a crash mid-write loses that line
  only), never an error.
- ``earlier`` returns entries of the same strategy (``strategy_hash``) for weeks before this one,
  newest first, one per week (the latest run of a week wins), at most ``MAX_SHOWN``.
- MLflow: only when ``mlflow`` imports; the tracking URI is ``MLFLOW_TRACKING_URI`` or a file store
  ``mlruns`` inside the runs folder; failures become a warning, never a failed run.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from datetime import date
from pathlib import Path

from pydantic import ValidationError

from findesk.workflows.etf_weekly.models import HistoryEntry

FILE = "history.jsonl"
MAX_SHOWN = 12


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.with_suffix(".lock").open("a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def read(folder: Path) -> list[HistoryEntry]:
    path = folder / FILE
    if not path.is_file():
        return []
    out: list[HistoryEntry] = []
    with path.open(encoding="utf-8") as fh:
        for line in fh:
            with contextlib.suppress(ValidationError, ValueError):
                out.append(HistoryEntry.model_validate_json(line))
    return out


def earlier(folder: Path, strategy_hash: str, week_end: date) -> list[HistoryEntry]:
    by_week: dict[date, HistoryEntry] = {}
    for entry in read(folder):
        if entry.strategy_hash == strategy_hash and entry.week_end < week_end:
            by_week[entry.week_end] = entry  # later lines are later runs
    return [by_week[w] for w in sorted(by_week, reverse=True)][:MAX_SHOWN]


def append(folder: Path, entry: HistoryEntry) -> None:
    path = folder / FILE
    with _locked(path), path.open("a+b") as fh:
        fh.seek(0, os.SEEK_END)
        torn = False
        if fh.tell() > 0:  # a line a crash left without its newline must not swallow this one
            fh.seek(-1, os.SEEK_END)
            torn = fh.read(1) != b"\n"
        fh.write((("\n" if torn else "") + entry.model_dump_json() + "\n").encode())
        fh.flush()
        os.fsync(fh.fileno())


def log_mlflow(folder: Path, entry: HistoryEntry, strategy_name: str) -> str | None:
    """Log the run's figures to MLflow when it is installed; returns a warning on failure."""
    try:
        import mlflow  # type: ignore[import-not-found, unused-ignore]
    except ImportError:
        return None
    try:
        uri = os.environ.get("MLFLOW_TRACKING_URI")
        if not uri:
            # a local file store beside the runs: MLflow 3 keeps it only on request (no server, no
            # database driver needed, which is what a weekly desk on one machine wants)
            os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
            uri = (folder.resolve() / "mlruns").as_uri()
        # a client of its own: ``mlflow.set_tracking_uri`` would change the process's URI (and its
        # environment) for every later run, and this run's folder is not theirs
        client = mlflow.MlflowClient(tracking_uri=uri)
        name = f"findesk etf-weekly: {strategy_name}"
        experiment = client.get_experiment_by_name(name)
        experiment_id = experiment.experiment_id if experiment is not None else client.create_experiment(name)
        run = client.create_run(experiment_id, run_name=f"{entry.week_end.isoformat()} {entry.run_id}")
        run_id = run.info.run_id
        client.log_param(run_id, "strategy_hash", entry.strategy_hash)
        client.log_param(run_id, "week_end", entry.week_end.isoformat())
        metrics = {
            "candidates": entry.candidates,
            "sectors": entry.sectors,
            "quality_score": entry.quality_score,
            "model_calls": entry.model_calls,
            "input_tokens": entry.input_tokens,
            "output_tokens": entry.output_tokens,
            "cost_usd": entry.cost_usd,
            **{f"evidence_{k}": v for k, v in entry.evidence.items()},
            **{f"flags_{k}": v for k, v in entry.flags.items()},
        }
        for key, value in metrics.items():
            client.log_metric(run_id, key, float(value))
        client.set_terminated(run_id)
    except Exception as exc:  # an optional logger must never fail the run
        return f"MLflow logging failed: {type(exc).__name__}: {exc}"
    return None
