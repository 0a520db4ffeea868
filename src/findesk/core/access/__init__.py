"""API access: keys (``keys``), their tables (``schema``) and per-key limits (``limits``), shared by
``findesk serve`` and ``findesk keys``. Everything lives in the state database, so several server
processes agree; every call that touches it returns ``Result``."""

from findesk.core.access.keys import ApiKey, KeyStore, check_new_key, open_key_store
from findesk.core.access.limits import (
    Admission,
    admit,
    owns_run,
    record_cost,
    retry_after_s,
    runs_owned,
    spent_today,
    tier_of,
)

__all__ = [
    "Admission",
    "ApiKey",
    "KeyStore",
    "admit",
    "check_new_key",
    "open_key_store",
    "owns_run",
    "record_cost",
    "retry_after_s",
    "runs_owned",
    "spent_today",
    "tier_of",
]
