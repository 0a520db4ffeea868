"""Live Reddit: public JSON search listings of three investing subreddits, plus author profiles.

Rules this vendor keeps:
- Only ``SUBREDDITS`` (r/wallstreetbets, r/stocks, r/investing) are ever requested. The list is a
  constant, not a setting: these are the communities the briefing's social section is specified on,
  and letting a caller pick any subreddit would turn a ticker lookup into open-ended scraping of
  unrelated (and often NSFW or manipulation-prone) communities. Any other subreddit is refused
  with ``out_of_scope`` before a request is made.
- Requests: ``/r/<sub>/search.json?q=<ticker>&restrict_sr=1&sort=new``; results are filtered by the
  ticker rule of ``formats.mentions`` (1–2-letter tickers need a ``$`` cashtag), then point in time
  (created on or before the New York end of ``as_of``), newest first.
- Author metadata: ``/user/<name>/about.json`` for at most ``author_lookups`` distinct authors of
  the returned posts (account creation, karma, profile followers, verified). A failed lookup leaves
  the post's author with the name only; it never fails the call.
- One subreddit failing does not hide the others' posts: their ``source.note`` names what failed.
  All failing -> the first error. Never raises. Cache class "social".
"""

from __future__ import annotations

import asyncio
from datetime import UTC, date, datetime

import httpx

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats import reddit as fmt
from findesk.data.formats.mentions import company_tickers
from findesk.data.http.client import HttpClient
from findesk.data.models import SocialAuthor, SocialPost, Source
from findesk.data.symbols import normalize_symbol
from findesk.data.vendors.base import Category, HttpVendor, newest_visible

SUBREDDITS: tuple[str, ...] = ("wallstreetbets", "stocks", "investing")
SEARCH_URL = "https://www.reddit.com/r/{sub}/search.json"
ABOUT_URL = "https://www.reddit.com/user/{name}/about.json"
PAGE_MAX = 100  # Reddit's largest listing page
_SKIP_PROFILES = {"AutoModerator"}


class RedditVendor(HttpVendor):
    name = "reddit"
    categories = frozenset({Category.REDDIT})

    def __init__(self, http: HttpClient, settings: Settings, *, author_lookups: int = 10) -> None:
        super().__init__(http, settings)
        self.author_lookups = max(0, author_lookups)

    async def reddit_posts(self, symbol: str, as_of: date, limit: int = 50) -> Result[list[SocialPost]]:
        checked = normalize_symbol(symbol)
        if isinstance(checked, Err):
            return Err(checked.code, checked.reason, self.name)
        symbol = checked.value
        if limit < 1:
            return Err(ErrorCode.INVALID_INPUT, f"limit must be at least 1, got {limit}", self.name)
        results = await asyncio.gather(*(self.search(sub, symbol) for sub in SUBREDDITS))
        failures = [(sub, r) for sub, r in zip(SUBREDDITS, results, strict=True) if isinstance(r, Err)]
        if len(failures) == len(SUBREDDITS):
            return failures[0][1]
        found = [p for r in results if isinstance(r, Ok) for p in r.value]
        subs = ", ".join(f"r/{s}" for s in SUBREDDITS)
        visible = newest_visible(
            Ok(found),
            as_of,
            limit,
            self.name,
            lambda read: (
                f"Reddit search in {subs} found {read} post(s) about {symbol}, none created on "
                f"or before {as_of.isoformat()} (search lists newest first and reaches back only so far)"
            ),
        )
        if isinstance(visible, Err):
            return visible
        posts = visible.value
        if failures:
            note = "partial: " + "; ".join(f"r/{sub} failed ({err.code.value})" for sub, err in failures)
            posts = [
                p.model_copy(update={"source": p.source.model_copy(update={"note": note})}) for p in posts
            ]
        return Ok(await self._with_authors(posts))

    async def search(self, subreddit: str, symbol: str) -> Result[list[SocialPost]]:
        """Posts in ``subreddit`` (one of ``SUBREDDITS``) that mention ``symbol``, as Reddit lists them."""
        sub = subreddit.strip().removeprefix("r/").lower()
        if sub not in SUBREDDITS:
            allowed = ", ".join(f"r/{s}" for s in SUBREDDITS)
            return Err(
                ErrorCode.OUT_OF_SCOPE,
                f"r/{subreddit.strip().removeprefix('r/')} is not searched; findesk reads only {allowed}",
                self.name,
            )
        params: dict[str, str | int] = {
            "q": " OR ".join(sorted(company_tickers(symbol))),
            "restrict_sr": 1,
            "sort": "new",
            "limit": PAGE_MAX,
        }
        url = SEARCH_URL.format(sub=sub)
        got = await self.http.get_json(url, params=params, freshness="social", source=self.name)
        if isinstance(got, Err):
            return got
        source = Source(
            vendor=self.name, ref=str(httpx.URL(url, params=params)), retrieved_at=datetime.now(UTC)
        )
        parsed = fmt.parse_listing(got.value, source)
        if isinstance(parsed, Err):
            return parsed
        return Ok([p for p in parsed.value if fmt.mentions_symbol(p, symbol, has_ticker_column=False)])

    async def author(self, username: str) -> Result[SocialAuthor]:
        """An author's public profile (``/user/<name>/about.json``)."""
        name = username.strip().removeprefix("u/")
        if not name or not all(c.isalnum() or c in "-_" for c in name):
            return Err(ErrorCode.INVALID_INPUT, f"{username!r} is not a Reddit user name", self.name)
        got = await self.http.get_json(ABOUT_URL.format(name=name), freshness="social", source=self.name)
        return got if isinstance(got, Err) else fmt.parse_about(got.value)

    async def _with_authors(self, posts: list[SocialPost]) -> list[SocialPost]:
        names: list[str] = []
        for post in posts:
            name = post.author.username if post.author else None
            if name and name not in names and name not in _SKIP_PROFILES:
                names.append(name)
        names = names[: self.author_lookups]
        if not names:
            return posts
        got = await asyncio.gather(*(self.author(n) for n in names))
        profiles = {n: r.value for n, r in zip(names, got, strict=True) if isinstance(r, Ok)}
        return [
            p.model_copy(update={"author": profiles[p.author.username]})
            if p.author and p.author.username in profiles
            else p
            for p in posts
        ]
