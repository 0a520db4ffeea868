"""The four specialist roles by desk name (the graph's fan-out targets)."""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles.research import compliance, crypto, equity, macro

SPECIALIST_ROLES: dict[str, Role[Any, Any]] = {
    "equity": equity.ROLE,
    "macro": macro.ROLE,
    "crypto": crypto.ROLE,
    "compliance": compliance.ROLE,
}
