"""Prompt-injection and jailbreak detection: rules plus a shipped classifier (see ``detector``)."""

from findesk.guardrails.injection.detector import Verdict, screen, screen_input, screen_passage

__all__ = ["Verdict", "screen", "screen_input", "screen_passage"]
