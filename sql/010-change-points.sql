-- Change points (§6.1, issue 29): a second opinion beside the band. Detect runs a change-point
-- search on each judged timed line after the band; what it finds is a Suspect of kind
-- 'change-point', grouped into alerts, confirmed and bisected like the band's. A record may
-- hold one Suspect of each kind for a metric (the band's of one side, the change point's of
-- the other), so the kind is part of the key. And each line keeps its judged medians, so that
-- a line continued by an incremental detect is searched again whole without reading its
-- records. docs/detection.md, "Change points", explains both.
--
-- suspects is rebuilt (SQLite cannot change a UNIQUE constraint in place), ids and states kept;
-- the migration runs with foreign keys off (store.c). The existing Suspects are the band's.

CREATE TEMP TABLE ids_v10 AS SELECT name, seq FROM sqlite_sequence WHERE name = 'suspects';

CREATE TABLE suspects_v10 (
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
	alert_id INTEGER REFERENCES alerts (id),
	-- Its alert's state, always (§9.1).
	state TEXT NOT NULL DEFAULT 'pending'
		CHECK (state = 'open' OR state = 'cleared' OR state = 'confirmed' OR
		       state = 'covered' OR state = 'transient' OR state = 'ignored' OR
		       state = 'pending'),
	created_at REAL NOT NULL,
	-- Which opinion marked it: the band of §6, or the change-point search of §6.1. (Last,
	-- where PostgreSQL's ADD COLUMN puts it.)
	kind TEXT NOT NULL DEFAULT 'band' CHECK (kind = 'band' OR kind = 'change-point'),
	-- One key serves every lookup, as in schema 7, now with the kind last.
	UNIQUE (machine_id, benchmark_id, config, run_id, metric, kind)
);
INSERT INTO suspects_v10 (id, run_id, metric, machine_id, benchmark_id, config, side, shift,
			  median, center, tolerance, deviation, reference_run_id,
			  follows_run_id, followers, persisted, alert_id, state, created_at, kind)
SELECT id, run_id, metric, machine_id, benchmark_id, config, side, shift, median, center,
       tolerance, deviation, reference_run_id, follows_run_id, followers, persisted, alert_id,
       state, created_at, 'band'
FROM suspects;
DROP TABLE suspects;
ALTER TABLE suspects_v10 RENAME TO suspects;
CREATE INDEX suspects_alert ON suspects (alert_id);

DELETE FROM sqlite_sequence WHERE name = 'suspects';
INSERT INTO sqlite_sequence (name, seq)
SELECT 'suspects', max(seq)
FROM (SELECT seq FROM temp.ids_v10 UNION ALL SELECT coalesce(max(id), 0) FROM suspects);
DROP TABLE temp.ids_v10;

-- The judged medians of each judged timed line, in its order, for the change-point search of
-- an incremental detect: chunk k holds records 64k to 64k + 63, each a little-endian double
-- and a varint of its run id's difference from the one before (zigzag) with the band's mark
-- beside it (detect_values_encode), written once the chunk is full and never changed. Rows
-- apart from line_ends so that the narrow row an append rewrites stays narrow.
CREATE TABLE line_values (
	line_id INTEGER NOT NULL,
	chunk INTEGER NOT NULL,
	data BLOB NOT NULL,
	PRIMARY KEY (line_id, chunk)
) WITHOUT ROWID;

-- Per judged timed line, what the next search of it goes on from (detect_values_encode_head):
-- how many values it has, where the last search found changes that count, the search's state
-- (its penalty, sums and candidates, each with its best split) and the records of the chunk
-- not yet full. Rewritten as the line grows: one row a line, the rows of all lines side by
-- side, so that an incremental detect that adds a record to every line rewrites few pages.
-- Both tables are emptied with their lines by detect (no foreign key: a first detect writes
-- every line, and each key check would be a lookup for nothing).
CREATE TABLE line_searches (
	line_id INTEGER PRIMARY KEY,
	data BLOB NOT NULL
);

-- Every line is walked again so that each gets its values and the change-point search runs on
-- the whole history: DETECT_STATE_FORMAT is 5 from this schema on.
