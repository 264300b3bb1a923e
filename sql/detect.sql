-- Detection (§6): the statements store/detect.c prepares. Records are in Series order: place,
-- at, started_at, run id, as the view placed_runs gives them (sql/003-places.sql). The full
-- walk computes the same place in C from the commits it loads once (detect_commits); the
-- small reads below read it from the view. Parameters are always bound.

-- Every commit of main, for the full walk's place lookups.
-- name: detect_commits
SELECT sha, seq, source_hash, committed_at FROM commits;

-- The standing records of the groups from ?1/?2/?3 on, in the primary key's order, ?4 of them
-- at most (one range scan; a full walk stops at a group boundary once it holds enough and
-- resumes there, and leaves a group the limit cut for its next pass). The ORDER BY names the
-- whole key, so the order within a group is the key's in every dialect, not a planner's.
-- name: detect_scan_records
-- streamed
SELECT machine_id, benchmark_id, config, source_hash, harness_version, run_id
FROM records
WHERE (machine_id, benchmark_id, config) >= (?1, ?2, ?3)
ORDER BY machine_id, benchmark_id, config, source_hash, harness_version
LIMIT ?4;

-- The tagged runs between ?1 and ?2, in id order (merged with the members).
-- name: detect_scan_tags
-- streamed
SELECT DISTINCT run_id FROM tags WHERE run_id BETWEEN ?1 AND ?2 ORDER BY run_id;

-- What a full walk needs of the runs between ?1 and ?2, read from the runs_detect index in id
-- order (never the rows and their raw JSON).
-- name: detect_scan_runs
-- streamed
SELECT id, commit_sha, content_hash, baseline, committed_at, started_at
FROM runs INDEXED BY runs_detect
WHERE id BETWEEN ?1 AND ?2
ORDER BY id;

-- Every metric of the runs between ?1 and ?2, in the primary key's order.
-- name: detect_scan_metrics
-- streamed
SELECT run_id, name, kind, better, median, value
FROM metrics
WHERE run_id BETWEEN ?1 AND ?2
ORDER BY run_id, name;

-- One group's untagged standing records in Series order, each with its metrics by name:
-- what a detect reads of a group whose records changed other than at the end.
-- name: detect_group_members
WITH member AS MATERIALIZED (
	SELECT r.run_id AS run_id, runs.harness_version AS harness_version,
	       runs.content_hash AS content_hash, runs.baseline AS baseline, runs.at AS at,
	       runs.started_at AS started_at, runs.place AS place,
	       runs.commit_sha AS commit_sha
	FROM on_series_runs r
	JOIN placed_runs runs ON runs.id = r.run_id
	WHERE r.machine_id = ?1 AND r.benchmark_id = ?2 AND r.config = ?3
)
SELECT p.run_id, p.place, p.at, p.started_at, p.harness_version, p.content_hash, p.baseline,
       mt.name, mt.kind, mt.better, mt.median, mt.value, p.commit_sha
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id
ORDER BY p.place, p.at, p.started_at, p.run_id, mt.name;

-- Every run the change log names, with its net changes and what it is now: standing or not,
-- how many tags it carries, and its break attributes (from the log's copy of the run) and
-- place (from placed_runs: one seek by run id). Ordered by group.
-- name: detect_changes
SELECT l.run_id, x.machine_id, x.benchmark_id, x.config,
       EXISTS (SELECT 1 FROM records r WHERE r.run_id = l.run_id) AS standing,
       (SELECT count(*) FROM tags t WHERE t.run_id = l.run_id) AS ntags,
       total(CASE WHEN l.what = 'standing' THEN l.delta END) AS standing_delta,
       total(CASE WHEN l.what <> 'standing' THEN l.delta END) AS tags_delta,
       x.harness_version, x.content_hash, x.baseline,
       p.at, x.started_at, p.place, x.commit_sha
FROM detect_log l
CROSS JOIN detect_log_runs x ON x.run_id = l.run_id
CROSS JOIN placed_runs p ON p.id = l.run_id
GROUP BY l.run_id
ORDER BY x.machine_id, x.benchmark_id, x.config, l.run_id;

-- The metrics of one run, by name.
-- name: detect_run_metrics
SELECT name, kind, better, median, value FROM metrics WHERE run_id = ?1 ORDER BY name;

-- How many commits of main were stored since the last detect, and the earliest commit time.
-- name: detect_commit_log_stats
SELECT count(*), min(committed_at) FROM detect_log_commits;

-- Records that were on their Series at the last detect and still are, whose place a commit
-- stored since may have moved: the standing runs of that commit, and of its source hash when it
-- is now the first commit of main with that source hash; with whether each carries a tag. A
-- run the run log names is left out: it joined or left its Series since, and the log says
-- so. (CROSS JOIN: the log is small and runs huge; the planner has no statistics to know.)
-- name: detect_commit_runs
SELECT runs.id, runs.machine_id, runs.benchmark_id, runs.config,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = runs.id)
FROM detect_log_commits c
CROSS JOIN runs INDEXED BY runs_commit ON runs.commit_sha = c.sha
WHERE NOT EXISTS (SELECT 1 FROM detect_log l WHERE l.run_id = runs.id)
  AND EXISTS (SELECT 1 FROM records r WHERE r.run_id = runs.id)
UNION ALL
SELECT runs.id, runs.machine_id, runs.benchmark_id, runs.config,
       EXISTS (SELECT 1 FROM tags t WHERE t.run_id = runs.id)
FROM detect_log_commits c
CROSS JOIN runs INDEXED BY runs_source ON runs.source_hash = c.source_hash
WHERE NOT EXISTS (SELECT 1 FROM commits o WHERE o.source_hash = c.source_hash AND o.seq < c.seq)
  AND NOT EXISTS (SELECT 1 FROM detect_log l WHERE l.run_id = runs.id)
  AND EXISTS (SELECT 1 FROM records r WHERE r.run_id = runs.id);

-- Groups with a record placed by time at or after ?1: a commit committed before it moves it.
-- name: detect_time_groups
SELECT DISTINCT l.machine_id, l.benchmark_id, l.config
FROM line_ends e
JOIN lines l ON l.id = e.line_id
WHERE e.time_placed_at >= ?1;

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
WHERE l.machine_id = ?1 AND l.benchmark_id = ?2 AND l.config = ?3
ORDER BY l.metric, l.line;

-- name: detect_line_put
INSERT INTO lines (machine_id, benchmark_id, config, metric, line, reason, start_run_id,
		   start_commit, harness_version, content_hash)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, (SELECT commit_sha FROM runs WHERE id = ?7), ?8, ?9);

-- name: detect_line_end_put
INSERT INTO line_ends (line_id, records, fingerprint, last_run_id, last_place, last_at,
		       last_started_at, time_placed_at, judged, tail)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10);

-- name: detect_line_end_grow
UPDATE line_ends SET records = ?2, fingerprint = ?3, last_run_id = ?4, last_place = ?5,
		     last_at = ?6, last_started_at = ?7, time_placed_at = ?8, judged = ?9,
		     tail = ?10
WHERE line_id = ?1;

-- Deleting a line deletes its end (ON DELETE CASCADE); deleting them all, the ends go first.
-- name: detect_line_ends_delete_all
DELETE FROM line_ends;

-- name: detect_lines_delete_all
DELETE FROM lines;

-- name: detect_lines_delete_group
DELETE FROM lines WHERE machine_id = ?1 AND benchmark_id = ?2 AND config = ?3;

-- The judged medians a line keeps for the change-point search (sql/010-change-points.sql):
-- its full chunks in order.
-- name: detect_values_read
SELECT chunk, data FROM line_values WHERE line_id = ?1 ORDER BY chunk;

-- name: detect_values_put
INSERT INTO line_values (line_id, chunk, data) VALUES (?1, ?2, ?3)
ON CONFLICT (line_id, chunk) DO UPDATE SET data = excluded.data;

-- name: detect_values_delete_all
DELETE FROM line_values;

-- A group's lines' values go before its lines.
-- name: detect_values_delete_group
DELETE FROM line_values
WHERE line_id IN (SELECT id FROM lines
		  WHERE machine_id = ?1 AND benchmark_id = ?2 AND config = ?3);

-- What the next search of a line goes on from (sql/010-change-points.sql).
-- name: detect_search_read
SELECT data FROM line_searches WHERE line_id = ?1;

-- name: detect_search_put
INSERT INTO line_searches (line_id, data) VALUES (?1, ?2)
ON CONFLICT (line_id) DO UPDATE SET data = excluded.data;

-- name: detect_searches_delete_all
DELETE FROM line_searches;

-- name: detect_searches_delete_group
DELETE FROM line_searches
WHERE line_id IN (SELECT id FROM lines
		  WHERE machine_id = ?1 AND benchmark_id = ?2 AND config = ?3);

-- The commit of run ?1: a change point an incremental detect finds at an earlier record of
-- a line, whose alert is that commit's.
-- name: detect_run_commit
SELECT commit_sha FROM runs INDEXED BY runs_detect WHERE id = ?1;

-- Series (distinct machine, benchmark, config, metric) with stored lines, and how many of
-- them the band judges.
-- name: detect_series_count
SELECT count(*), total(j)
FROM (SELECT max(e.judged) AS j
      FROM lines l JOIN line_ends e ON e.line_id = l.id
      GROUP BY l.machine_id, l.benchmark_id, l.config, l.metric);

-- name: detect_suspects_all
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config, s.kind
FROM suspects s
JOIN runs r INDEXED BY runs_detect ON r.id = s.run_id;

-- name: detect_suspects_group
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config, s.kind
FROM suspects s
JOIN runs r INDEXED BY runs_detect ON r.id = s.run_id
WHERE s.machine_id = ?1 AND s.benchmark_id = ?2 AND s.config = ?3;

-- The Suspect of group (?1, ?2, ?3), run ?4, metric ?5 and kind ?6: the key's one row.
-- name: detect_suspect_find
SELECT s.id, s.run_id, s.metric, s.side, s.shift, s.median, s.center, s.tolerance, s.state,
       s.deviation, s.reference_run_id, s.follows_run_id, s.followers, s.persisted, s.alert_id,
       r.commit_sha, s.machine_id, s.benchmark_id, s.config, s.kind
FROM suspects s
JOIN runs r INDEXED BY runs_detect ON r.id = s.run_id
WHERE s.machine_id = ?1 AND s.benchmark_id = ?2 AND s.config = ?3 AND s.run_id = ?4
  AND s.metric = ?5 AND s.kind = ?6;

-- A new Suspect (?6 to ?15 as ?2 to ?11 of detect_suspect_update); ?16 its alert, ?17 the
-- name of its state (its alert's), ?18 when it was found (seconds since the epoch) and ?19 its
-- kind's name.
-- name: detect_suspect_insert
INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, shift, median,
		      center, tolerance, deviation, reference_run_id, follows_run_id,
		      followers, persisted, alert_id, state, created_at, kind)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19);

-- 16 new Suspects at once, each as detect_suspect_insert's parameters (?1 to ?19 the first,
-- ?20 to ?38 the second, ...): a first detect writes thousands, and one statement per row costs
-- a fifth more (AUTOINCREMENT's sqlite_sequence row is read and written once per statement).
-- Their ids are given in the order of the rows. Nothing in it may stop it half way (OR FAIL,
-- no function, the key to alerts checked at commit: sql/011), so SQLite keeps no statement
-- journal for it; a detect that fails rolls its whole transaction back.
-- name: detect_suspect_insert_many
INSERT OR FAIL INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, shift,
			      median, center, tolerance, deviation, reference_run_id,
			      follows_run_id, followers, persisted, alert_id, state, created_at,
			      kind)
VALUES
	(?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19),
	(?20, ?21, ?22, ?23, ?24, ?25, ?26, ?27, ?28, ?29, ?30, ?31,
	 ?32, ?33, ?34, ?35, ?36, ?37, ?38),
	(?39, ?40, ?41, ?42, ?43, ?44, ?45, ?46, ?47, ?48, ?49, ?50,
	 ?51, ?52, ?53, ?54, ?55, ?56, ?57),
	(?58, ?59, ?60, ?61, ?62, ?63, ?64, ?65, ?66, ?67, ?68, ?69,
	 ?70, ?71, ?72, ?73, ?74, ?75, ?76),
	(?77, ?78, ?79, ?80, ?81, ?82, ?83, ?84, ?85, ?86, ?87, ?88,
	 ?89, ?90, ?91, ?92, ?93, ?94, ?95),
	(?96, ?97, ?98, ?99, ?100, ?101, ?102, ?103, ?104, ?105, ?106, ?107,
	 ?108, ?109, ?110, ?111, ?112, ?113, ?114),
	(?115, ?116, ?117, ?118, ?119, ?120, ?121, ?122, ?123, ?124, ?125, ?126,
	 ?127, ?128, ?129, ?130, ?131, ?132, ?133),
	(?134, ?135, ?136, ?137, ?138, ?139, ?140, ?141, ?142, ?143, ?144, ?145,
	 ?146, ?147, ?148, ?149, ?150, ?151, ?152),
	(?153, ?154, ?155, ?156, ?157, ?158, ?159, ?160, ?161, ?162, ?163, ?164,
	 ?165, ?166, ?167, ?168, ?169, ?170, ?171),
	(?172, ?173, ?174, ?175, ?176, ?177, ?178, ?179, ?180, ?181, ?182, ?183,
	 ?184, ?185, ?186, ?187, ?188, ?189, ?190),
	(?191, ?192, ?193, ?194, ?195, ?196, ?197, ?198, ?199, ?200, ?201, ?202,
	 ?203, ?204, ?205, ?206, ?207, ?208, ?209),
	(?210, ?211, ?212, ?213, ?214, ?215, ?216, ?217, ?218, ?219, ?220, ?221,
	 ?222, ?223, ?224, ?225, ?226, ?227, ?228),
	(?229, ?230, ?231, ?232, ?233, ?234, ?235, ?236, ?237, ?238, ?239, ?240,
	 ?241, ?242, ?243, ?244, ?245, ?246, ?247),
	(?248, ?249, ?250, ?251, ?252, ?253, ?254, ?255, ?256, ?257, ?258, ?259,
	 ?260, ?261, ?262, ?263, ?264, ?265, ?266),
	(?267, ?268, ?269, ?270, ?271, ?272, ?273, ?274, ?275, ?276, ?277, ?278,
	 ?279, ?280, ?281, ?282, ?283, ?284, ?285),
	(?286, ?287, ?288, ?289, ?290, ?291, ?292, ?293, ?294, ?295, ?296, ?297,
	 ?298, ?299, ?300, ?301, ?302, ?303, ?304);

-- A Suspect's numbers (?2 to ?11), its alert (?12) and the name of its state (?13).
-- name: detect_suspect_update
UPDATE suspects SET side = ?2, shift = ?3, median = ?4, center = ?5, tolerance = ?6,
		    deviation = ?7, reference_run_id = ?8, follows_run_id = ?9,
		    followers = ?10, persisted = ?11, alert_id = ?12, state = ?13
WHERE id = ?1;

-- The commits bisection pinned on main, by Series (detection starts a line at each).
-- name: detect_pinned
SELECT machine_id, benchmark_id, config, metric, seq
FROM regressions
WHERE seq IS NOT NULL
ORDER BY machine_id, benchmark_id, config, metric, seq;

-- name: detect_suspect_delete
DELETE FROM suspects WHERE id = ?1;

-- The largest Suspect id ever given (ids are never reused), 0 before the first.
-- name: detect_suspect_last_id
SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'suspects'), 0);

-- Suspects with an id over ?1 (of alert ?2 only, unless it is NULL), in Series order: machine, benchmark, config and metric by
-- name, then the record's place (placed_runs). The place tells the record's seq on main
-- when it is known (an integer).
-- name: suspects_list
WITH listed AS MATERIALIZED (
	SELECT s.id AS id, m.name AS machine, b.name AS benchmark, s.config AS config,
	       s.metric AS metric, runs.commit_sha AS commit_sha,
	       runs.source_hash AS source_hash, s.side AS side, s.shift AS shift,
	       s.median AS median, s.center AS center, s.tolerance AS tolerance,
	       s.state AS state, s.run_id AS run_id, runs.at AS at,
	       runs.started_at AS started_at, runs.place AS place, s.kind AS kind
	FROM suspects s
	JOIN placed_runs runs ON runs.id = s.run_id
	JOIN machines m ON m.id = s.machine_id
	JOIN benchmarks b ON b.id = s.benchmark_id
	WHERE s.id > ?1 AND (CAST(?2 AS BIGINT) IS NULL OR s.alert_id = ?2)
)
SELECT id, machine, benchmark, config, metric, commit_sha, source_hash, place, side, shift,
       median, center, tolerance, state, run_id, kind
FROM listed
ORDER BY machine, benchmark, config, metric, place, at, started_at, run_id, id;

-- The first ?2 Suspects with an id over ?1, in id order (the order they were found in), with
-- the columns of suspects_list: what `detect` prints of the new ones.
-- name: suspects_new
SELECT s.id, m.name, b.name, s.config, s.metric, runs.commit_sha, runs.source_hash,
       runs.place, s.side, s.shift, s.median, s.center, s.tolerance, s.state, s.run_id,
       s.kind
FROM suspects s
JOIN placed_runs runs ON runs.id = s.run_id
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE s.id > ?1
ORDER BY s.id
LIMIT ?2;

-- Open Suspects on one Series, by names (?5: the name of the open state).
-- name: suspects_open_count
SELECT count(*)
FROM suspects s
JOIN machines m ON m.id = s.machine_id
JOIN benchmarks b ON b.id = s.benchmark_id
WHERE m.name = ?1 AND b.name = ?2 AND s.config = ?3 AND s.metric = ?4 AND s.state = ?5;

-- Whether detection judges a Series (by names): 1 when one of its lines is judged, 0 when none
-- of them is (a metric the band does not judge: a count, or one benchline.json's `metrics`
-- leaves out), NULL when it has no lines (detect has not read it).
-- name: series_judged
SELECT max(e.judged)
FROM lines l
JOIN line_ends e ON e.line_id = l.id
JOIN machines m ON m.id = l.machine_id
JOIN benchmarks b ON b.id = l.benchmark_id
WHERE m.name = ?1 AND b.name = ?2 AND l.config = ?3 AND l.metric = ?4;

-- The ladder a quantile metric names (§8), from any record that names one: detection judges a
-- quantile metric only when benchline.json's `metrics` lists it, so this runs once per such
-- name and detect, not per record. The lowest run id's when records disagree, so every
-- dialect gives the same ladder (SQLite walks the primary key to that first match).
-- name: detect_metric_ladder
SELECT ladder FROM metrics
WHERE name = ?1 AND kind = 'quantile' AND ladder IS NOT NULL
ORDER BY run_id
LIMIT 1;
