"""PostgreSQL plumbing of the retrieval index's server stores: URLs, connections, schema set-up, filters.

Rules this module keeps:
- A PostgreSQL URL may be written the SQLAlchemy way (``postgresql+psycopg://``) or the libpq way
  (``postgresql://``, ``postgres://``); it is handed to psycopg 3 as a libpq URL. Messages show it with
  the password masked (``location``), never as given.
- Failing to connect is a ``RetrievalIndexError`` naming the masked URL, so callers handle one error type.
- Schema changes (CREATE EXTENSION / TABLE / INDEX) run only for objects that are missing and under a
  session advisory lock (``schema_lock``): two servers opening a new index at once never race on the
  catalog, and opening an existing index takes no table lock (``CREATE INDEX IF NOT EXISTS`` on an
  existing index still waits for a writer's open transaction, so it is not even issued).
- Filters become one WHERE clause over the same metadata columns in every table (``filter_clause``),
  values bound as parameters, with ``models.Filters`` semantics: a set means any of, an empty set admits
  nothing, ``as_of`` excludes unknown filing dates. Stored values are upper-cased (``upper``) as
  ``Filters`` upper-cases what it is given.
- psycopg is imported only by this module and the server stores, which are imported only when an index
  lives on PostgreSQL.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

import psycopg
from psycopg import sql

from findesk.core.config import mask_url
from findesk.knowledge.retrieval.backends import PG_SCHEMES
from findesk.knowledge.retrieval.errors import RetrievalIndexError
from findesk.knowledge.retrieval.models import Filters

# advisory lock keys (first of the two int4 keys; the second is the schema's hash, so indexes in two
# schemas of one database are independent); arbitrary constants, spelled "fdrS" and "fdrW"
SCHEMA_KEY = 0x66647253
WRITE_KEY = 0x66647257


def conninfo(url: str) -> str:
    """``url`` as a libpq URL (the SQLAlchemy driver suffix dropped)."""
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in PG_SCHEMES:
        raise RetrievalIndexError(f"{location(url)} is not a PostgreSQL URL (postgresql://…)")
    return f"postgresql://{rest}"


def location(url: str) -> str:
    """The URL as messages show it: the password masked."""
    return mask_url(url)


def connect(url: str, *, autocommit: bool, application_name: str | None = None) -> psycopg.Connection[Any]:
    """A new connection to the database of ``url``."""
    extra: dict[str, Any] = {"application_name": application_name[:63]} if application_name else {}
    try:
        return psycopg.connect(conninfo(url), autocommit=autocommit, **extra)
    except psycopg.Error as exc:
        raise RetrievalIndexError(f"cannot connect to PostgreSQL at {location(url)}: {exc}") from exc


def missing(conn: psycopg.Connection[Any], names: list[str]) -> list[str]:
    """Which of these relations (tables, indexes) do not exist in the current schema."""
    rows = conn.execute(
        "SELECT name FROM unnest(%s::text[]) AS name WHERE to_regclass(name) IS NULL", [names]
    )
    return [str(r[0]) for r in rows]


@contextlib.contextmanager
def schema_lock(conn: psycopg.Connection[Any]) -> Iterator[None]:
    """Hold the schema advisory lock (waiting for it) on an autocommit connection."""
    conn.execute("SELECT pg_advisory_lock(%s, hashtext(current_schema()))", [SCHEMA_KEY])
    try:
        yield
    finally:
        conn.execute("SELECT pg_advisory_unlock(%s, hashtext(current_schema()))", [SCHEMA_KEY])


def upper(value: str | None) -> str | None:
    """A metadata value as stored: stripped, upper-case."""
    return None if value is None else value.strip().upper()


def filter_clause(filters: Filters) -> tuple[sql.Composable, dict[str, object]]:
    """The WHERE condition (named placeholders ``f_*``) and its parameters that admit exactly the rows
    ``filters`` admits."""
    where: list[sql.Composable] = []
    params: dict[str, object] = {}
    for column, values in (
        ("ticker", filters.tickers),
        ("form", filters.forms),
        ("fiscal_period", filters.fiscal_periods),
        ("item", filters.items),
        ("doc_id", filters.doc_ids),
        ("fiscal_year", filters.fiscal_years),
    ):
        if values is not None:
            where.append(
                sql.SQL("{} = ANY({})").format(sql.Identifier(column), sql.Placeholder(f"f_{column}"))
            )
            params[f"f_{column}"] = sorted(values)
    if filters.as_of is not None:
        where.append(
            sql.SQL("filing_date IS NOT NULL AND filing_date <= {}").format(sql.Placeholder("f_as_of"))
        )
        params["f_as_of"] = filters.as_of
    return (sql.SQL(" AND ").join(where) if where else sql.SQL("TRUE")), params
