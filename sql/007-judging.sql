-- Alerts judged as §9.1 now says (issue 24): a `pending` state for an alert none of whose
-- Suspects has persisted yet, the quiet settings each alert was judged under (so a change of
-- them judges it again), and the alert pass done in C (detect/alerts.c) instead of by triggers
-- and flags. docs/confirm.md explains the rules.
--
-- Both tables are rebuilt: SQLite cannot change a CHECK in place. The migration runs with
-- foreign keys off (store.c, SQLite's documented way to rebuild a referenced table), ids kept.
-- The CHECKs are comparisons, not IN lists: SQLite codes an IN of more than two constants as a
-- temporary table built for every row inserted (sql/005-insert-path.sql). They list the names
-- in the order of the program's enums, which tests/unit/test_names.c checks.

-- AUTOINCREMENT's high-water marks, kept through the rebuild: an id once given is never given
-- again (restored at the end).
-- The alert pass's triggers and flags go first: they name the alerts table being rebuilt.
DROP TRIGGER suspects_followed;
DROP TRIGGER suspects_assigned;
DROP TRIGGER suspects_gone;
DROP INDEX suspects_unassigned;

CREATE TEMP TABLE ids_v7 AS
SELECT name, seq FROM sqlite_sequence WHERE name = 'alerts' OR name = 'suspects';

CREATE TABLE alerts_v7 (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	commit_sha TEXT NOT NULL, -- the commit of the record that started it
	side TEXT NOT NULL CHECK (side = 'slower' OR side = 'faster'),
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state = 'open' OR state = 'cleared' OR state = 'confirmed' OR
		       state = 'covered' OR state = 'transient' OR state = 'ignored' OR
		       state = 'pending'),
	-- The Series its Suspects are on; 0 when none is left (their records are no longer
	-- marked): such an alert is kept, so that its id is its machine's and commit's again when
	-- a Suspect comes back there, and listed nowhere.
	series INTEGER NOT NULL DEFAULT 0,
	-- The machine's judged Series at its commit, counted only when its Suspects there are on
	-- more than one (run-wide needs that): NULL otherwise.
	judged_series INTEGER,
	run_wide INTEGER NOT NULL DEFAULT 0, -- on half the judged Series at its commit, or more
	-- What confirm found (NULL before it took the alert up), with its re-bench report (§14
	-- JSON) and a note (the error that left it unbuildable, the range bisection left).
	outcome TEXT CHECK (outcome = 'cleared' OR outcome = 'confirmed' OR
			    outcome = 'unbuildable' OR outcome = 'inconclusive' OR
			    outcome = 'transient'),
	rebench TEXT,
	note TEXT,
	filed_url TEXT, -- where triage's issue was filed (--mark-filed), NULL until then
	created_at REAL NOT NULL,
	-- The quiet settings it was judged under: quiet.transient_records. NULL: never judged
	-- under this schema. A detect under another value judges it again while it is pending,
	-- open or transient. (Last, where PostgreSQL's ADD COLUMN puts it.)
	transient_records INTEGER
);
INSERT INTO alerts_v7 (id, machine_id, commit_sha, side, state, series, judged_series, run_wide,
		       outcome, rebench, note, filed_url, created_at, transient_records)
SELECT id, machine_id, commit_sha, side, state, series, judged_series, run_wide, outcome,
       rebench, note, filed_url, created_at, NULL
FROM alerts;
DROP TABLE alerts;
ALTER TABLE alerts_v7 RENAME TO alerts;
CREATE INDEX alerts_by_commit ON alerts (machine_id, commit_sha, side);

-- suspects names its run, machine and benchmark without foreign keys: only detect writes them,
-- from the rows it has just read in the same transaction, and `rm` deletes a run's Suspects
-- before the run. A foreign key on run_id costs a random read of the wide runs table for every
-- Suspect written: a third of a first detect's writes on a history of 200,000 records
-- (docs/performance.md).
CREATE TABLE suspects_v7 (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id INTEGER NOT NULL,
	metric TEXT NOT NULL,
	machine_id INTEGER NOT NULL,
	benchmark_id INTEGER NOT NULL,
	config TEXT NOT NULL,
	side TEXT NOT NULL CHECK (side = 'slower' OR side = 'faster'),
	shift REAL, -- (median - center) / center, NULL when the center is 0
	median REAL NOT NULL,
	center REAL NOT NULL,
	tolerance REAL NOT NULL,
	deviation REAL NOT NULL DEFAULT 0, -- the band's median absolute deviation
	-- The last record before it on its line whose median is inside its band: the record
	-- confirm re-benches against (NULL when none is).
	reference_run_id INTEGER,
	-- The run of an earlier Suspect of the same side, within 8 records, whose alert this one
	-- joins (§9.1: its level continued, or one excursion with it). NULL when none.
	follows_run_id INTEGER,
	-- Records after it on its line (counted up to 8), and how many of the first of them in a
	-- row stayed beyond its band on its side: with T = quiet.transient_records it has
	-- persisted when persisted >= T, is transient when it came back first (persisted <
	-- followers), and is pending before either.
	followers INTEGER NOT NULL DEFAULT 0,
	persisted INTEGER NOT NULL DEFAULT 0,
	alert_id INTEGER REFERENCES alerts (id),
	-- Its alert's state, always (§9.1).
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state = 'open' OR state = 'cleared' OR state = 'confirmed' OR
		       state = 'covered' OR state = 'transient' OR state = 'ignored' OR
		       state = 'pending'),
	created_at REAL NOT NULL,
	-- One key serves every lookup: a group's Suspects (a walk), a run's (rm), a Suspect by
	-- its run and metric, a Series' (its group, then the metric). One index fewer than the
	-- run's key and the Series' index apart: a tenth of a first detect (docs/performance.md).
	UNIQUE (machine_id, benchmark_id, config, run_id, metric)
);
INSERT INTO suspects_v7 SELECT id, run_id, metric, machine_id, benchmark_id, config, side, shift,
			       median, center, tolerance, deviation, reference_run_id,
			       follows_run_id, followers, persisted, alert_id, state, created_at
FROM suspects;
DROP TABLE suspects;
ALTER TABLE suspects_v7 RENAME TO suspects;
CREATE INDEX suspects_alert ON suspects (alert_id);

DELETE FROM sqlite_sequence WHERE name = 'alerts' OR name = 'suspects';
INSERT INTO sqlite_sequence (name, seq)
SELECT name, max(seq)
FROM (SELECT name, seq FROM temp.ids_v7
      UNION ALL SELECT 'alerts', coalesce(max(id), 0) FROM alerts
      UNION ALL SELECT 'suspects', coalesce(max(id), 0) FROM suspects)
GROUP BY name;
DROP TABLE temp.ids_v7;

-- Every line is walked again under the new rules (an excursion now joins its first Suspect's
-- alert) and every alert judged again: detect reads everything when the stored detect_state
-- is not DETECT_STATE_FORMAT, which is 3 from this schema on.
