"""Helpers shared by the model-provider tests: a sleep recorder and a multi-turn request.

Rules: nothing here waits or reaches the network; ``Sleeps`` stands in for ``asyncio.sleep``.
"""

from __future__ import annotations

from findesk.core.llm.types import (
    AssistantTurn,
    ModelRequest,
    ToolCall,
    ToolResultPart,
    ToolResults,
    ToolSpec,
    UserText,
)


class Sleeps:
    """Records the waits a ``ModelChain`` asks for, without waiting."""

    def __init__(self) -> None:
        self.delays: list[float] = []

    async def __call__(self, seconds: float) -> None:
        self.delays.append(seconds)


QUOTE_TOOL = ToolSpec(
    name="get_quote",
    description="Latest quote for a US ticker.",
    parameters={"type": "object", "properties": {"ticker": {"type": "string"}}, "required": ["ticker"]},
)
FILING_TOOL = ToolSpec(
    name="get_filing",
    description="A section of the latest 10-K.",
    parameters={"type": "object", "properties": {"ticker": {"type": "string"}, "item": {"type": "string"}}},
)


def simple_request(text: str = "Summarise AAPL.") -> ModelRequest:
    return ModelRequest(system="You are a careful analyst.", messages=(UserText(text=text),))


def tool_conversation() -> ModelRequest:
    """A second model turn: the model asked for two tools at once, one of which failed."""
    return ModelRequest(
        system="You are a careful analyst.",
        tools=(QUOTE_TOOL, FILING_TOOL),
        messages=(
            UserText(text="How is AAPL doing?"),
            AssistantTurn(
                text="Let me look at the quote and the risk factors.",
                tool_calls=(
                    ToolCall(id="call_q", name="get_quote", arguments={"ticker": "AAPL"}),
                    ToolCall(id="call_f", name="get_filing", arguments={"ticker": "AAPL", "item": "1A"}),
                ),
            ),
            ToolResults(
                results=(
                    ToolResultPart(call_id="call_q", name="get_quote", content='{"price": 231.5}'),
                    ToolResultPart(
                        call_id="call_f", name="get_filing", content="not_found: no 10-K", is_error=True
                    ),
                )
            ),
        ),
    )
