-- The statements of sql/intake.sql in PostgreSQL's dialect: every one differs from what
-- store/embed-sql.sh would derive, since each takes a chunk's values as one JSON array ($1)
-- read with SQLite's json_each, which PostgreSQL lacks (json_array_elements and _text here,
-- the index each answers by being the ordinality less one), or numbers or times its rows as
-- only SQLite does; each says why above its name. The same names, parameters and columns.
-- Parameters are always bound, never pasted.
--
-- intake_standing makes the keys first (MATERIALIZED) so each is one seek of the records
-- primary key on all five columns. intake_run_ids takes ids from the runs' identity sequence
-- in one statement where the insert's RETURNING id was a wait per run, so that a run's insert,
-- like its metrics', goes without waiting (store/pg.c's pipeline); intake_run_insert returns
-- nothing, so inside a transaction it is not waited for. intake_metrics_insert inserts a
-- chunk's metrics in one statement where metric_insert was one per metric: each statement's
-- executor start (its CHECKs and triggers made ready) costs the server more than a metric's
-- row; its array is read as jsonb, parsed once (a json element is parsed again by each ->>),
-- the reals as their %.17g text, exact in jsonb's numeric, which reads back as the same double.

-- JSON: json_array_elements_text WITH ORDINALITY for json_each (0-based index: ord - 1).
-- name: intake_runs_by_digest
SELECT d.ord - 1, r.id
FROM json_array_elements_text($1::json) WITH ORDINALITY AS d(value, ord)
JOIN runs r ON r.digest = d.value
ORDER BY 1;

-- JSON: json_array_elements_text WITH ORDINALITY for json_each; run ids cast from text.
-- name: intake_tags_of_runs
SELECT j.ord - 1, t.tag
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN tags t ON t.run_id = j.value::bigint
ORDER BY 1, 2;

-- JSON: json_array_elements_text WITH ORDINALITY for json_each; keep = 'first' is a boolean.
-- name: intake_machines
SELECT j.ord - 1, m.id, m.keep = 'first', m.info
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN machines m ON m.name = j.value
ORDER BY 1;

-- JSON: json_array_elements_text WITH ORDINALITY for json_each.
-- name: intake_benchmarks
SELECT j.ord - 1, b.id
FROM json_array_elements_text($1::json) WITH ORDINALITY AS j(value, ord)
JOIN benchmarks b ON b.name = j.value
ORDER BY 1;

-- JSON: json_array_elements and ->> for json_each and json_extract.
-- name: intake_on_main
SELECT j.ord - 1
FROM json_array_elements($1::json) WITH ORDINALITY AS j(value, ord)
WHERE EXISTS (SELECT 1 FROM commits c WHERE c.source_hash = j.value ->> 0)
   OR EXISTS (SELECT 1 FROM commits c WHERE c.sha = j.value ->> 1)
ORDER BY 1;

-- JSON: the keys unpacked first (MATERIALIZED), so each is one seek of records' primary key.
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

-- Sequence: nextval of runs' identity for SQLite's max(id) + i, so inserts need no RETURNING.
-- name: intake_run_ids
SELECT nextval(pg_get_serial_sequence('runs', 'id')) AS id
FROM generate_series(1, $1::bigint)
ORDER BY id;

-- Clock: clock_timestamp() is the insert's time, as julianday('now').
-- name: intake_run_insert
INSERT INTO runs (digest, machine_id, benchmark_id, config, source_hash, harness_version,
		  content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
		  baseline, primary_metric, quietness, raw, ingested_at, id)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
	extract(epoch FROM clock_timestamp())::float8, $18);

-- JSON: jsonb_array_elements (parsed once) and bytea's substring for json_each and substr.
-- name: intake_metrics_insert
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
SELECT (m ->> 0)::bigint, m ->> 1, m ->> 2, m ->> 3, m ->> 4, (m ->> 5)::float8,
       (m ->> 6)::float8, (m ->> 7)::bigint, (m ->> 8)::float8, m ->> 9,
       substring($2::bytea FROM (m ->> 10)::int FOR (m ->> 11)::int)
FROM jsonb_array_elements($1::jsonb) AS j(m);
