-- Every statement the store prepares. Each starts with a "-- name: NAME" line; the embed
-- step turns NAME into the C constant SQL_NAME, and derives its PostgreSQL text unless
-- sql/pg/queries.sql keeps one (store/embed-sql.sh says how). A "-- streamed" line right after
-- the name marks a result that can be large, which PostgreSQL sends a row at a time.
-- Parameters are always bound, never pasted. A parameter that is only tested for NULL is
-- CAST to its type there, which PostgreSQL could not infer (it gets parameters as text).

-- The schema version in force (the migrations applied).
-- name: schema_version
PRAGMA user_version;

-- name: machine_get
SELECT id, keep = 'first' FROM machines WHERE name = ?1;

-- name: machine_insert
INSERT INTO machines (name, info) VALUES (?1, ?2);

-- name: machine_set_info
UPDATE machines SET info = ?2 WHERE id = ?1 AND info IS NOT ?2;

-- name: machine_set_keep
INSERT INTO machines (name, keep) VALUES (?1, ?2)
ON CONFLICT (name) DO UPDATE SET keep = excluded.keep;

-- name: benchmark_get
SELECT id FROM benchmarks WHERE name = ?1;

-- name: benchmark_insert
INSERT INTO benchmarks (name) VALUES (?1);

-- name: run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
	(julianday('now') - 2440587.5) * 86400.0);

-- name: metric_insert
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11);

-- name: tag_insert
INSERT OR IGNORE INTO tags (run_id, tag) VALUES (?1, ?2);

-- name: tag_delete
DELETE FROM tags WHERE run_id = ?1 AND tag = ?2;

-- name: tag_has
SELECT 1 FROM tags WHERE run_id = ?1 AND tag = ?2;

-- name: standing_set
INSERT INTO records (machine_id, benchmark_id, config, source_hash, harness_version, run_id)
VALUES (?1, ?2, ?3, ?4, ?5, ?6)
ON CONFLICT (machine_id, benchmark_id, config, source_hash, harness_version)
DO UPDATE SET run_id = excluded.run_id;

-- name: main_known
SELECT EXISTS (SELECT 1 FROM commits LIMIT 1);

-- name: main_has
SELECT EXISTS (SELECT 1 FROM commits WHERE source_hash = ?1)
    OR EXISTS (SELECT 1 FROM commits WHERE sha = ?2);

-- name: not_main_clear
DELETE FROM tags WHERE tag = 'not-main';

-- Baselines come from before the history existed and are never not-main.
-- name: not_main_set
INSERT INTO tags (run_id, tag)
SELECT id, 'not-main' FROM runs
WHERE baseline = 0
  AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = runs.source_hash)
  AND NOT EXISTS (SELECT 1 FROM commits c WHERE c.sha = runs.commit_sha);

-- name: meta_get
SELECT value FROM meta WHERE key = ?1;

-- name: meta_set
INSERT INTO meta (key, value) VALUES (?1, ?2)
ON CONFLICT (key) DO UPDATE SET value = excluded.value;

-- name: commit_tip
SELECT sha, seq FROM commits ORDER BY seq DESC LIMIT 1;

-- name: commit_seq
SELECT seq FROM commits WHERE sha = ?1;

-- name: commit_insert
INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- name: commit_delete_after
DELETE FROM commits WHERE seq > ?1;

-- name: commit_count
SELECT count(*) FROM commits;

-- Runs in Series order (machine, benchmark, config by name, then placed_runs' place, at,
-- started_at, id), as the view listed_runs gives them (sql/009-views.sql); the place tells the
-- run's seq on main when it is known (an integer).
-- ?1/?2 filter machine and benchmark by name (NULL: any); ?3 = 1 lists every run.
-- name: records_list
WITH listed AS MATERIALIZED (
	SELECT * FROM listed_runs
	WHERE (CAST(?1 AS TEXT) IS NULL OR machine = ?1)
	  AND (CAST(?2 AS TEXT) IS NULL OR benchmark = ?2)
	  AND (?3 = 1 OR standing)
)
SELECT * FROM listed
ORDER BY machine, benchmark, config, place, at, started_at, id;

-- Pages of runs for GET /api/records, by run id (keyset paging: ?1 the last id of the page
-- before, ?9 the page's size), with the columns of records_list. ?2 a machine's name, ?3 a
-- benchmark's, NULL for any; ?4 1 for every run, 0 for standing ones; ?5/?6 and ?7/?8 the
-- range of commits and of source hashes a hex prefix names ([prefix, prefix || 'g')), NULL
-- for any (PostgreSQL's text columns are COLLATE "C": byte ranges there too). Three
-- statements that differ in what leads, so each reads one index range: the run ids, the
-- commits (runs_commit) or the source hashes (runs_source).
-- name: records_page
SELECT * FROM listed_runs
WHERE id > ?1
  AND (CAST(?2 AS TEXT) IS NULL OR machine = ?2) AND (CAST(?3 AS TEXT) IS NULL OR benchmark = ?3)
  AND (?4 = 1 OR standing)
  AND (CAST(?5 AS TEXT) IS NULL OR (commit_sha >= ?5 AND commit_sha < ?6))
  AND (CAST(?7 AS TEXT) IS NULL OR (source_hash >= ?7 AND source_hash < ?8))
ORDER BY id
LIMIT ?9;

-- name: records_page_commit
SELECT * FROM listed_runs
WHERE commit_sha >= ?5 AND commit_sha < ?6 AND id > ?1
  AND (CAST(?2 AS TEXT) IS NULL OR machine = ?2) AND (CAST(?3 AS TEXT) IS NULL OR benchmark = ?3)
  AND (?4 = 1 OR standing)
  AND (CAST(?7 AS TEXT) IS NULL OR (source_hash >= ?7 AND source_hash < ?8))
ORDER BY id
LIMIT ?9;

-- name: records_page_source
SELECT * FROM listed_runs
WHERE source_hash >= ?7 AND source_hash < ?8 AND id > ?1
  AND (CAST(?2 AS TEXT) IS NULL OR machine = ?2) AND (CAST(?3 AS TEXT) IS NULL OR benchmark = ?3)
  AND (?4 = 1 OR standing)
  AND (CAST(?5 AS TEXT) IS NULL OR (commit_sha >= ?5 AND commit_sha < ?6))
ORDER BY id
LIMIT ?9;

-- name: run_tags
SELECT tag FROM tags WHERE run_id = ?1 ORDER BY tag;

-- name: run_metrics
SELECT name, kind, unit, better, median, p95, value, n, ladder, samples
FROM metrics WHERE run_id = ?1 ORDER BY name;

-- name: count_runs
SELECT count(*) FROM runs;

-- name: count_records
SELECT count(*) FROM records;

-- name: count_metrics
SELECT count(*) FROM metrics;

-- name: count_tags
SELECT count(*) FROM tags;

-- name: count_machines
SELECT count(*) FROM machines;

-- name: count_benchmarks
SELECT count(*) FROM benchmarks;

-- Whether machine ?1 (by name) has a clean standing record at source hash ?2 (a sweep skips
-- that source).
-- name: machine_measured
SELECT EXISTS (SELECT 1 FROM runs r
	       JOIN records rec ON rec.run_id = r.id
	       WHERE r.source_hash = ?2
		 AND r.machine_id = (SELECT id FROM machines WHERE name = ?1)
		 AND r.dirty = 0 AND r.profile = 'release');
