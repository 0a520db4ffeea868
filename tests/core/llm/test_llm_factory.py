"""Building models and chains from settings: keys from config or environment, deterministic-mode
fallback when nothing is configured, spec parsing, and per-role tiers."""

from __future__ import annotations

import pytest
from llm_kit import Sleeps, simple_request

from findesk.core.config import LlmSettings, load_settings
from findesk.core.llm.factory import chat_model, model_chain
from findesk.core.result import Err, ErrorCode, Ok
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply, FakeStatus

# The SDK warns that claude-sonnet-4-5 nears end-of-life; irrelevant to what these tests check.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")


def test_missing_key_is_not_configured_and_says_how_to_set_it() -> None:
    result = chat_model("anthropic:claude-sonnet-4-5", LlmSettings())

    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert "FINDESK_LLM__ANTHROPIC_API_KEY" in result.reason and "ANTHROPIC_API_KEY" in result.reason
    openai = chat_model("openai:gpt-4.1", LlmSettings())
    assert isinstance(openai, Err) and "OPENAI_API_KEY" in openai.reason


def test_chain_without_any_key_says_it_runs_deterministically() -> None:
    result = model_chain(LlmSettings(), "mid")

    assert isinstance(result, Err) and result.code is ErrorCode.NOT_CONFIGURED
    assert "mid tier" in result.reason and "deterministic mode" in result.reason
    assert "ANTHROPIC_API_KEY" in result.reason and "OPENAI_API_KEY" in result.reason


async def test_key_from_the_environment_is_used_and_unkeyed_models_are_skipped(
    server: FakeProviderServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-from-env")
    server.script("claude-sonnet-5-5", FakeReply(text="hello"))
    llm = LlmSettings(anthropic_base_url=server.anthropic_base_url)

    chain = model_chain(llm, "mid", sleep=Sleeps()).unwrap()
    reply = await chain.complete(simple_request())
    await chain.aclose()

    assert chain.label == "anthropic:claude-sonnet-5-5"  # openai:gpt-5.4 has no key, so it is left out
    assert isinstance(reply, Ok) and reply.value.response.text == "hello"
    headers = server.requests[0].headers
    assert "sk-ant-from-env" in headers.get("x-api-key", "") + headers.get("authorization", "")


def test_the_documented_findesk_variable_sets_the_key(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FINDESK_LLM__OPENAI_API_KEY", "sk-findesk")

    llm = load_settings().unwrap().llm

    assert isinstance(chat_model("openai:gpt-4.1", llm), Ok)


@pytest.mark.parametrize("spec", ["claude-sonnet-4-5", ":gpt-4.1", "anthropic:", "  ", "anthropic: "])
def test_malformed_spec_is_invalid_input(spec: str) -> None:
    result = chat_model(spec, LlmSettings(anthropic_api_key="k"))

    assert isinstance(result, Err) and result.code is ErrorCode.INVALID_INPUT
    assert "provider:model" in result.reason


def test_unknown_provider_lists_the_known_ones() -> None:
    llm = LlmSettings(servers={"ollama": {"base_url": "http://127.0.0.1:11434/v1"}})

    result = chat_model("mistral:large", llm)

    assert isinstance(result, Err) and result.code is ErrorCode.INVALID_INPUT
    assert "anthropic, openai, ollama" in result.reason


def test_model_name_may_contain_colons() -> None:
    llm = LlmSettings(servers={"ollama": {"base_url": "http://127.0.0.1:11434/v1"}})

    built = chat_model("ollama:llama3.1:8b", llm)

    assert isinstance(built, Ok)
    assert (built.value.provider, built.value.model) == ("ollama", "llama3.1:8b")


def test_a_bad_spec_in_a_tier_is_reported_not_skipped() -> None:
    llm = LlmSettings(anthropic_api_key="k", tiers={"quick": ["anthropic:claude-haiku-4-5", "nonsense"]})

    result = model_chain(llm, "quick")

    assert isinstance(result, Err) and result.code is ErrorCode.INVALID_INPUT


def test_role_tier_override_picks_the_role_s_tier() -> None:
    llm = LlmSettings(anthropic_api_key="k", role_tiers={"skeptic": "deep"})

    overridden = model_chain(llm, "quick", role="skeptic").unwrap()
    other_role = model_chain(llm, "quick", role="news").unwrap()

    assert overridden.label == "anthropic:claude-opus-5-5 → anthropic:claude-sonnet-5-5"
    assert other_role.label == "anthropic:claude-haiku-4-5"


async def test_chain_uses_the_retry_settings(server: FakeProviderServer) -> None:
    sleeps = Sleeps()
    server.script("claude-haiku-4-5", FakeStatus(500), FakeStatus(500), FakeReply(text="never reached"))
    llm = LlmSettings(
        anthropic_api_key="k",
        anthropic_base_url=server.anthropic_base_url,
        tiers={"quick": ["anthropic:claude-haiku-4-5"]},
        max_retries=1,
        backoff_base_s=0.25,
    )
    chain = model_chain(llm, "quick", sleep=sleeps).unwrap()

    result = await chain.complete(simple_request())
    await chain.aclose()

    assert isinstance(result, Err) and result.code is ErrorCode.UNAVAILABLE
    assert sleeps.delays == [0.25]
    assert server.pending("claude-haiku-4-5") == 1
