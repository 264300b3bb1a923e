-- The intake's lookups for a chunk of records at once, in PostgreSQL's dialect (the same
-- names, parameters and columns as sql/intake.sql): each takes the chunk's values as one JSON
-- array ($1) and answers with each hit's 0-based index in it (the ordinality less one), in that order, so
-- storing a file waits for the server a few times per chunk instead of a few times per record.
-- SQLite's json_each is json_array_elements (and _text) here. Parameters are always bound,
-- never pasted.

-- The runs already stored under the chunk's digests ($1, an array of digests).
-- name: intake_runs_by_digest
SELECT d.ord - 1, r.id
FROM json_array_elements_text($1::json) WITH ORDINALITY AS d(value, ord)
JOIN runs r ON r.digest = d.value
ORDER BY 1;

-- The tags of runs ($1, an array of run ids), one row per run and tag.
-- name: intake_tags_of_runs
SELECT j.ord - 1, t.tag
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN tags t ON t.run_id = j.value::bigint
ORDER BY 1, 2;

-- The machines of the chunk ($1, an array of names): id, whether its keep rule is 'first' (a
-- boolean, read as 1/0), and the info it holds.
-- name: intake_machines
SELECT j.ord - 1, m.id, m.keep = 'first', m.info
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN machines m ON m.name = j.value
ORDER BY 1;

-- The benchmarks of the chunk ($1, an array of names).
-- name: intake_benchmarks
SELECT j.ord - 1, b.id
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN benchmarks b ON b.name = j.value
ORDER BY 1;

-- Which of the chunk's runs are main's ($1, an array of [source hash, commit]): those whose
-- source hash or commit synced main has (the rule of main_has).
-- name: intake_on_main
SELECT j.ord - 1
FROM json_array_elements($1::json) WITH ORDINALITY AS j(value, ord)
WHERE EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = j.value ->> 0)
   OR EXISTS (SELECT 1 FROM commits c WHERE c.sha = j.value ->> 1)
ORDER BY 1;

-- The standing run of each key of the chunk ($1, an array of [machine id, benchmark id,
-- config, source hash, harness version]): its id, p95/median, and whether a quality tag
-- applies (dirty, profile, preflight, noisy: such a run never displaces a clean one). The keys
-- are made first (MATERIALIZED), so that each is one seek of the records primary key on all
-- five columns.
-- name: intake_standing
WITH wanted AS MATERIALIZED (
	SELECT k.ord - 1 AS i, (k.value ->> 0)::bigint AS machine_id,
	       (k.value ->> 1)::bigint AS benchmark_id, k.value ->> 2 AS config,
	       k.value ->> 3 AS source_hash, (k.value ->> 4)::bigint AS harness_version
	FROM json_array_elements($1::json) WITH ORDINALITY AS k(value, ord)
)
SELECT w.i, r.run_id, u.quietness,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id
	       AND (t.tag = 'dirty' OR t.tag = 'profile' OR t.tag = 'preflight'
		    OR t.tag = 'noisy'))
FROM wanted w
JOIN records r ON r.machine_id = w.machine_id AND r.benchmark_id = w.benchmark_id
                  AND r.config = w.config AND r.source_hash = w.source_hash
                  AND r.harness_version = w.harness_version
JOIN runs u ON u.id = r.run_id
ORDER BY 1;

-- $1 ids for new runs from the runs' identity sequence, in ascending order: one statement
-- where the insert's RETURNING id was a wait per run, so that a run's insert, like its
-- metrics', goes without waiting (store/pg.c's pipeline).
-- name: intake_run_ids
SELECT nextval(pg_get_serial_sequence('runs', 'id')) AS id
FROM generate_series(1, $1::bigint)
ORDER BY id;

-- A new run with its id ($18, from intake_run_ids); the rest as run_insert. It returns
-- nothing, so inside a transaction it is not waited for.
-- name: intake_run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at, id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
	extract(epoch FROM clock_timestamp())::float8, $18);

-- The metrics of many runs in one statement: $1 an array of [run id, name, kind, unit,
-- better, median, p95, n, value, ladder, samples' offset, samples' length], the samples' bytes
-- (little-endian doubles) at that 1-based offset of $2 (bytea), or offset null for none. A
-- chunk's metrics in one statement where metric_insert was one per metric: each statement's
-- executor start (its CHECKs and triggers made ready) costs the server more than a metric's
-- row. The array is read as jsonb, parsed once (a json element is parsed again by each ->>);
-- the reals come as their %.17g text, exact in jsonb's numeric, which reads back as the same
-- double.
-- name: intake_metrics_insert
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
SELECT (m ->> 0)::bigint, m ->> 1, m ->> 2, m ->> 3, m ->> 4, (m ->> 5)::float8,
       (m ->> 6)::float8, (m ->> 7)::bigint, (m ->> 8)::float8, m ->> 9,
       substring($2::bytea FROM (m ->> 10)::int FOR (m ->> 11)::int)
FROM jsonb_array_elements($1::jsonb) AS j(m);
