"""The injection classifier: logistic regression over hashed sentence features, weights shipped with
the package (``weights.npz``), nothing downloaded.

Rules this module keeps:
- The weights file is read once per process, lazily; a missing or unreadable file is a loud error
  at first use (the detector is part of the product, so running without it would be silent risk).
- ``score`` is pure given the weights: the same sentence gives the same probability everywhere.
- The file says how it was made (``meta``: training command, data, cross-validated figures), so
  ``findesk eval guard`` and the README can quote it.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from typing import Any

import numpy as np

from findesk.guardrails.injection.features import DIMENSIONS, hashed

WEIGHTS_FILE = "weights.npz"


@dataclass(frozen=True)
class Weights:
    vector: np.ndarray[Any, np.dtype[np.float32]]
    bias: float
    passage_threshold: float
    input_threshold: float
    meta: dict[str, Any]


def from_arrays(
    vector: np.ndarray[Any, Any], bias: float, passage: float, direct: float, meta: dict[str, Any]
) -> Weights:
    if vector.shape != (DIMENSIONS,):
        raise ValueError(f"injection weights have shape {vector.shape}, expected ({DIMENSIONS},)")
    return Weights(vector.astype(np.float32), float(bias), float(passage), float(direct), meta)


@lru_cache(maxsize=1)
def shipped() -> Weights:
    """The packaged weights."""
    blob = resources.files(__package__).joinpath(WEIGHTS_FILE)
    with resources.as_file(blob) as path, np.load(path, allow_pickle=False) as data:
        meta = json.loads(str(data["meta"]))
        return from_arrays(
            data["vector"],
            float(data["bias"]),
            float(data["passage_threshold"]),
            float(data["input_threshold"]),
            meta,
        )


def probability(weights: Weights, buckets: list[int]) -> float:
    z = weights.bias + float(weights.vector[buckets].sum()) if buckets else weights.bias
    return 1.0 / (1.0 + math.exp(-max(-40.0, min(40.0, z))))


def score(sentence: str, weights: Weights | None = None) -> float:
    """The probability that one sentence is an injected instruction."""
    return probability(weights or shipped(), hashed(sentence))
