-- The gate (§7.2): why a group found no reference. A reference is a Series record, standing
-- and untagged; these are the standing records of one group at the source hashes its search
-- looked at (?4, a JSON array) that a tag kept off their Series, one row per run and tag.
-- Read only when the search found nothing, so the walk itself stays one seek per step.
-- name: gate_group_skipped
SELECT r.run_id, t.tag
FROM json_each(?4) h
JOIN records r ON r.machine_id = ?1 AND r.benchmark_id = ?2 AND r.config = ?3
                  AND r.source_hash = h.value
JOIN tags t ON t.run_id = r.run_id
ORDER BY r.run_id, t.tag;
