"""The default suite stays fast because every module that starts the product in another process (the
CLI as ``python -m findesk``, ``findesk serve``, a browser, MCP over stdio, a Ray head) is marked
``system``: a bare ``pytest`` leaves those out and ``pytest -m system`` (and CI) runs them."""

from __future__ import annotations

import re
from pathlib import Path

TESTS = Path(__file__).parent
STARTS_A_PROCESS = re.compile(
    r'"-m", "findesk"|serving\(|import serve_kit|from serve_kit|from ray_kit|from browser_kit|stdio_client'
)
MARKED = re.compile(r"^pytestmark = .*pytest\.mark\.system", re.M)


def test_every_module_that_starts_the_product_in_another_process_is_marked_system() -> None:
    texts = {path: path.read_text() for path in sorted(TESTS.rglob("test_*.py")) if path != Path(__file__)}
    unmarked = [
        path.relative_to(TESTS).as_posix()
        for path, text in texts.items()
        if STARTS_A_PROCESS.search(text) and not MARKED.search(text)
    ]
    assert unmarked == []


def test_the_split_leaves_most_of_the_suite_in_the_default_run() -> None:
    marked = [path for path in TESTS.rglob("test_*.py") if MARKED.search(path.read_text())]
    assert 20 <= len(marked) <= 60, len(marked)  # the system tier is the process-level tests, not the suite
