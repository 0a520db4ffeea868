"""Dollar cost of model calls: the built-in table, cache pricing, dated ids, config overrides, and
end-to-end accounting through the real adapters (figures worked out by hand in each test)."""

from __future__ import annotations

import pytest
from llm_kit import Sleeps, simple_request

from findesk.core.config import LlmSettings, ModelPrice
from findesk.core.llm.chain import ModelChain
from findesk.core.llm.factory import model_chain
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import TokenUsage
from findesk.core.result import Ok
from findesk.testing.fake_provider_server import FakeProviderServer, FakeReply

# The SDK warns that claude-sonnet-4-5 nears end-of-life; irrelevant to what these tests check.
pytestmark = pytest.mark.filterwarnings("ignore:The model .* is deprecated:DeprecationWarning")

MILLION_EACH = TokenUsage(input_tokens=1_000_000, output_tokens=1_000_000)


@pytest.mark.parametrize(
    ("provider", "model", "dollars"),
    [
        ("anthropic", "claude-opus-4-1", 90.0),
        ("anthropic", "claude-sonnet-4-5", 18.0),
        ("anthropic", "claude-haiku-4-5", 6.0),
        ("anthropic", "claude-3-5-haiku", 4.8),
        ("openai", "gpt-4.1", 10.0),
        ("openai", "gpt-4.1-mini", 2.0),
        ("openai", "gpt-5", 11.25),
    ],
)
def test_builtin_list_prices(provider: str, model: str, dollars: float) -> None:
    assert PriceTable().cost(provider, model, MILLION_EACH) == pytest.approx(dollars)


def test_anthropic_cache_reads_are_discounted_and_writes_surcharged() -> None:
    # sonnet-4-5 at $3/M input: 1,000 uncached = $0.003; 10,000 read at $0.30/M = $0.003;
    # 2,000 written at $3.75/M = $0.0075; 100 output at $15/M = $0.0015. Total $0.015.
    usage = TokenUsage(
        input_tokens=13_000, output_tokens=100, cache_read_tokens=10_000, cache_write_tokens=2_000
    )

    assert PriceTable().cost("anthropic", "claude-sonnet-4-5", usage) == pytest.approx(0.015)


def test_openai_cached_input_uses_the_cached_price() -> None:
    # gpt-4o-mini: 4,000 uncached at $0.15/M = $0.0006; 6,000 cached at $0.075/M = $0.00045.
    usage = TokenUsage(input_tokens=10_000, cache_read_tokens=6_000)

    assert PriceTable().cost("openai", "gpt-4o-mini", usage) == pytest.approx(0.00105)


@pytest.mark.parametrize(
    ("provider", "dated", "base"),
    [
        ("anthropic", "claude-sonnet-4-5-20250929", "claude-sonnet-4-5"),
        ("anthropic", "claude-sonnet-4-20250514", "claude-sonnet-4"),
        ("anthropic", "claude-3-5-haiku-20241022", "claude-3-5-haiku"),
        ("openai", "gpt-4.1-mini-2025-04-14", "gpt-4.1-mini"),
        ("openai", "gpt-5-mini-2025-08-07", "gpt-5-mini"),
    ],
)
def test_dated_model_id_is_priced_like_its_base_name(provider: str, dated: str, base: str) -> None:
    table = PriceTable()

    assert table.price(provider, dated) == table.price(provider, base)
    assert table.price(provider, dated) is not None


@pytest.mark.parametrize(
    ("provider", "model"),
    [
        ("anthropic", "claude-unknown-9"),
        ("openai", "gpt-4.1x"),  # a prefix only counts up to a separator
        ("openai", "claude-sonnet-4-5"),  # prices belong to their provider
        ("ollama", "llama3.1:8b"),  # user servers are free unless priced in the config
    ],
)
def test_unknown_or_self_hosted_model_costs_nothing(provider: str, model: str) -> None:
    table = PriceTable()

    assert table.price(provider, model) is None
    assert table.cost(provider, model, MILLION_EACH) == 0.0


def test_overrides_beat_the_table_and_the_qualified_key_beats_the_plain_one() -> None:
    table = PriceTable(
        {
            "claude-sonnet-4-5": ModelPrice(input=1.0, output=2.0),
            "anthropic:claude-sonnet-4-5": ModelPrice(input=10.0, output=20.0),
            "gpt-4.1": ModelPrice(input=1.0, output=1.0),
            "ollama:llama3.1": ModelPrice(input=0.5, output=0.5),
        }
    )

    assert table.cost("anthropic", "claude-sonnet-4-5-20250929", MILLION_EACH) == pytest.approx(30.0)
    assert table.cost("openai", "gpt-4.1", MILLION_EACH) == pytest.approx(2.0)
    # the built-in gpt-4.1-mini is more specific than the gpt-4.1 override, so it still applies
    assert table.cost("openai", "gpt-4.1-mini", MILLION_EACH) == pytest.approx(2.0)
    assert table.cost("ollama", "llama3.1:8b", MILLION_EACH) == pytest.approx(1.0)


def test_override_without_cache_prices_gets_the_provider_defaults() -> None:
    price = PriceTable({"claude-haiku-4-5": ModelPrice(input=2.0, output=10.0)}).price(
        "anthropic", "claude-haiku-4-5"
    )

    assert price == ModelPrice(input=2.0, output=10.0, cache_read=0.2, cache_write=2.5)
    openai = PriceTable({"gpt-4o": ModelPrice(input=2.0, output=4.0)}).price("openai", "gpt-4o")
    assert openai == ModelPrice(input=2.0, output=4.0, cache_read=2.0, cache_write=2.0)


async def test_anthropic_call_with_cache_tokens_costs_the_hand_computed_amount(
    server: FakeProviderServer,
) -> None:
    # 12,000 input of which 10,000 cache reads and 1,500 cache writes, 500 output, sonnet-4-5 ($3/$15):
    # 500 uncached × $3/M = $0.0015; 10,000 × $0.30/M = $0.003; 1,500 × $3.75/M = $0.005625;
    # 500 output × $15/M = $0.0075. Total $0.017625.
    dated = "claude-sonnet-4-5-20250929"
    server.script(
        dated,
        FakeReply(
            text="ok",
            input_tokens=12_000,
            output_tokens=500,
            cache_read_tokens=10_000,
            cache_write_tokens=1_500,
        ),
    )
    llm = LlmSettings(
        anthropic_api_key="sk-ant",
        anthropic_base_url=server.anthropic_base_url,
        tiers={"mid": [f"anthropic:{dated}"]},
    )
    chain = model_chain(llm, "mid", sleep=Sleeps()).unwrap()

    reply = (await chain.complete(simple_request())).unwrap()
    await chain.aclose()

    assert reply.cost_usd == pytest.approx(0.017625)
    assert reply.attempts[0].usage == TokenUsage(
        input_tokens=12_000, output_tokens=500, cache_read_tokens=10_000, cache_write_tokens=1_500
    )


async def test_openai_call_with_cached_tokens_costs_the_hand_computed_amount(
    server: FakeProviderServer,
) -> None:
    # gpt-4.1 ($2 in, $0.50 cached, $8 out): 2,000 × $2/M = $0.004; 8,000 × $0.5/M = $0.004;
    # 1,000 × $8/M = $0.008. Total $0.016.
    server.script(
        "gpt-4.1", FakeReply(text="ok", input_tokens=10_000, output_tokens=1_000, cache_read_tokens=8_000)
    )
    llm = LlmSettings(
        openai_api_key="sk", openai_base_url=server.openai_base_url, tiers={"mid": ["openai:gpt-4.1"]}
    )
    chain = model_chain(llm, "mid", sleep=Sleeps()).unwrap()

    reply = (await chain.complete(simple_request())).unwrap()
    await chain.aclose()

    assert reply.cost_usd == pytest.approx(0.016)


async def test_price_override_in_the_config_changes_what_a_call_costs(server: FakeProviderServer) -> None:
    server.script("gpt-4.1", FakeReply(text="ok", input_tokens=1_000_000, output_tokens=0))
    llm = LlmSettings(
        openai_api_key="sk",
        openai_base_url=server.openai_base_url,
        tiers={"quick": ["openai:gpt-4.1"]},
        prices={"openai:gpt-4.1": {"input": 0.5, "output": 1.0}},
    )
    chain = model_chain(llm, "quick", sleep=Sleeps()).unwrap()

    reply = (await chain.complete(simple_request())).unwrap()
    await chain.aclose()

    assert reply.cost_usd == pytest.approx(0.5)  # the built-in table would say $2.00


async def test_self_hosted_server_answers_and_costs_nothing(server: FakeProviderServer) -> None:
    server.script("llama3.1:8b", FakeReply(text="local", input_tokens=50_000, output_tokens=5_000))
    llm = LlmSettings(
        servers={"ollama": {"base_url": server.openai_base_url}},
        tiers={"quick": ["ollama:llama3.1:8b"]},
    )
    built = model_chain(llm, "quick", sleep=Sleeps())
    assert isinstance(built, Ok)
    chain: ModelChain = built.value

    reply = (await chain.complete(simple_request())).unwrap()
    await chain.aclose()

    assert chain.label == "ollama:llama3.1:8b"
    assert reply.response.text == "local" and reply.response.provider == "ollama"
    assert reply.cost_usd == 0.0
    assert reply.attempts[0].provider == "ollama" and reply.attempts[0].usage.input_tokens == 50_000
