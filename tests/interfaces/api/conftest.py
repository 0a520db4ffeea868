"""The API in process: a FastAPI app on the real snapshot, driven through Starlette's TestClient.

Rules: one tool context on the snapshot for the session (the server keeps one per process too); every
test gets its own state database (audit log, keys, usage) under ``tmp_path``; ``make_api`` builds an
app with keys required or not, planted tools, fake models or other tiers.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import date
from pathlib import Path

import pytest
from api_kit import MakeApi
from fastapi.testclient import TestClient

from findesk.agents.runtime import ModelResolver
from findesk.core.config import ApiTier, Settings
from findesk.core.result import Err
from findesk.interfaces.api.app import create_app
from findesk.interfaces.api.services import ApiServices
from findesk.tools.base import ToolContext, ToolRegistry
from snapshot_kit import snapshot_tools

AS_OF = date(2025, 8, 29)


@pytest.fixture(scope="session")
def api_cache(snapshot_dir: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("api-cache")


@pytest.fixture(scope="session")
def api_tools_state(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The state folder of the tools' services (the movers mail folder): never the user's own."""
    return tmp_path_factory.mktemp("api-tools-state")


@pytest.fixture(scope="session")
def api_tools(snapshot_dir: Path, api_cache: Path, api_tools_state: Path) -> Iterator[ToolContext]:
    settings = Settings(snapshot_dir=snapshot_dir, cache_dir=api_cache, state_dir=api_tools_state, chains={})
    yield from snapshot_tools(settings, AS_OF)


@pytest.fixture
def api_settings(snapshot_dir: Path, api_cache: Path, tmp_path: Path) -> Settings:
    return Settings(
        snapshot_dir=snapshot_dir,
        cache_dir=api_cache,
        state_dir=tmp_path / "state",
        chains={},
        mode="snapshot",
    )


@pytest.fixture
def make_api(api_settings: Settings, api_tools: ToolContext) -> Iterator[MakeApi]:
    clients: list[TestClient] = []

    def make(
        *,
        require_keys: bool = False,
        tiers: dict[str, ApiTier] | None = None,
        registry: ToolRegistry | None = None,
        models: ModelResolver | None = None,
        workers: int = 0,
    ) -> TestClient:
        settings = api_settings
        if tiers is not None:
            settings = settings.model_copy(update={"api": settings.api.model_copy(update={"tiers": tiers})})
        services = ApiServices.open(
            settings,
            require_keys=require_keys,
            registry=registry,
            models=models,
            tools=api_tools,
            workers=workers,
        )
        assert not isinstance(services, Err), services
        client = TestClient(create_app(services.value), raise_server_exceptions=False)
        client.__enter__()  # runs the lifespan (services.started)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.__exit__(None, None, None)
