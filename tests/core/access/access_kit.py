"""Many server processes asking at once: ``at_once`` admits requests from separate key stores on one
database at the same moment.

Rules: each thread gets its own store (its own engine and connections, as a separate server process
would have); the threads start together on a barrier; every store is closed before the results are
returned, in the order the requests ended.
"""

from __future__ import annotations

import threading
from collections.abc import Callable

from findesk.core.access.keys import KeyStore
from findesk.core.access.limits import Admission
from findesk.core.result import Result


def at_once(url: str, n: int, request: Callable[[KeyStore], Result[Admission]]) -> list[Result[Admission]]:
    """``request(store)`` in ``n`` threads at the same moment, each with its own store on ``url``."""
    stores = [KeyStore.open(url).unwrap() for _ in range(n)]
    start = threading.Barrier(n)
    results: list[Result[Admission]] = []
    lock = threading.Lock()

    def one(own: KeyStore) -> None:
        start.wait()
        outcome = request(own)
        with lock:
            results.append(outcome)

    threads = [threading.Thread(target=one, args=(s,)) for s in stores]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    for own in stores:
        own.close()
    return results
