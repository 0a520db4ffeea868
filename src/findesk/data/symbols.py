"""Symbol validation: findesk covers US listings only.

Rule: any ``.`` in a symbol marks a non-US listing (``VOD.L``, ``SHOP.TO``) or a share-class suffix
written the foreign way; it is ``out_of_scope`` before any vendor is called. US share classes are
written with a dash (``BRK-B``).
"""

from __future__ import annotations

import re

from findesk.core.result import Err, ErrorCode, Ok, Result

_US_SYMBOL = re.compile(r"^[A-Z][A-Z0-9]{0,5}(-[A-Z]{1,2})?$")


def normalize_symbol(raw: str) -> Result[str]:
    symbol = raw.strip().upper()
    if not symbol:
        return Err(ErrorCode.INVALID_INPUT, "empty ticker; pass a US ticker such as AAPL")
    if "." in symbol:
        return Err(
            ErrorCode.OUT_OF_SCOPE,
            f"{symbol!r} looks like a non-US listing (it contains '.'); findesk covers US listings only. "
            "For US share classes use a dash, e.g. BRK-B",
        )
    if not _US_SYMBOL.match(symbol):
        return Err(
            ErrorCode.INVALID_INPUT,
            f"{raw.strip()!r} is not a valid US ticker (1-6 letters or digits, optional -A/-B class suffix)",
        )
    return Ok(symbol)
