"""The one shared HTTP client for every live vendor (see ``client.py`` for the rules it keeps)."""

from findesk.data.http.client import HttpClient, HttpResponse

__all__ = ["HttpClient", "HttpResponse"]
