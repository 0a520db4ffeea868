"""The OpenAI adapter (OpenAI itself and compatible servers) against the fake server through the real
SDK: wire format, tool-call parsing, usage with cached tokens, and error mapping."""

from __future__ import annotations

import json
from typing import Any

import pytest
from llm_kit import simple_request, tool_conversation

from findesk.core.llm.openai_provider import OpenAIChatModel
from findesk.core.llm.types import ModelRequest, ModelResponse
from findesk.core.result import Err, ErrorCode, Ok, Result
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply, FakeStatus

MODEL = "gpt-4.1"


async def _complete(
    server: FakeProviderServer,
    request: ModelRequest,
    *,
    model: str = MODEL,
    provider: str = "openai",
    api_key: str | None = "sk-test",
    timeout_s: float = 10.0,
) -> Result[ModelResponse]:
    chat = OpenAIChatModel(
        model, api_key, base_url=server.openai_base_url, provider=provider, timeout_s=timeout_s
    )
    try:
        return await chat.complete(request)
    finally:
        await chat.aclose()


async def test_conversation_maps_to_chat_completions_messages(server: FakeProviderServer) -> None:
    server.script(MODEL, FakeReply(text="ok"))

    await _complete(server, tool_conversation())

    body = server.requests[0].body
    messages = body["messages"]
    assert messages[0] == {"role": "system", "content": "You are a careful analyst."}
    assert messages[1] == {"role": "user", "content": "How is AAPL doing?"}
    assistant = messages[2]
    assert assistant["content"] == "Let me look at the quote and the risk factors."
    assert [(c["id"], c["type"], c["function"]["name"]) for c in assistant["tool_calls"]] == [
        ("call_q", "function", "get_quote"),
        ("call_f", "function", "get_filing"),
    ]
    assert json.loads(assistant["tool_calls"][1]["function"]["arguments"]) == {"ticker": "AAPL", "item": "1A"}
    assert messages[3:] == [
        {"role": "tool", "tool_call_id": "call_q", "content": '{"price": 231.5}'},
        {"role": "tool", "tool_call_id": "call_f", "content": "ERROR: not_found: no 10-K"},
    ]
    assert body["tools"][0] == {
        "type": "function",
        "function": {
            "name": "get_quote",
            "description": "Latest quote for a US ticker.",
            "parameters": {
                "type": "object",
                "properties": {"ticker": {"type": "string"}},
                "required": ["ticker"],
            },
        },
    }
    assert body["parallel_tool_calls"] is True
    assert body["max_completion_tokens"] == 4096 and "max_tokens" not in body


async def test_assistant_turn_without_text_sends_null_content(server: FakeProviderServer) -> None:
    request = tool_conversation()
    turn = request.messages[1].model_copy(update={"text": ""})
    server.script(MODEL, FakeReply(text="ok"))

    await _complete(
        server, request.model_copy(update={"messages": (request.messages[0], turn, request.messages[2])})
    )

    assert server.requests[0].body["messages"][2]["content"] is None


async def test_compatible_server_gets_max_tokens_no_parallel_flag_and_a_placeholder_key(
    server: FakeProviderServer,
) -> None:
    server.script("llama3.1:8b", FakeReply(text="local answer"))

    result = await _complete(
        server, tool_conversation(), model="llama3.1:8b", provider="ollama", api_key=None
    )

    assert isinstance(result, Ok)
    assert result.value.provider == "ollama" and result.value.text == "local answer"
    recorded = server.requests[0]
    assert recorded.body["max_tokens"] == 4096
    assert "max_completion_tokens" not in recorded.body and "parallel_tool_calls" not in recorded.body
    assert recorded.headers["authorization"] == "Bearer not-needed"


async def test_tool_calls_are_parsed_and_bad_arguments_are_kept_for_the_tool_layer(
    server: FakeProviderServer,
) -> None:
    server.script(
        MODEL,
        FakeReply(
            tool_calls=[("call_1", "get_quote", {"ticker": "NVDA"}), ("call_2", "get_filing", '{"ticker": ')]
        ),
    )

    result = await _complete(server, simple_request())

    assert isinstance(result, Ok)
    first, second = result.value.tool_calls
    assert (first.id, first.name, first.arguments) == ("call_1", "get_quote", {"ticker": "NVDA"})
    assert second.arguments == {"_unparsed_arguments": '{"ticker": '}
    assert result.value.text == "" and result.value.stop_reason == "tool_calls"


async def test_usage_reports_cached_prompt_tokens(server: FakeProviderServer) -> None:
    server.script(
        MODEL, FakeReply(text="ok", input_tokens=10_000, output_tokens=1_000, cache_read_tokens=8_000)
    )

    result = await _complete(server, simple_request())

    assert isinstance(result, Ok)
    usage = result.value.usage
    assert (usage.input_tokens, usage.output_tokens, usage.cache_read_tokens) == (10_000, 1_000, 8_000)


@pytest.mark.parametrize(
    ("scripted", "code", "details", "in_reason"),
    [
        (FakeStatus(429, retry_after=3), ErrorCode.RATE_LIMITED, {"status": 429, "retry_after": 3.0}, "429"),
        (
            FakeStatus(503, body={"error": {"message": "overloaded"}}),
            ErrorCode.UNAVAILABLE,
            {"status": 503},
            "503",
        ),
        (FakeStatus(500), ErrorCode.UNAVAILABLE, {"status": 500}, "500"),
        (FakeStatus(401), ErrorCode.NOT_CONFIGURED, {"status": 401}, "the OpenAI API key was rejected"),
        (
            FakeStatus(
                400, body={"error": {"message": "Invalid schema for function", "type": "invalid_request"}}
            ),
            ErrorCode.INVALID_INPUT,
            {"status": 400},
            "Invalid schema for function",
        ),
        (
            FakeStatus(
                429, body={"error": {"message": "You exceeded your quota", "code": "insufficient_quota"}}
            ),
            ErrorCode.NOT_CONFIGURED,
            {"status": 429},
            "no quota left",
        ),
        (FakeStatus(200, body="not json at all"), ErrorCode.BAD_RESPONSE, {}, "not JSON"),
        (FakeStatus(200, body={"id": "x", "choices": []}), ErrorCode.BAD_RESPONSE, {}, "no choices"),
    ],
)
async def test_provider_failures_become_typed_errors(
    server: FakeProviderServer, scripted: FakeStatus, code: ErrorCode, details: dict[str, Any], in_reason: str
) -> None:
    server.script(MODEL, scripted)

    result = await _complete(server, simple_request())

    assert isinstance(result, Err)
    assert (result.code, result.details, result.source) == (code, details, f"openai:{MODEL}")
    assert in_reason in result.reason
    assert len(server.requests) == 1


async def test_compatible_server_errors_name_the_server(server: FakeProviderServer) -> None:
    server.script("qwen", FakeStatus(401))

    result = await _complete(server, simple_request(), model="qwen", provider="vllm")

    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert result.source == "vllm:qwen"
    assert result.reason.startswith("the vllm server API key was rejected (HTTP 401")


async def test_slow_answer_is_a_timeout(server: FakeProviderServer) -> None:
    server.script(MODEL, FakeReply(text="late", delay_s=5))

    result = await _complete(server, simple_request(), timeout_s=0.3)

    assert isinstance(result, Err) and result.code is ErrorCode.TIMEOUT


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
