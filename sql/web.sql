-- The web server's own reads (store/web.c). Parameters are always bound, never pasted.

-- Every standing record of one Series (machine and benchmark by name, config, metric) with
-- what a chart and its table need, tagged or not (tagged ones are drawn hollow grey): its
-- spread (p95 and the samples), its commit's subject and date (the record's own time when
-- its commit is not on main), in Series order (placed_runs' place, at, started_at, run id), as series_members gives them.
-- name: web_points
WITH member AS MATERIALIZED (
	SELECT r.run_id AS run_id, runs.commit_sha AS commit_sha, runs.source_hash AS source_hash,
	       runs.harness_version AS harness_version, runs.content_hash AS content_hash,
	       runs.baseline AS baseline, runs.at AS at, runs.started_at AS started_at,
	       runs.place AS place,
	       (SELECT group_concat(t.tag, ',') FROM (SELECT tag FROM tags
						      WHERE run_id = r.run_id ORDER BY tag) t) AS tags
	FROM machines m
	JOIN benchmarks b ON b.name = ?2
	JOIN records r ON r.machine_id = m.id AND r.benchmark_id = b.id AND r.config = ?3
	JOIN placed_runs runs ON runs.id = r.run_id
	WHERE m.name = ?1
)
SELECT p.run_id, p.commit_sha, p.source_hash, p.place, p.harness_version, p.content_hash,
       p.baseline, p.tags, mt.kind, mt.median, mt.value, c.pr, mt.p95, mt.samples, c.subject,
       coalesce(c.committed_at, p.at)
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id AND mt.name = ?4
LEFT JOIN commits c ON c.sha = p.commit_sha
ORDER BY p.place, p.at, p.started_at, p.run_id;

-- A number that changes whenever another connection has committed (SQLite's data_version):
-- the server's response cache is dropped when it moves.
-- name: web_data_version
PRAGMA data_version;

-- The Suspects of one Series (machine and benchmark by name, config, metric), whatever their
-- state, for ringing its chart's points and marking its table: one of each kind per record at
-- most (the band's and the change-point search's).
-- name: web_series_suspects
SELECT s.id, s.run_id, s.side, s.shift, s.state, s.kind
FROM suspects s
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE m.name = ?1 AND b.name = ?2 AND s.config = ?3 AND s.metric = ?4
ORDER BY s.run_id;

-- The last ?5 values of one Series (untagged standing records), newest first: the overview's
-- sparkline and the change of its last record against its line's center.
-- name: web_recent_values
SELECT CASE WHEN mt.kind = 'timed' AND mt.median IS NOT NULL THEN mt.median ELSE mt.value END
FROM machines m
JOIN benchmarks b ON b.name = ?2
JOIN on_series_runs r ON r.machine_id = m.id AND r.benchmark_id = b.id AND r.config = ?3
JOIN placed_runs runs ON runs.id = r.run_id
JOIN metrics mt ON mt.run_id = r.run_id AND mt.name = ?4
WHERE m.name = ?1
ORDER BY runs.place DESC, runs.at DESC, runs.started_at DESC, r.run_id DESC
LIMIT ?5;

-- The overview's header: open alerts (?1: the open state's name), Regressions, machines, and
-- when a run was last stored (NULL before the first).
-- name: web_summary
SELECT (SELECT count(*) FROM alerts WHERE state = ?1), (SELECT count(*) FROM regressions),
       (SELECT count(*) FROM machines), (SELECT max(ingested_at) FROM runs);

-- Every Suspect with what the Suspects page groups and shows: its alert, its commit's
-- subject and date (the record's own time when the commit is not on main), its metric's unit;
-- grouped by machine and commit (the newest commit first), then in Series order.
-- name: web_suspect_rows
SELECT s.id, s.alert_id, m.name, b.name, s.config, s.metric, runs.commit_sha, runs.place,
       c.subject, coalesce(c.committed_at, runs.at), s.side, s.shift, s.center, s.tolerance,
       s.state, mt.unit, s.kind
FROM suspects s
JOIN placed_runs runs ON runs.id = s.run_id
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
LEFT JOIN commits c ON c.sha = runs.commit_sha
LEFT JOIN metrics mt ON mt.run_id = s.run_id AND mt.name = s.metric
ORDER BY m.name, runs.place DESC, runs.commit_sha, b.name, s.config, s.metric, s.id;

-- A commit on main as the pages name it (an alert's range, a Regression's good end): its seq
-- and subject; no row when it is not on main.
-- name: web_commit
SELECT seq, subject FROM commits WHERE sha = ?1;
