"""The state database's schema under Alembic, on SQLite and PostgreSQL (``state_db``): a new database is
migrated to head and matches the table definitions in code exactly; a database made before migrations
is adopted with its rows; concurrent openers agree; a database newer than this findesk is refused."""

from __future__ import annotations

import threading
from datetime import UTC, datetime

import pytest
from sqlalchemy import MetaData, insert

from findesk.core.access.keys import KeyStore
from findesk.core.access.schema import schema as access_schema
from findesk.core.events import owners
from findesk.core.events.audit import AuditLog, _schema
from findesk.core.events.model import Done
from findesk.core.events.trace import EventBus, Tracer
from findesk.core.migrations import HEAD, SCRIPTS
from findesk.core.result import Err, ErrorCode, Ok
from findesk.knowledge.memory import MemoryStore
from findesk.knowledge.memory.decisions import DecisionLog
from findesk.knowledge.memory.schema import decision_schema
from findesk.knowledge.memory.schema import schema as memory_schema
from state_kit import count, engine, execute, rows, tables

STATE_TABLES = {
    "events",
    "runs",
    "owners",
    "run_owners",
    "api_keys",
    "api_requests",
    "memory_turns",
    "memory_facts",
    "memory_decisions",
    "memory_reflections",
}


def models() -> list[MetaData]:
    """Every store's table definitions: the source of truth the migrations must reproduce."""
    return [
        _schema().metadata,
        owners.metadata(),
        access_schema().metadata,
        memory_schema().metadata,
        decision_schema().metadata,
    ]


def everything() -> MetaData:
    combined = MetaData()
    for metadata in models():
        for table in metadata.sorted_tables:
            table.to_metadata(combined)
    return combined


def test_head_is_the_newest_revision_on_disk() -> None:
    from alembic.config import Config
    from alembic.script import ScriptDirectory

    config = Config()
    config.set_main_option("script_location", str(SCRIPTS))
    assert ScriptDirectory.from_config(config).get_heads() == [HEAD]


def test_a_new_database_is_migrated_to_head_and_matches_the_models_exactly(state_db: str) -> None:
    from alembic.autogenerate import compare_metadata
    from alembic.migration import MigrationContext

    KeyStore.open(state_db).unwrap().close()  # any store opened for writing migrates the whole database
    assert rows(state_db, "SELECT version_num FROM alembic_version") == [(HEAD,)]
    assert tables(state_db) == STATE_TABLES | {"alembic_version"}
    opened = engine(state_db)
    try:
        with opened.connect() as conn:
            context = MigrationContext.configure(conn, opts={"compare_type": True})
            assert compare_metadata(context, everything()) == []  # no column, type, index or table drift
    finally:
        opened.dispose()


def _older_findesk(url: str, *, without: tuple[str, ...] = ()) -> None:
    """A database as findesk made it before migrations (``CreateTable(if_not_exists)`` per store, no
    ``alembic_version``), holding a key and a request of it; ``without``: the tables it lacked."""
    opened = engine(url)
    when = datetime(2025, 3, 4, 12, 0, tzinfo=UTC)
    try:
        with opened.begin() as conn:
            for metadata in models():
                kept = [t for t in metadata.sorted_tables if t.name not in without]
                metadata.create_all(conn, tables=kept)
            keys, requests = access_schema().api_keys, access_schema().api_requests
            conn.execute(
                insert(keys).values(
                    id="0123456789ab", name="old desk", tier="free", secret_sha256="0" * 64, created_at=when
                )
            )
            row = {"key_id": "0123456789ab", "ts": when, "run_id": "0190oldrun", "cost_usd": 0.4}
            conn.execute(insert(requests).values(**row))
    finally:
        opened.dispose()


def test_a_database_made_before_migrations_is_adopted_with_its_rows(state_db: str) -> None:
    # an older file lacks the tables added later: the decision log's and the run owners'
    _older_findesk(state_db, without=("memory_decisions", "memory_reflections", "owners", "run_owners"))
    before = {name: count(state_db, name) for name in ("api_keys", "api_requests")}
    assert "alembic_version" not in tables(state_db)

    log = AuditLog.open(state_db).unwrap()  # opening for writing adopts it
    tracer = Tracer(EventBus([log]), "0190newrun0001")
    tracer.emit(Done(summary="after adoption"))
    assert log.flush(10)
    log.close()

    assert rows(state_db, "SELECT version_num FROM alembic_version") == [(HEAD,)]
    assert tables(state_db) == STATE_TABLES | {"alembic_version"}
    assert {name: count(state_db, name) for name in before} == before == {"api_keys": 1, "api_requests": 1}
    store = KeyStore.open(state_db).unwrap()
    try:
        assert store.get("0123456789ab").unwrap().name == "old desk"
    finally:
        store.close()
    decisions = DecisionLog(state_db)
    assert decisions.decisions("alice").unwrap() == []  # the table it lacked now exists
    decisions.close()
    reader = AuditLog.open(state_db, read_only=True).unwrap()
    assert reader.find_run("0190newrun0001").unwrap().status == "done"
    reader.close()


def test_a_table_missing_a_column_is_not_adopted(state_db: str) -> None:
    execute(state_db, "CREATE TABLE api_keys (id VARCHAR(32) PRIMARY KEY, name VARCHAR(80))")
    refused = KeyStore.open(state_db)
    assert isinstance(refused, Err) and refused.code is ErrorCode.UNAVAILABLE
    assert (
        "cannot adopt the existing table 'api_keys'" in refused.reason and "secret_sha256" in refused.reason
    )
    assert "alembic_version" not in tables(state_db)  # nothing stamped, nothing half-created
    assert tables(state_db) == {"api_keys"}


def test_concurrent_openers_of_a_new_database_agree(state_db: str) -> None:
    start = threading.Barrier(8)
    results: list[object] = []

    def open_one() -> None:
        start.wait()
        opened = MemoryStore(state_db)
        results.append(opened.facts("alice"))  # the first use opens: migrates, or finds it done
        opened.close()

    threads = [threading.Thread(target=open_one) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert results == [Ok([])] * 8
    assert rows(state_db, "SELECT version_num FROM alembic_version") == [(HEAD,)]


def test_a_database_migrated_by_a_newer_findesk_is_refused_with_the_reason(state_db: str) -> None:
    KeyStore.open(state_db).unwrap().close()
    execute(state_db, "UPDATE alembic_version SET version_num = '9999'")
    refused = KeyStore.open(state_db)
    assert isinstance(refused, Err) and refused.code is ErrorCode.UNAVAILABLE
    assert "revision 9999, which this findesk does not know" in refused.reason
    assert "upgrade findesk" in refused.reason


def test_a_plain_postgresql_url_uses_psycopg_3(pg_url: str) -> None:
    plain = pg_url.replace("postgresql+psycopg://", "postgresql://")
    store = KeyStore.open(plain).unwrap()
    try:
        assert store.reader.dialect.driver == "psycopg"
        assert store.list().unwrap() == []
    finally:
        store.close()
    with pytest.raises(ModuleNotFoundError):
        __import__("psycopg2")  # the default SQLAlchemy would have picked, and which is not installed
