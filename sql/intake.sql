-- The intake's lookups for a chunk of records at once (store/intake.c, ingest/ingest.c): each
-- takes the chunk's values as one JSON array (?1) and answers with each hit's index in it
-- (json_each's key), in that order, so storing a file asks the database a few statements per chunk instead of
-- a few per record. CROSS JOIN keeps the array the outer loop: each element is one seek of
-- the table's index. Parameters are always bound, never pasted.

-- The runs already stored under the chunk's digests (?1, an array of digests).
-- name: intake_runs_by_digest
SELECT d.key, r.id
FROM json_each(?1) d
CROSS JOIN runs r
WHERE r.digest = d.value
ORDER BY 1;

-- The tags of runs (?1, an array of run ids), one row per run and tag.
-- name: intake_tags_of_runs
SELECT j.key, t.tag
FROM json_each(?1) j
CROSS JOIN tags t
WHERE t.run_id = j.value
ORDER BY 1, 2;

-- The machines of the chunk (?1, an array of names): id, whether its keep rule is 'first', and
-- the info it holds.
-- name: intake_machines
SELECT j.key, m.id, m.keep = 'first', m.info
FROM json_each(?1) j
CROSS JOIN machines m
WHERE m.name = j.value
ORDER BY 1;

-- The benchmarks of the chunk (?1, an array of names).
-- name: intake_benchmarks
SELECT j.key, b.id
FROM json_each(?1) j
CROSS JOIN benchmarks b
WHERE b.name = j.value
ORDER BY 1;

-- Which of the chunk's runs are main's (?1, an array of [source hash, commit]): those whose
-- source hash or commit synced main has (the rule of main_has).
-- name: intake_on_main
SELECT j.key
FROM json_each(?1) j
WHERE EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = json_extract(j.value, '$[0]'))
   OR EXISTS (SELECT 1 FROM commits c WHERE c.sha = json_extract(j.value, '$[1]'))
ORDER BY 1;

-- The standing run of each key of the chunk (?1, an array of [machine id, benchmark id,
-- config, source hash, harness version]): its id, p95/median, and whether a quality tag
-- applies (dirty, profile, preflight, noisy: such a run never displaces a clean one).
-- name: intake_standing
SELECT k.key, r.run_id, u.quietness,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id
	       AND (t.tag = 'dirty' OR t.tag = 'profile' OR t.tag = 'preflight'
		    OR t.tag = 'noisy'))
FROM json_each(?1) k
CROSS JOIN records r
JOIN runs u ON u.id = r.run_id
WHERE r.machine_id = json_extract(k.value, '$[0]')
  AND r.benchmark_id = json_extract(k.value, '$[1]')
  AND r.config = json_extract(k.value, '$[2]')
  AND r.source_hash = json_extract(k.value, '$[3]')
  AND r.harness_version = json_extract(k.value, '$[4]')
ORDER BY 1;

-- ?1 ids for new runs, in ascending order: those SQLite would give them one insert at a time
-- (the largest id plus one), taken by a writer, who alone inserts until it commits.
-- name: intake_run_ids
WITH RECURSIVE k(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM k WHERE i < ?1)
SELECT (SELECT coalesce(max(id), 0) FROM runs) + i FROM k
ORDER BY 1;

-- A new run with its id (?18, from intake_run_ids); the rest as run_insert.
-- name: intake_run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at, id)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
	(julianday('now') - 2440587.5) * 86400.0, ?18);

-- The metrics of many runs in one statement: ?1 an array of [run id, name, kind, unit,
-- better, median, p95, n, value, ladder, samples' offset, samples' length], the samples' bytes
-- (little-endian doubles) at that 1-based offset of ?2, or offset null for none. PostgreSQL's
-- store inserts a chunk's metrics with it, one statement (one executor start, one round trip)
-- where metric_insert was one per metric. SQLite's store inserts them row by row with
-- metric_insert, which costs SQLite less than reading them out of an array: this is the same
-- statement in SQLite's dialect, which tests/pg/compare-q1.sh holds the other to.
-- name: intake_metrics_insert
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
SELECT json_extract(m.value, '$[0]'), json_extract(m.value, '$[1]'),
       json_extract(m.value, '$[2]'), json_extract(m.value, '$[3]'),
       json_extract(m.value, '$[4]'), json_extract(m.value, '$[5]'),
       json_extract(m.value, '$[6]'), json_extract(m.value, '$[7]'),
       json_extract(m.value, '$[8]'), json_extract(m.value, '$[9]'),
       CASE WHEN json_extract(m.value, '$[10]') IS NOT NULL
	    THEN substr(?2, json_extract(m.value, '$[10]'), json_extract(m.value, '$[11]')) END
FROM json_each(?1) m;
