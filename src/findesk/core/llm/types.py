"""Provider-neutral chat types: what the agent runtime sends to a model and what comes back.

Rules:
- These types know no provider; each provider adapter translates them to its wire format.
- Tool results for one assistant turn travel together (``ToolResults``), because Anthropic requires
  them in one message; the OpenAI adapter splits them into one ``tool`` message each.
- Usage is what the provider reported, never an estimate; cost is computed from it by
  ``findesk.core.llm.pricing``.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, TypeAlias

from pydantic import BaseModel, ConfigDict, Field

from findesk.core.result import Result


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ToolSpec(_Frozen):
    name: str
    description: str
    parameters: dict[str, Any]  # JSON schema of the arguments object


class ToolCall(_Frozen):
    id: str
    name: str
    arguments: dict[str, Any]


class UserText(_Frozen):
    role: Literal["user"] = "user"
    text: str


class AssistantTurn(_Frozen):
    role: Literal["assistant"] = "assistant"
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    # the provider's own content blocks for this turn (e.g. Anthropic thinking blocks, which must be
    # sent back unchanged in a tool loop); replayed only to the provider that produced them
    native: tuple[dict[str, Any], ...] = ()
    native_provider: str | None = None


class ToolResultPart(_Frozen):
    call_id: str
    name: str
    content: str
    is_error: bool = False


class ToolResults(_Frozen):
    role: Literal["tool"] = "tool"
    results: tuple[ToolResultPart, ...]


Message: TypeAlias = UserText | AssistantTurn | ToolResults


class ModelRequest(_Frozen):
    system: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    max_tokens: int = 4096
    temperature: float | None = None


class TokenUsage(_Frozen):
    input_tokens: int = 0  # all input tokens, cached ones included
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
            cache_write_tokens=self.cache_write_tokens + other.cache_write_tokens,
        )


class ModelResponse(_Frozen):
    provider: str
    model: str
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    usage: TokenUsage = Field(default_factory=TokenUsage)
    stop_reason: str | None = None
    latency_ms: float = 0.0
    native: tuple[dict[str, Any], ...] = ()  # see ``AssistantTurn.native``

    def as_turn(self) -> AssistantTurn:
        """This reply as the assistant turn of the conversation that continues from it."""
        return AssistantTurn(
            text=self.text,
            tool_calls=self.tool_calls,
            native=self.native,
            native_provider=self.provider if self.native else None,
        )


class ChatModel(Protocol):
    """One model at one provider. ``complete`` never raises for provider trouble: it returns
    ``Err`` with ``rate_limited`` (429, 529, overloaded), ``unavailable``, ``timeout``,
    ``not_configured`` (missing or rejected key) or ``bad_response``. ``Err.details`` may carry
    ``status`` and ``retry_after`` (seconds)."""

    provider: str
    model: str

    async def complete(self, request: ModelRequest) -> Result[ModelResponse]: ...

    async def aclose(self) -> None: ...
