-- The views of sql/009-views.sql, PostgreSQL: on_series_runs (the standing records that carry
-- no tag, those a Series is made of) and listed_runs (a run as the listings show it), the same
-- columns; sql/009-views.sql explains them. PostgreSQL inlines a view into each statement that
-- reads it, as SQLite flattens it.
--
-- The tag test of on_series_runs ends in OFFSET 0, which keeps it a seek of tags' primary key
-- per record, as SQLite runs it: as an anti join the planner, which cannot count the records a
-- statement's other conditions leave (gate_groups_in's JSON pairs), may scan every tag instead.
CREATE VIEW on_series_runs AS
SELECT r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version, r.run_id
FROM records r
WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id OFFSET 0);

CREATE VIEW listed_runs AS
SELECT runs.id AS id, m.name AS machine, b.name AS benchmark, runs.config AS config,
       runs.source_hash AS source_hash, runs.harness_version AS harness_version,
       runs.commit_sha AS commit_sha, runs.content_hash AS content_hash,
       runs.started_at AS started_at, runs.committed_at AS committed_at,
       runs.baseline AS baseline, r.run_id IS NOT NULL AS standing, runs.place AS place,
       runs.primary_metric AS primary_metric, runs.at AS at
FROM placed_runs runs
JOIN machines m ON m.id = runs.machine_id
JOIN benchmarks b ON b.id = runs.benchmark_id
LEFT JOIN records r ON r.run_id = runs.id;
