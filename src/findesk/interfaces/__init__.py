"""Interfaces: CLI (and later the HTTP API and MCP server). No business logic lives here."""
