"""The roles the CLI and API can run by name: every role of the package, each a one-node workflow
(``agents.<name>``) whose input is its own schema as JSON."""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles import quote_filings
from findesk.agents.roles.brief import coordinator, official, social

ROLES: dict[str, Role[Any, Any]] = {
    role.name: role for role in (quote_filings.ROLE, official.ROLE, social.ROLE, coordinator.ROLE)
}
