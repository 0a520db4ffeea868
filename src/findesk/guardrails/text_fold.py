"""Text folded for matching, so that look-alike spellings of one request match alike.

Rules this module keeps:
- Pure and total: any ``str`` gives a ``str``; never raises.
- NFKC first: full-width ("ＢＵＹ"), ligatures and mathematical letters become plain letters; then
  invisible characters (zero-width, soft hyphen, direction marks) are dropped and case is folded
  ("ß" -> "ss").
- Cyrillic and Greek letters that look like Latin ones are read as Latin ("Ѕhоuld" -> "should"), so
  swapping one letter does not change what a request says. Russian or Greek text is not a supported
  language; folding it this way only makes it unreadable, never a false match of a Latin word.
- Accents are removed from Latin letters only ("debería" -> "deberia", "Würden" -> "wurden"); the
  voicing marks of Japanese kana are kept ("が" stays "が"), since removing them changes the word.
- English contractions lose their apostrophe ("what's" -> "whats"); an elided article keeps a
  space ("d'acheter" -> "d acheter"). Anything that is not a letter, digit, "%" or "$" becomes one
  space. Chinese and Japanese have no spaces; patterns for them match characters, not words.
"""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE = dict.fromkeys(
    map(
        ord,
        "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b\u200c\u200d\u200e\u200f"
        "\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\u2066\u2067\u2068\u2069\ufeff",
    ),
)
# Lower-case look-alikes (case is folded first): Cyrillic, then Greek, then Latin oddities.
_LOOK_ALIKES = str.maketrans(
    "аеорсухіјѕԁһӏԛԝкьυοαρνικχεıɡ",
    "aeopcyxijsdhlqwkbuoapvikxeig",
)
_APOSTROPHES = "'’‘`´ʼ′"
_CONTRACTION = re.compile(rf"[{_APOSTROPHES}](?=(?:s|t|d|ll|re|ve|m)\b)")
_NOT_WORD = re.compile(rf"[^\w%$]+|_|[{_APOSTROPHES}]")


def _latin(ch: str) -> bool:
    return ord(ch) < 0x0250 or 0x1E00 <= ord(ch) < 0x1F00


def _strip_latin_accents(text: str) -> str:
    out: list[str] = []
    base = ""
    for ch in unicodedata.normalize("NFD", text):
        if unicodedata.combining(ch):
            if not _latin(base):
                out.append(ch)
            continue
        base = ch
        out.append(ch)
    return unicodedata.normalize("NFC", "".join(out))


def visible(text: str) -> str:
    """``text`` in NFKC with invisible characters dropped, case and punctuation kept: what a reader (or a
    model) sees, so a look-alike of a marker ("＜/tool\u200b_data＞") reads as the marker."""
    if not isinstance(text, str):
        return ""
    return unicodedata.normalize("NFKC", text).translate(_INVISIBLE)


def fold(text: str) -> str:
    """Lower-case words separated by single spaces, with look-alikes and Latin accents folded."""
    if not isinstance(text, str):
        return ""
    folded = unicodedata.normalize("NFKC", text).translate(_INVISIBLE).casefold()
    folded = _strip_latin_accents(folded.translate(_LOOK_ALIKES))
    folded = _CONTRACTION.sub("", folded)
    return " ".join(_NOT_WORD.sub(" ", folded).split())
