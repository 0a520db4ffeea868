"""Browser test kit: ``findesk serve`` as a subprocess on a free loopback port (``serve_kit``), and Debian
Chromium driven by Playwright.

Rules: the server gets its own state and cache directories and no ``FINDESK_*`` variable of the caller
(only those a test passes in ``env``, e.g. ``FINDESK_WORKFLOWS`` for a plug-in); it is stopped (terminate,
then kill) when the context ends. Outside CI a module using the kit is skipped when Chromium or Playwright
is missing; in CI (``CI=true``) it fails.

Hostile content: ``overlay`` plants files in a copy of the snapshot (symlinks to the rest); ``Watch``
records what a page must never do (dialogs, script errors, requests to another origin) and
``assert_inert`` checks the DOM holds nothing that could run or load: no script, image, frame, SVG or
style element, no ``on*`` or ``style`` attribute, and every link an ``http(s)`` URL or a ``#source-N``
footnote. Payloads set ``window.__pwned`` or call ``alert``, so both are checked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

import serve_kit

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]

try:
    from playwright.sync_api import sync_playwright
except ImportError:  # pragma: no cover - the dev extra installs it
    sync_playwright = None  # type: ignore[assignment]


def require_browser() -> None:
    """Skip (or, in CI, fail) the calling module when the browser cannot run."""
    if sync_playwright is None or not CHROMIUM.exists():
        reason = "Playwright or /usr/bin/chromium (Debian package chromium) is not installed"
        if os.environ.get("CI"):
            pytest.fail(f"the browser test must run in CI: {reason}", pytrace=False)
        pytest.skip(reason, allow_module_level=True)


@contextmanager
def serving(
    snapshot: Path | None, workdir: Path, env: Mapping[str, str] | None = None
) -> Iterator[tuple[str, str]]:
    """``findesk serve`` on 127.0.0.1 (on ``snapshot``, else the configured one): (base URL, start-up log).
    ``env``: variables set for the server on top of the caller's (minus its ``FINDESK_*``)."""
    server_env = serve_kit.environment(
        FINDESK_STATE_DIR=str(workdir / "state"), FINDESK_CACHE_DIR=str(workdir / "cache")
    )
    if snapshot is not None:
        server_env["FINDESK_SNAPSHOT_DIR"] = str(snapshot)
    with serve_kit.serving(server_env | dict(env or {}), workdir / "serve.log") as server:
        yield server.url, server.log.read_text()


@contextmanager
def browser_page(**context: Any) -> Iterator[Any]:
    """A fresh Chromium page (keyword arguments go to ``new_page``, e.g. ``viewport``)."""
    with chromium() as browser:
        yield browser.new_page(**context)


@contextmanager
def chromium() -> Iterator[Any]:
    """One Chromium for many pages: a module keeps it and each test opens ``browser.new_page(...)`` (its
    own context: storage is not shared between tests)."""
    assert sync_playwright is not None
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            yield browser
        finally:
            browser.close()


def overlay(real: Path, fake: Path, changed: Mapping[str, str]) -> None:
    """``fake`` mirrors ``real`` by symlinks, except the files in ``changed`` (relative path -> text),
    which are written (replacing the real file, or added beside the others)."""
    dirs_to_copy = {Path(rel).parts[0] for rel in changed}
    for entry in real.iterdir():
        if entry.name not in dirs_to_copy:
            (fake / entry.name).symlink_to(entry)
    for top in dirs_to_copy:
        for path in (real / top).rglob("*"):
            rel = path.relative_to(real)
            if path.is_dir():
                (fake / rel).mkdir(parents=True, exist_ok=True)
            else:
                (fake / rel).parent.mkdir(parents=True, exist_ok=True)
                (fake / rel).symlink_to(path)
    for rel, text in changed.items():
        target = fake / rel
        if target.is_symlink():
            target.unlink()
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8")


class Watch:
    """What a page did that it must not: dialogs (a payload's ``alert``), script errors, requests to
    another origin. Attach it before the page loads."""

    def __init__(self, page: Any, url: str) -> None:
        self.url = url
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda e: self.errors.append(str(e)))
        page.on("request", lambda r: self.requests.append(r.url))

    def _dialog(self, dialog: Any) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def clean(self) -> None:
        assert self.dialogs == [], f"a payload ran: dialogs {self.dialogs}"
        assert self.errors == [], f"script errors: {self.errors}"
        foreign = [r for r in self.requests if not r.startswith(self.url)]
        assert foreign == [], f"requests to another origin: {foreign}"


# What no page may hold, whatever the data: elements that run, load or restyle, handlers and inline styles,
# and links that are not http(s) (a "#source-N" footnote is the one same-page link the page writes).
_DOM_PROBLEMS = r"""() => {
  const problems = [];
  // the head holds the page's own three metas, title, icon, stylesheet and script, and nothing else
  const head = [...document.head.children].map((e) => e.tagName.toLowerCase()).sort().join(" ");
  if (head !== "link link meta meta meta script title") problems.push("head holds " + head);
  const banned = "script, img, svg, math, iframe, frame, object, embed, video, audio, source, picture, "
    + "style, link, base, meta, template, canvas, input[type=image], area, map, applet, portal, "
    + "form:not(#desk):not(#brief-form):not(#run-form)";
  for (const e of document.body.querySelectorAll(banned)) {
    problems.push("element " + e.outerHTML.slice(0, 120));
  }
  const risky = ["style", "srcdoc", "formaction", "action", "src", "xlink:href", "background", "poster",
    "data", "ping", "lowsrc", "dynsrc", "http-equiv"];
  for (const e of [document.body, ...document.body.querySelectorAll("*")]) {
    for (const a of e.attributes) {
      const name = a.name.toLowerCase();
      if (name.startsWith("on") || risky.includes(name)) {
        problems.push("attribute " + name + "=" + a.value.slice(0, 80) + " on " + e.tagName);
      }
    }
    if (!e.hasAttribute("href")) continue;
    const raw = e.getAttribute("href");
    const web = e.tagName === "A" && /^https?:\/\//i.test(raw)
      && ["http:", "https:"].includes(new URL(e.href).protocol);
    const footnote = e.tagName === "A" && /^#source-[0-9]{1,4}$/.test(raw);
    if (!web && !footnote) problems.push("link " + e.tagName + " " + raw.slice(0, 120));
  }
  return problems;
}"""


def assert_inert(page: Any) -> None:
    """Nothing ran (no ``window.__pwned``) and nothing that could run or load is in the DOM."""
    assert page.evaluate("typeof window.__pwned") == "undefined", page.evaluate("String(window.__pwned)")
    problems = page.evaluate(_DOM_PROBLEMS)
    assert problems == [], problems
