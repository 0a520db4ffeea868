"""The one shared HTTP client for every live vendor."""

from findesk.data.http.client import HttpClient, HttpResponse

__all__ = ["HttpClient", "HttpResponse"]
