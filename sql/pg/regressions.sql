-- The statements of sql/regressions.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name. The same
-- names, parameters, columns and row order.

-- Casts, clock and RETURNING: coalesce's parameters typed; clock_timestamp(); the new id.
-- name: regression_insert
INSERT INTO regressions (alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq,
			 source_hash, subject, pr, ratio, lo, hi, reference_commit, probes,
			 profile, created_at)
VALUES ($1, $2, $3, $4, $5, $6, (SELECT seq FROM commits WHERE sha = $6), $7,
	coalesce($8::text, (SELECT subject FROM commits WHERE sha = $6)),
	coalesce($9::bigint, (SELECT pr FROM commits WHERE sha = $6)), $10, $11, $12, $13, $14, $15,
	extract(epoch FROM clock_timestamp())::float8)
RETURNING id;
