-- The statements of sql/detect.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name. The same
-- names, parameters, columns and row order. Flags are bigint 0/1 columns; SQLite's total() is
-- a real, 0 when nothing is summed: coalesce(sum(...), 0)::float8.
--
-- detect_changes: SQLite groups the joined rows by run and reads the other columns bare;
-- PostgreSQL allows no bare column of a table not grouped by its key, so the log is summed per
-- run first and then joined (the same rows: a run the log names without a copy, or no longer
-- stored, is left out as the joins do there).
--
-- detect_suspect_last_id: SQLite keeps the largest id ever given in sqlite_sequence; here it
-- is the id column's sequence (NULL until it gave one), or the largest id stored if that is
-- larger (rows copied in with their ids, the sequence not moved). The sequence is not rolled
-- back with a transaction, so it may name an id no row ever kept: still at or above every id
-- given, which is what a caller counting "the ids over it are new" needs.

-- Aggregates: no bare columns beside GROUP BY, so the log is summed per run first (above).
-- name: detect_changes
SELECT l.run_id, x.machine_id, x.benchmark_id, x.config,
       EXISTS (SELECT 1 FROM records r WHERE r.run_id = l.run_id) AS standing,
       (SELECT count(*) FROM tags t WHERE t.run_id = l.run_id) AS ntags,
       l.standing_delta, l.tags_delta,
       x.harness_version, x.content_hash, x.baseline,
       p.at, x.started_at, p.place, x.commit_sha
FROM (SELECT run_id,
	     coalesce(sum(CASE WHEN what = 'standing' THEN delta END), 0)::float8
		     AS standing_delta,
	     coalesce(sum(CASE WHEN what <> 'standing' THEN delta END), 0)::float8 AS tags_delta
      FROM detect_log
      GROUP BY run_id) l
JOIN detect_log_runs x ON x.run_id = l.run_id
JOIN placed_runs p ON p.id = l.run_id
ORDER BY x.machine_id, x.benchmark_id, x.config, l.run_id;

-- RETURNING: the new line's id (SQLite's last insert rowid).
-- name: detect_line_put
INSERT INTO lines (machine_id, benchmark_id, config, metric, line, reason, start_run_id,
		   start_commit, harness_version, content_hash)
VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT commit_sha FROM runs WHERE id = $7), $8, $9)
RETURNING id;

-- Aggregate: total() is coalesce(sum(...), 0)::float8; a subquery in FROM needs its name.
-- name: detect_series_count
SELECT count(*), coalesce(sum(j), 0)::float8
FROM (SELECT max(e.judged) AS j
      FROM lines l JOIN line_ends e ON e.line_id = l.id
      GROUP BY l.machine_id, l.benchmark_id, l.config, l.metric) AS series;

-- RETURNING: the new Suspect's id.
-- name: detect_suspect_insert
INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, shift, median,
		      center, tolerance, deviation, reference_run_id, follows_run_id,
		      followers, persisted, alert_id, state, created_at, kind)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19)
RETURNING id;

-- Catalog: the suspects id sequence for sqlite_sequence (above).
-- name: detect_suspect_last_id
SELECT greatest(
	coalesce(pg_sequence_last_value(pg_get_serial_sequence('suspects', 'id')::regclass), 0),
	coalesce((SELECT max(id) FROM suspects), 0));
