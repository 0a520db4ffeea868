"""BM25 over chunk text in PostgreSQL: full-text ``tsvector`` columns with a GIN index, filters in SQL.

Rules this module keeps (those of ``lexical``, on a server):
- Text is analysed by PostgreSQL's ``english`` configuration (lower case, English stop words dropped,
  Snowball English stemming), close to the tantivy analyzer; the query is cut into lexemes by the same
  configuration, and each distinct lexeme is an OR term. Query text is never parsed as tsquery syntax:
  lexemes are quoted one by one, so quotes, ``&``, ``|``, ``!``, ``:*`` or odd unicode are plain words
  and nothing a user types can raise. A query with no searchable term returns no results; only the
  first ``MAX_QUERY_TERMS`` distinct lexemes count.
- Ranking is Okapi BM25 (k1 = 1.2, b = 0.75, the idf of Lucene and tantivy): document frequencies are
  counted over the whole table through the GIN index, term frequencies and lengths come from the
  ``tsvector``'s positions, and the corpus size and total length are kept in a one-row stats table
  updated in the same transaction as the rows. Scores are close to tantivy's, not equal (different
  stemmer edge cases and stop lists, exact lengths where tantivy quantizes them).
- Filters are a WHERE clause (``pg.filter_clause``), applied before ranking; they never change scores.
- Equal scores are ordered by chunk id, so the same content gives the same results however written.
- Any ``str`` is accepted: lone surrogates become U+FFFD and NUL characters spaces before text reaches
  the server (PostgreSQL text cannot hold NUL).
- Writes are one open transaction on the store's own connection, visible to every search at ``commit``
  (this store's own searches too: they run on a second, autocommit connection, as tantivy's searcher
  sees only commits); a writer killed before ``commit`` leaves the last committed state (the server
  rolls it back).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import psycopg
from psycopg import sql

from findesk.knowledge.retrieval import pg
from findesk.knowledge.retrieval.chunks import Chunk
from findesk.knowledge.retrieval.embed import scrub
from findesk.knowledge.retrieval.models import Filters, ScoredId

MAX_QUERY_TERMS = 256
CONFIG = "english"
K1, B = 1.2, 0.75
TABLES = ["retrieval_lexical", "retrieval_lexical_stats"]
DDL = [
    "CREATE TABLE IF NOT EXISTS retrieval_lexical (chunk_id text PRIMARY KEY, doc_id text NOT NULL, "
    "ticker text, form text, fiscal_year integer, fiscal_period text, item text, kind text NOT NULL, "
    "filing_date date, terms tsvector NOT NULL, length integer NOT NULL)",
    "CREATE INDEX IF NOT EXISTS retrieval_lexical_terms ON retrieval_lexical USING gin (terms)",
    "CREATE INDEX IF NOT EXISTS retrieval_lexical_doc ON retrieval_lexical (doc_id)",
    "CREATE TABLE IF NOT EXISTS retrieval_lexical_stats (one boolean PRIMARY KEY DEFAULT true CHECK (one), "
    "chunks bigint NOT NULL, tokens bigint NOT NULL)",
    "INSERT INTO retrieval_lexical_stats VALUES (true, 0, 0) ON CONFLICT DO NOTHING",
]

_INSERT = (
    "INSERT INTO retrieval_lexical (chunk_id, doc_id, ticker, form, fiscal_year, fiscal_period, item, kind, "
    "filing_date, terms, length) "
    "SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, v, "
    "(SELECT coalesce(sum(cardinality(u.positions)), 0) FROM unnest(v) AS u) "
    f"FROM to_tsvector('{CONFIG}', %s) AS v"
)
_ADD_STATS = (
    "UPDATE retrieval_lexical_stats SET chunks = chunks + %s, "
    "tokens = tokens + (SELECT coalesce(sum(length), 0) FROM retrieval_lexical WHERE chunk_id = ANY(%s))"
)
_DELETE = (
    "WITH gone AS (DELETE FROM retrieval_lexical WHERE doc_id = %s RETURNING length) "
    "UPDATE retrieval_lexical_stats SET chunks = chunks - (SELECT count(*) FROM gone), "
    "tokens = tokens - (SELECT coalesce(sum(length), 0) FROM gone)"
)
# the query's lexemes in first-seen order (a lexeme's first position), at most MAX_QUERY_TERMS
_TERMS = (
    f"SELECT u.lexeme FROM unnest(to_tsvector('{CONFIG}', %s)) AS u "
    "ORDER BY u.positions[1], u.lexeme LIMIT %s"
)
_SEARCH = """
WITH q AS (SELECT * FROM unnest(%(lexemes)s::text[], %(quoted)s::text[], %(weights)s::float8[])
           AS q(lexeme, quoted, weight)),
n AS (SELECT greatest(chunks, 1)::float8 AS docs, greatest(tokens, 1)::float8 / greatest(chunks, 1) AS avgdl
      FROM retrieval_lexical_stats),
idf AS (SELECT q.lexeme, q.weight * ln(1 + (n.docs - d.df + 0.5) / (d.df + 0.5)) AS w
        FROM q CROSS JOIN n
        CROSS JOIN LATERAL (SELECT count(*)::float8 AS df FROM retrieval_lexical
                            WHERE terms @@ q.quoted::tsquery) AS d),
hits AS (SELECT chunk_id, terms, length FROM retrieval_lexical
         WHERE terms @@ %(any)s::tsquery AND {condition})
SELECT h.chunk_id,
       sum(i.w * t.tf * {k1p1} / (t.tf + {k1} * (1 - {b} + {b} * h.length / n.avgdl))) AS score
FROM hits AS h CROSS JOIN n
CROSS JOIN LATERAL (SELECT u.lexeme, cardinality(u.positions)::float8 AS tf FROM unnest(h.terms) AS u) AS t
JOIN idf AS i ON i.lexeme = t.lexeme
GROUP BY h.chunk_id
ORDER BY score DESC, h.chunk_id COLLATE "C"
LIMIT %(n)s
"""


def _plain(text: str) -> str:
    return scrub(text).replace("\x00", " ")


def _quoted(lexeme: str) -> str:
    """``lexeme`` as one tsquery operand: quoted, with quotes and backslashes doubled (never parsed)."""
    return "'" + lexeme.replace("\\", "\\\\").replace("'", "''") + "'"


class PgLexicalIndex:
    """The lexical tables of the index's database (made by the backend's schema set-up)."""

    def __init__(self, writes: psycopg.Connection[Any], reads: psycopg.Connection[Any]) -> None:
        self._conn = writes  # not autocommit: writes stay one transaction until ``commit``
        self._reads = reads  # autocommit (shared with the catalogue): sees commits only, holds no snapshot

    def add(self, chunks: Sequence[Chunk]) -> None:
        """Index ``chunks`` (visible after ``commit``)."""
        if not chunks:
            return
        rows = [
            (
                c.id,
                c.meta.doc_id,
                pg.upper(c.meta.ticker) or None,
                pg.upper(c.meta.form) or None,
                c.meta.fiscal_year,
                pg.upper(c.meta.fiscal_period) or None,
                pg.upper(c.meta.item) or None,
                c.meta.kind.upper(),
                c.meta.filing_date,
                _plain(c.text),
            )
            for c in chunks
        ]
        with self._conn.cursor() as cur:
            cur.executemany(_INSERT, rows)
            cur.execute(_ADD_STATS, [len(rows), [c.id for c in chunks]])

    def delete_doc(self, doc_id: str) -> None:
        """Remove every chunk of ``doc_id`` (visible after ``commit``)."""
        self._conn.execute(_DELETE, [doc_id])

    def commit(self) -> None:
        """Make the writes so far durable and visible to searches."""
        self._conn.commit()

    def rollback(self) -> None:
        """Drop uncommitted writes."""
        self._conn.rollback()

    def terms(self, text: str) -> list[str]:
        """The distinct lexemes of ``text``, in first-seen order, at most ``MAX_QUERY_TERMS``."""
        if not text.strip():
            return []
        rows = self._reads.execute(_TERMS, [_plain(text), MAX_QUERY_TERMS]).fetchall()
        return [str(r[0]) for r in rows]

    def search(
        self, text: str, filters: Filters, n: int, *, expansion: str = "", expansion_weight: float = 1.0
    ) -> list[ScoredId]:
        """The ``n`` best chunks for ``text`` by BM25 among those ``filters`` admit.

        ``expansion`` adds lexemes the text does not have, each weighted by ``expansion_weight``; a lexeme
        of both counts once, at the text's weight.
        """
        if n <= 0:
            return []
        terms = self.terms(text)
        extra = [t for t in self.terms(expansion) if t not in terms] if expansion else []
        extra = extra[: max(0, MAX_QUERY_TERMS - len(terms))]
        lexemes = terms + extra
        if not lexemes:
            return []
        quoted = [_quoted(t) for t in lexemes]
        condition, values = pg.filter_clause(filters)
        query = sql.SQL(_SEARCH).format(
            condition=condition, k1=sql.Literal(K1), k1p1=sql.Literal(K1 + 1), b=sql.Literal(B)
        )
        values.update(
            lexemes=lexemes,
            quoted=quoted,
            weights=[1.0] * len(terms) + [expansion_weight] * len(extra),
            any=" | ".join(quoted),
            n=n,
        )
        rows = self._reads.execute(query, values).fetchall()
        return [
            ScoredId(chunk_id=str(cid), score=float(score), rank=r) for r, (cid, score) in enumerate(rows, 1)
        ]

    def count(self) -> int:
        """Committed chunks in the index."""
        row = self._reads.execute("SELECT count(*) FROM retrieval_lexical").fetchone()
        return int(row[0]) if row else 0

    def close(self) -> None:
        """Drop uncommitted writes and close the write connection (the read one is the catalogue's)."""
        if not self._conn.closed:
            self._conn.rollback()
            self._conn.close()
