-- The statements of sql/gate.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name.
--
-- gate_groups_in: SQLite's json_each is json_array_elements (and _text) here, its 0-based key
-- the ordinality less one; $3, an integer flag, is compared with 0. The (group, source hash)
-- pairs are made first (MATERIALIZED), so that each is one seek of the records primary key on
-- all four columns (on_series_runs keeps its tag test a seek per record: sql/pg/009-views.sql).

-- JSON and planner: json_array_elements for json_each, the pairs MATERIALIZED first (above).
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
JOIN on_series_runs r ON r.machine_id = w.machine_id AND r.benchmark_id = w.benchmark_id
                         AND r.config = w.config AND r.source_hash = w.source_hash
JOIN runs u ON u.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id
ORDER BY w.group_ord, w.step_ord, r.harness_version DESC, r.run_id, mt.name;
