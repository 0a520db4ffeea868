"""A circuit breaker per host.

Rules this module keeps:
- A host's circuit opens after ``failures`` consecutive failed requests (the caller decides what a
  failure is: the client counts timeouts, connection errors, 429 and 5xx after retries). While open,
  ``before`` returns a reason and the caller must not touch the network.
- After ``cooldown_s`` the circuit is half-open: exactly one trial request is let through. Its success
  closes the circuit; its failure re-opens it for another full cool-down. Other calls made while the
  trial is in flight are turned away, so a dead host sees one request per cool-down, not a burst.
- A caller that was let through must report back with ``after`` (or ``abandon`` if it was cancelled),
  otherwise a half-open trial would block the host forever.
- Time comes from an injected ``clock`` (epoch seconds) so tests never sleep.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime


@dataclass(slots=True)
class _HostState:
    consecutive_failures: int = 0
    open_until: float | None = None  # epoch seconds; None = closed
    trial_in_flight: bool = False


class CircuitBreaker:
    def __init__(
        self, failures: int = 3, cooldown_s: float = 60.0, *, clock: Callable[[], float] = time.time
    ) -> None:
        self.failures = max(1, failures)
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._hosts: dict[str, _HostState] = {}

    def before(self, host: str) -> str | None:
        """``None`` if a request to ``host`` may go out now, else the reason it may not."""
        state = self._hosts.get(host)
        if state is None or state.open_until is None:
            return None
        if self._clock() < state.open_until:
            until = datetime.fromtimestamp(state.open_until, UTC).strftime("%H:%M:%S")
            return (
                f"circuit open for {host} until {until} UTC after {state.consecutive_failures} "
                f"consecutive failures; findesk skips this host until then"
            )
        if state.trial_in_flight:
            return f"circuit half-open for {host}: a trial request is in progress, try again shortly"
        state.trial_in_flight = True
        return None

    def after(self, host: str, *, failed: bool) -> None:
        """Record the final outcome of a request that ``before`` let through."""
        state = self._hosts.setdefault(host, _HostState())
        was_trial = state.trial_in_flight
        state.trial_in_flight = False
        if not failed:
            state.consecutive_failures = 0
            state.open_until = None
            return
        state.consecutive_failures += 1
        if was_trial or state.consecutive_failures >= self.failures:
            state.open_until = self._clock() + self.cooldown_s

    def abandon(self, host: str) -> None:
        """The request let through never finished (cancelled): free the half-open trial slot."""
        state = self._hosts.get(host)
        if state is not None:
            state.trial_in_flight = False

    def is_open(self, host: str) -> bool:
        state = self._hosts.get(host)
        return state is not None and state.open_until is not None and self._clock() < state.open_until
