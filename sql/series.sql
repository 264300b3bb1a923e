-- Series (§1, §5): the statements store/series.c prepares. A Series is one metric of the
-- standing records of one (machine, benchmark, config) that carry no tag, in main's commit
-- order. Both statements read `records` by its primary key (machine_id, benchmark_id,
-- config, ...), so listing the Series is a chain of index seeks and range scans, never a
-- scan of every record. Parameters are always bound, never pasted.

-- The (machine, benchmark, config) that follows ?1/?2/?3 in the primary key's order, with
-- its names: one index seek per group (start with ?1 = -1). A skip-scan in SQL, so listing
-- the groups never reads the records in between.
-- name: series_next_group
SELECT g.machine_id, g.benchmark_id, g.config, m.name, b.name
FROM (SELECT r.machine_id, r.benchmark_id, r.config
      FROM records r
      WHERE (r.machine_id, r.benchmark_id, r.config) > (?1, ?2, ?3)
      ORDER BY r.machine_id, r.benchmark_id, r.config
      LIMIT 1) g
JOIN machines m ON m.id = g.machine_id
JOIN benchmarks b ON b.id = g.benchmark_id;

-- Every metric of the group's untagged standing records, by metric name and then in Series
-- order (place, at, started_at, run id: sql/003-places.sql). The members are materialized
-- first, so each record's place is looked up once, not once per metric.
-- name: series_members
WITH member AS MATERIALIZED (
	SELECT r.run_id AS run_id, runs.commit_sha AS commit_sha,
	       runs.harness_version AS harness_version, runs.content_hash AS content_hash,
	       runs.baseline AS baseline, runs.at AS at, runs.started_at AS started_at,
	       runs.place AS place
	FROM on_series_runs r
	JOIN placed_runs runs ON runs.id = r.run_id
	WHERE r.machine_id = ?1 AND r.benchmark_id = ?2 AND r.config = ?3
)
SELECT mt.name, mt.kind, mt.unit, mt.better, mt.median, mt.value,
       p.run_id, p.commit_sha, p.place, p.harness_version, p.content_hash, p.baseline
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id
ORDER BY mt.name, p.place, p.at, p.started_at, p.run_id;
