"""Memory over HTTP: ``GET /v1/memory/facts`` lists what the research desk remembers about the
caller; ``DELETE /v1/memory/facts/{fact_id}`` and ``DELETE /v1/memory/facts`` forget it.

Rules:
- the user is the caller, never a request field: ``RunCaller.of_key``, the user an API key's research
  runs are bound to (``run_stream``): ``key:<id>``, or ``local`` for the local caller. Another key's
  fact is a 404 exactly like a fact that does not exist, and is never listed or deleted.
- a fact id that cannot be one (not 1 to 32 ASCII letters or digits) is that same 404, never looked up.
- reads count against the key's requests per minute, never its cost cap; so do deletions.
- one store per server (``ApiServices.memory``, opened with the key store, used from a thread): every
  read and write goes to the state database, so several server processes agree.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import TypeVar

from fastapi import APIRouter, Path, Request
from pydantic import BaseModel

from findesk.core.result import Err, Result
from findesk.interfaces.api.auth import authorize
from findesk.interfaces.api.errors import ApiError
from findesk.interfaces.api.schemas import ERRORS
from findesk.interfaces.api.services import ApiServices
from findesk.knowledge.memory.models import Fact
from findesk.knowledge.memory.store import MemoryStore
from findesk.workflows.spec import RunCaller

router = APIRouter(tags=["memory"])
T = TypeVar("T")
# the shape is documented, not enforced by FastAPI (a 400): an id of another shape is simply not found
FactId = Path(
    description="a fact's id, as GET /v1/memory/facts lists it",
    json_schema_extra={"pattern": "^[0-9a-f]{12}$"},
)


class FactsView(BaseModel):
    facts: list[Fact]


class Forgotten(BaseModel):
    forgotten: int
    fact: Fact | None = None


async def _caller_memory(request: Request, use: Callable[[MemoryStore, str], Result[T]]) -> T:
    services: ApiServices = request.app.state.services
    caller = await authorize(request, services, costly=False)
    user = RunCaller.of_key(caller.key).user

    assert services.memory is not None  # opened with the services
    done = await asyncio.to_thread(use, services.memory, user)
    if isinstance(done, Err):
        raise ApiError.of(done)
    return done.value


@router.get(
    "/v1/memory/facts",
    response_model=FactsView,
    responses=ERRORS,
    summary="What the research desk remembers about the caller (holdings, assets and themes followed)",
)
async def list_facts(request: Request) -> FactsView:
    facts = await _caller_memory(request, lambda store, user: store.facts(user))
    return FactsView(facts=facts)


@router.delete(
    "/v1/memory/facts/{fact_id}",
    response_model=Forgotten,
    responses=ERRORS,
    summary="Forget one of the caller's facts",
)
async def forget_fact(request: Request, fact_id: str = FactId) -> Forgotten:
    def forget(store: MemoryStore, user: str) -> Result[Fact]:
        return store.forget(user, fact_id)

    fact = await _caller_memory(request, forget)
    return Forgotten(forgotten=1, fact=fact)


@router.delete(
    "/v1/memory/facts",
    response_model=Forgotten,
    responses=ERRORS,
    summary="Forget every fact about the caller",
)
async def forget_all(request: Request) -> Forgotten:
    count = await _caller_memory(request, lambda store, user: store.forget_all(user))
    return Forgotten(forgotten=count)
