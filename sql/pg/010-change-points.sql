-- Change points (§6.1, issue 29), PostgreSQL: a Suspect's kind, part of its key, and the judged
-- medians each line keeps for the change-point search. sql/010-change-points.sql is the
-- SQLite text this follows (and says why); PostgreSQL adds the column and changes the key in
-- place where SQLite rebuilds the table.

-- Which opinion marked it: the band of §6, or the change-point search of §6.1.
ALTER TABLE suspects ADD COLUMN kind text COLLATE "C" NOT NULL DEFAULT 'band'
	CHECK (kind IN ('band', 'change-point'));
ALTER TABLE suspects DROP CONSTRAINT suspects_key;
ALTER TABLE suspects ADD CONSTRAINT suspects_key
	UNIQUE (machine_id, benchmark_id, config, run_id, metric, kind);

-- The judged medians of each judged timed line, and what the next search of each goes on
-- from (the layouts are in the SQLite text).
CREATE TABLE line_values (
	line_id bigint NOT NULL,
	chunk bigint NOT NULL,
	data bytea NOT NULL,
	PRIMARY KEY (line_id, chunk)
);
CREATE TABLE line_searches (
	line_id bigint PRIMARY KEY,
	data bytea NOT NULL
);
