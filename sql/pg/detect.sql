-- Detection (§6): the PostgreSQL texts of sql/detect.sql, the statements store/detect.c
-- prepares, with the same names, parameters, columns and row order. Records are in Series
-- order: place, at, started_at, run id, as the view placed_runs gives them (sql/pg/003). The
-- full walk computes the same place in C from the commits it loads once (detect_commits); the
-- small reads below read it from the view. Parameters are always bound.
--
-- Where these differ from SQLite's, and why: no INDEXED BY (PostgreSQL's planner picks the
-- index: on a history of 100,000 records EXPLAIN shows each of the full walk's four reads as
-- one index range scan, runs' an index-only one; on one as small as the demo's it may sort a
-- sequential scan instead, which gives the same rows); a flag is compared with 0 (the columns are bigint, not boolean); total() is
-- coalesce(sum(...), 0)::float8 (total is a real, 0 when nothing is summed); the epoch is
-- extract(epoch FROM clock_timestamp()); every INSERT whose new id the C code reads returns
-- it (RETURNING id); an ORDER BY key that can be NULL says where NULLs go, as SQLite puts them.

-- Every commit of main, for the full walk's place lookups (in no particular order: the C code
-- sorts what it needs).
-- name: detect_commits
SELECT sha, seq, source_hash, committed_at FROM commits;

-- The standing records of the groups from $1/$2/$3 on, in the primary key's order, $4 of them
-- at most (one range scan of it; a full walk stops at a group boundary once it holds enough and
-- resumes there, and leaves a group the limit cut for its next pass).
-- The row comparison is an index condition on the key's first three columns.
-- SQLite's ORDER BY names the first three columns of the key and returns its order; this one
-- names the whole key, so the order within a group is that one too, not the planner's.
-- name: detect_scan_records
-- streamed
SELECT machine_id, benchmark_id, config, source_hash, harness_version, run_id
FROM records
WHERE (machine_id, benchmark_id, config) >= ($1, $2, $3)
ORDER BY machine_id, benchmark_id, config, source_hash, harness_version
LIMIT $4;

-- The tagged runs between $1 and $2, in id order (merged with the members).
-- name: detect_scan_tags
-- streamed
SELECT DISTINCT run_id FROM tags WHERE run_id BETWEEN $1 AND $2 ORDER BY run_id;

-- What a full walk needs of the runs between $1 and $2, in id order, never the rows' raw JSON.
-- SQLite is told to read the runs_detect index (INDEXED BY); PostgreSQL picks an index-only
-- scan of it by itself once the table has been vacuumed (it holds every column read here).
-- name: detect_scan_runs
-- streamed
SELECT id, commit_sha, content_hash, baseline, committed_at, started_at
FROM runs
WHERE id BETWEEN $1 AND $2
ORDER BY id;

-- Every metric of the runs between $1 and $2, in the primary key's order.
-- name: detect_scan_metrics
-- streamed
SELECT run_id, name, kind, better, median, value
FROM metrics
WHERE run_id BETWEEN $1 AND $2
ORDER BY run_id, name;

-- One group's untagged standing records in Series order, each with its metrics by name:
-- what a detect reads of a group whose records changed other than at the end. No ORDER BY
-- key can be NULL (placed_runs' place and at never are, started_at is NOT NULL).
-- name: detect_group_members
WITH member AS MATERIALIZED (
	SELECT r.run_id AS run_id, runs.harness_version AS harness_version,
	       runs.content_hash AS content_hash, runs.baseline AS baseline, runs.at AS at,
	       runs.started_at AS started_at, runs.place AS place,
	       runs.commit_sha AS commit_sha
	FROM records r
	JOIN placed_runs runs ON runs.id = r.run_id
	WHERE r.machine_id = $1 AND r.benchmark_id = $2 AND r.config = $3
	  AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.run_id)
)
SELECT p.run_id, p.place, p.at, p.started_at, p.harness_version, p.content_hash, p.baseline,
       mt.name, mt.kind, mt.better, mt.median, mt.value, p.commit_sha
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id
ORDER BY p.place, p.at, p.started_at, p.run_id, mt.name;

-- Every run the change log names, with its net changes and what it is now: standing or not,
-- how many tags it carries, and its break attributes (from the log's copy of the run) and
-- place (from placed_runs: one seek by run id). Ordered by group. SQLite groups the joined
-- rows by run and reads the other columns bare; PostgreSQL allows no bare column of a table
-- not grouped by its key, so the log is summed per run first and then joined (the same rows:
-- a run the log names without a copy, or no longer stored, is left out as the joins do there).
-- name: detect_changes
SELECT l.run_id, x.machine_id, x.benchmark_id, x.config,
       EXISTS (SELECT 1 FROM records r WHERE r.run_id = l.run_id) AS standing,
       (SELECT count(*) FROM tags t WHERE t.run_id = l.run_id) AS ntags,
       l.standing_delta, l.tags_delta,
       x.harness_version, x.content_hash, x.baseline,
       p.at, x.started_at, p.place, x.commit_sha
FROM (SELECT run_id,
	     coalesce(sum(CASE WHEN what = 'standing' THEN delta END), 0)::float8
		     AS standing_delta,
	     coalesce(sum(CASE WHEN what <> 'standing' THEN delta END), 0)::float8 AS tags_delta
      FROM detect_log
      GROUP BY run_id) l
JOIN detect_log_runs x ON x.run_id = l.run_id
JOIN placed_runs p ON p.id = l.run_id
ORDER BY x.machine_id, x.benchmark_id, x.config, l.run_id;

-- The metrics of one run, by name.
-- name: detect_run_metrics
SELECT name, kind, better, median, value FROM metrics WHERE run_id = $1 ORDER BY name;

-- How many commits of main were stored since the last detect, and the earliest commit time.
-- name: detect_commit_log_stats
SELECT count(*), min(committed_at) FROM detect_log_commits;

-- Records that were on their Series at the last detect and still are, whose place a commit
-- stored since may have moved: the standing runs of that commit, and of its source hash when it
-- is now the first commit of main with that source hash; with whether each carries a tag. A
-- run the run log names is left out: it joined or left its Series since, and the log says
-- so. (In no particular order: the C code sorts the groups.) SQLite is told the join order
-- and the indexes (CROSS JOIN, INDEXED BY); PostgreSQL's planner has the log's statistics.
-- name: detect_commit_runs
SELECT runs.id, runs.machine_id, runs.benchmark_id, runs.config,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = runs.id)
FROM detect_log_commits c
JOIN runs ON runs.commit_sha = c.sha
WHERE NOT EXISTS (SELECT 1 FROM detect_log l WHERE l.run_id = runs.id)
  AND EXISTS (SELECT 1 FROM records r WHERE r.run_id = runs.id)
UNION ALL
SELECT runs.id, runs.machine_id, runs.benchmark_id, runs.config,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = runs.id)
FROM detect_log_commits c
JOIN runs ON runs.source_hash = c.source_hash
WHERE NOT EXISTS (SELECT 1 FROM commits o WHERE o.source_hash = c.source_hash AND o.seq < c.seq)
  AND NOT EXISTS (SELECT 1 FROM detect_log l WHERE l.run_id = runs.id)
  AND EXISTS (SELECT 1 FROM records r WHERE r.run_id = runs.id);

-- Groups with a record placed by time at or after $1: a commit committed before it moves it.
-- name: detect_time_groups
SELECT DISTINCT l.machine_id, l.benchmark_id, l.config
FROM line_ends e
JOIN lines l ON l.id = e.line_id
WHERE e.time_placed_at >= $1;

-- name: detect_log_clear
DELETE FROM detect_log;

-- name: detect_log_commits_clear
DELETE FROM detect_log_commits;

-- name: detect_log_runs_clear
DELETE FROM detect_log_runs;

-- Every stored line (in no particular order).
-- name: detect_lines_all
SELECT l.id, l.machine_id, l.benchmark_id, l.config, l.metric, l.line, l.reason,
       l.start_run_id, e.records, e.fingerprint, l.harness_version, l.content_hash,
       e.last_run_id, e.last_place, e.last_at, e.last_started_at, e.time_placed_at, e.judged,
       e.tail
FROM lines l
JOIN line_ends e ON e.line_id = l.id;

-- One group's stored lines.
-- name: detect_lines_group
SELECT l.id, l.machine_id, l.benchmark_id, l.config, l.metric, l.line, l.reason,
       l.start_run_id, e.records, e.fingerprint, l.harness_version, l.content_hash,
       e.last_run_id, e.last_place, e.last_at, e.last_started_at, e.time_placed_at, e.judged,
       e.tail
FROM lines l
JOIN line_ends e ON e.line_id = l.id
WHERE l.machine_id = $1 AND l.benchmark_id = $2 AND l.config = $3
ORDER BY l.metric, l.line;

-- A new line; its id is returned (SQLite's last insert rowid).
-- name: detect_line_put
INSERT INTO lines (machine_id, benchmark_id, config, metric, line, reason, start_run_id,
		   start_commit, harness_version, content_hash)
VALUES ($1, $2, $3, $4, $5, $6, $7, (SELECT commit_sha FROM runs WHERE id = $7), $8, $9)
RETURNING id;

-- name: detect_line_end_put
INSERT INTO line_ends (line_id, records, fingerprint, last_run_id, last_place, last_at,
		       last_started_at, time_placed_at, judged, tail)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10);

-- name: detect_line_end_grow
UPDATE line_ends SET records = $2, fingerprint = $3, last_run_id = $4, last_place = $5,
		     last_at = $6, last_started_at = $7, time_placed_at = $8, judged = $9,
		     tail = $10
WHERE line_id = $1;

-- Deleting a line deletes its end (ON DELETE CASCADE); deleting them all, the ends go first.
-- name: detect_line_ends_delete_all
DELETE FROM line_ends;

-- name: detect_lines_delete_all
DELETE FROM lines;

-- name: detect_lines_delete_group
DELETE FROM lines WHERE machine_id = $1 AND benchmark_id = $2 AND config = $3;

-- Series (distinct machine, benchmark, config, metric) with stored lines, and how many of
-- them the band judges (a real, as SQLite's total() gives it; 0 when there are none).
-- name: detect_series_count
SELECT count(*), coalesce(sum(j), 0)::float8
FROM (SELECT max(e.judged) AS j
      FROM lines l JOIN line_ends e ON e.line_id = l.id
      GROUP BY l.machine_id, l.benchmark_id, l.config, l.metric) AS series;

-- name: detect_suspects_all
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config
FROM suspects s
JOIN runs r ON r.id = s.run_id;

-- name: detect_suspects_group
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config
FROM suspects s
JOIN runs r ON r.id = s.run_id
WHERE s.machine_id = $1 AND s.benchmark_id = $2 AND s.config = $3;

-- The Suspect of group ($1, $2, $3), run $4 and metric $5: the key's one row.
-- name: detect_suspect_find
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config
FROM suspects s
JOIN runs r ON r.id = s.run_id
WHERE s.machine_id = $1 AND s.benchmark_id = $2 AND s.config = $3 AND s.run_id = $4
  AND s.metric = $5;

-- A new Suspect ($6 to $15 as $2 to $11 of detect_suspect_update); $16 its alert and $17 the
-- name of its state (its alert's). Its id is returned (SQLite's last insert rowid).
-- name: detect_suspect_insert
INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, shift, median,
		      center, tolerance, deviation, reference_run_id, follows_run_id,
		      followers, persisted, alert_id, state, created_at)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17,
	extract(epoch FROM clock_timestamp())::float8)
RETURNING id;

-- A Suspect's numbers ($2 to $11), its alert ($12) and the name of its state ($13).
-- name: detect_suspect_update
UPDATE suspects SET side = $2, shift = $3, median = $4, center = $5, tolerance = $6,
		    deviation = $7, reference_run_id = $8, follows_run_id = $9,
		    followers = $10, persisted = $11, alert_id = $12, state = $13
WHERE id = $1;

-- The commits bisection pinned on main, by Series (detection starts a line at each). No
-- ORDER BY key is NULL: seq is not, by the WHERE.
-- name: detect_pinned
SELECT machine_id, benchmark_id, config, metric, seq
FROM regressions
WHERE seq IS NOT NULL
ORDER BY machine_id, benchmark_id, config, metric, seq;

-- name: detect_suspect_delete
DELETE FROM suspects WHERE id = $1;

-- The largest Suspect id ever given (ids are never reused), 0 before the first. SQLite keeps
-- it in sqlite_sequence; here it is the id column's sequence (NULL until it gave one), or the
-- largest id stored if that is larger (rows copied in with their ids, the sequence not moved).
-- The sequence is not rolled back with a transaction, so it may name an id no row ever kept:
-- still at or above every id given, which is what a caller counting "the ids over it are new"
-- needs.
-- name: detect_suspect_last_id
SELECT greatest(
	coalesce(pg_sequence_last_value(pg_get_serial_sequence('suspects', 'id')::regclass), 0),
	coalesce((SELECT max(id) FROM suspects), 0));

-- Suspects with an id over $1 (of alert $2 only, unless it is NULL), in Series order: machine,
-- benchmark, config and metric by name, then the record's place (placed_runs). The place tells
-- the record's seq on main when it is known (an integer). No ORDER BY key can be NULL.
-- name: suspects_list
WITH listed AS MATERIALIZED (
	SELECT s.id AS id, m.name AS machine, b.name AS benchmark, s.config AS config,
	       s.metric AS metric, runs.commit_sha AS commit_sha,
	       runs.source_hash AS source_hash, s.side AS side, s.shift AS shift,
	       s.median AS median, s.center AS center, s.tolerance AS tolerance,
	       s.state AS state, s.run_id AS run_id, runs.at AS at,
	       runs.started_at AS started_at, runs.place AS place
	FROM suspects s
	JOIN placed_runs runs ON runs.id = s.run_id
	JOIN machines m ON m.id = s.machine_id
	JOIN benchmarks b ON b.id = s.benchmark_id
	WHERE s.id > $1 AND ($2::bigint IS NULL OR s.alert_id = $2)
)
SELECT id, machine, benchmark, config, metric, commit_sha, source_hash, place, side, shift,
       median, center, tolerance, state, run_id
FROM listed
ORDER BY machine, benchmark, config, metric, place, at, started_at, run_id;

-- The first $2 Suspects with an id over $1, in id order (the order they were found in), with
-- the columns of suspects_list: what `detect` prints of the new ones.
-- name: suspects_new
SELECT s.id, m.name, b.name, s.config, s.metric, runs.commit_sha, runs.source_hash,
       runs.place, s.side, s.shift, s.median, s.center, s.tolerance, s.state, s.run_id
FROM suspects s
JOIN placed_runs runs ON runs.id = s.run_id
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE s.id > $1
ORDER BY s.id
LIMIT $2;

-- Open Suspects on one Series, by names ($5: the name of the open state).
-- name: suspects_open_count
SELECT count(*)
FROM suspects s
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE m.name = $1 AND b.name = $2 AND s.config = $3 AND s.metric = $4 AND s.state = $5;

-- Whether detection judges a Series (by names): 1 when one of its lines is judged, 0 when none
-- of them is (a metric the band does not judge: a count, or one benchline.json's `metrics`
-- leaves out), NULL when it has no lines (detect has not read it).
-- name: series_judged
SELECT max(e.judged)
FROM lines l
JOIN line_ends e ON e.line_id = l.id
JOIN machines m ON m.id = l.machine_id
JOIN benchmarks b ON b.id = l.benchmark_id
WHERE m.name = $1 AND b.name = $2 AND l.config = $3 AND l.metric = $4;

-- The ladder a quantile metric names (§8), from any record that names one: detection judges a
-- quantile metric only when benchline.json's `metrics` lists it, so this runs once per such
-- name and detect, not per record. SQLite's LIMIT 1 takes the first in its scan of the
-- primary key, the lowest run id: ORDER BY run_id says so, so both stores give the same ladder
-- when records disagree (and PostgreSQL walks the same key to the first match).
-- name: detect_metric_ladder
SELECT ladder FROM metrics
WHERE name = $1 AND kind = 'quantile' AND ladder IS NOT NULL
ORDER BY run_id
LIMIT 1;
