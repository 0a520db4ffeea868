"""Result type: ``Ok(value)`` or ``Err(code, reason)``.

Rules this module keeps:
- Errors are data. Functions that can fail for reasons outside the caller's control (a source is
  down, a key is missing, the data does not exist) return ``Err`` instead of raising.
- The set of error codes is fixed (``ErrorCode``); each ``Err`` carries a human-readable reason that
  tells the reader what happened and, where possible, what to do.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Generic, NoReturn, TypeAlias, TypeVar

from pydantic import ValidationError

T = TypeVar("T")
U = TypeVar("U")


class ErrorCode(StrEnum):
    """The fixed set of error codes. Documented in README.md ("Error codes")."""

    UNAVAILABLE = "unavailable"  # the source is down, answered 5xx, or its circuit breaker is open
    RATE_LIMITED = "rate_limited"  # the source answered 429 / asked us to slow down
    NOT_CONFIGURED = "not_configured"  # a key, User-Agent or directory the source needs is missing
    NO_DATA = "no_data"  # the source works but holds nothing for this request (as of this date)
    NOT_FOUND = "not_found"  # the entity itself (ticker, series, address) is unknown to the source
    INVALID_INPUT = "invalid_input"  # the request is malformed (bad date, bad symbol, bad argument)
    TIMEOUT = "timeout"  # the source did not answer in time
    OUT_OF_SCOPE = "out_of_scope"  # valid but outside what findesk covers (e.g. non-US listings)
    BAD_RESPONSE = "bad_response"  # the source answered with a body we could not parse
    REFUSED = "refused"  # the request asks for something findesk never gives, e.g. investment advice
    UNAUTHORIZED = "unauthorized"  # no API key, or one that is unknown or revoked
    LIMIT_REACHED = "limit_reached"  # a caller's own quota (requests per minute, daily cost cap) is used up

    @property
    def is_fallthrough(self) -> bool:
        """Whether a router may try the next vendor in its chain after this error.

        Caller mistakes (invalid input, out of scope) and refusals are not retried elsewhere: another
        vendor would reject them too, and silently trying would hide the mistake (or the refusal).
        """
        return self not in (
            ErrorCode.INVALID_INPUT,
            ErrorCode.OUT_OF_SCOPE,
            ErrorCode.REFUSED,
            ErrorCode.UNAUTHORIZED,
            ErrorCode.LIMIT_REACHED,
        )


@dataclass(frozen=True, slots=True)
class Ok(Generic[T]):
    value: T

    @property
    def ok(self) -> bool:
        return True

    def unwrap(self) -> T:
        return self.value

    def map(self, fn: Any) -> Ok[Any]:
        return Ok(fn(self.value))


@dataclass(frozen=True, slots=True)
class Err:
    code: ErrorCode
    reason: str
    source: str | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return False

    def unwrap(self) -> NoReturn:
        raise ResultError(self)

    def map(self, fn: Any) -> Err:
        return self

    def message(self) -> str:
        """One line for a person: ``code: reason`` (with the source when known)."""
        where = f" [{self.source}]" if self.source else ""
        return f"{self.code.value}{where}: {self.reason}"

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"code": self.code.value, "reason": self.reason}
        if self.source:
            out["source"] = self.source
        if self.details:
            out["details"] = self.details
        return out


Result: TypeAlias = Ok[T] | Err


class ResultError(Exception):
    """Raised only by ``Err.unwrap()``: for tests and top-level code that wants an exception."""

    def __init__(self, err: Err) -> None:
        super().__init__(err.message())
        self.err = err


def err(code: ErrorCode, reason: str, source: str | None = None, **details: Any) -> Err:
    return Err(code, reason, source, dict(details))


def validation_reason(exc: ValidationError, *, limit: int = 5, whole: str = "input") -> str:
    """A pydantic validation error as one line a person or a model can act on:
    ``field: message; field: message`` for the first ``limit`` problems (``whole`` names the
    object itself when the problem is not about one field)."""
    parts = []
    for problem in exc.errors()[:limit]:
        where = ".".join(str(p) for p in problem["loc"]) or whole
        parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)
