-- Deterministic counters (§9.6): what the live gate reads of counts taken before, to reuse a
-- merge base counted under the same machine key and build stamp (detect/confirm/live.c).

-- The instruction counts of machine ?1's standing clean records at source hash ?2, by
-- benchmark: each with when it was measured and its record's JSON (measured_on, build_stamp).
-- name: counters_at
SELECT b.name, mt.value, r.started_at, r.raw
FROM runs r INDEXED BY runs_source
JOIN machines m ON m.id = r.machine_id
JOIN records rec ON rec.run_id = r.id
JOIN benchmarks b ON b.id = r.benchmark_id
JOIN metrics mt ON mt.run_id = r.id
WHERE r.source_hash = ?2 AND m.name = ?1 AND mt.name = 'instructions' AND r.dirty = 0
ORDER BY b.name;

-- The JSON of run ?1 as ingested: the gate compares two counts' measured_on (their build
-- stamps, and which field moved it).
-- name: counters_run_raw
SELECT raw FROM runs WHERE id = ?1;
