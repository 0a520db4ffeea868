"""Live FRED vendor through ``httpx.MockTransport`` serving the HAND-WRITTEN fixtures in
``tests/fixtures/fred/`` (no recorded FRED API response exists in the snapshot)."""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest
from pydantic import SecretStr

from findesk.core.config import HttpSettings, Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.formats.fred import parse_observations, parse_series
from findesk.data.http.client import HttpClient
from findesk.data.vendors.fred import FredVendor

FIXTURES = Path(__file__).parents[2] / "fixtures" / "fred"
AS_OF = date(2025, 8, 29)
KEY = "abcdef0123456789abcdef0123456789"


def fixture(name: str) -> Any:
    return json.loads((FIXTURES / name).read_text())


class Fake:
    def __init__(self, answer: Callable[[httpx.Request], httpx.Response] | None = None) -> None:
        self.requests: list[httpx.Request] = []
        self.answer = answer

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.answer is not None:
            return self.answer(request)
        if request.url.path == "/fred/series/observations":
            return httpx.Response(200, json=fixture("series_observations_CPIAUCSL_handwritten.json"))
        if request.url.path == "/fred/series":
            return httpx.Response(200, json=fixture("series_CPIAUCSL_handwritten.json"))
        return httpx.Response(404)


def vendor(fake: Fake, key: str | None = KEY) -> FredVendor:
    client = HttpClient(
        HttpSettings(retries=0, default_rps=0.0, rate_limits={}), transport=httpx.MockTransport(fake)
    )
    return FredVendor(client, Settings(fred_api_key=SecretStr(key) if key else None))


async def test_no_key_refuses_without_a_request() -> None:
    fake = Fake()
    got = await vendor(fake, key=None).macro("CPIAUCSL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
    assert "FINDESK_FRED_API_KEY" in got.reason
    assert fake.requests == []


async def test_observations_as_known_on_as_of() -> None:
    fake = Fake()
    got = await vendor(fake).macro("cpiaucsl", AS_OF, start=date(2025, 1, 1))
    assert isinstance(got, Ok), got
    s = got.value
    assert s.series_id == "CPIAUCSL" and s.frequency == "M" and s.units == "Index 1982-1984=100"
    assert s.title is not None and s.title.startswith("Consumer Price Index")
    values = {o.date: o.value for o in s.observations}
    assert values[date(2025, 3, 1)] is None  # FRED's "."
    assert values[date(2025, 7, 1)] == 322.132
    assert date(2025, 9, 1) not in values  # planted row after as_of is dropped
    assert s.release_lag_days == 0 and "ALFRED" in (s.source.note or "")
    for req in fake.requests:
        p = req.url.params
        assert p["realtime_start"] == p["realtime_end"] == "2025-08-29"
        assert p["file_type"] == "json" and p["api_key"] == KEY
    obs = next(r for r in fake.requests if r.url.path.endswith("/observations"))
    assert obs.url.params["observation_end"] == "2025-08-29"
    assert obs.url.params["observation_start"] == "2025-01-01"
    assert KEY not in s.source.ref and "realtime_start=2025-08-29" in s.source.ref


async def test_unknown_series_400_is_not_found() -> None:
    fake = Fake(lambda r: httpx.Response(400, json=fixture("error_series_does_not_exist_handwritten.json")))
    got = await vendor(fake).macro("NOSUCH", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert KEY not in got.reason


async def test_429_is_rate_limited() -> None:
    got = await vendor(Fake(lambda r: httpx.Response(429))).macro("CPIAUCSL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.RATE_LIMITED


async def test_malformed_body_is_bad_response() -> None:
    got = await vendor(Fake(lambda r: httpx.Response(200, json={"nothing": []}))).macro("CPIAUCSL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE


async def test_invalid_id_makes_no_request() -> None:
    fake = Fake()
    got = await vendor(fake).macro("../x", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT and fake.requests == []


def test_error_body_parses_to_not_found() -> None:
    body = fixture("error_series_does_not_exist_handwritten.json")
    for parse in (parse_series, lambda b: parse_observations(b, AS_OF)):
        got = parse(body)
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND


@pytest.mark.parametrize(
    "row", [{"date": "x", "value": "1"}, {"value": "1"}, {"date": "2025-01-01", "value": "abc"}]
)
def test_malformed_observation_is_bad_response(row: dict[str, str]) -> None:
    got = parse_observations({"observations": [row]}, AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
