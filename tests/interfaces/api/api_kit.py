"""API test kit: parsing an SSE body, posting a briefing or any run, the app factory's type (fixtures are in
``conftest.py``). A module of its own so every test imports it by a unique name."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi.testclient import TestClient

MakeApi = Callable[..., TestClient]


@dataclass
class Sse:
    event: str
    id: str | None
    data: dict[str, Any]


def parse_sse(text: str) -> list[Sse]:
    """Frames of an event stream (keep-alive comments skipped)."""
    out = []
    for frame in text.replace("\r\n", "\n").split("\n\n"):
        fields: dict[str, list[str]] = {}
        for line in frame.split("\n"):
            if not line or line.startswith(":"):
                continue
            name, _, value = line.partition(":")
            fields.setdefault(name, []).append(value[1:] if value.startswith(" ") else value)
        if "data" in fields:
            out.append(
                Sse(
                    fields.get("event", ["message"])[0],
                    (fields.get("id") or [None])[0],
                    json.loads("\n".join(fields["data"])),
                )
            )
    return out


def brief(client: TestClient, body: dict[str, Any] | str, **headers: str) -> tuple[int, list[Sse], Any]:
    """POST /v1/brief; (status, SSE frames, JSON error body or None)."""
    if isinstance(body, str):
        response = client.post(
            "/v1/brief", content=body, headers={"content-type": "application/json", **headers}
        )
    else:
        response = client.post("/v1/brief", json=body, headers=headers)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None
    return response.status_code, [], response.json()


def run(
    client: TestClient, workflow: str, body: dict[str, Any] | str, **headers: str
) -> tuple[int, list[Sse], Any]:
    """POST /v1/runs/{workflow}; (status, SSE frames, JSON error body or None)."""
    url = f"/v1/runs/{workflow}"
    if isinstance(body, str):
        response = client.post(url, content=body, headers={"content-type": "application/json", **headers})
    else:
        response = client.post(url, json=body, headers=headers)
    if response.headers.get("content-type", "").startswith("text/event-stream"):
        return response.status_code, parse_sse(response.text), None
    return response.status_code, [], response.json()
