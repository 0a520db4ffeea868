"""Pump-bot scoring of social posts: an explicit, additive-in-evidence score with a reason per feature.

Rules this module keeps: pure (no I/O, no clock: ``as_of`` is an argument); deterministic; never raises;
one ``PostRisk`` per input post, in input order. Missing metadata (no author, no join date, no follower
count) contributes nothing, never a penalty. Burst and duplicate features look only at the posts given.

Score = ``1 - prod(1 - w)`` over the features that fire (noisy-OR: each signal is independent evidence,
the score stays in [0, 1] and never decreases when a signal is added); ``flagged = score >= 0.5``.
Reasons are listed by weight, heaviest first.

| feature            | fires when                                                              | weight |
|--------------------|-------------------------------------------------------------------------|--------|
| new account        | account < 30 days old at ``as_of``  (30–89 days: 0.15)                  | 0.40   |
| followers          | < 10 followers after >= 500 posts  (otherwise 0 followers: 0.15)        | 0.20   |
| posting burst      | same author, >= 4 posts within 60 minutes in the given set              | 0.30   |
| duplicate text     | word-bigram Jaccard >= 0.7 (texts of >= 8 words), linked into rings;    | 0.45   |
|                    | the ring holds another account                                          |        |
| promo phrases      | 2+ distinct phrases of ``PROMO_PHRASES``  (one phrase: 0.30)            | 0.45   |
| cashtag stuffing   | >= 8 distinct $TICKER cashtags  (5–7: 0.25), and >= 1 cashtag per 10    | 0.40   |
|                    | words (a long write-up naming many companies is not stuffing)           |        |
| paid group / invite| discord/telegram/whatsapp invite, patreon, substack, whop, a sign-up    | 0.35   |
|                    | page link, "join my premium/VIP group" (not ``OFFICIAL_INVITES``)       |        |

One signal alone never flags (max 0.45). Pairs that flag: new account + invite link (0.61), new account +
duplicate text (0.67), duplicate text + a promo phrase (0.62), two promo phrases + 8 cashtags (0.67). A new
account with 0 followers alone does not (0.49): real newcomers start with none.
Texts are read to 100,000 characters (the first 4,000 for near-duplicates), tokens to 300.
Normalisation for duplicates: lower case; URLs,
HTML entities, cashtags, numbers and punctuation removed. Timestamps at exactly 23:59:59 UTC are the
snapshot's day-resolution stamps (Reddit 2025-07..08 export) and are ignored for bursts, since they would
make every same-day pair look simultaneous. That export's text includes top comments, so a phrase or link
may be a commenter's.

``features(posts)`` says which of these the given posts' data allow: account age and followers need the
author's profile (the snapshot's Reddit exports keep only the name), bursts need exact post times, and
duplicate text needs authors; the text patterns (promo phrases, cashtags, invite links) always apply.
A check that found nothing with half its features missing is not a clean bill, and a report says so.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Sequence
from datetime import UTC, date, datetime, time
from functools import lru_cache
from itertools import pairwise

from pydantic import BaseModel, ConfigDict, Field

from findesk.analytics.post_text import letter_words, per_text_cache
from findesk.data.models import SocialAuthor, SocialPost

FLAG_THRESHOLD = 0.5

# Case-insensitive; alphabetic ends match at word boundaries ("load up" is not "loaded up").
# fmt: off
PROMO_PHRASES: tuple[str, ...] = (
    "to the moon", "100x", "1000x", "next 10 bagger", "10 bagger", "ten bagger", "don't miss", "dont miss",
    "load up", "guaranteed", "squeeze is coming", "price target $", "buy now", "🚀🚀", "easy money",
    "before it explodes", "last chance to buy", "not too late to buy",
)
# Subreddits' own free servers, linked by their moderator bots (WSB's "User Report" footer and daily
# thread, r/IndianStockMarket's AutoModerator notice): boilerplate, not the author's invitation.
OFFICIAL_INVITES: tuple[str, ...] = (
    "discord.gg/wsbverse", "discord.gg/wallstreetbets", "discord.com/invite/fdrj8ma66u",
)
# fmt: on
_PROMO_RES = tuple(
    (p, re.compile(("\\b" if p[0].isalnum() else "") + re.escape(p) + ("\\b" if p[-1].isalnum() else "")))
    for p in PROMO_PHRASES
)
# (label, substrings one of which any match holds, pattern): the substring test skips the regex
_INVITES: tuple[tuple[str, tuple[str, ...], re.Pattern[str]], ...] = (
    ("links to a chat invite", ("discord",), re.compile(r"discord(?:app)?\.(?:gg|com/invite)/[\w-]+")),
    ("links to a chat invite", (".me/",), re.compile(r"\b(?:t|telegram)\.me/[\w+/-]+")),
    (
        "links to a chat invite",
        ("whatsapp", "wa.me"),
        re.compile(r"\b(?:chat\.whatsapp\.com|wa\.me)/[\w/-]+"),
    ),
    ("links to a paid group", ("patreon", "whop"), re.compile(r"\b(?:patreon\.com|whop\.com)/[\w/-]+")),
    ("links to a paid group", ("substack",), re.compile(r"[\w-]+\.substack\.com[\w/-]*")),
    (
        "invites to a paid group",
        ("join ",),
        re.compile(
            r"join (?:my|our|the) (?:\w+ )?(?:premium|vip|private|paid|exclusive) "
            r"(?:group|channel|discord|chat|room|community|server)"
        ),
    ),
    # a bare path segment: ".../subscribers-are-bailing" is a news URL, not a sign-up page
    (
        "links to a sign-up page",
        ("sign", "subscribe"),
        re.compile(r"\b[\w-]+(?:\.[\w-]+)+/(?:[\w.-]+/)*(?:sign-?up|subscribe)\b/?"),
    ),
)
_CASHTAG = re.compile(r"(?<![\w$])\$([a-z]{1,6}(?:\.[a-z]{1,2})?)(?![\w])")
_BURST_SECONDS, _BURST_MIN = 3600, 4
_DUP_JACCARD, _DUP_MIN_WORDS = 0.7, 8
_DAY_STAMP = time(23, 59, 59)
_MAX_CHARS, _MAX_TOKEN = 100_000, 300
_DUP_CHARS = 4_000  # promotional copy is short; comparing whole essays (and their comments) costs 0.3 s
_LONG_TOKEN = re.compile(rf"\S{{{_MAX_TOKEN + 1},}}")


class Features(BaseModel):
    """Which pump-bot features the posts' data allowed, and which not (each with the reason)."""

    model_config = ConfigDict(frozen=True)

    available: list[str] = Field(default_factory=list)
    missing: list[str] = Field(default_factory=list)


def features(posts: Sequence[SocialPost]) -> Features:
    """What ``score_posts`` could look at in these posts (see the module rules)."""
    authors = [p.author for p in posts if p.author is not None]
    timed = any(p.author is not None and _epoch(p.published_at) is not None for p in posts)
    checks = (
        ("account age", any(a.created_at is not None for a in authors), "no account creation dates"),
        ("followers", any(a.followers is not None for a in authors), "no follower counts"),
        ("posting bursts", timed, "post times are whole days" if authors else "no authors"),
        ("duplicate text across accounts", bool(authors), "no authors"),
    )
    available = ["promotional phrases", "cashtag stuffing", "chat or paid-group links"] if posts else []
    missing: list[str] = []
    for name, ok, why in checks:
        if ok and posts:
            available.append(name)
        else:
            missing.append(f"{name} ({why})" if posts else name)
    return Features(available=available, missing=missing)


class PostRisk(BaseModel):
    """One post's pump-bot score, with every reason that contributed to it."""

    model_config = ConfigDict(frozen=True)

    post_id: str
    platform: str
    author: str | None = None
    url: str | None = None
    score: float = Field(ge=0.0, le=1.0)
    flagged: bool  # score >= FLAG_THRESHOLD
    reasons: list[str] = Field(default_factory=list)


Signal = tuple[float, str]


def score_posts(posts: Sequence[SocialPost], *, as_of: date) -> list[PostRisk]:
    """One PostRisk per post, same order. Pure, deterministic, never raises."""
    posts = list(posts)
    bursts = _bursts(posts)
    dups = _duplicates(posts)
    out: list[PostRisk] = []
    for i, post in enumerate(posts):
        text = _full_text(post)
        signals = [*_author_signals(post.author, as_of), *_text_signals(text, post.link_url)]
        if bursts[i]:
            signals.append((0.30, f"{bursts[i]} posts within 60 minutes"))
        if dups[i]:
            shown = ", ".join(f"@{n}" for n in dups[i][:5]) + (" …" if len(dups[i]) > 5 else "")
            noun = "account" if len(dups[i]) == 1 else "accounts"
            signals.append((0.45, f"same text as {len(dups[i])} other {noun} ({shown})"))
        keep = 1.0
        for weight, _ in signals:
            keep *= 1.0 - weight
        score = round(min(1.0, max(0.0, 1.0 - keep)), 4)
        ranked = sorted(signals, key=lambda s: -s[0])  # stable: equal weights keep feature order
        out.append(
            PostRisk(
                post_id=post.id,
                platform=post.platform,
                author=post.author.username if post.author else None,
                url=post.url,
                score=score,
                flagged=score >= FLAG_THRESHOLD,
                reasons=[reason for _, reason in ranked],
            )
        )
    return out


def _full_text(post: SocialPost) -> str:
    return _clean(" ".join(t for t in (post.title, post.text) if t))


@per_text_cache
def _clean(joined: str) -> str:
    text = joined[:_MAX_CHARS].replace("’", "'").lower()
    # the link patterns backtrack on long unbroken tokens; no real URL or word needs more than this
    return _LONG_TOKEN.sub(lambda m: m.group(0)[:_MAX_TOKEN], text)


def _author_signals(author: SocialAuthor | None, as_of: date) -> list[Signal]:
    if author is None:
        return []
    signals: list[Signal] = []
    if author.created_at is not None:
        age = (as_of - author.created_at.date()).days
        # a join date after as_of is inconsistent data, not evidence
        if 0 <= age < 30:
            signals.append((0.40, f"account {age} day{'' if age == 1 else 's'} old"))
        elif 30 <= age < 90:
            signals.append((0.15, f"account {age} days old"))
    followers, posts = author.followers, author.post_count
    if followers is not None and followers < 10 and posts is not None and posts >= 500:
        signals.append((0.20, f"{followers} followers after {posts:,} posts"))
    elif followers == 0:
        signals.append((0.15, "0 followers"))
    return signals


def _text_signals(text: str, link_url: str | None) -> list[Signal]:
    signals: list[Signal] = []
    # ``text`` is lower case: a phrase absent as a substring cannot match (35x faster on long threads)
    matched = [p for p, rx in _PROMO_RES if p in text and rx.search(text)]
    # "next 10 bagger" is one claim, not two
    phrases = [p for p in matched if not any(p != q and p in q for q in matched)]
    if phrases:
        quoted = ", ".join(f"'{p}'" for p in phrases)
        signals.append(
            (0.45, f"promotional phrases: {quoted}")
            if len(phrases) > 1
            else (0.30, f"promotional phrase: {quoted}")
        )
    found_tags = [m.group(1) for m in _CASHTAG.finditer(text)]
    tags = set(found_tags)
    # stuffing is density: a long write-up naming eight companies is not a ticker list
    if len(tags) >= 5 and len(text.split()) <= 10 * len(found_tags):
        weight = 0.40 if len(tags) >= 8 else 0.25
        signals.append((weight, f"{len(tags)} cashtags in one post"))
    haystack = f"{text} {link_url.lower()}" if link_url else text
    for official in OFFICIAL_INVITES:
        haystack = haystack.replace(official, "")
    for label, needles, rx in _INVITES:
        found = rx.search(haystack) if any(n in haystack for n in needles) else None
        if found:
            shown = found.group(0).removeprefix("www.")
            signals.append((0.35, f"{label}: {shown[:60] + ('…' if len(shown) > 60 else '')}"))
            break
    return signals


def _epoch(moment: datetime) -> float | None:
    utc = moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    return None if utc.time() == _DAY_STAMP else utc.timestamp()


def _bursts(posts: list[SocialPost]) -> list[int]:
    """Per post: the largest count of its author's posts in a 60-minute window holding it (0 if < 4)."""
    by_author: dict[str, list[tuple[float, int]]] = defaultdict(list)
    for i, post in enumerate(posts):
        stamp = _epoch(post.published_at)
        if post.author is not None and stamp is not None:
            by_author[post.author.username.lower()].append((stamp, i))
    result = [0] * len(posts)
    for items in by_author.values():
        items.sort()
        for start, _ in items:
            window = [i for t, i in items if start <= t <= start + _BURST_SECONDS]
            if len(window) >= _BURST_MIN:
                for i in window:
                    result[i] = max(result[i], len(window))
    return result


@lru_cache(maxsize=4_096)
def _shingles(text: str) -> frozenset[tuple[str, str]]:
    found = letter_words(text)
    return frozenset(pairwise(found)) if len(found) >= _DUP_MIN_WORDS else frozenset()


def _duplicates(posts: list[SocialPost]) -> list[list[str]]:
    """Per post: the other accounts (sorted) in its ring of near-identical texts within the given set.

    A ring is a connected group of near-duplicate pairs (single linkage): bots editing one template
    differently can sit two edits apart from each other yet each one edit from the template.
    """
    items = tuple((p.author.username, _full_text(p)[:_DUP_CHARS]) if p.author else (None, "") for p in posts)
    return [list(ring) for ring in _rings(items)]


@lru_cache(maxsize=64)  # a warm briefing scores the same window again: the rings are the same
def _rings(items: tuple[tuple[str | None, str], ...]) -> tuple[tuple[str, ...], ...]:
    empty = frozenset[tuple[str, str]]()
    shingles = [_shingles(text) if author else empty for author, text in items]
    index: dict[tuple[str, str], list[int]] = defaultdict(list)
    for i, sh in enumerate(shingles):
        for s in sh:
            index[s].append(i)
    parent = list(range(len(items)))

    def root(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for i, sh in enumerate(shingles):
        shared = Counter(j for s in sh for j in index[s] if j > i)
        for j, common in shared.items():
            if common / (len(sh) + len(shingles[j]) - common) >= _DUP_JACCARD:
                parent[root(j)] = root(i)
    rings: dict[int, dict[str, str]] = defaultdict(dict)
    for i, (author, _) in enumerate(items):
        if author is not None and shingles[i]:
            names = rings[root(i)]
            key = author.lower()
            names[key] = min(names.get(key, author), author)
    result: list[tuple[str, ...]] = []
    for i, (author, _) in enumerate(items):
        me = author.lower() if author is not None and shingles[i] else None
        names = rings.get(root(i), {}) if me is not None else {}
        result.append(tuple(sorted((name for key, name in names.items() if key != me), key=str.lower)))
    return tuple(result)
