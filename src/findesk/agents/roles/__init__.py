"""Agent roles. Each module defines one role: prompt, tools, schemas and deterministic policy."""
