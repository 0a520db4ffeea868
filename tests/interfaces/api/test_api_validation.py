"""Request validation at the API's edge: dates are ISO days only, a deeply nested body is a clear 400,
and the OpenAPI document lists every error status a route answers (no 422, which it never answers), and
no HTML docs are served from a CDN."""

from __future__ import annotations

from typing import Any

import pytest
from api_kit import MakeApi, brief, run

AS_OF = "2025-08-29"
NOT_DAYS = [
    0,
    1,
    1_756_425_600,
    1.5,
    "0",
    "1756425600",
    "2025-08-29T00:00:00",
    "20250829",
    True,
    [2025, 8, 29],
]


@pytest.mark.parametrize("as_of", NOT_DAYS)
def test_a_date_is_an_iso_day_and_nothing_else(make_api: MakeApi, as_of: Any) -> None:
    client = make_api()
    attempts = [
        brief(client, {"ticker": "AAPL", "as_of": as_of}),
        run(client, "agents.quote_filings", {"input": {"symbol": "AAPL"}, "as_of": as_of}),
        # a date inside a workflow's own input is held to the same rule
        run(client, "agents.social", {"input": {"symbol": "AAPL", "as_of": as_of}}),
    ]
    for status, frames, error in attempts:
        assert status == 400 and frames == [], error
        assert error["error"]["code"] == "invalid_input"
        assert "as_of" in error["error"]["message"] and "YYYY-MM-DD" in error["error"]["message"], error
    services = client.app.state.services  # type: ignore[attr-defined]
    assert services.audit.list_runs() == []  # refused before any run


def test_an_iso_day_is_still_accepted(make_api: MakeApi) -> None:
    client = make_api()
    status, frames, error = run(client, "agents.quote_filings", {"input": {"symbol": "AAPL"}, "as_of": AS_OF})
    assert status == 200 and frames[-1].event == "done", error
    assert frames[0].data["data"]["inputs"] == {"symbol": "AAPL"}
    status, _, error = brief(client, {"ticker": "AAPL", "as_of": "2025-02-30"})
    assert status == 400 and "as_of" in error["error"]["message"]  # the calendar is still checked


@pytest.mark.parametrize(
    ("body", "words"),
    [
        ("[" * 10_000 + "]" * 10_000, "nested too deeply"),
        ('{"input": ' + '{"a": ' * 5_000 + "1" + "}" * 5_000 + "}", "nested too deeply"),
        (
            '{"input": {"symbol": "AAPL", "x": ' + "[" * 40 + "]" * 40 + "}}",
            "input: nested more than 16 levels",
        ),
        (b'{"ticker": "AAPL\xff"}', "not UTF-8"),
    ],
)
def test_a_deeply_nested_or_unreadable_body_is_a_clear_400(
    make_api: MakeApi, body: str | bytes, words: str
) -> None:
    client = make_api()
    for path in ("/v1/brief", "/v1/runs/agents.quote_filings"):
        response = client.post(path, content=body, headers={"content-type": "application/json"})
        assert response.status_code == 400, response.text
        error = response.json()["error"]
        assert error["code"] == "invalid_input"
        if path.startswith("/v1/runs") or "levels" not in words:  # only a run has an input to nest
            assert words in error["message"], error


def test_openapi_lists_every_error_a_route_answers_with_the_error_body(make_api: MakeApi) -> None:
    client = make_api()
    spec = client.get("/openapi.json").json()
    error_ref = "#/components/schemas/ErrorBody"
    for path in ("/v1/runs/{run_id}", "/v1/runs/{run_id}/events"):
        responses = spec["paths"][path]["get"]["responses"]
        assert {"400", "401", "404", "429", "503"} <= set(responses)
        assert responses["404"]["content"]["application/json"]["schema"]["$ref"] == error_ref
    for path, method in (("/v1/brief", "post"), ("/v1/runs/{workflow}", "post")):
        assert {"400", "401", "404", "413", "429", "503"} <= set(spec["paths"][path][method]["responses"])
    assert "503" in spec["paths"]["/healthz"]["get"]["responses"]
    for path, operations in spec["paths"].items():
        for method, operation in operations.items():
            assert "422" not in operation["responses"], (method, path)  # never answered: errors are 400
            for status, response in operation["responses"].items():
                if status.startswith(("4", "5")) and path != "/healthz":
                    assert response["content"]["application/json"]["schema"]["$ref"] == error_ref
    assert "HTTPValidationError" not in spec["components"]["schemas"]
    as_of = spec["components"]["schemas"]["BriefRequest"]["properties"]["as_of"]
    assert {"type": "string", "format": "date"} in as_of["anyOf"]


def test_no_html_docs_from_a_cdn_only_the_openapi_document(make_api: MakeApi) -> None:
    client = make_api()
    for path in ("/docs", "/redoc", "/docs/oauth2-redirect"):
        response = client.get(path)
        assert response.status_code == 404 and response.headers["content-type"] == "application/json"
        assert "cdn" not in response.text.lower() or "/openapi.json" in response.text
    docs = client.get("/docs").json()["error"]
    assert docs["code"] == "not_found" and "GET /openapi.json" in docs["message"]
    spec = client.get("/openapi.json")
    assert spec.status_code == 200 and "no HTML docs" in spec.json()["info"]["description"]
