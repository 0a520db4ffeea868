"""Symbol validation: findesk covers US listings only.

Rules:
- The raw text is checked before anything else is done to it: only ASCII letters, digits, ``.`` and
  ``-`` are accepted. Case folding comes after, because Unicode folds look-alikes into real tickers
  (``"ıbm".upper()`` is ``"IBM"``, ``"ﬀ".upper()`` is ``"FF"``).
- Any ``.`` in a symbol marks a non-US listing (``VOD.L``, ``SHOP.TO``) or a share-class suffix
  written the foreign way; it is ``out_of_scope`` before any vendor is called. US share classes are
  written with a dash (``BRK-B``).
- A US ticker starts with a letter, then up to five letters or digits, then an optional ``-A``/``-B``
  class suffix; a refusal says exactly that.
- ``upper_symbol`` is the only case folding a caller may do before ``normalize_symbol``.
"""

from __future__ import annotations

import re

from findesk.core.result import Err, ErrorCode, Ok, Result

_US_SYMBOL = re.compile(r"^[A-Z][A-Z0-9]{0,5}(-[A-Z]{1,2})?$")
_ALLOWED = re.compile(r"^[A-Za-z0-9.\-]+$")

US_TICKER_RULE = (
    "a US ticker is a letter followed by up to 5 letters or digits, with an optional class suffix "
    "such as -B (e.g. AAPL, BRK-B)"
)


def upper_symbol(raw: str) -> str:
    """``raw`` stripped and upper-cased when it is plain ASCII; otherwise left as typed, so that
    ``normalize_symbol`` refuses it instead of a look-alike being folded into a real ticker."""
    text = raw.strip()
    return text.upper() if text.isascii() else text


def normalize_symbol(raw: str) -> Result[str]:
    text = raw.strip()
    if not text:
        return Err(ErrorCode.INVALID_INPUT, "empty ticker; pass a US ticker such as AAPL")
    if not _ALLOWED.fullmatch(text):
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{text!r} is not a valid US ticker: only ASCII letters, digits, '.' and '-' may appear; "
            f"{US_TICKER_RULE}",
        )
    symbol = text.upper()
    if "." in symbol:
        return Err(
            ErrorCode.OUT_OF_SCOPE,
            f"{symbol!r} looks like a non-US listing (it contains '.'); findesk covers US listings only. "
            "For US share classes use a dash, e.g. BRK-B",
        )
    if not _US_SYMBOL.fullmatch(symbol):
        return Err(ErrorCode.INVALID_INPUT, f"{text!r} is not a valid US ticker: {US_TICKER_RULE}")
    return Ok(symbol)
