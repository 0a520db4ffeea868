"""PII redaction: personal data a user typed, or a model echoed, never leaves in the desk's output.

Rules this module keeps:
- Pure and never raises: a non-text value gives empty text and no hits. The one read is the BIP39
  English word list from the ``mnemonic`` package, loaded once on first need.
- A hit records the kind and the span in the original text, never the value: a log of what was
  removed must not become a copy of it.
- Each value is replaced by a token naming what was removed (``[email removed]``), so the sentence
  still reads and the reader knows something was there.
- Kinds (``PiiKind``): email addresses; phone numbers (US with area code, international with "+");
  payment card numbers (13–19 digits grouped like a card with spaces, dashes or dots, or ungrouped with
  a card network's prefix and length, only when the Luhn check passes); US SSNs (ddd-dd-dddd or
  ddd dd dddd in the valid area/group/serial ranges; ddd.dd.dddd or a bare 9-digit run only next to
  "SSN"/"social security", since without the word they read as a number); bank accounts
  (IBANs whose mod-97 check passes; 6–17 digits a few words after "account", "acct", "a/c",
  "routing", "IBAN"); wallet private keys (64 hex only when nearby words say private key, secret,
  privkey, wallet key or signing key, or it is labelled "pk:", or labelled "key:" with "wallet",
  "eth" or "ethereum" nearby and no "public" on the label; WIF keys; xprv-style extended keys); BIP39
  seed phrases (a run of exactly 12/15/18/21/24 word-list words, a run of 12+ right after "seed",
  "mnemonic", "recovery phrase", "secret phrase", or a run with a stray word or two around 12–24
  words whose BIP39 checksum holds). The words of a run are separated by spaces, commas, line breaks
  or a hyphen, and may be numbered ("1. ", "1) ", "1 - "); a number label before the first word is
  removed with the phrase.
- The desk's own figures are kept: dates, years, $ and % figures, share counts, CIKs, accession
  numbers, FRED ids, public wallet addresses and transaction hashes. A digit shape glued to letters,
  digits, "$" or a decimal/thousands mark is part of something else. Shapes that could be a figure
  are kept when they read as one: a unit or "%" follows, or (phone shapes without "+" or parentheses)
  the sentence so far talks revenue, sales, shares, "$" and the like with no phone word nearby. A
  space-separated or bare 10-digit phone shape needs a phone word.
- Cheap: each detector runs only when its trigger is in the text ("@"; a 6-digit run, separators
  allowed, which every phone, card, SSN, account number and IBAN has; a 51+ character token; ten
  word-list words in a row, number labels aside), so a question with none is returned after a few
  C-level scans.
"""

from __future__ import annotations

import hashlib
import re
from collections import Counter
from collections.abc import Iterable
from functools import cache
from itertools import repeat
from typing import Literal

from mnemonic import Mnemonic
from pydantic import BaseModel, ConfigDict, Field

PiiKind = Literal["account_number", "card_number", "email", "phone", "private_key", "seed_phrase", "ssn"]

TOKENS: dict[PiiKind, str] = {
    "email": "[email removed]",
    "phone": "[phone removed]",
    "card_number": "[card number removed]",
    "ssn": "[SSN removed]",
    "account_number": "[account number removed]",
    "private_key": "[private key removed]",
    "seed_phrase": "[seed phrase removed]",
}
# (singular, plural) for the warnings, in the order they are listed
_NOUNS: dict[PiiKind, tuple[str, str]] = {
    "email": ("email address", "email addresses"),
    "phone": ("phone number", "phone numbers"),
    "card_number": ("card number", "card numbers"),
    "ssn": ("SSN", "SSNs"),
    "account_number": ("account number", "account numbers"),
    "private_key": ("private key", "private keys"),
    "seed_phrase": ("seed phrase", "seed phrases"),
}
# when two detectors claim the same span, the more sensitive kind (higher rank) names it
_RANK: dict[PiiKind, int] = {
    "email": 0,
    "phone": 1,
    "account_number": 2,
    "ssn": 3,
    "card_number": 4,
    "seed_phrase": 5,
    "private_key": 6,
}


class PiiHit(BaseModel):
    """One value removed: its kind and where it was in the original text (never the value)."""

    model_config = ConfigDict(frozen=True)

    kind: PiiKind
    start: int
    end: int


class Redacted(BaseModel):
    """The text with each value replaced by its token, and what was removed."""

    model_config = ConfigDict(frozen=True)

    text: str
    found: list[PiiHit] = Field(default_factory=list)

    @property
    def kinds(self) -> list[PiiKind]:
        """The distinct kinds removed, sorted."""
        return sorted({h.kind for h in self.found})


Span = tuple[int, int, PiiKind]


def redact(text: str) -> Redacted:
    """``text`` with every PII value replaced by its token, and the hits in text order."""
    if not isinstance(text, str):
        return Redacted(text="")
    spans: list[Span] = []
    if "@" in text:
        spans += _emails(text)
    if _SIX_DIGITS.search(text):
        spans += _phones(text) + _cards(text) + _ssns(text) + _accounts(text)
    # commas, hyphens and a number label's marks separate a seed phrase's words; none is alphanumeric,
    # so a 51+ character key stays one token
    tokens = text.lower().translate(_GATE_SEPARATORS).split()
    if max(map(len, tokens), default=0) >= 51:
        spans += _keys(text)
    # a phrase's first and last words may carry quotes, but its inner ten or more are whole tokens, so
    # ten word-list tokens in a row, once number labels ("1", "12") are dropped, is the least it shows
    flags = bytes(map(_gate_flags().get, tokens, repeat(0))).replace(b"\x02", b"")
    if b"\x01" * 10 in flags:
        spans += _seeds(text)
    if not spans:
        return Redacted(text=text)
    hits = _resolve(spans)
    parts, pos = [], 0
    for start, end, kind in hits:
        parts += [text[pos:start], TOKENS[kind]]
        pos = end
    parts.append(text[pos:])
    return Redacted(text="".join(parts), found=[PiiHit(kind=k, start=a, end=b) for a, b, k in hits])


def removal_warnings(kinds: Iterable[PiiKind]) -> list[str]:
    """One line per kind removed, e.g. "removed 2 email addresses from the output"."""
    counts = Counter(kinds)
    return [f"removed {counts[k]} {_NOUNS[k][counts[k] != 1]} from the output" for k in _NOUNS if counts[k]]


def scrub_output(text: str) -> tuple[str, list[str]]:
    """The redacted text and the warnings saying what was removed (empty when nothing was)."""
    r = redact(text)
    return r.text, removal_warnings(h.kind for h in r.found)


def _resolve(spans: list[Span]) -> list[Span]:
    """Non-overlapping spans in text order: the longest wins, then the more sensitive kind."""
    kept: list[Span] = []
    for s in sorted(spans, key=lambda s: (s[0], s[0] - s[1], -_RANK[s[2]])):
        if not kept or s[0] >= kept[-1][1]:
            kept.append(s)
    return kept


# --- shared context ------------------------------------------------------------------------------
# Patterns start with a character class or literal (never a lookbehind) so the regex engine can skip
# ahead; whether a match stands alone on its left is checked in ``_alone``.

_SIX_DIGITS = re.compile(r"[0-9](?:[ \t().+/-]{0,2}[0-9]){5}")
_GLUE = frozenset("_$€£¥.,/+-")
# not followed by a letter, a digit, "%", a currency sign, or a decimal/thousands/date continuation
_AFTER = r"(?![\w%$€£¥]|[.,/-][0-9])"
_UNIT_AFTER = re.compile(
    r"\s*(?:%|(?i:percent|bps|basis points|thousand|million|billion|trillion|mn|bn|mm|shares|units|usd"
    r"|dollars|wei|gwei|sats|satoshis|tokens|coins)\b)"
)
_FIGURE_WORDS = re.compile(
    r"[$€£¥%]|(?i:\b(?:revenues?|sales|income|earnings|eps|margins?|profits?|loss(?:es)?|cash|assets|debt"
    r"|dividends?|shares|units|segments?|fiscal|quarters?|guidance|millions?|billions?|thousands?|grew"
    r"|fell|rose|increased|decreased|totall?ed|reported)\b)"
)
_PHONE_WORDS = re.compile(
    r"(?i)\b(?:phone|telephone|tel|call|cell|mobile|text|sms|whatsapp|fax|reach|contact|dial"
    r"|my\s+(?:number|no\.?|#)|number\s+is)\b"
)
_SENTENCE_END = re.compile(r"[.!?]\s")
_WORD = re.compile(r"[A-Za-z]+")


def _alone(text: str, start: int) -> bool:
    """Nothing glued on the left: a letter, digit, "$" or "1.", "1,", "-", "/" or "+" before it."""
    if start == 0:
        return True
    c = text[start - 1]
    return not (c.isalnum() or c in _GLUE)


def _is_figure(text: str, end: int) -> bool:
    """The number reads as a quantity: a unit or "%" follows it."""
    return _UNIT_AFTER.match(text, end) is not None


def _near(pattern: re.Pattern[str], text: str, start: int, end: int, before: int, after: int) -> bool:
    return pattern.search(text, max(0, start - before), min(len(text), end + after)) is not None


def _sentence_before(text: str, start: int, width: int) -> str:
    """Up to ``width`` characters before ``start``, cut at the last sentence end."""
    window = text[max(0, start - width) : start]
    ends = [m.end() for m in _SENTENCE_END.finditer(window)]
    return window[ends[-1] :] if ends else window


def _digits(s: str) -> str:
    return "".join(c for c in s if "0" <= c <= "9")


# --- email and phone -----------------------------------------------------------------------------

_LOCAL_PART = re.compile(r"[A-Za-z0-9][A-Za-z0-9._%+-]{0,63}\Z")
_DOMAIN = re.compile(r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,24}(?![\w-])", re.ASCII)


def _emails(text: str) -> list[Span]:
    out: list[Span] = []
    at = text.find("@")
    while at != -1:
        # the longest local part that ends at this "@", and a domain with a top-level name after it
        local = _LOCAL_PART.search(text, max(0, at - 64), at)
        domain = _DOMAIN.match(text, at + 1)
        if local is not None and domain is not None:
            out.append((local.start(), domain.end(), "email"))
        at = text.find("@", at + 1)
    return out


# a parenthesised area code, optionally after "+1 " or "1-" (checked in ``_phones``): always a phone
_PHONE_PAREN = re.compile(r"\(\s?[2-9][0-9]{2}\s?\)[ .-]?[2-9][0-9]{2}[ .-][0-9]{4}" + _AFTER)
_PHONE_TRUNK = re.compile(r"\+?1[ .-]?\Z")
# a "+" country code and groups: always a phone (8–15 digits)
_PHONE_INTL = re.compile(r"\+[1-9][0-9]{0,2}+(?:[ .-]?(?:\([0-9]{1,4}+\)|[0-9]{1,4}+)){2,6}" + _AFTER)
# dash or dot groups 3-3-4 (optionally after "1-"): a phone unless it reads as a figure
_PHONE_DASHED = re.compile(r"[2-9][0-9]{2}([.-])[2-9][0-9]{2}\1[0-9]{4}" + _AFTER)
# space groups 3-3-4, or ten bare digits: a phone only next to a phone word
_PHONE_BARE = re.compile(r"[2-9][0-9]{2}(?: [2-9][0-9]{2} [0-9]{4}|[2-9][0-9]{6})" + _AFTER)


def _phones(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _PHONE_PAREN.finditer(text):
        a = m.start()
        if trunk := _PHONE_TRUNK.search(text, max(0, a - 3), a):
            a = trunk.start()
        if a == 0 or not text[a - 1].isdigit():  # "Tel(212) 555-0187" is still a phone
            out.append((a, m.end(), "phone"))
    for m in _PHONE_INTL.finditer(text):
        end = _trim_to_digits(text, m.start(), m.end(), 15)
        if _alone(text, m.start()) and len(_digits(text[m.start() : end])) >= 8 and not _is_figure(text, end):
            out.append((m.start(), end, "phone"))
    for m in _PHONE_DASHED.finditer(text):
        a, b = m.span()
        if a >= 2 and text[a - 2] == "1" and text[a - 1] == m.group(1):
            a -= 2  # "1-800-555-0199"
        if not _alone(text, a) or _is_figure(text, b):
            continue
        figure = _FIGURE_WORDS.search(_sentence_before(text, a, 100)) is not None
        if not figure or _near(_PHONE_WORDS, text, a, b, 60, 30):
            out.append((a, b, "phone"))
    for m in _PHONE_BARE.finditer(text):
        a, b = m.span()
        if _alone(text, a) and not _is_figure(text, b) and _near(_PHONE_WORDS, text, a, b, 60, 30):
            out.append((a, b, "phone"))
    return out


def _trim_to_digits(text: str, start: int, end: int, most: int) -> int:
    """The end of ``text[start:end]`` with trailing groups given back until it has at most ``most``
    digits (the greedy groups may have taken a number that follows the phone)."""
    while len(_digits(text[start:end])) > most:
        cut = max(text.rfind(c, start, end) for c in " .-(")
        if cut <= start:
            break
        end = cut
    return end


# --- cards, SSNs, accounts -----------------------------------------------------------------------

_CARD = re.compile(
    r"[2-6](?:[0-9]{12,18}"
    r"|[0-9]{3}(?:([ .-])[0-9]{4}\1[0-9]{4}\1[0-9]{4}(?:\1[0-9]{1,3})?|([ .-])[0-9]{6}\2[0-9]{4,5}))" + _AFTER
)
_YEAR = re.compile(r"(?:19|20)[0-9]{2}")
# an ungrouped run is a card only with a card network's prefix and length (Visa, Mastercard, Amex, Diners,
# Discover, JCB, UnionPay): a long bare integer is far more often a quantity (wei, shares, a raw total)
_CARD_PREFIX = re.compile(
    r"4(?:[0-9]{12}|[0-9]{15}|[0-9]{18})"
    r"|(?:5[1-5][0-9]{2}|222[1-9]|22[3-9][0-9]|2[3-6][0-9]{2}|27[01][0-9]|2720)[0-9]{12}"
    r"|3[47][0-9]{13}|3(?:0[0-5]|[689][0-9])[0-9]{11,13}|(?:6011|65[0-9]{2}|64[4-9][0-9]|62[0-9]{2})[0-9]{12,15}"
    r"|35(?:2[89]|[3-8][0-9])[0-9]{12,15}"
)


def _luhn(digits: str) -> bool:
    total = 0
    for i, c in enumerate(reversed(digits)):
        d = int(c) * (2 if i % 2 else 1)
        total += d - 9 if d > 9 else d
    return total % 10 == 0


def _cards(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _CARD.finditer(text):
        groups = re.split(r"[ .-]", m.group())
        if len(groups) > 1 and all(_YEAR.fullmatch(g) for g in groups):
            continue  # "2024 2023 2022 2021" is a row of years
        if len(groups) == 1 and not _CARD_PREFIX.fullmatch(m.group()):
            continue
        if _alone(text, m.start()) and _luhn(_digits(m.group())) and not _is_figure(text, m.end()):
            out.append((m.start(), m.end(), "card_number"))
    return out


_SSN = re.compile(r"[0-8][0-9]{2}(?<!000)(?<!666)([- ])(?!00)[0-9]{2}\1(?!0000)[0-9]{4}" + _AFTER)
# bare or dotted: a number (an order id, a version) unless the SSN words are near
_SSN_BARE = re.compile(r"[0-8][0-9]{2}(?<!000)(?<!666)(\.?)(?!00)[0-9]{2}\1(?!0000)[0-9]{4}" + _AFTER)
_SSN_WORDS = re.compile(r"[Ss](?i:sn|s#|ocial[\s-]+security)")


def _ssns(text: str) -> list[Span]:
    out: list[Span] = [
        (m.start(), m.end(), "ssn")
        for m in _SSN.finditer(text)
        if _alone(text, m.start()) and not _is_figure(text, m.end())
    ]
    low = text.lower()
    if "ssn" in low or "ss#" in low or "social" in low:
        out += [
            (m.start(), m.end(), "ssn")
            for m in _SSN_BARE.finditer(text)
            if _alone(text, m.start())
            and _near(_SSN_WORDS, text, m.start(), m.end(), 40, 25)
            and not _is_figure(text, m.end())
        ]
    return out


# led by a plain class so the engine can skip ahead (a case-insensitive alternation tries every position)
_ACCOUNT_WORD = re.compile(r"[AaRrIi](?i:(?<=a)(?:ccount|cct|/c)|(?<=r)outing|(?<=i)ban)(?![\w/=&])")
_ACCOUNT_DIGITS = re.compile(r"[0-9](?:-?[0-9]){5,16}" + _AFTER)
# words between the keyword and the number that make the number a quantity, not an identifier
_ACCOUNT_NOT_ID = re.compile(
    r"(?i)\b(?:balances?|values?|totals?|worth|deficits?|surplus|receivable|payable|fees?|holds?|had|has"
    r"|of|cik|years?|quarters?)\b|[$€£¥]"
)
# a digit, a URL's punctuation or the end of a sentence between the keyword and the number: unrelated
_ACCOUNT_BREAK = re.compile(r"[0-9!?;=&/]|\.\s+[A-Z]")
_IBAN = re.compile(r"[A-Z]{2}[0-9]{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?(?![A-Za-z0-9])")
_IBAN_START = re.compile(r"[0-9](?<=[A-Z]{2}[0-9])[0-9]")  # led by a digit: rarer than a capital


def _iban_ok(compact: str) -> bool:
    if not 15 <= len(compact) <= 34:
        return False
    moved = compact[4:] + compact[:4]
    return int("".join(str(int(c, 36)) for c in moved)) % 97 == 1


def _accounts(text: str) -> list[Span]:
    out: list[Span] = []
    for m in _IBAN.finditer(text) if _IBAN_START.search(text) else ():
        if m.start() > 0 and text[m.start() - 1].isalnum():
            continue
        # the greedy groups may have swallowed a following word; give groups back until the check holds
        groups = m.group().split(" ")
        while groups and not _iban_ok("".join(groups)):
            groups.pop()
        if groups:
            out.append((m.start(), m.start() + len(" ".join(groups)), "account_number"))
    low = text.lower()
    keyword = any(w in low for w in ("acc", "a/c", "routing", "iban"))
    for k in _ACCOUNT_WORD.finditer(text) if keyword else ():
        # a word on its own, not part of a URL ("module=account&...")
        if k.start() > 0 and (text[k.start() - 1].isalnum() or text[k.start() - 1] in "_/=&?.-"):
            continue
        n = _ACCOUNT_DIGITS.search(text, k.end())
        if n is None or n.start() - k.end() > 40 or not _alone(text, n.start()):
            continue
        between = text[k.end() : n.start()]
        if (
            len(_WORD.findall(between)) <= 4
            and not _ACCOUNT_BREAK.search(between)
            and not _ACCOUNT_NOT_ID.search(between)
            and not _is_figure(text, n.end())
        ):
            out.append((n.start(), n.end(), "account_number"))
    return out


# --- wallet keys and seed phrases ----------------------------------------------------------------

_B58 = "1-9A-HJ-NP-Za-km-z"
_LONG_TOKEN = re.compile(r"[0-9A-Za-z]{51,}")
_HEX64 = re.compile(r"(?:0x)?[0-9a-fA-F]{64}")
_WIF_OR_XPRV = re.compile(rf"5[{_B58}]{{50}}|[KL][{_B58}]{{51}}|[xyztuv]prv[{_B58}]{{90,120}}")
_KEY_WORDS = re.compile(
    r"(?i)\b(?:private[\s_-]*key|priv[\s_-]*key|privkey|secret|(?:wallet|signing)[\s_-]*keys?\b)"
)
# a label right before the hex; "public key:" names something that may be shared
_KEY_LABEL = re.compile(r"(?i)\b(?:(public|pub)[\s_-]*)?(pk|key)[ \t]*[:=][ \t]*\Z")
_WALLET_WORDS = re.compile(r"(?i)\b(?:wallet|eth|ethereum)\b")


def _keys(text: str) -> list[Span]:
    out: list[Span] = []
    low = text.lower()
    key_words = "key" in low or "secret" in low or "pk" in low
    for m in _LONG_TOKEN.finditer(text):
        a, b = m.span()
        # a bare 0x + 64 hex is usually a public transaction hash; only the words make it a key
        hex_key = key_words and _HEX64.fullmatch(m.group()) is not None and _hex_is_key(text, a, b)
        if hex_key or _WIF_OR_XPRV.fullmatch(m.group()):
            out.append((a, b, "private_key"))
    return out


def _hex_is_key(text: str, start: int, end: int) -> bool:
    """Words near the 64 hex at ``start:end`` say it is a private key, not a hash."""
    if _near(_KEY_WORDS, text, start, end, 80, 30):
        return True
    label = _KEY_LABEL.search(text, max(0, start - 24), start)
    if label is None or label.group(1):
        return False
    # "pk:" is a key's own label; a bare "key:" also labels cache and API keys, so it needs a wallet
    return label.group(2).lower() == "pk" or _near(_WALLET_WORDS, text, start, end, 80, 30)


# between two words: spaces, commas and line breaks, a hyphen, or a number label ("2. ", "\n2) ", " 2 - ")
_SEED_SEPARATOR = re.compile(r"[ \t\r\n,]*(?:-|(?<![0-9])[0-9]{1,2}(?:[.):]|[ \t]*[-–—]))?[ \t\r\n,]*")
# a number label before a phrase's first word, removed with it
_SEED_LABEL = re.compile(r"(?<![0-9A-Za-z])[0-9]{1,2}(?:[.):]|[ \t]*[-–—])[ \t]*\Z")
_GATE_SEPARATORS = str.maketrans(dict.fromkeys(",.):-–—", " "))
_SEED_LENGTHS = (24, 21, 18, 15, 12)
_SEED_TRIGGER = re.compile(
    r"(?i)(?:\bseed|\bmnemonic|\brecovery[\s_-]*(?:phrase|words?)|\bsecret[\s_-]*(?:recovery[\s_-]*)?"
    r"(?:phrase|words?)|\bbackup[\s_-]*(?:phrase|words?))(?:[\s_-]*(?:phrase|words?))?"
    r"(?:\s+(?:is|are|was|were))?\s*[:=–—-]?\s*\Z"
)


@cache
def _bip39() -> dict[str, int]:
    return {w: i for i, w in enumerate(Mnemonic("english").wordlist)}


@cache
def _gate_flags() -> dict[str, int]:
    """1 for a word-list word, 2 for a number label's digits (skipped by the gate)."""
    labels = {str(n): 2 for n in range(100)} | {f"{n:02d}": 2 for n in range(10)}
    return labels | dict.fromkeys(_bip39(), 1)


def _checksum_ok(indexes: list[int]) -> bool:
    """The BIP39 checksum: the last len/3 bits are the head of SHA-256 over the entropy bits."""
    bits = len(indexes) * 11
    cs = bits // 33
    value = 0
    for i in indexes:
        value = (value << 11) | i
    entropy = (value >> cs).to_bytes((bits - cs) // 8, "big")
    return hashlib.sha256(entropy).digest()[0] >> (8 - cs) == value & ((1 << cs) - 1)


def _seeds(text: str) -> list[Span]:
    words = _bip39()
    out: list[Span] = []
    run: list[tuple[int, int, int]] = []  # (start, end, index) of word-list words in a row
    for w in [*_WORD.finditer(text), None]:
        index = words.get(w.group().lower()) if w is not None else None
        if w is not None and index is not None:
            if run and not _SEED_SEPARATOR.fullmatch(text, run[-1][1], w.start()):
                out += _seed_spans(text, run)
                run = []
            run.append((w.start(), w.end(), index))
            continue
        out += _seed_spans(text, run)
        run = []
    return out


def _seed_spans(text: str, run: list[tuple[int, int, int]]) -> list[Span]:
    n = len(run)
    if n < 12:
        return []
    if n in _SEED_LENGTHS:
        return [(_lead(text, run[0][0]), run[-1][1], "seed_phrase")]
    for k in range(n - 11):
        a = _lead(text, run[k][0])
        if _SEED_TRIGGER.search(text, max(0, a - 50), a):
            return [(a, run[-1][1], "seed_phrase")]
    # a seed phrase with a stray word-list word or two next to it (its checksum holds)
    for length in _SEED_LENGTHS:
        for k in range(n - length + 1) if 0 < n - length <= 2 else ():
            if _checksum_ok([i for _, _, i in run[k : k + length]]):
                return [(_lead(text, run[k][0]), run[k + length - 1][1], "seed_phrase")]
    return []


def _lead(text: str, start: int) -> int:
    """Where the word at ``start`` begins with its number label ("1. "), if it has one."""
    label = _SEED_LABEL.search(text, max(0, start - 8), start)
    return label.start() if label is not None else start
