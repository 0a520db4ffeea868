"""The fake provider server itself: a forgotten script fails loudly, replies are consumed in order
per model, and the server can be started and stopped without a ``with`` block."""

from __future__ import annotations

from llm_kit import simple_request

from findesk.core.llm.anthropic_provider import AnthropicModel
from findesk.core.llm.openai_provider import OpenAIChatModel
from findesk.core.result import Err, ErrorCode, Ok
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply


async def test_unscripted_model_gets_a_500_that_names_it(server: FakeProviderServer) -> None:
    model = OpenAIChatModel("gpt-forgotten", "sk", base_url=server.openai_base_url)

    result = await model.complete(simple_request())
    await model.aclose()

    assert isinstance(result, Err) and result.code is ErrorCode.UNAVAILABLE
    assert "no scripted reply for model 'gpt-forgotten'" in result.reason


async def test_replies_are_served_in_order_per_model_in_either_wire_format() -> None:
    server = FakeProviderServer().start()
    try:
        server.script("claude-haiku-4-5", FakeReply(text="one"), FakeReply(text="two"))
        server.script("gpt-4.1-mini", FakeReply(text="other model"))
        anthropic = AnthropicModel("claude-haiku-4-5", "k", base_url=server.anthropic_base_url)
        openai = OpenAIChatModel("gpt-4.1-mini", "k", base_url=server.openai_base_url)

        texts = []
        for model in (anthropic, openai, anthropic):
            result = await model.complete(simple_request())
            assert isinstance(result, Ok)
            texts.append(result.value.text)
        await anthropic.aclose()
        await openai.aclose()
    finally:
        server.stop()

    assert texts == ["one", "other model", "two"]
    assert [(r.path, r.model) for r in server.requests] == [
        ("/v1/messages", "claude-haiku-4-5"),
        ("/v1/chat/completions", "gpt-4.1-mini"),
        ("/v1/messages", "claude-haiku-4-5"),
    ]
    assert server.pending() == 0
