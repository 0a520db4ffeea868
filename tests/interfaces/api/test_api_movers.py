"""``POST /v1/movers``: the movers analyzer over SSE on the real snapshot — five sections, one ``done``
naming the symbol and its metrics, the .eml written under the server's state folder on a dry run; a
remote caller can name neither recipients nor folders, and an unknown field is refused before the
stream opens."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from api_kit import MakeApi, Sse, parse_sse
from fastapi.testclient import TestClient

# the analysis runs in the sandbox: without bubblewrap, skipped here and failed in CI
pytestmark = pytest.mark.usefixtures("sandbox_ready")

SECTIONS = ["gainers", "history", "news", "analysis", "delivery"]


def _post(client: TestClient, path: str, body: dict[str, Any]) -> tuple[int, list[Sse], Any, str]:
    response = client.post(path, json=body)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None, response.headers.get("x-run-id", "")
    return response.status_code, [], response.json(), ""


def test_movers_streams_five_sections_and_writes_the_eml_on_the_server(
    make_api: MakeApi, api_tools_state: Path
) -> None:
    client = make_api()
    status, frames, error, run_id = _post(
        client, "/v1/movers", {"date": "2025-08-29", "mode": "deterministic", "dry_run": True}
    )
    assert status == 200, error
    names = [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert set(names) == set(SECTIONS)
    kinds = [f.event for f in frames]
    assert kinds.count("done") == 1 and "error" not in kinds
    report = frames[kinds.index("done")].data["data"]["result"]
    assert report["symbol"] == "NEO" and report["metrics_check"] == "sandbox_matched"
    assert report["delivery"]["status"] == "written"
    # the server's disk is never shown to a remote caller: files are named relative to its movers folder
    assert report["delivery"]["eml_path"] == f"2025-08-29_{run_id}/report.eml"
    assert report["output_dir"] == f"2025-08-29_{run_id}"
    streamed = "\n".join(str(f.data) for f in frames)
    assert "/tmp/" not in streamed and str(Path.home()) not in streamed
    assert (api_tools_state / "movers" / report["delivery"]["eml_path"]).is_file()
    page = client.get(f"/v1/runs/{run_id}/report.html")
    assert page.status_code == 200 and "data:image/png;base64," in page.text and "<script" not in page.text


def test_a_remote_caller_names_no_recipient_or_folder_and_unknown_fields_are_refused(
    make_api: MakeApi,
) -> None:
    client = make_api()
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("/v1/movers", {"date": "2025-08-29", "email": "attacker@example.com"}, "email"),
        ("/v1/movers", {"date": "2025-08-29", "out": "/etc"}, "out"),
        ("/v1/runs/movers", {"input": {"date": "2025-08-29", "email": "attacker@example.com"}}, "email"),
        ("/v1/runs/movers", {"input": {"date": "2025-08-29", "out": "/tmp/x"}}, "out"),
        ("/v1/movers", {"date": "2025-08-29", "top": 99}, "top"),
        ("/v1/movers", {"date": "2025-08-29", "as_of": "2025-08-01"}, "after the run's as-of date"),
    ]
    for path, body, needle in cases:
        status, frames, error, _ = _post(client, path, body)
        assert status in (400, 422), (body, status)
        assert not frames
        assert needle in error["error"]["message"], (body, error)
