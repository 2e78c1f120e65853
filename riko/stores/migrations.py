"""Ordered, recorded schema migrations for the per-scope DuckDB warehouse.

Each migration runs once, in order, inside a transaction, and is recorded in
``schema_migrations``. Never edit a released migration: append a new one.
"""

from __future__ import annotations

from typing import Callable

import duckdb

__all__ = ["MIGRATIONS", "RECORD_SCHEMA_VERSION", "RECORD_KINDS", "SCOPED_TABLES", "migrate", "current_version"]

#: Stamped on every row written by this version of riko.
RECORD_SCHEMA_VERSION = 5

_COMMON = "scope_key VARCHAR NOT NULL, schema_version INTEGER NOT NULL"

_V1_TABLES = {
    # Scope state: the last valid Resident (``dream_settings`` moved to ``settings`` in v2).
    "profiles": f"""{_COMMON}, dream_settings VARCHAR, resident_text VARCHAR, resident_blocks VARCHAR,
        resident_version VARCHAR, resident_generated_at TIMESTAMP, max_chars INTEGER,
        source_page_ids VARCHAR, omitted_page_ids VARCHAR, diagnostics VARCHAR, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key)""",
    # Canonical Wiki pages (the files are the authority; this is their index and lineage).
    "pages": f"""{_COMMON}, id VARCHAR NOT NULL, type VARCHAR NOT NULL, title VARCHAR NOT NULL,
        description VARCHAR, body VARCHAR, status VARCHAR NOT NULL, consent BOOLEAN NOT NULL,
        locked BOOLEAN NOT NULL, sensitivity VARCHAR NOT NULL, sensitivity_history VARCHAR,
        version INTEGER NOT NULL, tags VARCHAR, sources VARCHAR, confidence DOUBLE, kind VARCHAR,
        category VARCHAR, observed_at TIMESTAMP, recorded_at TIMESTAMP, valid_from TIMESTAMP,
        valid_to TIMESTAMP, supersedes VARCHAR, superseded_by VARCHAR, supersede_reason VARCHAR,
        usage_policy VARCHAR NOT NULL, path VARCHAR, file_hash VARCHAR, source_candidates VARCHAR,
        extra VARCHAR, updated_at TIMESTAMP, PRIMARY KEY (scope_key, id)""",
    # Earlier versions of every page, kept when a page is corrected or edited.
    "page_versions": f"""{_COMMON}, page_id VARCHAR NOT NULL, version INTEGER NOT NULL,
        text VARCHAR NOT NULL, authority VARCHAR, recorded_at TIMESTAMP""",
    # L1 candidates: pending, rejected, accepted and pending_conflict proposals.
    "candidates": f"""{_COMMON}, id VARCHAR NOT NULL, fingerprint VARCHAR NOT NULL, type VARCHAR NOT NULL,
        title VARCHAR NOT NULL, description VARCHAR, body VARCHAR, tags VARCHAR, confidence DOUBLE,
        kind VARCHAR, category VARCHAR, sensitivity VARCHAR, status VARCHAR NOT NULL,
        source VARCHAR NOT NULL, source_sessions VARCHAR, evidence VARCHAR, links VARCHAR,
        conflict_page_id VARCHAR, page_id VARCHAR, created_at TIMESTAMP, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, id)""",
    # Session and manual source metadata, including ingested log files and their resume points.
    "sources": f"""{_COMMON}, id VARCHAR NOT NULL, kind VARCHAR NOT NULL, session_id VARCHAR,
        path VARCHAR, size BIGINT, mtime_ns BIGINT, bytes_consumed BIGINT, lines_consumed BIGINT,
        prefix_hash VARCHAR, content_hash VARCHAR, ingest_status VARCHAR, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, id)""",
    # One row per session with persisted evidence.
    "sessions": f"""{_COMMON}, session_id VARCHAR NOT NULL, preset VARCHAR, project_key VARCHAR,
        cwd VARCHAR, parent_session VARCHAR, format VARCHAR, source_path VARCHAR,
        created_at TIMESTAMP, first_seq BIGINT, last_seq BIGINT, event_count BIGINT,
        user_event_count BIGINT, text_bytes BIGINT, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, session_id)""",
    # The L0 lines of every session (the sessions record kind's bounded event lines + markers).
    "evidence": f"""{_COMMON}, session_id VARCHAR NOT NULL, seq BIGINT NOT NULL, time TIMESTAMP,
        type VARCHAR NOT NULL, role VARCHAR, source_kind VARCHAR, is_user BOOLEAN NOT NULL,
        text VARCHAR, data VARCHAR, content_hash VARCHAR NOT NULL, truncated BOOLEAN NOT NULL,
        sensitivity VARCHAR, sensitivity_origin VARCHAR, correction_invalidated BOOLEAN NOT NULL,
        line BIGINT, ingested_at TIMESTAMP""",
    # Dream cursors and statuses, dense-generation records and the purge scope lease.
    "jobs": f"""{_COMMON}, id VARCHAR NOT NULL, kind VARCHAR NOT NULL, session_id VARCHAR,
        cursor BIGINT, status VARCHAR NOT NULL, attempts INTEGER NOT NULL, last_error VARCHAR,
        result VARCHAR, lease_owner VARCHAR, lease_expires_at TIMESTAMP, created_at TIMESTAMP,
        updated_at TIMESTAMP, PRIMARY KEY (scope_key, id)""",
    # Inferred patterns with anchors, kept apart from canonical facts.
    "observations": f"""{_COMMON}, id VARCHAR NOT NULL, text VARCHAR NOT NULL, anchors VARCHAR,
        contradictions VARCHAR, confidence DOUBLE, status VARCHAR NOT NULL, sensitivity VARCHAR,
        sensitivity_history VARCHAR, epistemic_status VARCHAR NOT NULL, session_ids VARCHAR,
        valid_from TIMESTAMP, valid_to TIMESTAMP, created_at TIMESTAMP, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, id)""",
    # The sanitized raw-session purge journal.
    "purges": f"""{_COMMON}, id VARCHAR NOT NULL, session_id VARCHAR NOT NULL, status VARCHAR NOT NULL,
        impact VARCHAR, error VARCHAR, created_at TIMESTAMP, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, id)""",
    # Append-only lifecycle records.
    "audits": f"""{_COMMON}, id BIGINT NOT NULL, kind VARCHAR NOT NULL, authority VARCHAR NOT NULL,
        target VARCHAR, detail VARCHAR, recorded_at TIMESTAMP NOT NULL""",
    # Reversible suppression of a page or observation.
    "suppressions": f"""{_COMMON}, id VARCHAR NOT NULL, target_id VARCHAR NOT NULL,
        target_kind VARCHAR NOT NULL, reason VARCHAR, active BOOLEAN NOT NULL, created_at TIMESTAMP,
        restored_at TIMESTAMP, restore_reason VARCHAR, PRIMARY KEY (scope_key, id)""",
    # Recall counts per record; never changes truth.
    "activation": f"""{_COMMON}, record_id VARCHAR NOT NULL, recall_count BIGINT NOT NULL,
        score DOUBLE NOT NULL, last_recalled_at TIMESTAMP, PRIMARY KEY (scope_key, record_id)""",
    # Dense-index lifecycle metadata.
    "index_meta": f"""{_COMMON}, name VARCHAR NOT NULL, source_revision VARCHAR, provider_model VARCHAR,
        dimension INTEGER, vector_count BIGINT, degraded_reason VARCHAR, active_generation VARCHAR,
        previous_generation VARCHAR, updated_at TIMESTAMP, PRIMARY KEY (scope_key, name)""",
    # Provider-neutral vector metadata (the vectors themselves live in generation files).
    "vectors": f"""{_COMMON}, doc_id VARCHAR NOT NULL, generation VARCHAR NOT NULL, model VARCHAR,
        dimension INTEGER, text_hash VARCHAR, source_kind VARCHAR, source_id VARCHAR""",
    # Revocable entity-alias edges.
    "aliases": f"""{_COMMON}, id VARCHAR NOT NULL, entity_id VARCHAR NOT NULL, alias VARCHAR NOT NULL,
        normalized_alias VARCHAR NOT NULL, confidence DOUBLE, source_refs VARCHAR,
        resolution_kind VARCHAR NOT NULL, status VARCHAR NOT NULL, reason VARCHAR,
        valid_from TIMESTAMP, valid_to TIMESTAMP, created_at TIMESTAMP, updated_at TIMESTAMP,
        PRIMARY KEY (scope_key, id)""",
    # Cached safe-usage projections (derived, rebuildable).
    "projections": f"""{_COMMON}, record_id VARCHAR NOT NULL, disclosure VARCHAR NOT NULL,
        allowed_effects VARCHAR, topic_tags VARCHAR, summary VARCHAR, generated_from_version VARCHAR,
        generated_at TIMESTAMP, PRIMARY KEY (scope_key, record_id)""",
    # Contested / resolved conflict overlays over canonical pages.
    "conflicts": f"""{_COMMON}, id VARCHAR NOT NULL, state VARCHAR NOT NULL, subject VARCHAR,
        predicate VARCHAR, page_id VARCHAR NOT NULL, candidate_id VARCHAR, resolution VARCHAR,
        created_at TIMESTAMP, resolved_at TIMESTAMP, PRIMARY KEY (scope_key, id)""",
    # Provider answers by request hash, so re-runs are reproducible and free.
    "provider_cache": f"""{_COMMON}, request_hash VARCHAR NOT NULL, provider VARCHAR, model VARCHAR,
        response VARCHAR, created_at TIMESTAMP, PRIMARY KEY (scope_key, request_hash)""",
}

#: The sixteen record kinds of the seed, each a table here (``evidence`` holds the L0 lines of
#: the ``sessions`` kind; ``page_versions`` and ``provider_cache`` are riko additions).
RECORD_KINDS = (
    "profiles", "pages", "candidates", "sources", "sessions", "jobs", "observations", "purges",
    "audits", "suppressions", "activation", "index_meta", "vectors", "aliases", "projections",
    "conflicts",
)
#: A scope's saved Dream settings, in a row of their own (they shared ``profiles`` before v2).
_V2_SETTINGS = f"{_COMMON}, dream_settings VARCHAR, updated_at TIMESTAMP, PRIMARY KEY (scope_key)"
SCOPED_TABLES = (*_V1_TABLES, "settings")


def _v1_create_tables(con: duckdb.DuckDBPyConnection) -> None:
    for name, columns in _V1_TABLES.items():
        con.execute(f"CREATE TABLE {name} ({columns})")


def _v2_settings_table(con: duckdb.DuckDBPyConnection) -> None:
    """Move the saved Dream settings out of the Resident's ``profiles`` row into ``settings``."""
    con.execute(f"CREATE TABLE settings ({_V2_SETTINGS})")
    con.execute("INSERT INTO settings (scope_key, schema_version, dream_settings, updated_at) "
                "SELECT scope_key, schema_version, dream_settings, updated_at FROM profiles "
                "WHERE dream_settings IS NOT NULL")
    con.execute("UPDATE profiles SET dream_settings = NULL WHERE dream_settings IS NOT NULL")


def _v3_governed_evidence(con: duckdb.DuckDBPyConnection) -> None:
    """Mark the L0 lines a forget, suppress or governance request holds out of Dream and admission."""
    con.execute("ALTER TABLE evidence ADD COLUMN governed VARCHAR")


MIGRATIONS: list[tuple[int, str, Callable[[duckdb.DuckDBPyConnection], None]]] = [
    (1, "create record tables", _v1_create_tables),
    (2, "settings in their own row", _v2_settings_table),
    (3, "governed evidence lines", _v3_governed_evidence),
]


def current_version(con: duckdb.DuckDBPyConnection) -> int:
    con.execute(
        "CREATE TABLE IF NOT EXISTS schema_migrations "
        "(version INTEGER PRIMARY KEY, name VARCHAR NOT NULL, applied_at TIMESTAMP NOT NULL)"
    )
    rows = con.execute("SELECT coalesce(max(version), 0) FROM schema_migrations").fetchall()
    row = rows[0] if rows else None
    return int(row[0]) if row else 0


def migrate(con: duckdb.DuckDBPyConnection) -> list[int]:
    """Apply every pending migration in order; return the versions applied."""
    applied: list[int] = []
    have = current_version(con)
    for version, name, fn in MIGRATIONS:
        if version <= have:
            continue
        con.execute("BEGIN TRANSACTION")
        try:
            fn(con)
            con.execute(
                "INSERT INTO schema_migrations VALUES (?, ?, now()::TIMESTAMP)", [version, name]
            )
            con.execute("COMMIT")
        except Exception:
            con.execute("ROLLBACK")
            raise
        applied.append(version)
    return applied
