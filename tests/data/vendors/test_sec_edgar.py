"""Live SEC EDGAR vendor against recorded EDGAR bodies served through ``httpx.MockTransport``.

The transport serves the snapshot's real recorded ``company_tickers.json``, submissions, companyfacts
and filing documents at their EDGAR URLs; anything else answers 404, as EDGAR does.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any

import httpx
import pytest

from findesk.core.config import Settings
from findesk.core.result import Err, ErrorCode, Ok
from findesk.data.http.client import HttpClient
from findesk.data.vendors.sec_edgar import NO_USER_AGENT, SecEdgarVendor
from findesk.data.vendors.snapshot.files import SnapshotFiles
from findesk.data.vendors.snapshot.sec import SecStore

AS_OF = date(2025, 8, 29)
UA = "Findesk Tests tests@example.com"


@dataclass
class Edgar:
    """A fake EDGAR serving recorded bodies; records every request it sees."""

    root: Path
    requests: list[httpx.Request] = field(default_factory=list)
    override: Callable[[httpx.Request], httpx.Response | None] | None = None

    def routes(self) -> dict[str, str]:
        out = {
            "https://www.sec.gov/files/company_tickers.json": "sec/company_tickers.json",
            "https://www.sec.gov/Archives/edgar/data/320193/000032019324000123/aapl-20240928.htm": (
                "sec/filings/AAPL/10-K_2024-11-01.htm"
            ),
        }
        for p in (self.root / "sec/submissions").iterdir():
            out[f"https://data.sec.gov/submissions/{p.name}"] = f"sec/submissions/{p.name}"
        for p in (self.root / "sec/companyfacts").iterdir():
            out[f"https://data.sec.gov/api/xbrl/companyfacts/{p.name}"] = f"sec/companyfacts/{p.name}"
        return out

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.requests.append(request)
        if self.override is not None and (resp := self.override(request)) is not None:
            return resp
        rel = self.routes().get(str(request.url))
        if rel is None:
            return httpx.Response(404, text="<Error><Code>NoSuchKey</Code></Error>")
        return httpx.Response(200, content=(self.root / rel).read_bytes())

    def urls(self) -> list[str]:
        return [str(r.url) for r in self.requests]


@pytest.fixture
def edgar(snapshot_dir: Path) -> Edgar:
    return Edgar(snapshot_dir)


@pytest.fixture
async def http(edgar: Edgar) -> AsyncIterator[HttpClient]:
    client = HttpClient(transport=httpx.MockTransport(edgar))
    yield client
    await client.aclose()


@pytest.fixture
def vendor(http: HttpClient) -> SecEdgarVendor:
    return SecEdgarVendor(http, Settings(sec_user_agent=UA))


async def test_every_request_declares_the_user_agent(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    assert isinstance(await vendor.company("AAPL", AS_OF), Ok)
    assert isinstance(await vendor.filings("NVDA", AS_OF, frozenset({"8-K"}), 3), Ok)
    assert isinstance(await vendor.facts("NVDA", "Revenues", AS_OF), Ok)
    assert edgar.requests
    assert {r.headers["User-Agent"] for r in edgar.requests} == {UA}
    # the ticker table is fetched once and reused
    assert edgar.urls().count("https://www.sec.gov/files/company_tickers.json") == 1


async def test_without_user_agent_nothing_is_requested(http: HttpClient, edgar: Edgar) -> None:
    vendor = SecEdgarVendor(http, Settings())
    results: list[Ok[Any] | Err] = [
        await vendor.company("AAPL", AS_OF),
        await vendor.filings("AAPL", AS_OF),
        await vendor.facts("AAPL", "Revenues", AS_OF),
    ]
    stored = SecStore(SnapshotFiles(edgar.root)).filings("AAPL", AS_OF, frozenset({"10-K"}), 1)
    assert isinstance(stored, Ok)
    results.append(await vendor.document(stored.value[0], AS_OF))
    for got in results:
        assert isinstance(got, Err) and got.code is ErrorCode.NOT_CONFIGURED
        assert got.reason == NO_USER_AGENT
    assert "FINDESK_SEC_USER_AGENT" in NO_USER_AGENT
    assert edgar.requests == []


async def test_company_from_ticker_table_and_submissions(vendor: SecEdgarVendor) -> None:
    got = await vendor.company("tsla", AS_OF)
    assert isinstance(got, Ok)
    c = got.value
    assert (c.ticker, c.cik, c.name, c.exchange) == ("TSLA", 1318605, "Tesla, Inc.", "Nasdaq")
    assert c.industry == "Motor Vehicles & Passenger Car Bodies"
    assert c.source.vendor == "sec_edgar" and c.source.retrieved_at is not None


async def test_filings_match_the_snapshot_store(vendor: SecEdgarVendor, snapshot_dir: Path) -> None:
    live = await vendor.filings("NVDA", AS_OF, frozenset({"8-K", "10-Q"}), 10)
    offline = SecStore(SnapshotFiles(snapshot_dir)).filings("NVDA", AS_OF, frozenset({"8-K", "10-Q"}), 10)
    assert isinstance(live, Ok) and isinstance(offline, Ok)
    ignore = {"source", "local_path"}
    assert [f.model_dump(exclude=ignore) for f in live.value] == [
        f.model_dump(exclude=ignore) for f in offline.value
    ]
    assert live.value[0].filing_date == date(2025, 8, 27)
    assert live.value[0].source.ref == "https://data.sec.gov/submissions/CIK0001045810.json"


async def test_future_filings_never_appear(vendor: SecEdgarVendor) -> None:
    # a limit the recent page can fill: AAPL's older pages are not recorded in the fake EDGAR
    got = await vendor.filings("AAPL", AS_OF, None, 500)
    assert isinstance(got, Ok)
    assert len(got.value) == 500 and max(f.filing_date for f in got.value) <= AS_OF
    later = await vendor.filings("AAPL", date(2026, 12, 31), frozenset({"10-K"}), 1)
    assert isinstance(later, Ok) and later.value[0].filing_date.year == 2025


async def test_older_page_fetched_only_when_needed(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    older = "https://data.sec.gov/submissions/CIK0001318605-submissions-001.json"
    recent = await vendor.filings("TSLA", AS_OF, frozenset({"10-K"}), 2)
    assert isinstance(recent, Ok) and len(recent.value) == 2
    assert older not in edgar.urls()
    everything = await vendor.filings("TSLA", AS_OF, frozenset({"10-K"}))
    assert isinstance(everything, Ok)
    assert older in edgar.urls()
    assert everything.value[-1].filing_date == date(2011, 3, 3)  # Tesla's first 10-K


async def test_document_is_fetched_from_archives(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    listed = await vendor.filings("AAPL", AS_OF, frozenset({"10-K"}), 1)
    assert isinstance(listed, Ok)
    doc = await vendor.document(listed.value[0], AS_OF)
    assert isinstance(doc, Ok)
    assert doc.value.format == "html"
    assert doc.value.source.ref.endswith("/000032019324000123/aapl-20240928.htm")
    assert "Risk Factors" in doc.value.content
    assert edgar.requests[-1].headers["User-Agent"] == UA


async def test_document_after_as_of_is_refused_without_a_request(
    vendor: SecEdgarVendor, edgar: Edgar
) -> None:
    listed = await vendor.filings("AAPL", date(2026, 12, 31), frozenset({"10-K"}), 1)
    assert isinstance(listed, Ok)
    seen = len(edgar.requests)
    got = await vendor.document(listed.value[0], AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.INVALID_INPUT
    assert len(edgar.requests) == seen


async def test_facts_point_in_time(vendor: SecEdgarVendor) -> None:
    got = await vendor.facts("NVDA", "us-gaap:Revenues", AS_OF)
    assert isinstance(got, Ok)
    assert all(f.filed <= AS_OF for f in got.value)
    assert got.value[-1].value == 46_743_000_000.0
    assert got.value[-1].source.ref == "https://data.sec.gov/api/xbrl/companyfacts/CIK0001045810.json"
    unknown = await vendor.facts("NVDA", "Revenu", AS_OF)
    assert isinstance(unknown, Err) and unknown.code is ErrorCode.NOT_FOUND
    assert "us-gaap:Revenues" in unknown.reason


async def test_unknown_cik_404_is_typed(vendor: SecEdgarVendor) -> None:
    # GOOGL is in the ticker table, but the fake EDGAR has no submissions for its CIK: a 404
    got = await vendor.filings("GOOGL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert "CIK0001652044" in got.reason
    # companyfacts 404 means the filer has no XBRL data
    facts = await vendor.facts("MSFT", "Revenues", AS_OF)
    assert isinstance(facts, Err) and facts.code is ErrorCode.NO_DATA


async def test_unknown_ticker_is_not_found(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    got = await vendor.filings("ZZZZQ", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.NOT_FOUND
    assert edgar.urls() == ["https://www.sec.gov/files/company_tickers.json"]


async def test_malformed_json_is_bad_response(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    def broken(request: httpx.Request) -> httpx.Response | None:
        if request.url.host == "data.sec.gov":
            return httpx.Response(200, content=b"<html>Request Rate Threshold Exceeded</html>")
        return None

    edgar.override = broken
    got = await vendor.filings("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
    facts = await vendor.facts("AAPL", "Revenues", AS_OF)
    assert isinstance(facts, Err) and facts.code is ErrorCode.BAD_RESPONSE


async def test_json_of_the_wrong_shape_is_bad_response(vendor: SecEdgarVendor, edgar: Edgar) -> None:
    edgar.override = lambda r: (
        httpx.Response(200, json={"error": "x"}) if "submissions" in str(r.url) else None
    )
    got = await vendor.filings("AAPL", AS_OF)
    assert isinstance(got, Err) and got.code is ErrorCode.BAD_RESPONSE
