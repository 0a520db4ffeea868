"""The roles the CLI and API can run by name: every role of the package, each a one-node workflow
(``agents.<name>``) whose input is its own schema as JSON."""

from __future__ import annotations

from typing import Any

from findesk.agents.role import Role
from findesk.agents.roles import quote_filings
from findesk.agents.roles.brief import coordinator, official, social
from findesk.agents.roles.research import compliance as research_compliance
from findesk.agents.roles.research import crypto as research_crypto
from findesk.agents.roles.research import equity as research_equity
from findesk.agents.roles.research import macro as research_macro

ROLES: dict[str, Role[Any, Any]] = {
    role.name: role for role in (quote_filings.ROLE, official.ROLE, social.ROLE, coordinator.ROLE)
}
ROLES.update({role.name: role for role in (research_equity.ROLE, research_macro.ROLE)})
ROLES.update({role.name: role for role in (research_crypto.ROLE, research_compliance.ROLE)})
