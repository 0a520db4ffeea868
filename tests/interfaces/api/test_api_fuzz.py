"""A fuzzing pass over the OpenAPI document: schemathesis generates requests for every documented
operation — valid ones and invalid ones — and each response must be no server error and must match the
document (a documented status, content type, headers and body schema).

Rules: in process, through the same ``TestClient`` app as the other API tests (no socket, no network),
with keys required and a valid key on every request (so the routes behind the key are reached), on the
recorded snapshot. Bounded and repeatable: a fixed number of examples per operation and mode, derandomized,
no example database written to disk; the whole pass stays well under a minute on two cores.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from api_kit import MakeApi
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, configuration, given, settings
from schemathesis import GenerationMode
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    negative_data_rejection,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from findesk.core.config import ApiTier
from findesk.core.result import Err

TIERS = {"fuzz": ApiTier(rpm=100_000, daily_cost_usd=1_000.0)}
CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
# per operation and mode; a run that is accepted streams a whole (deterministic) workflow, so the POST
# routes get fewer
EXAMPLES = {"GET": 25, "POST": 8, "DELETE": 25}
WORKFLOWS = ("brief", "agents.quote_filings", "agents.social")


@pytest.fixture(autouse=True)
def _hypothesis_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    # hypothesis caches (charmaps, constants) under ./.hypothesis by default: not in the working tree
    before = configuration.storage_directory(intent_to_write=False).home_directory
    configuration.set_hypothesis_home_dir(str(tmp_path_factory.getbasetemp() / "hypothesis"))
    yield
    configuration.set_hypothesis_home_dir(str(before))


def _key(client: TestClient) -> dict[str, str]:
    services = client.app.state.services  # type: ignore[attr-defined]
    made = services.keys.create("fuzz", "fuzz", tiers=services.settings.api.tiers)
    assert not isinstance(made, Err), made
    return {"Authorization": f"Bearer {made.value[1]}"}


def _run_id(client: TestClient, auth: dict[str, str]) -> str:
    """A recorded run of this key, so the run routes answer 200 too (random ids are all 404s)."""
    response = client.post("/v1/brief", json={"ticker": "AAPL", "mode": "deterministic"}, headers=auth)
    assert response.status_code == 200, response.text
    return response.headers["x-run-id"]


def _send(client: TestClient, case: schemathesis.Case, auth: dict[str, str]) -> Any:
    """The case through the test client: schemathesis serializes for ``requests``; httpx calls a raw
    body ``content``."""
    kwargs = case.as_transport_kwargs(base_url=str(client.base_url), headers=auth)
    kwargs.pop("auth", None)
    if not kwargs.get("cookies"):
        kwargs.pop("cookies", None)
    if isinstance(kwargs.get("data"), bytes | str):
        kwargs["content"] = kwargs.pop("data")
    return client.request(**kwargs)


@pytest.mark.parametrize("mode", [GenerationMode.POSITIVE, GenerationMode.NEGATIVE], ids=["valid", "invalid"])
def test_every_operation_answers_only_what_the_openapi_document_says(
    make_api: MakeApi, mode: GenerationMode
) -> None:
    client = make_api(require_keys=True, tiers=TIERS)
    auth = _key(client)
    schema = schemathesis.openapi.from_dict(client.get("/openapi.json").json())
    checks = [*CHECKS, negative_data_rejection] if mode is GenerationMode.NEGATIVE else CHECKS
    operations = [result.ok() for result in schema.get_all_operations()]
    assert {f"{op.method.upper()} {op.path}" for op in operations} >= {
        "POST /v1/brief",
        "POST /v1/runs/{workflow}",
        "GET /v1/runs/{run_id}",
        "GET /v1/runs/{run_id}/events",
        "GET /v1/workflows",
        "GET /healthz",
    }
    run_id = _run_id(client, auth)
    for operation in operations:
        strategies = [operation.as_strategy(generation_mode=mode)]
        if mode is GenerationMode.NEGATIVE and not [*operation.iter_parameters(), *operation.body]:
            strategies = []  # nothing to get wrong (GET /healthz)
        if mode is GenerationMode.POSITIVE and "{run_id}" in operation.path:
            # the run's own id and a prefix of it: the 200 bodies are checked against the schema too
            strategies += [
                operation.as_strategy(path_parameters={"run_id": i}) for i in (run_id, run_id[:-2])
            ]
        if "{workflow}" in operation.path:
            # real workflows too (random names are all 404s): their own input checks meet generated input
            strategies += [
                operation.as_strategy(generation_mode=mode, path_parameters={"workflow": name})
                for name in WORKFLOWS
            ]
        for strategy in strategies:
            _exchange(client, strategy, auth, checks, EXAMPLES[operation.method.upper()])


def _exchange(
    client: TestClient, strategy: Any, auth: dict[str, str], checks: list[Any], examples: int
) -> None:
    @settings(
        max_examples=examples,
        deadline=None,
        database=None,  # nothing written under the working tree
        derandomize=True,
        phases=[Phase.explicit, Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(case=strategy)
    def exchange(case: schemathesis.Case) -> None:
        response = _send(client, case, auth)
        case.validate_response(response, checks=checks, headers=auth)

    exchange()
