"""Errors as JSON: every failure the API returns has the same body, ``{"error": {"code", "message"}}``.

Rules:
- Codes are ``ErrorCode`` values (plus ``not_found`` routes, ``payload_too_large``, ``report_outdated``,
  ``internal``); the HTTP status follows from the code (``STATUS``) so the same mistake always gets the
  same status.
- Malformed JSON, a body nested too deeply to read, and schema errors are 400 ``invalid_input`` (not
  FastAPI's 422, which the OpenAPI document does not list either) with a message naming the field.
- An unexpected exception is a 500 with a short message; the traceback stays in the server log.
- No message shows where the server keeps its files: the audit log, the state database, the state,
  cache and snapshot directories and the home directory are replaced by their names before any error
  leaves (``Redactor``), whatever layer wrote the message.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection

from findesk.core.result import Err, ErrorCode

if TYPE_CHECKING:
    from findesk.interfaces.api.services import ApiServices

log = logging.getLogger("findesk.api")

STATUS: dict[str, int] = {
    ErrorCode.INVALID_INPUT.value: 400,
    ErrorCode.OUT_OF_SCOPE.value: 400,
    ErrorCode.REFUSED.value: 400,
    ErrorCode.UNAUTHORIZED.value: 401,
    ErrorCode.NOT_FOUND.value: 404,
    "report_outdated": 409,  # a recorded result an older version wrote, which today's report no longer fits
    "payload_too_large": 413,
    ErrorCode.LIMIT_REACHED.value: 429,
    ErrorCode.RATE_LIMITED.value: 429,
    ErrorCode.NOT_CONFIGURED.value: 503,
    ErrorCode.UNAVAILABLE.value: 503,
    ErrorCode.TIMEOUT.value: 504,
}


class ApiError(Exception):
    def __init__(
        self, code: str, message: str, *, status: int | None = None, headers: Mapping[str, str] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status or STATUS.get(code, 400)
        self.headers = dict(headers or {})

    @classmethod
    def of(cls, err: Err, *, headers: Mapping[str, str] | None = None) -> ApiError:
        return cls(err.code.value, err.reason, headers=headers)


def error_body(code: str, message: str) -> dict[str, Any]:
    return {"error": {"code": code, "message": message}}


def error_response(
    code: str, message: str, status: int, headers: Mapping[str, str] | None = None
) -> JSONResponse:
    return JSONResponse(error_body(code, message), status_code=status, headers=dict(headers or {}))


def _field(loc: tuple[Any, ...]) -> str:
    parts = [str(p) for p in loc if p not in ("body", "query", "path", "header")]
    return ".".join(parts) or "body"


def validation_message(exc: RequestValidationError) -> str:
    errors = list(exc.errors())
    if not errors:
        return "the request is invalid"
    first = errors[0]
    if first.get("type") == "json_invalid":
        detail = (first.get("ctx") or {}).get("error", "")
        return f"malformed JSON in the request body{': ' + str(detail) if detail else ''}"
    field, kind = _field(tuple(first.get("loc", ()))), first.get("type", "")
    ctx = first.get("ctx") or {}
    if kind == "string_too_long":
        got = len(first.get("input") or "")
        return f"{field}: at most {ctx.get('max_length', 0):,} characters (got {got:,})"
    if kind == "missing":
        return f"{field} is required"
    if kind in ("model_attributes_type", "dict_type") and field == "body":
        return "the request body must be a JSON object"
    if kind == "extra_forbidden":
        return f"unknown field {field!r}"
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return f"{field}: {first.get('msg', 'invalid')}{more}"


def unreadable_body_message(exc: StarletteHTTPException) -> str | None:
    """Why FastAPI could not parse a body it reports only as "There was an error parsing the body"
    (a 400 whose cause is the parser's exception), or None for any other HTTP error."""
    if exc.status_code != 400 or exc.__cause__ is None:
        return None
    if isinstance(exc.__cause__, RecursionError):
        return "the request body is nested too deeply to read: send a JSON object a few levels deep"
    if isinstance(exc.__cause__, UnicodeDecodeError):
        return "the request body is not UTF-8: send JSON encoded as UTF-8"
    return f"the request body cannot be read as JSON ({type(exc.__cause__).__name__})"


@dataclass(frozen=True)
class Redactor:
    """Replaces the server's own locations in a message by their names, longest first (the audit log's
    file lies inside the state directory, which may lie inside the home directory)."""

    places: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, services: ApiServices) -> Redactor:
        settings = services.settings
        snapshot = settings.resolved_snapshot_dir()
        indexes = settings.snapshot_index_dir
        found = [
            (services.audit.location, "the audit log"),
            (services.keys.location, "the state database"),
            (str(settings.state_dir), "the state directory"),
            (str(settings.cache_dir), "the cache directory"),
            *([(str(indexes), "the snapshot index directory")] if indexes is not None else []),
            *([(str(snapshot), "the snapshot directory")] if snapshot is not None else []),
            (str(Path.home()), "~"),
        ]
        usable = {where: name for where, name in found if len(where) > 1}  # never "/" or ""
        return cls(tuple(sorted(usable.items(), key=lambda place: -len(place[0]))))

    def __call__(self, message: str) -> str:
        for where, name in self.places:
            message = message.replace(where, name)
        return message


def _without_422(build: Callable[[], dict[str, Any]]) -> Callable[[], dict[str, Any]]:
    """FastAPI documents a 422 on every route with a body or parameters; this API answers 400 instead
    (``ERRORS``), so the 422 and its schemas leave the document (``build`` caches it: done once)."""

    def openapi() -> dict[str, Any]:
        schema = build()
        for operations in schema.get("paths", {}).values():
            for operation in operations.values():
                operation.get("responses", {}).pop("422", None)
        for name in ("HTTPValidationError", "ValidationError"):
            schema.get("components", {}).get("schemas", {}).pop(name, None)
        return schema

    return openapi


def redactor(connection: HTTPConnection) -> Callable[[str], str]:
    """The app's ``Redactor`` (set by ``install``), for a route or middleware that writes a message
    into a body itself."""
    found: Callable[[str], str] = getattr(connection.app.state, "redact", str)
    return found


def install(app: FastAPI) -> None:
    """The JSON error handlers; every message is cleaned by the services' ``Redactor`` before it leaves."""
    services = getattr(app.state, "services", None)
    redact: Callable[[str], str] = Redactor.of(services) if services is not None else str
    app.state.redact = redact
    app.openapi = _without_422(app.openapi)  # type: ignore[method-assign]

    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.code, redact(exc.message), exc.status, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(ErrorCode.INVALID_INPUT.value, redact(validation_message(exc)), 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        unreadable = unreadable_body_message(exc)
        if unreadable is not None:
            return error_response(ErrorCode.INVALID_INPUT.value, unreadable, 400)
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(code, redact(str(exc.detail)), exc.status_code, getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in the API")
        return error_response("internal", f"internal error: {type(exc).__name__}", 500)
