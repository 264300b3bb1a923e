-- The gate (§7): the statements store/gate.c prepares. Every lookup is an index seek:
-- runs by source hash (runs_source), a group's records at one source hash by the records
-- primary key, a run's metrics by theirs. Parameters are always bound, never pasted.

-- The standing records measured at source hash ?1 that are not dirty and were measured in
-- the release profile (§7.2: any branch), with whether any tag keeps them off their Series,
-- each with its metrics by name (one row per metric, the metric columns NULL for a record
-- with none).
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
WHERE u.source_hash = ?1 AND u.dirty = 0 AND u.profile = 'release'
ORDER BY m.name, b.name, r.config, r.harness_version DESC, mt.name NULLS FIRST;

-- The Series records (standing and untagged) of several groups at several source hashes, in
-- one statement: ?1 is a JSON array of groups, each [machine id, benchmark id, config], ?2 one
-- of source hashes, newest first. Rows come by group (its index in ?1, first column), then by
-- source hash (its index in ?2, the step), then newest harness first, each record with its
-- metrics by name (one row per metric; the samples only when ?3 is 1). The gate's reference
-- search asks for every group at one source hash, its windows for the groups' next source
-- hashes, so a gate takes a few statements, not a few per comparison. Each (group, source
-- hash) is a seek of the records primary key (CROSS JOIN keeps the arrays outside).
-- name: gate_groups_in
SELECT g.key, h.key, r.run_id, r.harness_version, u.commit_sha, u.content_hash, u.baseline,
       r.source_hash, mt.name, mt.kind, mt.unit, mt.better, mt.median, mt.p95, mt.value, mt.n,
       mt.ladder, CASE WHEN ?3 THEN mt.samples END
FROM json_each(?1) g
CROSS JOIN json_each(?2) h
CROSS JOIN on_series_runs r
JOIN runs u ON u.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id
WHERE r.machine_id = json_extract(g.value, '$[0]')
  AND r.benchmark_id = json_extract(g.value, '$[1]')
  AND r.config = json_extract(g.value, '$[2]')
  AND r.source_hash = h.value
ORDER BY g.key, h.key, r.harness_version DESC, r.run_id, mt.name;
