-- The gate (§7): the statements store/gate.c prepares, in PostgreSQL's dialect (the same names,
-- parameters and columns as sql/gate.sql). Every lookup is an index seek: runs by source hash
-- (runs_source), a group's records at one source hash by the records primary key, a run's
-- metrics by theirs. Parameters are always bound, never pasted.

-- The standing records measured at source hash $1 that are not dirty and were measured in
-- the release profile (§7.2: any branch), with whether any tag keeps them off their Series,
-- each with its metrics by name (one row per metric, the metric columns NULL for a record
-- with none: NULLS FIRST, as SQLite sorts them, though such a record has that row alone).
-- name: gate_at_source
SELECT r.run_id, r.machine_id, r.benchmark_id, r.config, r.harness_version, m.name, b.name,
       u.commit_sha, u.content_hash, u.baseline,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id),
       mt.name, mt.kind, mt.unit, mt.better, mt.median, mt.p95, mt.value, mt.n, mt.ladder,
       mt.samples
FROM runs u
JOIN records r ON r.run_id = u.id
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
LEFT JOIN metrics mt ON mt.run_id = r.run_id
WHERE u.source_hash = $1 AND u.dirty = 0 AND u.profile = 'release'
ORDER BY m.name, b.name, r.config, r.harness_version DESC, mt.name NULLS FIRST;

-- The Series records (standing and untagged) of several groups ($1, a JSON array of [machine
-- id, benchmark id, config]) at several source hashes ($2, a JSON array, newest first), by
-- group, then step, then as gate_at_source's records, with their metrics (the samples only
-- when $3, an integer flag compared with 0, is 1). SQLite's json_each is json_array_elements
-- (and _text) here, its 0-based key the ordinality less one. The (group, source hash) pairs
-- are made first (MATERIALIZED), so that each is one seek of the records primary key on all
-- four columns; the tag test's OFFSET 0 keeps it a seek of tags per record (as an anti join
-- the planner, which cannot count the pairs, scans all tags per record).
-- name: gate_groups_in
WITH wanted AS MATERIALIZED (
	SELECT g.ord AS group_ord, h.ord AS step_ord, (g.value ->> 0)::bigint AS machine_id,
	       (g.value ->> 1)::bigint AS benchmark_id, g.value ->> 2 AS config,
	       h.value AS source_hash
	FROM json_array_elements($1::json) WITH ORDINALITY AS g(value, ord)
	CROSS JOIN json_array_elements_text($2::json) WITH ORDINALITY AS h(value, ord)
)
SELECT w.group_ord - 1, w.step_ord - 1, r.run_id, r.harness_version, u.commit_sha,
       u.content_hash, u.baseline, r.source_hash, mt.name, mt.kind, mt.unit, mt.better,
       mt.median, mt.p95, mt.value, mt.n, mt.ladder,
       CASE WHEN $3::bigint <> 0 THEN mt.samples END
FROM wanted w
JOIN records r ON r.machine_id = w.machine_id AND r.benchmark_id = w.benchmark_id
                  AND r.config = w.config AND r.source_hash = w.source_hash
JOIN runs u ON u.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id
WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id OFFSET 0)
ORDER BY w.group_ord, w.step_ord, r.harness_version DESC, r.run_id, mt.name;
