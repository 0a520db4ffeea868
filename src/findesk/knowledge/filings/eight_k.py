"""Split the plain text of an 8-K into its Items (``Item 2.02``, ``Item 9.01`` …).

Rules this module keeps:
- A heading is a line that starts with ``Item N.NN`` (any case, optional ``.``/``:``/dash after the
  code) whose code is one of the official 8-K items in ``sec_forms``; a line continuing in lower
  case (``Item 2.02 of Form 8-K…``) is a cross-reference, not a heading.
- The first heading of each code wins: 8-Ks have no table of contents, and a later repeat is a
  quotation, not a new Item.
- Each Item's text runs from its heading to the next Item heading; the last one stops at the
  ``SIGNATURE(S)`` line, so the signature block is not part of any Item.
- Titles are the official ones from ``sec_forms``, not the document's wording.
"""

from __future__ import annotations

import re

from findesk.data.formats.sec_forms import EIGHT_K_ITEMS
from findesk.knowledge.filings.items import ItemText

_HEADING = re.compile(
    r"^[ \t]*ITEM[ \t]*(?P<code>\d{1,2})[ \t]*\.[ \t]*(?P<sub>\d{2})(?!\d)"
    r"(?P<sep>[ \t]*[.:;|\-–—]+)?[ \t]*(?P<rest>[^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
_SIGNATURE = re.compile(r"^[ \t]*SIGNATURES?[ \t]*\.?[ \t]*$", re.IGNORECASE | re.MULTILINE)


def split_eight_k(text: str) -> list[ItemText]:
    """The Items of an 8-K in document order (empty when no Item heading is found)."""
    heads: list[tuple[int, str, str]] = []
    seen: set[str] = set()
    for m in _HEADING.finditer(text):
        code = f"{int(m.group('code'))}.{m.group('sub')}"
        rest = m.group("rest").strip()
        if code not in EIGHT_K_ITEMS or code in seen:
            continue
        if rest[:1].islower() and not m.group("sep"):
            continue
        seen.add(code)
        heads.append((m.start(), code, m.group(0).strip()))
    out: list[ItemText] = []
    for idx, (start, code, heading) in enumerate(heads):
        if idx + 1 < len(heads):
            end = heads[idx + 1][0]
        else:
            sig = _SIGNATURE.search(text, start)
            end = sig.start() if sig else len(text)
        out.append(ItemText(code, EIGHT_K_ITEMS[code], heading, start, end, text[start:end].strip()))
    return out
