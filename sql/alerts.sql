-- Alerts (§9.1): what the alert pass reads and writes (detect/alerts.c decides: it gives every
-- new Suspect its alert and judges the alerts whose Suspects changed, in detect's
-- transaction), and the listings. docs/confirm.md explains the rules.

-- The alert of a machine, a commit and a side (?1, ?2, ?3): the one a Suspect there joins when
-- it continues no earlier one. An alert is never deleted, so its id stays its machine's and
-- commit's for good.
-- name: alerts_find
SELECT id FROM alerts WHERE machine_id = ?1 AND commit_sha = ?2 AND side = ?3 ORDER BY id LIMIT 1;

-- A new alert: ?1 machine, ?2 commit, ?3 side, ?4 its state's name, ?5 the
-- quiet.transient_records it is judged under.
-- name: alerts_insert
INSERT INTO alerts (machine_id, commit_sha, side, state, transient_records, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, (julianday('now') - 2440587.5) * 86400.0);

-- What the pass judged of an alert last time, and its key.
-- name: alerts_get
SELECT state, series, judged_series, run_wide, transient_records, machine_id, commit_sha, side
FROM alerts
WHERE id = ?1;

-- What the pass judged of an alert now: ?2 state, ?3 Series, ?4 judged Series at its commit
-- (NULL: not counted), ?5 run-wide, ?6 the quiet.transient_records it was judged under.
-- name: alerts_put
UPDATE alerts
SET state = ?2, series = ?3, judged_series = ?4, run_wide = ?5, transient_records = ?6
WHERE id = ?1;

-- The Suspects of alert ?1 with what judging it needs: their Series, record's commit and
-- followers.
-- name: alerts_members
SELECT s.id, s.run_id, s.metric, s.benchmark_id, s.config, s.followers, s.persisted, s.state,
       r.commit_sha
FROM suspects s
JOIN runs r INDEXED BY runs_detect ON r.id = s.run_id
WHERE s.alert_id = ?1;

-- The alerts nobody has decided (pending, open, transient) that were judged under another
-- quiet.transient_records than ?1: the pass judges them again. Empty ones have nothing to
-- judge.
-- name: alerts_stale
SELECT id FROM alerts
WHERE (state = 'pending' OR state = 'open' OR state = 'transient') AND series > 0
  AND transient_records IS NOT ?1
ORDER BY id;

-- The alerts whose run-wide test counted the Series machine ?1 judged at commit ?2: a record
-- there joined or left its Series since, so the count is taken again.
-- name: alerts_counted_at
SELECT id FROM alerts
WHERE machine_id = ?1 AND commit_sha = ?2 AND judged_series IS NOT NULL
ORDER BY id;

-- Every alert whose run-wide test counted its machine's judged Series at its commit, with the
-- count: a full walk counts them all again and compares.
-- name: alerts_counted
SELECT id, machine_id, commit_sha, judged_series FROM alerts
WHERE judged_series IS NOT NULL
ORDER BY id;

-- The Series machine ?1 judged at commit ?2: its standing, untagged records there, one per
-- metric with a judged line (what a full walk counts as it goes; detect/alerts.c asks this of
-- the few alerts an incremental detect touches).
-- name: alerts_judged_at
SELECT count(*)
FROM runs r INDEXED BY runs_commit
JOIN on_series_runs rec ON rec.run_id = r.id
JOIN metrics mt ON mt.run_id = r.id
WHERE r.commit_sha = ?2 AND r.machine_id = ?1
  AND EXISTS (SELECT 1 FROM lines l JOIN line_ends e ON e.line_id = l.id
	      WHERE l.machine_id = r.machine_id AND l.benchmark_id = r.benchmark_id
		AND l.config = r.config AND l.metric = mt.name AND e.judged <> 0);

-- Alerts as `benchline alerts` lists them, oldest first: ?1 a machine's name or NULL for all,
-- ?2 a state's name or NULL, ?3 one alert's id or NULL; never one left without Suspects. The
-- reference commit (§9.1) is the latest of the references of its Suspects at its commit, in
-- Series order, taken among those that are not transient under the quiet.transient_records it
-- was judged under when there are such (a blip must not move it onto the new level), else
-- among all (all, too, for an alert never judged under that setting); NULL when none has one. A Suspect that joined it later, by continuing an earlier
-- level, has its reference after the alert's commit and is left out.
-- name: alerts_list
SELECT a.id, m.name, a.commit_sha, a.side, a.state, a.run_wide, a.series, a.judged_series,
       a.outcome, a.note, a.filed_url,
       coalesce((SELECT r.commit_sha FROM suspects s JOIN runs own ON own.id = s.run_id
		 JOIN placed_runs r ON r.id = s.reference_run_id
		 WHERE s.alert_id = a.id AND own.commit_sha = a.commit_sha
		   AND NOT (s.followers > s.persisted
			    AND s.persisted < coalesce(a.transient_records, 0))
		 ORDER BY r.place DESC, r.at DESC, r.started_at DESC, r.id DESC LIMIT 1),
		(SELECT r.commit_sha FROM suspects s JOIN runs own ON own.id = s.run_id
		 JOIN placed_runs r ON r.id = s.reference_run_id
		 WHERE s.alert_id = a.id AND own.commit_sha = a.commit_sha
		 ORDER BY r.place DESC, r.at DESC, r.started_at DESC, r.id DESC LIMIT 1)),
       a.created_at, a.rebench
FROM alerts a
JOIN machines m ON m.id = a.machine_id
WHERE a.series > 0 AND (CAST(?1 AS TEXT) IS NULL OR m.name = ?1)
  AND (CAST(?2 AS TEXT) IS NULL OR a.state = ?2) AND (CAST(?3 AS BIGINT) IS NULL OR a.id = ?3)
ORDER BY a.id;

-- The Suspects of one alert, by id.
-- name: alerts_suspect_ids
SELECT id FROM suspects WHERE alert_id = ?1 ORDER BY id;

-- What confirm records of an alert: its state (its Suspects follow), the outcome, the
-- re-bench report and a note. ?2 state, ?3 outcome, ?4 rebench JSON, ?5 note.
-- name: alerts_set_outcome
UPDATE alerts SET state = ?2, outcome = ?3, rebench = ?4, note = ?5 WHERE id = ?1;

-- Alert ?1's Suspects take its state ?2.
-- name: alerts_set_suspects_state
UPDATE suspects SET state = ?2 WHERE alert_id = ?1 AND state <> ?2;

-- name: alerts_last_id
SELECT coalesce(max(id), 0) FROM alerts;

-- name: alerts_count_after
SELECT count(*) FROM alerts WHERE id > ?1 AND series > 0;
