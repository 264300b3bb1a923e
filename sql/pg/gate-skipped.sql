-- The gate (§7.2), in PostgreSQL's dialect (the same name, parameters and columns as
-- sql/gate-skipped.sql): why a group found no reference. A reference is a Series record,
-- standing and untagged; these are the standing records of one group at the source hashes its
-- search looked at ($4, a JSON array) that a tag kept off their Series, one row per run and
-- tag. Read only when the search found nothing, so the walk itself stays one seek per step.
-- SQLite's json_each is json_array_elements_text here.
-- name: gate_group_skipped
SELECT r.run_id, t.tag
FROM json_array_elements_text($4::json) AS h(value)
JOIN records r ON r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3
                  AND r.source_hash = h.value
JOIN tags t ON t.run_id = r.run_id
ORDER BY r.run_id, t.tag;
