"""``POST /v1/brief`` for a ticker no source knows ends its stream with one ``not_found`` error and no
sections, as the CLI exits 4 (issue 12, defect 9); the run is recorded as failed."""

from __future__ import annotations

from api_kit import MakeApi, brief


def test_unknown_ticker_streams_a_not_found_error_and_no_section(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, _ = brief(client, {"ticker": "NESN", "as_of": "2025-08-29"})
    assert status == 200
    kinds = [f.event for f in frames]
    assert kinds[-1] == "error" and "section" not in kinds and "done" not in kinds
    error = frames[-1].data
    assert error["data"]["code"] == "not_found" and "NESN" in error["data"]["message"]
