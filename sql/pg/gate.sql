-- The gate (§7): the statements store/gate.c prepares, in PostgreSQL's dialect (the same names,
-- parameters and columns as sql/gate.sql). Every lookup is an index seek: runs by source hash
-- (runs_source), a group's records at one source hash by the records primary key, a run's
-- metrics by theirs. Parameters are always bound, never pasted.

-- The standing records measured at source hash $1 that are not dirty and were measured in
-- the release profile (§7.2: any branch), with whether any tag keeps them off their Series.
-- name: gate_at_source
SELECT r.run_id, r.machine_id, r.benchmark_id, r.config, r.harness_version, m.name, b.name,
       u.commit_sha, u.content_hash, u.baseline,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
FROM runs u
JOIN records r ON r.run_id = u.id
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
WHERE u.source_hash = $1 AND u.dirty = 0 AND u.profile = 'release'
ORDER BY m.name, b.name, r.config, r.harness_version DESC;

-- One group's Series records (standing and untagged) at source hash $4, newest harness first,
-- each with its metrics by name (one row per metric; the samples only when $5 is 1): a single
-- statement per step of the history walk, which the gate's budget (§12) is made of. $5, an
-- integer flag, is compared with 0 where SQLite takes it as a truth value.
-- name: gate_group_at
SELECT 0, r.run_id, r.harness_version, u.commit_sha, u.content_hash, u.baseline,
       r.source_hash, mt.name, mt.kind, mt.unit, mt.better, mt.median, mt.p95, mt.value, mt.n,
       mt.ladder, CASE WHEN $5::bigint <> 0 THEN mt.samples END
FROM records r
JOIN runs u ON u.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id
WHERE r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3 AND r.source_hash = $4
  AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
ORDER BY r.harness_version DESC, r.run_id, mt.name;

-- The same for several source hashes at once ($4, a JSON array of them, newest first): the
-- records before a reference on its line, one statement for the whole window. Rows come in
-- the array's order (the step, first column), then as above; both statements give the same
-- columns, so store/gate.c reads them with one function. SQLite's json_each is
-- json_array_elements_text here, its 0-based key the ordinality less one; the samples column
-- is a NULL of gate_group_at's type.
-- name: gate_group_in
SELECT h.ord - 1, r.run_id, r.harness_version, u.commit_sha, u.content_hash, u.baseline,
       r.source_hash, mt.name, mt.kind, mt.unit, mt.better, mt.median, mt.p95, mt.value, mt.n,
       mt.ladder, NULL::bytea
FROM json_array_elements_text($4::json) WITH ORDINALITY AS h(value, ord)
JOIN records r ON r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3
                  AND r.source_hash = h.value
JOIN runs u ON u.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id
WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
ORDER BY h.ord, r.harness_version DESC, r.run_id, mt.name;
