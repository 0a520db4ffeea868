"""The whole model path over the wire: runtime → model chain → real SDK clients → fake provider
server. Anthropic answers 429 until retries run out; the OpenAI fallback writes the report."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from runtime_kit import Harness, Q, Report, make_role

from findesk.core.config import LlmSettings
from findesk.core.llm.factory import model_chain
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply, FakeStatus

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


@pytest.fixture
def server() -> Iterator[FakeProviderServer]:
    with FakeProviderServer() as running:
        yield running


async def _no_sleep(seconds: float) -> None:
    pass


async def test_429_from_anthropic_is_answered_by_the_openai_fallback(
    server: FakeProviderServer, harness: Harness
) -> None:
    llm = LlmSettings(
        anthropic_api_key="sk-ant-test",
        openai_api_key="sk-openai-test",
        anthropic_base_url=server.anthropic_base_url,
        openai_base_url=server.openai_base_url,
        tiers={"quick": ["anthropic:claude-haiku-4-5", "openai:gpt-5.4-mini"]},
        max_retries=1,
    )
    chain = model_chain(llm, "quick", sleep=_no_sleep).unwrap()
    report = Report(symbol="AAA", price=101.5, volume=12345, summary="AAA traded at 101.5 (fallback model).")
    server.script("claude-haiku-4-5", FakeStatus(429, retry_after=1), FakeStatus(429))
    server.script(
        "gpt-5.4-mini",
        FakeReply(
            tool_calls=[("submit_report", report.model_dump(mode="json"))],
            input_tokens=2_000,
            output_tokens=100,
            cache_read_tokens=1_000,
        ),
    )
    runtime = harness.runtime(chain)
    outcome = await runtime.run(make_role(), Q(symbol="AAA"), harness.tracer)
    await chain.aclose()

    assert outcome.output == report and outcome.mode == "model" and not outcome.fell_back
    calls = [
        (e.data.provider, e.data.model, e.data.ok, e.data.error_code)  # type: ignore[union-attr]
        for e in harness.sink.of_type("llm_call")
    ]
    assert calls == [
        ("anthropic", "claude-haiku-4-5", False, "rate_limited"),
        ("anthropic", "claude-haiku-4-5", False, "rate_limited"),
        ("openai", "gpt-5.4-mini", True, None),
    ]
    # Anthropic was asked with its prompt-cache breakpoints on the system prompt and the last tool
    sent = server.requests_for("claude-haiku-4-5")[0].body
    assert sent["system"][0]["cache_control"] == {"type": "ephemeral"}
    assert sent["tools"][-1]["name"] == "submit_report" and sent["tools"][-1]["cache_control"]
    # the pre-fetched playbook results reached the fallback model as tool messages
    openai_messages = server.requests_for("gpt-5.4-mini")[0].body["messages"]
    assert [m["role"] for m in openai_messages][:2] == ["system", "user"]
    assert sum(1 for m in openai_messages if m["role"] == "tool") == 3
    # usage and dollars from the response: 1,000 uncached × $0.75 + 1,000 cached × $0.075 + 100 × $4.50 per M
    ok_call = harness.sink.of_type("llm_call")[-1].data
    assert (ok_call.input_tokens, ok_call.cached_tokens, ok_call.output_tokens) == (2_000, 1_000, 100)  # type: ignore[union-attr]
    assert ok_call.cost_usd == pytest.approx(0.00075 + 0.000075 + 0.00045)  # type: ignore[union-attr]
    assert outcome.cost_usd == pytest.approx(0.001275)
