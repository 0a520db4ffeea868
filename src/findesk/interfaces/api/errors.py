"""Errors as JSON: every failure the API returns has the same body, ``{"error": {"code", "message"}}``.

Rules:
- Codes are ``ErrorCode`` values (plus ``not_found`` routes, ``payload_too_large``, ``internal``); the
  HTTP status follows from the code (``STATUS``) so the same mistake always gets the same status.
- Malformed JSON and schema errors are 400 (not FastAPI's 422) with a message naming the field.
- An unexpected exception is a 500 with a short message; the traceback stays in the server log.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from findesk.core.result import Err, ErrorCode

log = logging.getLogger("findesk.api")

STATUS: dict[str, int] = {
    ErrorCode.INVALID_INPUT.value: 400,
    ErrorCode.OUT_OF_SCOPE.value: 400,
    ErrorCode.REFUSED.value: 400,
    ErrorCode.UNAUTHORIZED.value: 401,
    ErrorCode.NOT_FOUND.value: 404,
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


def install(app: FastAPI) -> None:
    @app.exception_handler(ApiError)
    async def _api_error(_request: Request, exc: ApiError) -> JSONResponse:
        return error_response(exc.code, exc.message, exc.status, exc.headers)

    @app.exception_handler(RequestValidationError)
    async def _invalid(_request: Request, exc: RequestValidationError) -> JSONResponse:
        return error_response(ErrorCode.INVALID_INPUT.value, validation_message(exc), 400)

    @app.exception_handler(StarletteHTTPException)
    async def _http(_request: Request, exc: StarletteHTTPException) -> JSONResponse:
        code = {404: "not_found", 405: "method_not_allowed"}.get(exc.status_code, "http_error")
        return error_response(code, str(exc.detail), exc.status_code, getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _crash(_request: Request, exc: Exception) -> JSONResponse:
        log.exception("unhandled error in the API")
        return error_response("internal", f"internal error: {type(exc).__name__}", 500)
