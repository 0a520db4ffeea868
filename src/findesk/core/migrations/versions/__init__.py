"""The revisions of the state database, oldest first by ``down_revision`` (Alembic skips this file)."""
