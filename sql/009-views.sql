-- Two reads that several statements share, each defined once as a view (as sql/003-places.sql
-- defines a run's place): what stands on a Series, and a run as the listings show it.
--
-- on_series_runs: the standing records that carry no tag, the records a Series is made of
-- (§1, §5), with every column of records. Every statement that reads a Series, or counts what
-- is on one, reads it where it would read records (series_members, detect_group_members,
-- web_recent_values, alerts_judged_at, gate_groups_in). SQLite flattens it into each, so a
-- group's records are still one range of records' primary key, each tested for a tag by one
-- seek of tags'.
CREATE VIEW on_series_runs AS
SELECT r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version, r.run_id
FROM records r
WHERE NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id);

-- listed_runs: every run as `benchline records` and GET /api/records list it, its columns
-- those store/store.c's walk_records reads, in that order: its names, whether it stands and
-- its place (placed_runs); then at, which Series order sorts by after the place. records_list
-- and the three records_page statements read it. SQLite flattens it too, so each still reads
-- the one index range its WHERE leads with (the run ids, runs_commit or runs_source).
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
