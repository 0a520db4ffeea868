"""Parsers for the FRED / ALFRED JSON API (``fred/series/observations`` and ``fred/series``).

Rules this module keeps:
- Pure functions on decoded JSON; an unexpected shape is ``bad_response``; FRED's own error body
  (``{"error_code": 400, "error_message": ...}``) is typed (unknown series -> ``not_found``, key
  problems -> ``not_configured``).
- FRED writes a missing observation as ``"."``: it becomes ``None``, never a number.
- Observations dated after ``as_of`` are dropped even if the server sent them.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from typing import Any

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.models import MacroObservation

VENDOR = "fred"


@dataclass(frozen=True, slots=True)
class SeriesInfo:
    series_id: str
    title: str | None
    units: str | None
    frequency: str | None  # FRED's frequency_short: "D", "W", "M", "Q", "A", ...


def fred_error(body: Any) -> Err | None:
    if not isinstance(body, dict) or "error_message" not in body:
        return None
    message = str(body.get("error_message"))
    lowered = message.lower()
    if "does not exist" in lowered:
        return Err(ErrorCode.NOT_FOUND, f"FRED: {message}", VENDOR)
    if "api_key" in lowered or "api key" in lowered:
        return Err(
            ErrorCode.NOT_CONFIGURED,
            f"FRED refused the API key: {message}; check FINDESK_FRED_API_KEY",
            VENDOR,
        )
    return Err(ErrorCode.BAD_RESPONSE, f"FRED error {body.get('error_code')}: {message}", VENDOR)


def parse_observations(body: Any, as_of: date) -> Result[list[MacroObservation]]:
    err = fred_error(body)
    if err is not None:
        return err
    raw = body.get("observations") if isinstance(body, dict) else None
    if not isinstance(raw, list):
        return Err(ErrorCode.BAD_RESPONSE, "FRED observations response has no 'observations' list", VENDOR)
    out: list[MacroObservation] = []
    for row in raw:
        try:
            day = date.fromisoformat(row["date"])
            text = str(row["value"]).strip()
            value = None if text in (".", "") else float(text)
        except (KeyError, TypeError, ValueError) as exc:
            return Err(ErrorCode.BAD_RESPONSE, f"FRED observation {row!r} is malformed: {exc}", VENDOR)
        if day <= as_of:
            out.append(MacroObservation(date=day, value=value))
    out.sort(key=lambda o: o.date)
    return Ok(out)


def parse_series(body: Any) -> Result[SeriesInfo]:
    err = fred_error(body)
    if err is not None:
        return err
    seriess = body.get("seriess") if isinstance(body, dict) else None
    if not isinstance(seriess, list) or not seriess or not isinstance(seriess[0], dict):
        return Err(ErrorCode.BAD_RESPONSE, "FRED series response has no 'seriess' entry", VENDOR)
    s = seriess[0]

    def text(key: str) -> str | None:
        value = s.get(key)
        return value if isinstance(value, str) and value else None

    sid = text("id")
    if sid is None:
        return Err(ErrorCode.BAD_RESPONSE, "FRED series entry has no 'id'", VENDOR)
    return Ok(SeriesInfo(sid, text("title"), text("units"), text("frequency_short")))
