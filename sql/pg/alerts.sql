-- Alerts (§9.1): the PostgreSQL texts of sql/alerts.sql, with the same names, parameters,
-- columns and row order. The pass gives every new Suspect its alert and brings the alerts
-- whose Suspects changed up to date (store/alerts.c runs them in this order, in detect's
-- transaction), and the listings. docs/confirm.md explains the rules.
--
-- Where these differ from SQLite's, and why: flags are bigint 0/1, so `WHERE recheck` is
-- `WHERE recheck <> 0` (also the predicate of the partial index alerts_recheck) and `NOT $1`
-- is `$1::bigint = 0`; a parameter tested for NULL is cast to its type (the server cannot
-- infer it from `$1 IS NULL`); a subquery in FROM has an alias (PostgreSQL 15 wants one); the
-- epoch is extract(epoch FROM clock_timestamp()).

-- A new Suspect that continues an earlier one's level joins that one's alert once it has one.
-- Run until it changes nothing: each run resolves one more link of a chain.
-- name: alerts_follow
UPDATE suspects
SET alert_id = (SELECT f.alert_id FROM suspects f
		WHERE f.run_id = suspects.follows_run_id AND f.metric = suspects.metric)
WHERE alert_id IS NULL AND follows_run_id IS NOT NULL
  AND EXISTS (SELECT 1 FROM suspects f
	      WHERE f.run_id = suspects.follows_run_id AND f.metric = suspects.metric
		AND f.alert_id IS NOT NULL);

-- Every other new Suspect, one that continues none (or one no longer stored), belongs to the
-- alert of its machine, its record's commit and its side: created here when there is none.
-- $1: 1 to take only those that continue nothing (before the follow links are resolved),
-- 0 for every Suspect still without an alert (after).
-- SQLite's SELECT DISTINCT gives each new alert in the order its first Suspect comes in its
-- scan (the Suspects without an alert, by id), so the alerts get their ids in that order:
-- GROUP BY with ORDER BY min(s.id) gives the same ids here. Every alert of one run of it has
-- one created_at, as SQLite's 'now' is one time per statement: the time is taken once (stamp).
-- name: alerts_group_new
WITH stamp AS MATERIALIZED (SELECT extract(epoch FROM clock_timestamp())::float8 AS at)
INSERT INTO alerts (machine_id, commit_sha, side, created_at)
SELECT s.machine_id, r.commit_sha, s.side, (SELECT at FROM stamp)
FROM suspects s
JOIN runs r ON r.id = s.run_id
WHERE s.alert_id IS NULL AND (s.follows_run_id IS NULL OR $1::bigint = 0)
  AND NOT EXISTS (SELECT 1 FROM alerts a
		  WHERE a.machine_id = s.machine_id AND a.commit_sha = r.commit_sha
		    AND a.side = s.side)
GROUP BY s.machine_id, r.commit_sha, s.side
ORDER BY min(s.id);

-- name: alerts_group_join
UPDATE suspects
SET alert_id = (SELECT a.id FROM alerts a JOIN runs r ON r.id = suspects.run_id
		WHERE a.machine_id = suspects.machine_id AND a.commit_sha = r.commit_sha
		  AND a.side = suspects.side
		ORDER BY a.id LIMIT 1)
WHERE alert_id IS NULL AND (follows_run_id IS NULL OR $1::bigint = 0);

-- An alert looked at again: how many Series its Suspects are on and, when its Suspects at its
-- commit are on more than one, how many Series its machine judged there (its standing,
-- untagged records at that commit, one per metric with a judged line; NULL otherwise: an alert
-- on one Series is never run-wide, and most alerts are, so most skip the count).
-- name: alerts_count
UPDATE alerts
SET series = (SELECT count(*)
	      FROM (SELECT DISTINCT benchmark_id, config, metric FROM suspects s
		    WHERE s.alert_id = alerts.id) AS on_series),
    judged_series =
	CASE WHEN (SELECT count(*)
		   FROM (SELECT DISTINCT s.benchmark_id, s.config, s.metric
			 FROM suspects s JOIN runs r ON r.id = s.run_id
			 WHERE s.alert_id = alerts.id AND r.commit_sha = alerts.commit_sha)
			AS at_commit) > 1
	THEN (SELECT count(*)
	      FROM runs r
	      JOIN records rec ON rec.run_id = r.id
	      JOIN metrics mt ON mt.run_id = r.id
	      WHERE r.commit_sha = alerts.commit_sha AND r.machine_id = alerts.machine_id
		AND NOT EXISTS (SELECT 1 FROM tags t WHERE t.run_id = r.id)
		AND EXISTS (SELECT 1 FROM lines l JOIN line_ends e ON e.line_id = l.id
			    WHERE l.machine_id = r.machine_id AND l.benchmark_id = r.benchmark_id
			      AND l.config = r.config AND l.metric = mt.name AND e.judged <> 0))
	END
WHERE recheck <> 0;

-- An undecided alert left with no Suspect (their records no longer marked) is gone.
-- name: alerts_drop_empty
DELETE FROM alerts
WHERE recheck <> 0 AND state IN ('open', 'transient') AND series = 0
  AND NOT EXISTS (SELECT 1 FROM regressions g WHERE g.alert_id = alerts.id);

-- run-wide when its Suspects at its commit are on at least half the Series judged there (and
-- more than one: a machine that measures one Series cannot tell a run-wide shift from its
-- own); an undecided alert is transient when every Suspect in it came back within $1 records
-- (quiet.transient_records), else open. SQLite's comparison is an integer, NULL when
-- judged_series is (then 0 by coalesce); PostgreSQL's is a boolean, so a CASE makes it 1 or 0
-- (0 for NULL too).
-- name: alerts_judge
UPDATE alerts
SET run_wide =
	(SELECT CASE WHEN 2 * count(*) >= alerts.judged_series AND count(*) > 1 THEN 1 ELSE 0 END
	 FROM (SELECT DISTINCT s.benchmark_id, s.config, s.metric
	       FROM suspects s JOIN runs r ON r.id = s.run_id
	       WHERE s.alert_id = alerts.id AND r.commit_sha = alerts.commit_sha) AS at_commit),
    state = CASE WHEN state NOT IN ('open', 'transient') THEN state
		 WHEN EXISTS (SELECT 1 FROM suspects s
			      WHERE s.alert_id = alerts.id
				AND NOT (s.followers > s.persisted AND s.persisted < $1))
		 THEN 'open'
		 ELSE 'transient' END
WHERE recheck <> 0;

-- A Suspect's state is its alert's.
-- name: alerts_sync_suspects
UPDATE suspects
SET state = (SELECT a.state FROM alerts a WHERE a.id = suspects.alert_id)
WHERE alert_id IN (SELECT id FROM alerts WHERE recheck <> 0)
  AND state <> (SELECT a.state FROM alerts a WHERE a.id = suspects.alert_id);

-- name: alerts_rechecked
UPDATE alerts SET recheck = 0 WHERE recheck <> 0;

-- Alerts as `benchline alerts` lists them, oldest first: $1 a machine's name or NULL for all,
-- $2 a state's name or NULL, $3 one alert's id or NULL. The reference commit is the latest of
-- the references of its Suspects at its commit, in Series order (§9.1; one that joined it by
-- continuing an earlier level, later, has its reference after the alert's commit), NULL when
-- none has one. No ORDER BY key can be NULL (placed_runs' place and at never are).
-- name: alerts_list
SELECT a.id, m.name, a.commit_sha, a.side, a.state, a.run_wide, a.series, a.judged_series,
       a.outcome, a.note, a.filed_url,
       (SELECT r.commit_sha FROM suspects s JOIN runs own ON own.id = s.run_id
	JOIN placed_runs r ON r.id = s.reference_run_id
	WHERE s.alert_id = a.id AND own.commit_sha = a.commit_sha
	ORDER BY r.place DESC, r.at DESC, r.started_at DESC, r.id DESC LIMIT 1),
       a.created_at, a.rebench
FROM alerts a
JOIN machines m ON m.id = a.machine_id
WHERE ($1::text IS NULL OR m.name = $1) AND ($2::text IS NULL OR a.state = $2)
  AND ($3::bigint IS NULL OR a.id = $3)
ORDER BY a.id;

-- The Suspects of one alert, by id.
-- name: alerts_suspect_ids
SELECT id FROM suspects WHERE alert_id = $1 ORDER BY id;

-- What confirm records of an alert: its state (its Suspects follow), the outcome, the
-- re-bench report and a note. $2 state, $3 outcome, $4 rebench JSON, $5 note.
-- name: alerts_set_outcome
UPDATE alerts SET state = $2, outcome = $3, rebench = $4, note = $5 WHERE id = $1;

-- name: alerts_set_suspects_state
UPDATE suspects SET state = $2 WHERE alert_id = $1;

-- name: alerts_last_id
SELECT coalesce(max(id), 0) FROM alerts;

-- name: alerts_count_after
SELECT count(*) FROM alerts WHERE id > $1;
