-- Every statement the store prepares, in PostgreSQL's dialect: one text per statement of
-- sql/queries.sql, with the same name, the same parameters ($N where SQLite has ?N) and the same
-- columns in the same order. Each starts with a "-- name: NAME" line. Parameters are always
-- bound, never pasted; they come as untyped text, so one whose type the server cannot infer
-- from its context is cast.

-- The schema version in force (the migrations applied). PostgreSQL has no user_version: the
-- store keeps the count in benchline_schema (store/pg.c makes it when it connects to create
-- the store, under the writers' lock), and each migration's transaction writes it where SQLite
-- sets user_version. A database without the table holds no store: this fails to prepare there,
-- and store_open says so.
-- name: schema_version
SELECT coalesce((SELECT max(version) FROM benchline_schema), 0);

-- The machine ?1 names: its id and whether its keep rule is 'first' (a boolean, read as 1/0).
-- name: machine_get
SELECT id, keep = 'first' FROM machines WHERE name = $1;

-- A new machine; RETURNING gives its id (SQLite's last_insert_rowid).
-- name: machine_insert
INSERT INTO machines (name, info) VALUES ($1, $2) RETURNING id;

-- A machine's info when it changed (SQLite's IS NOT is IS DISTINCT FROM).
-- name: machine_set_info
UPDATE machines SET info = $2 WHERE id = $1 AND info IS DISTINCT FROM $2;

-- name: machine_set_keep
INSERT INTO machines (name, keep) VALUES ($1, $2)
ON CONFLICT (name) DO UPDATE SET keep = excluded.keep;

-- name: benchmark_get
SELECT id FROM benchmarks WHERE name = $1;

-- A new benchmark; RETURNING gives its id.
-- name: benchmark_insert
INSERT INTO benchmarks (name) VALUES ($1) RETURNING id;

-- A new run, stored now (seconds since the epoch: clock_timestamp is the time of the insert,
-- as SQLite's julianday('now') is); RETURNING gives its id.
-- name: run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
	extract(epoch FROM clock_timestamp())::float8)
RETURNING id;

-- One metric of a run; $11 (the samples) is bytea.
-- name: metric_insert
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11);

-- A tag, once (SQLite's INSERT OR IGNORE).
-- name: tag_insert
INSERT INTO tags (run_id, tag) VALUES ($1, $2) ON CONFLICT DO NOTHING;

-- name: tag_delete
DELETE FROM tags WHERE run_id = $1 AND tag = $2;

-- name: tag_has
SELECT 1 FROM tags WHERE run_id = $1 AND tag = $2;

-- name: standing_set
INSERT INTO records (machine_id, benchmark_id, config, source_hash, harness_version, run_id)
VALUES ($1, $2, $3, $4, $5, $6)
ON CONFLICT (machine_id, benchmark_id, config, source_hash, harness_version)
DO UPDATE SET run_id = excluded.run_id;

-- name: main_known
SELECT EXISTS (SELECT 1 FROM commits LIMIT 1);

-- name: main_has
SELECT EXISTS (SELECT 1 FROM commits WHERE source_hash = $1)
    OR EXISTS (SELECT 1 FROM commits WHERE sha = $2);

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
SELECT value FROM meta WHERE key = $1;

-- name: meta_set
INSERT INTO meta (key, value) VALUES ($1, $2)
ON CONFLICT (key) DO UPDATE SET value = excluded.value;

-- name: commit_tip
SELECT sha, seq FROM commits ORDER BY seq DESC LIMIT 1;

-- name: commit_seq
SELECT seq FROM commits WHERE sha = $1;

-- name: commit_insert
INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)
VALUES ($1, $2, $3, $4, $5, $6, $7);

-- name: commit_delete_after
DELETE FROM commits WHERE seq > $1;

-- name: commit_count
SELECT count(*) FROM commits;

-- Runs in Series order (machine, benchmark, config by name, then placed_runs' place, at,
-- started_at, id); the place tells the run's seq on main when it is known (an integer).
-- $1/$2 filter machine and benchmark by name (NULL: any); $3 = 1 lists every run. The names
-- are cast where they are tested for NULL (nothing else there says their type); no key of the
-- ORDER BY can be NULL.
-- name: records_list
WITH listed AS MATERIALIZED (
	SELECT runs.id AS id, m.name AS machine, b.name AS benchmark, runs.config AS config,
	       runs.source_hash AS source_hash, runs.harness_version AS harness_version,
	       runs.commit_sha AS commit_sha, runs.content_hash AS content_hash,
	       runs.started_at AS started_at, runs.committed_at AS committed_at,
	       runs.baseline AS baseline, r.run_id IS NOT NULL AS standing, runs.at AS at,
	       runs.place AS place, runs.primary_metric AS primary_metric
	FROM placed_runs runs
	JOIN machines m ON m.id = runs.machine_id
	JOIN benchmarks b ON b.id = runs.benchmark_id
	LEFT JOIN records r ON r.run_id = runs.id
	WHERE ($1::text IS NULL OR m.name = $1) AND ($2::text IS NULL OR b.name = $2)
	  AND ($3::bigint = 1 OR r.run_id IS NOT NULL)
)
SELECT id, machine, benchmark, config, source_hash, harness_version, commit_sha,
       content_hash, started_at, committed_at, baseline, standing, place, primary_metric
FROM listed
ORDER BY machine, benchmark, config, place, at, started_at, id;

-- Pages of runs for GET /api/records, by run id (keyset paging: $1 the last id of the page
-- before, $9 the page's size), with the columns of records_list. $2 a machine's name, $3 a
-- benchmark's, NULL for any; $4 1 for every run, 0 for standing ones; $5/$6 and $7/$8 the
-- range of commits and of source hashes a hex prefix names ([prefix, prefix || 'g')), NULL
-- for any. Three statements that differ in what leads, so each reads one index range: the
-- run ids, the commits (runs_commit) or the source hashes (runs_source). As in records_list,
-- the parameters tested for NULL are cast; the columns' "C" collation makes the prefix ranges
-- byte ranges, as in SQLite.
-- name: records_page
SELECT runs.id, m.name, b.name, runs.config, runs.source_hash, runs.harness_version,
       runs.commit_sha, runs.content_hash, runs.started_at, runs.committed_at, runs.baseline,
       r.run_id IS NOT NULL, runs.place, runs.primary_metric
FROM placed_runs runs
JOIN machines m ON m.id = runs.machine_id
JOIN benchmarks b ON b.id = runs.benchmark_id
LEFT JOIN records r ON r.run_id = runs.id
WHERE runs.id > $1 AND ($2::text IS NULL OR m.name = $2) AND ($3::text IS NULL OR b.name = $3)
  AND ($4::bigint = 1 OR r.run_id IS NOT NULL)
  AND ($5::text IS NULL OR (runs.commit_sha >= $5 AND runs.commit_sha < $6))
  AND ($7::text IS NULL OR (runs.source_hash >= $7 AND runs.source_hash < $8))
ORDER BY runs.id
LIMIT $9;

-- name: records_page_commit
SELECT runs.id, m.name, b.name, runs.config, runs.source_hash, runs.harness_version,
       runs.commit_sha, runs.content_hash, runs.started_at, runs.committed_at, runs.baseline,
       r.run_id IS NOT NULL, runs.place, runs.primary_metric
FROM placed_runs runs
JOIN machines m ON m.id = runs.machine_id
JOIN benchmarks b ON b.id = runs.benchmark_id
LEFT JOIN records r ON r.run_id = runs.id
WHERE runs.commit_sha >= $5 AND runs.commit_sha < $6 AND runs.id > $1
  AND ($2::text IS NULL OR m.name = $2) AND ($3::text IS NULL OR b.name = $3)
  AND ($4::bigint = 1 OR r.run_id IS NOT NULL)
  AND ($7::text IS NULL OR (runs.source_hash >= $7 AND runs.source_hash < $8))
ORDER BY runs.id
LIMIT $9;

-- name: records_page_source
SELECT runs.id, m.name, b.name, runs.config, runs.source_hash, runs.harness_version,
       runs.commit_sha, runs.content_hash, runs.started_at, runs.committed_at, runs.baseline,
       r.run_id IS NOT NULL, runs.place, runs.primary_metric
FROM placed_runs runs
JOIN machines m ON m.id = runs.machine_id
JOIN benchmarks b ON b.id = runs.benchmark_id
LEFT JOIN records r ON r.run_id = runs.id
WHERE runs.source_hash >= $7 AND runs.source_hash < $8 AND runs.id > $1
  AND ($2::text IS NULL OR m.name = $2) AND ($3::text IS NULL OR b.name = $3)
  AND ($4::bigint = 1 OR r.run_id IS NOT NULL)
  AND ($5::text IS NULL OR (runs.commit_sha >= $5 AND runs.commit_sha < $6))
ORDER BY runs.id
LIMIT $9;

-- name: run_tags
SELECT tag FROM tags WHERE run_id = $1 ORDER BY tag;

-- name: run_metrics
SELECT name, kind, unit, better, median, p95, value, n, ladder, samples
FROM metrics WHERE run_id = $1 ORDER BY name;

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

-- Whether machine $1 (by name) has a clean standing record at source hash $2 (a sweep skips
-- that source).
-- name: machine_measured
SELECT EXISTS (SELECT 1 FROM runs r
	       JOIN records rec ON rec.run_id = r.id
	       WHERE r.source_hash = $2
		 AND r.machine_id = (SELECT id FROM machines WHERE name = $1)
		 AND r.dirty = 0 AND r.profile = 'release');
