-- Suspects written without a statement journal (issue 29's budget for a first detect): the
-- key from a Suspect to its alert is checked when the transaction commits, not as each row is
-- written. SQLite keeps a statement journal for a statement that writes several rows and may
-- stop half way, copying aside every page it touches first; a key checked at once is such a
-- stop, and so are a constraint that aborts and a function call. So the 16-row insert of
-- sql/detect.sql is OR FAIL and takes its time as a parameter, and with this key it needs no
-- journal: a fifth fewer instructions for the 21,457 Suspects of a first detect of Django's
-- history. A detect that fails rolls its whole transaction back. docs/performance.md has the
-- figures.
--
-- suspects is rebuilt (SQLite cannot change a foreign key in place), ids, states and kinds
-- kept; the migration runs with foreign keys off (store.c).

CREATE TEMP TABLE ids_v11 AS SELECT name, seq FROM sqlite_sequence WHERE name = 'suspects';

CREATE TABLE suspects_v11 (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id INTEGER NOT NULL,
	metric TEXT NOT NULL,
	machine_id INTEGER NOT NULL,
	benchmark_id INTEGER NOT NULL,
	config TEXT NOT NULL,
	side TEXT NOT NULL CHECK (side = 'slower' OR side = 'faster'),
	-- The band's: (median - center) / center, NULL when the center is 0. A change point's:
	-- (after - before) / before, the levels of up to 8 records each side.
	shift REAL,
	median REAL NOT NULL,
	-- The band's center and tolerance; a change point's level before it, and the least move
	-- that counts (quiet.change_min_shift times that level).
	center REAL NOT NULL,
	tolerance REAL NOT NULL,
	deviation REAL NOT NULL DEFAULT 0, -- the band's median absolute deviation
	-- The last record before it on its line whose median is inside its band: the record
	-- confirm re-benches against (NULL when none is). A change point's: the last record of
	-- the level before it.
	reference_run_id INTEGER,
	-- The run of an earlier Suspect of the same side, within 8 records, whose alert this one
	-- joins (§9.1: its level continued, or one excursion with it). NULL when none.
	follows_run_id INTEGER,
	-- Records after it on its line (counted up to 8), and how many of the first of them in a
	-- row stayed beyond its band on its side: with T = quiet.transient_records it has
	-- persisted when persisted >= T, is transient when it came back first (persisted <
	-- followers), and is pending before either. A change point has persisted by
	-- construction (its new level held 8 records): 8 and 8.
	followers INTEGER NOT NULL DEFAULT 0,
	persisted INTEGER NOT NULL DEFAULT 0,
	alert_id INTEGER REFERENCES alerts (id) DEFERRABLE INITIALLY DEFERRED,
	-- Its alert's state, always (§9.1).
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state = 'open' OR state = 'cleared' OR state = 'confirmed' OR
		       state = 'covered' OR state = 'transient' OR state = 'ignored' OR
		       state = 'pending'),
	created_at REAL NOT NULL,
	-- Which opinion marked it: the band of §6, or the change-point search of §6.1. (Last,
	-- where PostgreSQL's ADD COLUMN puts it.)
	kind TEXT NOT NULL DEFAULT 'band' CHECK (kind = 'band' OR kind = 'change-point'),
	-- One key serves every lookup: the group, then the run, the metric and the kind.
	UNIQUE (machine_id, benchmark_id, config, run_id, metric, kind)
);
INSERT INTO suspects_v11 (id, run_id, metric, machine_id, benchmark_id, config, side, shift,
			  median, center, tolerance, deviation, reference_run_id,
			  follows_run_id, followers, persisted, alert_id, state, created_at, kind)
SELECT id, run_id, metric, machine_id, benchmark_id, config, side, shift, median, center,
       tolerance, deviation, reference_run_id, follows_run_id, followers, persisted, alert_id,
       state, created_at, kind
FROM suspects;
DROP TABLE suspects;
ALTER TABLE suspects_v11 RENAME TO suspects;
CREATE INDEX suspects_alert ON suspects (alert_id);

DELETE FROM sqlite_sequence WHERE name = 'suspects';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'suspects', max(seq)
FROM (SELECT seq FROM temp.ids_v11 UNION ALL SELECT coalesce(max(id), 0) FROM suspects);
DROP TABLE temp.ids_v11;
