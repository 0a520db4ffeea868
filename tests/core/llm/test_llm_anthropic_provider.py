"""The Anthropic adapter against the fake server through the real SDK: wire format, prompt-cache
breakpoints, usage, and how every kind of provider failure becomes an ``Err``."""

from __future__ import annotations

import socket
from typing import Any

import pytest
from llm_kit import simple_request, tool_conversation

from findesk.core.llm.anthropic_provider import AnthropicModel
from findesk.core.llm.types import (
    ModelRequest,
    ModelResponse,
    ToolCall,
    ToolResultPart,
    ToolResults,
    UserText,
)
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply, FakeStatus

# The SDK warns that claude-sonnet-4-5 nears end-of-life; irrelevant to what these tests check.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

MODEL = "claude-sonnet-4-5"


async def _complete(
    server: FakeProviderServer, request: ModelRequest, *, timeout_s: float = 10.0
) -> Result[ModelResponse]:
    model = AnthropicModel(MODEL, "sk-ant-test", base_url=server.anthropic_base_url, timeout_s=timeout_s)
    try:
        return await model.complete(request)
    finally:
        await model.aclose()


async def test_system_prompt_and_last_tool_carry_the_cache_breakpoint(server: FakeProviderServer) -> None:
    server.script(MODEL, FakeReply(text="AAPL trades at 231.5."))

    result = await _complete(server, tool_conversation())

    assert isinstance(result, Ok)
    body = server.requests[0].body
    assert body["system"] == [
        {"type": "text", "text": "You are a careful analyst.", "cache_control": {"type": "ephemeral"}}
    ]
    first, last = body["tools"]
    assert "cache_control" not in first
    assert last["cache_control"] == {"type": "ephemeral"}
    assert last["name"] == "get_filing" and last["input_schema"]["properties"]["item"] == {"type": "string"}


async def test_parallel_tool_turn_maps_to_tool_use_and_one_tool_result_message(
    server: FakeProviderServer,
) -> None:
    server.script(MODEL, FakeReply(text="done"))

    await _complete(server, tool_conversation())

    messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert messages[1]["content"] == [
        {"type": "text", "text": "Let me look at the quote and the risk factors."},
        {"type": "tool_use", "id": "call_q", "name": "get_quote", "input": {"ticker": "AAPL"}},
        {"type": "tool_use", "id": "call_f", "name": "get_filing", "input": {"ticker": "AAPL", "item": "1A"}},
    ]
    assert messages[2]["content"] == [
        {"type": "tool_result", "tool_use_id": "call_q", "content": '{"price": 231.5}', "is_error": False},
        {"type": "tool_result", "tool_use_id": "call_f", "content": "not_found: no 10-K", "is_error": True},
    ]


async def test_reply_with_two_tool_calls_is_read_back(server: FakeProviderServer) -> None:
    server.script(
        MODEL,
        FakeReply(
            text="Checking both.",
            tool_calls=[("toolu_a", "get_quote", {"ticker": "MSFT"}), ("get_filing", {"ticker": "MSFT"})],
        ),
    )

    result = await _complete(server, simple_request())

    assert isinstance(result, Ok)
    response = result.value
    assert response.text == "Checking both."
    assert response.stop_reason == "tool_use"
    assert response.tool_calls[0] == ToolCall(id="toolu_a", name="get_quote", arguments={"ticker": "MSFT"})
    assert response.tool_calls[1].name == "get_filing"
    assert response.tool_calls[1].arguments == {"ticker": "MSFT"}
    assert response.tool_calls[1].id  # the server made one up; the runtime needs it for the result
    assert response.provider == "anthropic" and response.model == MODEL
    assert response.latency_ms > 0


async def test_usage_counts_cached_input_in_the_total(server: FakeProviderServer) -> None:
    # On the wire Anthropic reports input_tokens=500 (uncached only); TokenUsage wants the total.
    server.script(
        MODEL, FakeReply(text="ok", input_tokens=12_000, cache_read_tokens=10_000, cache_write_tokens=1_500)
    )

    result = await _complete(server, simple_request())

    assert isinstance(result, Ok)
    usage = result.value.usage
    assert (usage.input_tokens, usage.cache_read_tokens, usage.cache_write_tokens) == (12_000, 10_000, 1_500)


async def test_empty_system_prompt_and_temperature_are_not_sent(server: FakeProviderServer) -> None:
    # API version 2026-10-21 rejects any sampling parameter, so a temperature would turn into a 400.
    server.script(MODEL, FakeReply(text="ok"))

    result = await _complete(
        server, ModelRequest(system="", messages=(UserText(text="hi"),), temperature=0.2)
    )

    assert isinstance(result, Ok)
    body = server.requests[0].body
    assert "system" not in body and "tools" not in body and "temperature" not in body


@pytest.mark.parametrize(
    ("scripted", "code", "details", "in_reason"),
    [
        (FakeStatus(429, retry_after=7), ErrorCode.RATE_LIMITED, {"status": 429, "retry_after": 7.0}, "429"),
        (FakeStatus(529), ErrorCode.RATE_LIMITED, {"status": 529}, "overloaded"),
        (
            FakeStatus(503, body={"type": "error", "error": {"type": "overloaded_error", "message": "busy"}}),
            ErrorCode.RATE_LIMITED,
            {"status": 503},
            "busy",
        ),
        (FakeStatus(500), ErrorCode.UNAVAILABLE, {"status": 500}, "500"),
        (FakeStatus(401), ErrorCode.NOT_CONFIGURED, {"status": 401}, "the Anthropic API key was rejected"),
        (FakeStatus(403), ErrorCode.NOT_CONFIGURED, {"status": 403}, "the Anthropic API key was rejected"),
        (
            FakeStatus(
                400,
                body={
                    "type": "error",
                    "error": {"type": "invalid_request_error", "message": "max_tokens: too big"},
                },
            ),
            ErrorCode.INVALID_INPUT,
            {"status": 400},
            "max_tokens: too big",
        ),
        (FakeStatus(200, body="<html>oops</html>"), ErrorCode.BAD_RESPONSE, {}, "not JSON"),
        (FakeStatus(200, body={"unexpected": True}), ErrorCode.BAD_RESPONSE, {}, "could not read"),
    ],
)
async def test_provider_failures_become_typed_errors(
    server: FakeProviderServer, scripted: FakeStatus, code: ErrorCode, details: dict[str, Any], in_reason: str
) -> None:
    server.script(MODEL, scripted)

    result = await _complete(server, simple_request())

    assert isinstance(result, Err)
    assert result.code is code
    assert result.details == details
    assert in_reason in result.reason
    assert result.source == f"anthropic:{MODEL}"
    assert len(server.requests) == 1  # the SDK itself never retries


async def test_slow_answer_is_a_timeout(server: FakeProviderServer) -> None:
    server.script(MODEL, FakeReply(text="late", delay_s=5))

    result = await _complete(server, simple_request(), timeout_s=0.3)

    assert isinstance(result, Err) and result.code is ErrorCode.TIMEOUT


async def test_unreachable_server_is_unavailable() -> None:
    with socket.socket() as probe:  # a port that was free a moment ago refuses connections
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    model = AnthropicModel(MODEL, "sk-ant-test", base_url=f"http://127.0.0.1:{port}", timeout_s=5)

    result = await model.complete(simple_request())
    await model.aclose()

    assert isinstance(result, Err) and result.code is ErrorCode.UNAVAILABLE
    assert "could not reach Anthropic" in result.reason


async def test_local_server_is_reached_even_with_a_proxy_in_the_environment(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    server.script(MODEL, FakeReply(text="direct"))

    result = await _complete(server, simple_request())

    assert isinstance(result, Ok) and result.value.text == "direct"


async def test_thinking_blocks_are_sent_back_unchanged_in_the_next_turn(server: FakeProviderServer) -> None:
    # Models with adaptive thinking return thinking blocks that must be replayed verbatim in a tool loop.
    thinking = {"type": "thinking", "thinking": "The quote first.", "signature": "sig-123"}
    tool_use = {"type": "tool_use", "id": "toolu_1", "name": "get_quote", "input": {"ticker": "AAPL"}}
    message = {
        "id": "msg_1",
        "type": "message",
        "role": "assistant",
        "model": MODEL,
        "content": [thinking, tool_use],
        "stop_reason": "tool_use",
        "stop_sequence": None,
        "usage": {"input_tokens": 10, "output_tokens": 5},
    }
    server.script(MODEL, FakeStatus(200, body=message), FakeReply(text="AAPL closed at 232.14."))
    model = AnthropicModel(MODEL, "sk-ant-test", base_url=server.anthropic_base_url)
    try:
        first = (await model.complete(simple_request())).unwrap()
        assert [c.name for c in first.tool_calls] == ["get_quote"]
        assert first.native[0] == thinking
        turn = first.as_turn()
        follow_up = ModelRequest(
            system="s",
            messages=(
                *simple_request().messages,
                turn,
                ToolResults(results=(ToolResultPart(call_id="toolu_1", name="get_quote", content="232.14"),)),
            ),
        )
        assert isinstance(await model.complete(follow_up), Ok)
    finally:
        await model.aclose()
    replayed = server.requests[1].body["messages"][1]
    assert replayed == {"role": "assistant", "content": [thinking, tool_use]}


def test_a_turn_from_another_provider_is_not_replayed_natively() -> None:
    from findesk.core.llm.anthropic_provider import to_anthropic_params
    from findesk.core.llm.types import AssistantTurn

    turn = AssistantTurn(text="hi", native=({"type": "reasoning", "x": 1},), native_provider="openai")
    params = to_anthropic_params(MODEL, ModelRequest(system="s", messages=(UserText(text="q"), turn)))
    assert params["messages"][1]["content"] == [{"type": "text", "text": "hi"}]
