"""``POST /v1/etf-weekly``: the weekly ETF analyst over SSE, the strategy in the body, the run folder
under the server's own state folder, and no path a request names ever read or written."""

from __future__ import annotations

from pathlib import Path

from api_kit import MakeApi, parse_sse

STRATEGY = {
    "candidates": {
        "max_weekly_return_pct": -2.0,
        "only_sectors": ["Technology", "Semiconductors", "Consumer Discretionary"],
        "max_candidates": 6,
    }
}


def test_a_week_streams_its_sections_and_a_report(make_api: MakeApi, api_settings) -> None:  # type: ignore[no-untyped-def]
    client = make_api()
    response = client.post("/v1/etf-weekly", json={"week_ending": "2025-05-23", "strategy": STRATEGY})
    assert response.status_code == 200, response.text
    frames = parse_sse(response.text)
    sections = [f.data["data"]["name"] for f in frames if f.event == "section"]
    assert (
        sections[0] == "market" and "news" in sections and "review" in sections and sections[-1] == "summary"
    )
    done = [f for f in frames if f.event == "done"]
    assert len(done) == 1
    report = done[0].data["data"]["result"]
    assert report["week_end"] == "2025-05-23" and report["as_of"] == "2025-05-23"
    assert report["market_context"]["spy_weekly_return"] < 0
    assert report["symbol_profiles"] and all(
        "alpha_residual" in p for p in report["symbol_profiles"].values()
    )
    folder = Path(report["output_dir"])
    assert folder.is_relative_to(api_settings.state_dir / "etf-weekly")
    assert (folder / "dashboard.html").is_file()


def test_a_request_may_not_name_a_file_or_a_folder(make_api: MakeApi, tmp_path: Path) -> None:
    client = make_api()
    secret = tmp_path / "strategy.yaml"
    secret.write_text("name: private\n")
    for body in (
        {"week_ending": "2025-05-23", "strategy": {"output": {"folder": str(tmp_path / "elsewhere")}}},
    ):
        response = client.post("/v1/etf-weekly", json=body)
        assert response.status_code == 400, response.text
        assert response.json()["error"]["code"] == "invalid_input"
    # the generic route takes the workflow's whole input: config and out are refused there
    for extra in ({"config": str(secret)}, {"out": str(tmp_path / "elsewhere")}):
        response = client.post("/v1/runs/etf-weekly", json={"input": {"week_ending": "2025-05-23", **extra}})
        assert response.status_code == 400, response.text
        assert "local runs only" in response.json()["error"]["message"]
    assert not (tmp_path / "elsewhere").exists()


def test_a_week_after_the_as_of_date_is_refused(make_api: MakeApi) -> None:
    client = make_api()
    response = client.post("/v1/etf-weekly", json={"week_ending": "2025-06-06", "as_of": "2025-05-23"})
    assert response.status_code == 400
    assert "after the run's as-of date" in response.json()["error"]["message"]
    response = client.post("/v1/etf-weekly", json={"strategy": {"candidates": {"max_candidatez": 3}}})
    assert response.status_code == 400 and "max_candidatez" in response.json()["error"]["message"]


def test_the_listed_form_has_no_field_for_a_server_path(make_api: MakeApi) -> None:
    client = make_api()
    listed = {w["name"]: w for w in client.get("/v1/workflows").json()}
    props = listed["etf-weekly"]["input_schema"]["properties"]
    assert "week_ending" in props and "strategy" in props
    assert "config" not in props and "out" not in props  # local runs only: the page never offers them
