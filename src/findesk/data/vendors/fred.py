"""Live FRED vendor (macro series) over the FRED/ALFRED JSON API.

Rules this module keeps:
- No key, no request: without ``FINDESK_FRED_API_KEY`` every call is ``not_configured``.
- Point in time through ALFRED vintages: ``realtime_start = realtime_end = as_of`` returns the
  values as they were known on ``as_of`` (no later revisions, no later releases), and
  ``observation_end = as_of``. No extra release lag is applied on top (``release_lag_days = 0``).
- The API key never appears in ``Source.ref`` (the cited URL) or in an error reason.
- Never raises: HTTP problems arrive as typed ``Err`` from the shared client.
"""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, date, datetime
from typing import Any
from urllib.parse import urlencode

from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.data.formats.fred import SeriesInfo, parse_observations, parse_series
from findesk.data.models import MacroSeries, Source
from findesk.data.vendors.base import Category, HttpVendor

BASE = "https://api.stlouisfed.org/fred"
_SERIES_ID = re.compile(r"^[A-Z0-9_]{1,40}$")


class FredVendor(HttpVendor):
    name = "fred"
    categories = frozenset({Category.MACRO})

    async def macro(self, series_id: str, as_of: date, start: date | None = None) -> Result[MacroSeries]:
        key = self.settings.fred_api_key
        if key is None or not key.get_secret_value().strip():
            return Err(
                ErrorCode.NOT_CONFIGURED,
                "FRED needs an API key: set FINDESK_FRED_API_KEY (free at fred.stlouisfed.org)",
                self.name,
            )
        sid = series_id.strip().upper()
        if not _SERIES_ID.match(sid):
            return Err(
                ErrorCode.INVALID_INPUT,
                f"{series_id!r} is not a FRED series id (letters, digits, underscore), e.g. DGS10",
                self.name,
            )
        vintage = {"realtime_start": as_of.isoformat(), "realtime_end": as_of.isoformat()}
        obs_params: dict[str, Any] = {"series_id": sid, **vintage, "observation_end": as_of.isoformat()}
        if start is not None:
            obs_params["observation_start"] = start.isoformat()
        meta_params: dict[str, Any] = {"series_id": sid, **vintage}
        secret = {"api_key": key.get_secret_value(), "file_type": "json"}
        obs_got, meta_got = await asyncio.gather(
            self.http.get_json(
                f"{BASE}/series/observations",
                params={**obs_params, **secret},
                freshness="macro",
                source=self.name,
            ),
            self.http.get_json(
                f"{BASE}/series", params={**meta_params, **secret}, freshness="macro", source=self.name
            ),
        )
        if isinstance(obs_got, Err):
            return self._explain(obs_got, sid, key.get_secret_value())
        observations = parse_observations(obs_got.value, as_of)
        if isinstance(observations, Err):
            return observations
        if not observations.value:
            return Err(
                ErrorCode.NO_DATA,
                f"FRED has no {sid} observation known on {as_of}"
                + ("" if start is None else f" from {start}")
                + "; use a later as-of date",
                self.name,
            )
        info: SeriesInfo | None = None
        if not isinstance(meta_got, Err):
            parsed = parse_series(meta_got.value)
            info = parsed.value if not isinstance(parsed, Err) else None
        ref = f"{BASE}/series/observations?{urlencode(obs_params)}"
        note = f"ALFRED vintage as of {as_of}: values as they were known then"
        if info is None:
            note += "; series metadata unavailable"
        return Ok(
            MacroSeries(
                series_id=sid,
                title=info.title if info else None,
                units=info.units if info else None,
                frequency=info.frequency if info else None,
                release_lag_days=0,
                observations=observations.value,
                source=Source(vendor=self.name, ref=ref, retrieved_at=datetime.now(UTC), note=note),
            )
        )

    def _explain(self, err: Err, sid: str, key: str) -> Err:
        reason = err.reason.replace(key, "****")  # the request URL carries the key
        if err.code is ErrorCode.UNAVAILABLE and err.details.get("status") == 400:
            return Err(
                ErrorCode.NOT_FOUND,
                f"FRED rejected the request for {sid} (HTTP 400): the series may not exist, or "
                "FINDESK_FRED_API_KEY may be invalid",
                self.name,
            )
        return Err(err.code, reason, self.name, {k: v for k, v in err.details.items() if k != "url"})
