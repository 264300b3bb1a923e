-- The statements of sql/admin.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name. The same
-- names, parameters and columns. SQLite's group_concat joins a run's tags in the order it reads
-- them, tags' primary key (run_id, tag): string_agg says that order.

-- Aggregate: string_agg in tag order for group_concat (and no INDEXED BY: the planner picks).
-- name: admin_runs
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.keep = 'first', r.quietness,
       coalesce((SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM tags t
		 WHERE t.run_id = r.id), ''),
       EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id), r.baseline, r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
ORDER BY r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version, r.id;

-- Aggregate: string_agg in tag order for group_concat.
-- name: admin_key_runs
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.keep = 'first', r.quietness,
       coalesce((SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM tags t
		 WHERE t.run_id = r.id), ''),
       EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id), r.baseline, r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
WHERE r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3 AND r.source_hash = $4
  AND r.harness_version = $5
ORDER BY r.id;

-- Clock and RETURNING: clock_timestamp() for julianday('now'); the id admin_keep_removed uses.
-- name: admin_audit_insert
INSERT INTO audit (action, who, at, why, alert_id, runs)
VALUES ($1, $2, extract(epoch FROM clock_timestamp())::float8, $3, $4, $5)
RETURNING id;

-- Casts and aggregate: $2 alone is bigint, the EXISTS an integer, the tags string_agg'd in order.
-- name: admin_keep_removed
INSERT INTO removed_runs (run_id, audit_id, digest, machine, benchmark, config, source_hash,
			  harness_version, commit_sha, standing, tags, raw)
SELECT r.id, $2::bigint, r.digest, m.name, b.name, r.config, r.source_hash, r.harness_version,
       r.commit_sha, (EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id))::integer,
       coalesce((SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM tags t
		 WHERE t.run_id = r.id), ''),
       r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
WHERE r.id = $1;
