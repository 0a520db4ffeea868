"""Model access for the agent runtime: provider adapters, the retry/fallback chain, and pricing.

Rules: importing this package never imports a provider SDK (they load on the first call), and
nothing here raises for provider trouble; failures are ``Err`` values.
"""

from findesk.core.llm.anthropic_provider import AnthropicModel
from findesk.core.llm.chain import Attempt, ChainReply, ModelChain
from findesk.core.llm.factory import chat_model, model_chain
from findesk.core.llm.openai_provider import OpenAIChatModel
from findesk.core.llm.pricing import PriceTable
from findesk.core.llm.types import ChatModel, ModelRequest, ModelResponse, TokenUsage

__all__ = [
    "AnthropicModel",
    "Attempt",
    "ChainReply",
    "ChatModel",
    "ModelChain",
    "ModelRequest",
    "ModelResponse",
    "OpenAIChatModel",
    "PriceTable",
    "TokenUsage",
    "chat_model",
    "model_chain",
]
