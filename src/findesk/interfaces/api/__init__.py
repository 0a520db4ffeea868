"""The HTTP API (``findesk serve``): REST + SSE over the same runs, events and audit log as the CLI.

Modules: ``app`` (the FastAPI factory), ``services`` (what one server process holds open), ``auth``
(API keys and limits per request), ``briefs`` (``POST /v1/brief`` as SSE), ``runs`` (reading the audit
log), ``ops`` (health, metrics, the event registry and the web page), ``metrics``, ``errors``,
``schemas``. No business logic lives here: every rule is in the layers below.
"""
