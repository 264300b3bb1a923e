-- The statements of sql/queries.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name. The same
-- names, parameters and columns.
--
-- schema_version: store/pg.c makes benchline_schema when it connects to create the store
-- (under the writers' lock), and each migration's transaction writes the count where SQLite
-- sets user_version. A database without the table holds no store: this fails to prepare
-- there, and store_open says so.

-- Catalog: no user_version here; store/pg.c keeps the migrations applied in benchline_schema.
-- name: schema_version
SELECT coalesce((SELECT max(version) FROM benchline_schema), 0);

-- RETURNING: the new machine's id (SQLite's last_insert_rowid).
-- name: machine_insert
INSERT INTO machines (name, info) VALUES ($1, $2) RETURNING id;

-- RETURNING: the new benchmark's id.
-- name: benchmark_insert
INSERT INTO benchmarks (name) VALUES ($1) RETURNING id;

-- Clock and RETURNING: clock_timestamp() is the insert's time, as julianday('now'); the new id.
-- name: run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
	extract(epoch FROM clock_timestamp())::float8)
RETURNING id;

-- Conflict clause: SQLite's INSERT OR IGNORE.
-- name: tag_insert
INSERT INTO tags (run_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING;
