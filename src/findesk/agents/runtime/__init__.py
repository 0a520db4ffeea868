"""The agent runtime: deterministic playbooks and the model-driven tool loop, one typed outcome."""

from findesk.agents.runtime.outcome import AgentOutcome, Budget
from findesk.agents.runtime.runner import AgentRuntime, ModelResolver, no_models

__all__ = ["AgentOutcome", "AgentRuntime", "Budget", "ModelResolver", "no_models"]
