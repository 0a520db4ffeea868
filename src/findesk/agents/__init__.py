"""Agents: roles as data (``role``), the runtime that runs a role deterministically or with a
model (``runtime``), and the roles themselves (``roles``)."""
