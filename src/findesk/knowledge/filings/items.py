"""Split the plain text of a 10-K or 10-Q into its Items.

Rules this module keeps:
- Works on plain text (one block per line, see ``html_text``), so the same function runs on parsed
  EDGAR documents and on reference text such as the EDGAR-CORPUS bench.
- A heading candidate is a line that *starts* with ``Item N`` (optionally after ``PART II``), in any
  case, with ``.``, ``:``, dashes, ``|`` or nothing after the number: ``ITEM 1A. RISK FACTORS``,
  ``Item 1A — Risk Factors``, ``Item 7.Management's…``, ``Item 1A.`` with the title on the next line,
  ``Items 1 and 2. Business and Properties``. A line continuing in lower case (``Item 7 of this
  Form…``) is a cross-reference, not a heading; ``Item 2.02`` is an 8-K item, not a 10-K one;
  ``ITEM 1. BUSINESS (CONTINUED)`` is a running page header.
- The body headings are chosen, not the table of contents or running page headers. A short line
  ending in a page number (``Item 1A. | Risk Factors | 13``) is a table-of-contents row and never a
  heading, so a document whose body has no Item headings yields no Items rather than TOC rows. Among
  the remaining candidates the chosen headings are the chain, in the form's Item order, that
  maximizes a per-Item score plus how much each line looks like a heading (official title words
  present, not a bare ``PART I Item 1A`` page header, the 10-Q Part agrees) plus the sum of log
  section lengths. The log term prefers substantial sections, which is what separates a body
  heading from a table-of-contents entry without page numbers (whose "section" is one line long).
- Each Item's text starts at its heading line and ends where the next chosen heading starts; a
  trailing bare ``PART II`` line belongs to the next Part and is dropped.
- Items are returned in document order, titled with the official ``sec_forms`` title, never the
  document's wording. Nothing is invented: an Item whose text is one line long is returned as is.
- 10-Q items are keyed by Part (``I-2``, ``II-1A``), as in ``sec_forms``; a combined heading
  (``Items 1 and 2.``) yields one section per Item, sharing the same text.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from findesk.data.formats.sec_forms import TEN_K_ITEMS, TEN_Q_ITEMS, base_form

_NUM = r"\d{1,2}[A-Ca-c]?"
_HEADING = re.compile(
    r"^[ \t]*(?:PART[ \t]+(?P<part>IV|I{1,3})\b[ \t.,:;|\-–—]*)?"
    rf"ITEMS?[ \t]*(?P<nums>{_NUM}(?:[ \t]*(?:,|and|&|through|to|-|–)[ \t]*{_NUM})*)"
    r"(?![0-9A-Za-z]|\.\d)"
    r"(?P<sep>[ \t]*[.:;|\-–—)]+)?[ \t]*(?P<rest>[^\n]*)$",
    re.IGNORECASE | re.MULTILINE,
)
_PART_LINE = re.compile(r"^[ \t]*PART[ \t]+(?P<part>IV|I{1,3})\b", re.IGNORECASE | re.MULTILINE)
_NUM_RE = re.compile(_NUM)
_PAGE_NUMBER = re.compile(r"(?:\|\s*|\s)(?:[A-Z]-)?\d{1,3}\s*$")
_TRAILING_PART = re.compile(r"(?:\n[ \t]*PART[ \t]+(?:IV|I{1,3})\.?[ \t]*)+\s*$", re.IGNORECASE)
_CONTINUED = re.compile(r"\bcontinued\b", re.IGNORECASE)
_WORD = re.compile(r"[a-z]+")
_STOP = frozenset(
    {"and", "of", "the", "for", "in", "on", "with", "to", "a", "an", "or", "about", "s", "that"}
)

# Heading weights. An Item is worth including on its own (_ITEM_SCORE) unless its heading looks
# wrong: a mismatched 10-Q Part outweighs it, and a matching title decides between two headings for
# the same Item (body heading vs running page header) even against the log-length preference.
_ITEM_SCORE = 10.0
_TITLE_BONUS = 6.0
_TITLE_MISMATCH = 4.0
_BARE_PENALTY = 7.0
_TOC_ROW_CHARS = 200
_PART_MISMATCH = 12.0


@dataclass(frozen=True, slots=True)
class ItemText:
    """One Item found in a document's plain text: ``text[start:end]`` of the whole document."""

    item: str  # canonical key: "1A" for 10-K, "II-1A" for 10-Q
    title: str  # official title from sec_forms
    heading: str  # the heading line as written in the document
    start: int
    end: int
    text: str


@dataclass(frozen=True, slots=True)
class _Node:
    pos: int
    keys: tuple[str, ...]
    first: int  # form order of the first and last key
    last: int
    quality: float
    heading: str


def _stems(text: str) -> list[str]:
    # Six-letter prefixes: "Exhibit"/"Exhibits", "Registrant's"/"Registrants" compare equal.
    return [w[:6] for w in _WORD.findall(text.lower()) if w not in _STOP]


def _title_matches(rest: str, official: str) -> bool:
    """The first two significant words of the official title appear early in the heading text.

    These words are the most stable across decades of wording ("Market for the Registrant's Common
    Stock…", "Quantitative and Qualitative Disclosures about…", "[Reserved]").
    """
    head = set(_stems(rest)[:10])
    want = _stems(official)[:2]
    return bool(head) and bool(want) and all(w in head for w in want)


def _expand(nums: str, order: list[str]) -> list[str]:
    found = [n.upper() for n in _NUM_RE.findall(nums)]
    if len(found) == 2 and re.search(r"through|to|-|–", nums, re.IGNORECASE):
        a, b = found
        if a in order and b in order and order.index(a) < order.index(b):
            return order[order.index(a) : order.index(b) + 1]
    return found


def _next_line(text: str, pos: int) -> str:
    nl = text.find("\n", pos)
    if nl < 0:
        return ""
    end = text.find("\n", nl + 1)
    return text[nl + 1 : end if end >= 0 else len(text)].strip()


def _candidates(text: str, form: str) -> list[_Node]:
    is_q = base_form(form) == "10-Q"
    table = TEN_Q_ITEMS if is_q else TEN_K_ITEMS
    order = list(table)
    number_order = list(TEN_K_ITEMS)  # for "Items 10 through 14"
    parts = [(m.start(), m.group("part").upper()) for m in _PART_LINE.finditer(text)]
    nodes: list[_Node] = []
    part_idx = 0
    current_part: str | None = None
    for m in _HEADING.finditer(text):
        rest = m.group("rest").strip()
        if rest[:1].islower() and not m.group("sep"):
            continue  # "Item 7 of this report…": a cross-reference
        if _CONTINUED.search(rest):
            continue  # "ITEM 1. BUSINESS (CONTINUED)": a running page header
        while part_idx < len(parts) and parts[part_idx][0] <= m.start():
            current_part = parts[part_idx][1]
            part_idx += 1
        nums = _expand(m.group("nums"), number_order)
        title_text = rest.strip(" |.:-–—") or _next_line(text, m.start())
        if len(rest) <= _TOC_ROW_CHARS and _PAGE_NUMBER.search(rest) and rest.strip(" |.:-–—0123456789"):
            # "Item 1A. | Risk Factors | 13": a table-of-contents row, never a body heading. (A long
            # line ending in a number is a heading run together with its text in old filings.)
            continue
        bare = not rest.strip(" |.:-–—") and not m.group("sep")
        titled = bool(title_text.strip(" |.:-–—0123456789"))
        choices: list[tuple[str, ...]] = []
        if is_q:
            for part in ("I", "II"):
                keys = tuple(f"{part}-{n}" for n in nums if f"{part}-{n}" in table)
                if keys and len(keys) == len(nums):
                    choices.append(keys)
        else:
            keys = tuple(n for n in nums if n in table)
            if keys and len(keys) == len(nums):
                choices.append(keys)
        for keys in choices:
            quality = 0.0
            if _title_matches(title_text, table[keys[0]]):
                quality += _TITLE_BONUS
            elif titled:
                quality -= _TITLE_MISMATCH
            if bare:
                quality -= _BARE_PENALTY
            if is_q:
                in_part: str | None = m.group("part").upper() if m.group("part") else current_part
                if in_part is not None and not keys[0].startswith(f"{in_part}-"):
                    quality -= _PART_MISMATCH
            nodes.append(
                _Node(
                    pos=m.start(),
                    keys=keys,
                    first=order.index(keys[0]),
                    last=order.index(keys[-1]),
                    quality=quality,
                    heading=m.group(0).strip(),
                )
            )
    return nodes


def _choose(nodes: list[_Node], length: int) -> list[_Node]:
    """Best chain of headings: increasing position and strictly increasing form order.

    Score of a chain = per-node (Item count and heading quality) + log length of every piece the
    chain cuts the text into (preamble, each section, the tail). Dynamic programming over nodes in
    position order; ``best[j]`` excludes the tail after node ``j``.
    """
    best: list[float] = []
    back: list[int] = []
    for j, node in enumerate(nodes):
        score, prev = math.log1p(node.pos), -1
        for i in range(j):
            other = nodes[i]
            if other.pos >= node.pos or other.last >= node.first:
                continue
            cand = best[i] + math.log1p(node.pos - other.pos)
            if cand > score:
                score, prev = cand, i
        best.append(score + _ITEM_SCORE + node.quality)
        back.append(prev)
    if not nodes:
        return []
    j = max(range(len(nodes)), key=lambda k: best[k] + math.log1p(length - nodes[k].pos))
    chain: list[_Node] = []
    while j >= 0:
        chain.append(nodes[j])
        j = back[j]
    return chain[::-1]


def split_items(text: str, form: str) -> list[ItemText]:
    """The Items of a 10-K or 10-Q in document order (empty for other forms or no headings)."""
    kind = base_form(form)
    if kind not in ("10-K", "10-Q"):
        return []
    table = TEN_Q_ITEMS if kind == "10-Q" else TEN_K_ITEMS
    chain = _choose(_candidates(text, form), len(text))
    out: list[ItemText] = []
    for idx, node in enumerate(chain):
        end = chain[idx + 1].pos if idx + 1 < len(chain) else len(text)
        body = text[node.pos : end].rstrip()
        tail = max(0, len(body) - 40)  # a trailing Part line is short: only look at the end
        body = (body[:tail] + _TRAILING_PART.sub("", body[tail:])).strip()
        for key in node.keys:
            out.append(ItemText(key, table[key], node.heading, node.pos, end, body))
    return out
