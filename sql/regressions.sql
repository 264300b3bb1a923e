-- Regressions (§9.3) and what triage (§9.5) reads and writes of alerts: the statements
-- store/regressions.c prepares. Parameters are always bound, never pasted.

-- The Regression already stored for a Series (machine and benchmark ids, config, metric) at a
-- commit: the table's UNIQUE key.
-- name: regression_find
SELECT id FROM regressions
WHERE machine_id = ?1 AND benchmark_id = ?2 AND config = ?3 AND metric = ?4 AND commit_sha = ?5;

-- A new Regression. Its seq is the commit's on main (NULL when main's synced history does not
-- hold it); a subject or pull request the caller does not know (NULL) is the commits table's.
-- Inserting fires regressions_pinned (sql/004-alerts.sql): the next detect reads every Series.
-- name: regression_insert
INSERT INTO regressions (alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq,
			 source_hash, subject, pr, ratio, lo, hi, reference_commit, probes,
			 profile, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, (SELECT seq FROM commits WHERE sha = ?6), ?7,
	coalesce(?8, (SELECT subject FROM commits WHERE sha = ?6)),
	coalesce(?9, (SELECT pr FROM commits WHERE sha = ?6)), ?10, ?11, ?12, ?13, ?14, ?15,
	(julianday('now') - 2440587.5) * 86400.0);

-- Every Regression (?1 = 0) or one alert's, oldest first, with the names of its Series and
-- where triage filed its alert.
-- name: regressions_list
SELECT r.id, r.alert_id, m.name, b.name, r.config, r.metric, r.commit_sha, r.seq,
       r.source_hash, r.subject, r.pr, r.ratio, r.lo, r.hi, r.reference_commit, r.probes,
       a.filed_url, r.created_at, r.profile
FROM regressions r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
LEFT JOIN alerts a ON a.id = r.alert_id
WHERE ?1 = 0 OR r.alert_id = ?1
ORDER BY r.id;

-- The Regressions GET /api/regressions filters, oldest first, with the same columns: ?1 a
-- machine's name, ?2 a benchmark's, NULL for any; ?3/?4 the range of commits a hex prefix
-- names ([prefix, prefix || 'g')), NULL for any; ?5 an alert's id, NULL for any. (commit_sha
-- is COLLATE "C" on PostgreSQL: the range is in byte order there too.)
-- name: regressions_filtered
SELECT r.id, r.alert_id, m.name, b.name, r.config, r.metric, r.commit_sha, r.seq,
       r.source_hash, r.subject, r.pr, r.ratio, r.lo, r.hi, r.reference_commit, r.probes,
       a.filed_url, r.created_at, r.profile
FROM regressions r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
LEFT JOIN alerts a ON a.id = r.alert_id
WHERE (CAST(?1 AS TEXT) IS NULL OR m.name = ?1) AND (CAST(?2 AS TEXT) IS NULL OR b.name = ?2)
  AND (CAST(?3 AS TEXT) IS NULL OR (r.commit_sha >= ?3 AND r.commit_sha < ?4))
  AND (CAST(?5 AS BIGINT) IS NULL OR r.alert_id = ?5)
ORDER BY r.id;

-- The Regressions of one Series (machine and benchmark by name, config, metric), oldest
-- first, with the same columns.
-- name: regressions_of_series
SELECT r.id, r.alert_id, m.name, b.name, r.config, r.metric, r.commit_sha, r.seq,
       r.source_hash, r.subject, r.pr, r.ratio, r.lo, r.hi, r.reference_commit, r.probes,
       a.filed_url, r.created_at, r.profile
FROM machines m
JOIN benchmarks b ON b.name = ?2
JOIN regressions r ON r.machine_id = m.id AND r.benchmark_id = b.id AND r.config = ?3
		  AND r.metric = ?4
LEFT JOIN alerts a ON a.id = r.alert_id
WHERE m.name = ?1
ORDER BY r.id;

-- The Regressions of one (machine, benchmark, config), by metric name and seq (NULL, a commit
-- not on main, first): the Series listing counts them (`regressions`) and starts a `pinned`
-- line at each seq. One index range on the table's UNIQUE key.
-- name: regressions_group_counts
SELECT metric, seq
FROM regressions
WHERE machine_id = ?1 AND benchmark_id = ?2 AND config = ?3
ORDER BY metric, seq NULLS FIRST;

-- The alerts triage files: confirmed or covered, holding a Regression, not filed yet; oldest
-- first.
-- name: triage_alerts
SELECT a.id, m.name, a.commit_sha, a.side, a.state, a.series, a.run_wide
FROM alerts a
JOIN machines m ON m.id = a.machine_id
WHERE a.state IN ('confirmed', 'covered') AND a.filed_url IS NULL
  AND EXISTS (SELECT 1 FROM regressions r WHERE r.alert_id = a.id)
ORDER BY a.id;

-- Where an alert's issue was filed (?2); no row changes for an unknown alert.
-- name: alert_set_filed
UPDATE alerts SET filed_url = ?2 WHERE id = ?1;
