"""The HTTP API (``findesk serve``): REST + SSE over the same runs, events and audit log as the CLI.

Modules: ``app`` (the FastAPI factory), ``services`` (what one server process holds open), ``auth``
(API keys and limits per request), ``run_stream`` (one workflow run as SSE), ``runs``
(``POST /v1/runs/{workflow}`` and reading the audit log), ``briefs`` (``POST /v1/brief``, mapped onto the
workflow ``brief``), ``workflows`` (``GET /v1/workflows`` from the registry), ``ops`` (health, metrics,
the event registry and the web page), ``metrics``, ``errors``, ``schemas``. No business logic lives
here: every rule is in the layers below.
"""
