-- Deterministic counters (§9.6), PostgreSQL: the texts of sql/counters.sql with the same names,
-- parameters, columns and row order. No INDEXED BY (the planner picks runs_source); a flag is
-- compared with 0.

-- name: counters_at
SELECT b.name, mt.value, r.started_at, r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
JOIN records rec ON rec.run_id = r.id
JOIN benchmarks b ON b.id = r.benchmark_id
JOIN metrics mt ON mt.run_id = r.id
WHERE r.source_hash = $2 AND m.name = $1 AND mt.name = 'instructions' AND r.dirty = 0
ORDER BY b.name;

-- name: counters_run_raw
SELECT raw FROM runs WHERE id = $1;
