"""The retry/fallback chain over real adapters and the fake server: backoff waits, fallbacks, the
per-attempt report, cost, and the error when every model fails."""

from __future__ import annotations

import pytest
from llm_kit import Sleeps, simple_request

from findesk.core.llm.anthropic_provider import AnthropicModel
from findesk.core.llm.chain import Attempt, ModelChain
from findesk.core.llm.openai_provider import OpenAIChatModel
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ChatModel, ModelRequest, ModelResponse
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply, FakeStatus

# The SDK warns that claude-sonnet-4-5 nears end-of-life; irrelevant to what these tests check.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

PRIMARY = "claude-sonnet-4-5"
FALLBACK = "gpt-4.1"


def _chain(server: FakeProviderServer, sleeps: Sleeps, *, max_retries: int = 3) -> ModelChain:
    models: list[ChatModel] = [
        AnthropicModel(PRIMARY, "sk-ant-test", base_url=server.anthropic_base_url, timeout_s=10),
        OpenAIChatModel(FALLBACK, "sk-test", base_url=server.openai_base_url, timeout_s=10),
    ]
    return ModelChain(models, PriceTable(), max_retries=max_retries, sleep=sleeps)


def _steps(attempts: list[Attempt]) -> list[tuple[str, int, bool, str | None]]:
    return [(a.model, a.attempt, a.ok, a.error_code) for a in attempts]


def test_label_names_the_models_in_order(server: FakeProviderServer) -> None:
    assert _chain(server, Sleeps()).label == "anthropic:claude-sonnet-4-5 → openai:gpt-4.1"


async def test_rate_limit_is_retried_after_the_requested_wait(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(PRIMARY, FakeStatus(429, retry_after=7), FakeReply(text="second time lucky"))
    chain = _chain(server, sleeps)

    result = await chain.complete(simple_request())
    await chain.aclose()

    assert isinstance(result, Ok)
    assert result.value.response.text == "second time lucky"
    assert sleeps.delays == [7.0]
    assert _steps(list(result.value.attempts)) == [
        (PRIMARY, 1, False, "rate_limited"),
        (PRIMARY, 2, True, None),
    ]


async def test_backoff_doubles_and_is_capped(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(
        PRIMARY, FakeStatus(500), FakeStatus(500), FakeStatus(429, retry_after=600), FakeReply(text="ok")
    )
    models: list[ChatModel] = [AnthropicModel(PRIMARY, "k", base_url=server.anthropic_base_url, timeout_s=10)]
    chain = ModelChain(
        models, PriceTable(), max_retries=3, backoff_base_s=1.5, backoff_max_s=20, sleep=sleeps
    )

    result = await chain.complete(simple_request())
    await chain.aclose()

    assert isinstance(result, Ok)
    assert sleeps.delays == [1.5, 3.0, 20.0]  # a ten-minute retry-after is capped too


async def test_overloaded_primary_falls_back_after_all_retries(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(PRIMARY, *[FakeStatus(529)] * 4)
    server.script(FALLBACK, FakeReply(text="from the fallback", input_tokens=1_000, output_tokens=100))
    chain = _chain(server, sleeps)
    seen: list[Attempt] = []

    result = await chain.complete(simple_request(), on_attempt=seen.append)
    await chain.aclose()

    assert isinstance(result, Ok)
    reply = result.value
    assert reply.response.provider == "openai" and reply.response.text == "from the fallback"
    assert _steps(seen) == [
        (PRIMARY, 1, False, "rate_limited"),
        (PRIMARY, 2, False, "rate_limited"),
        (PRIMARY, 3, False, "rate_limited"),
        (PRIMARY, 4, False, "rate_limited"),
        (FALLBACK, 1, True, None),
    ]
    assert tuple(seen) == reply.attempts
    assert sleeps.delays == [1.0, 2.0, 4.0]  # no wait before switching to the fallback
    # gpt-4.1: 1,000 input at $2/M + 100 output at $8/M
    assert reply.cost_usd == pytest.approx(0.0028)
    assert seen[-1].cost_usd == pytest.approx(0.0028)
    assert all(a.cost_usd == 0 and a.usage.input_tokens == 0 for a in seen[:-1])
    assert server.pending() == 0


async def test_rejected_key_skips_retries_and_goes_to_the_fallback(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(PRIMARY, FakeStatus(401))
    server.script(FALLBACK, FakeReply(text="fallback"))
    chain = _chain(server, sleeps)
    seen: list[Attempt] = []

    result = await chain.complete(simple_request(), on_attempt=seen.append)
    await chain.aclose()

    assert isinstance(result, Ok) and result.value.response.text == "fallback"
    assert _steps(seen) == [(PRIMARY, 1, False, "not_configured"), (FALLBACK, 1, True, None)]
    assert "API key was rejected" in (seen[0].error or "")
    assert sleeps.delays == []
    assert len(server.requests_for(PRIMARY)) == 1


async def test_timeout_is_retried_then_reported(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(PRIMARY, FakeReply(text="late", delay_s=5), FakeReply(text="late again", delay_s=5))
    models: list[ChatModel] = [
        AnthropicModel(PRIMARY, "k", base_url=server.anthropic_base_url, timeout_s=0.2)
    ]
    chain = ModelChain(models, PriceTable(), max_retries=1, sleep=sleeps)

    result = await chain.complete(simple_request())
    await chain.aclose()

    assert isinstance(result, Err) and result.code is ErrorCode.TIMEOUT
    assert sleeps.delays == [1.0]
    assert result.details["attempts"] == 2


async def test_when_every_model_fails_the_error_lists_each_one(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(PRIMARY, FakeStatus(400))
    server.script(FALLBACK, FakeStatus(500), FakeStatus(503))
    chain = _chain(server, sleeps, max_retries=1)

    result = await chain.complete(simple_request())
    await chain.aclose()

    assert isinstance(result, Err)
    assert result.code is ErrorCode.UNAVAILABLE  # the last model's error
    assert f"anthropic:{PRIMARY} → invalid_input" in result.reason
    assert f"openai:{FALLBACK} → unavailable" in result.reason and "503" in result.reason
    assert [e["code"] for e in result.details["errors"]] == ["invalid_input", "unavailable"]


class _Crashing:
    provider = "fake"
    model = "crashy"

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]:
        raise RuntimeError("adapter bug")

    async def aclose(self) -> None:
        raise RuntimeError("close bug")


async def test_a_crashing_adapter_is_unavailable_and_the_chain_moves_on(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script(FALLBACK, FakeReply(text="still answered"))
    models: list[ChatModel] = [
        _Crashing(),
        OpenAIChatModel(FALLBACK, "sk-test", base_url=server.openai_base_url, timeout_s=10),
    ]
    chain = ModelChain(models, PriceTable(), max_retries=1, sleep=sleeps)
    seen: list[Attempt] = []

    result = await chain.complete(simple_request(), on_attempt=seen.append)
    await chain.aclose()  # a model that fails to close does not stop the others from closing

    assert isinstance(result, Ok) and result.value.response.text == "still answered"
    assert _steps(seen) == [
        ("crashy", 1, False, "unavailable"),
        ("crashy", 2, False, "unavailable"),
        (FALLBACK, 1, True, None),
    ]
    assert "adapter bug" in (seen[0].error or "")
