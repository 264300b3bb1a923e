-- The statement of sql/gate-skipped.sql in PostgreSQL's text, which store/embed-sql.sh cannot
-- derive from SQLite's; it says why above its name.

-- JSON: SQLite's json_each is json_array_elements_text here.
-- name: gate_group_skipped
SELECT r.run_id, t.tag
FROM json_array_elements_text($4::json) AS h(value)
JOIN records r ON r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3
                  AND r.source_hash = h.value
JOIN tags t ON t.run_id = r.run_id
ORDER BY r.run_id, t.tag;
