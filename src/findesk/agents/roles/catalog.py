"""The roles the CLI and API can run by name."""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles import quote_filings

ROLES: dict[str, Role[Any, Any]] = {role.name: role for role in (quote_filings.ROLE,)}
