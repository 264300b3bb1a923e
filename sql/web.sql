-- The web server's own reads (store/web.c). Parameters are always bound, never pasted.

-- Every standing record of one Series (machine and benchmark by name, config, metric) with
-- what a chart and its table need, tagged or not (tagged ones are drawn hollow grey), in
-- Series order (placed_runs' place, at, started_at, run id), as series_members gives them.
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
       p.baseline, p.tags, mt.kind, mt.median, mt.value,
       (SELECT c.pr FROM commits c WHERE c.sha = p.commit_sha)
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id AND mt.name = ?4
ORDER BY p.place, p.at, p.started_at, p.run_id;

-- A number that changes whenever another connection has committed (SQLite's data_version):
-- the server's response cache is dropped when it moves.
-- name: web_data_version
PRAGMA data_version;

-- The Suspects of one Series (machine and benchmark by name, config, metric), whatever their
-- state, for ringing its chart's points and marking its table: one per record at most.
-- name: web_series_suspects
SELECT s.id, s.run_id, s.side, s.shift, s.state
FROM suspects s
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE m.name = ?1 AND b.name = ?2 AND s.config = ?3 AND s.metric = ?4
ORDER BY s.run_id;
