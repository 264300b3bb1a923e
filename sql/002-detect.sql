-- Detection (§6): the lines of every Series, the Suspects found on them, and the change log
-- that lets `benchline detect` recompute only what moved. docs/detection.md explains them.

-- A full detect reads what it needs of every run from this index, in id order, never the
-- rows themselves: their raw JSON makes the table many times larger, and reading it would
-- cost time in proportion to how much each record carries. New runs append to its end.
CREATE INDEX runs_detect ON runs (id, commit_sha, content_hash, baseline, committed_at,
				  started_at);

-- Every line of every Series as the last detect left it: where it starts and why (the first
-- record, a harness-version or content-hash change, an imported Baseline, or a commit pinned
-- by bisection) and the harness version and content hash all its records share.
CREATE TABLE lines (
	id INTEGER PRIMARY KEY,
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
	config TEXT NOT NULL,
	metric TEXT NOT NULL,
	line INTEGER NOT NULL, -- 0 for a Series' first line
	reason TEXT NOT NULL
		CHECK (reason IN ('first', 'harness', 'content', 'baseline', 'pinned')),
	start_run_id INTEGER NOT NULL REFERENCES runs (id),
	start_commit TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	content_hash TEXT,
	UNIQUE (machine_id, benchmark_id, config, metric, line)
);

-- What a line holds and what continuing it needs: how many records, a fingerprint of them
-- (run ids and values, in order), its last record's place in Series order, and the band's
-- memory of its last judged records (`tail`). Kept apart from lines, so that a record added
-- at the end of a line rewrites only this narrow row.
CREATE TABLE line_ends (
	line_id INTEGER PRIMARY KEY REFERENCES lines (id) ON DELETE CASCADE,
	records INTEGER NOT NULL,
	fingerprint INTEGER NOT NULL,
	last_run_id INTEGER NOT NULL,
	last_place REAL NOT NULL, -- seq on main; x.5 when placed by time (sql/series.sql)
	last_at REAL NOT NULL,
	last_started_at REAL NOT NULL,
	time_placed_at REAL, -- the latest time of a record placed by time, NULL when none
	judged INTEGER NOT NULL, -- 1 when the band judges its records
	tail BLOB -- the last judged medians with their marks (detect_tail_encode)
);

-- Records the band marked: one per (run, metric), with the numbers that marked it. Only
-- detect creates them (state 'open'); confirmation and bisection (§9) move the state on, and
-- a recompute keeps every state but 'open' as long as the record is still marked. Ids are
-- never reused, so a Suspect can be named by its id.
CREATE TABLE suspects (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	run_id INTEGER NOT NULL REFERENCES runs (id),
	metric TEXT NOT NULL,
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
	config TEXT NOT NULL,
	side TEXT NOT NULL CHECK (side IN ('slower', 'faster')),
	shift REAL, -- (median - center) / center, NULL when the center is 0
	median REAL NOT NULL,
	center REAL NOT NULL,
	tolerance REAL NOT NULL,
	state TEXT NOT NULL DEFAULT 'open'
		CHECK (state IN ('open', 'cleared', 'confirmed', 'covered')),
	created_at REAL NOT NULL,
	UNIQUE (run_id, metric)
);
CREATE INDEX suspects_series ON suspects (machine_id, benchmark_id, config, metric);

-- The change log. Once a detect has run (meta 'detect_state'), these triggers note every
-- change that can move a record onto, off or along a Series, in the same transaction as the
-- change: a run becoming or ceasing to be a key's standing record, a tag added or removed,
-- a commit of main stored. Run entries keep the net change (+1 / -1), so a tag
-- removed and put back (sync recomputes every not-main tag) leaves nothing behind. The next
-- detect reads the log, works out which lines changed and empties it. The trigger bodies use
-- no conflict clauses: the statement that fires a trigger imposes its own on them.
CREATE TABLE detect_log (
	run_id INTEGER NOT NULL,
	what TEXT NOT NULL, -- 'standing', or the tag
	delta INTEGER NOT NULL,
	PRIMARY KEY (run_id, what)
) WITHOUT ROWID;

-- What detect needs of each run the log names, copied when it is logged (the run's row is in
-- the cache then): the next detect reads these few rows, not the runs table's wide ones.
CREATE TABLE detect_log_runs (
	run_id INTEGER PRIMARY KEY,
	machine_id INTEGER NOT NULL,
	benchmark_id INTEGER NOT NULL,
	config TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	source_hash TEXT NOT NULL,
	commit_sha TEXT NOT NULL,
	content_hash TEXT,
	baseline INTEGER NOT NULL,
	committed_at REAL,
	started_at REAL NOT NULL
);

CREATE TABLE detect_log_commits (
	sha TEXT PRIMARY KEY,
	seq INTEGER NOT NULL,
	source_hash TEXT NOT NULL,
	committed_at INTEGER NOT NULL
) WITHOUT ROWID;

CREATE TRIGGER detect_records_insert AFTER INSERT ON records
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta)
	SELECT NEW.run_id, 'standing', 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing');
	UPDATE detect_log SET delta = delta + 1 WHERE run_id = NEW.run_id AND what = 'standing';
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = NEW.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = NEW.run_id);
END;

CREATE TRIGGER detect_records_update AFTER UPDATE OF run_id ON records
WHEN OLD.run_id IS NOT NEW.run_id AND EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta)
	SELECT OLD.run_id, 'standing', 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing');
	UPDATE detect_log SET delta = delta - 1 WHERE run_id = OLD.run_id AND what = 'standing';
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log (run_id, what, delta)
	SELECT NEW.run_id, 'standing', 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing');
	UPDATE detect_log SET delta = delta + 1 WHERE run_id = NEW.run_id AND what = 'standing';
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = OLD.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = OLD.run_id);
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = NEW.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = NEW.run_id);
END;

CREATE TRIGGER detect_records_delete AFTER DELETE ON records
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta)
	SELECT OLD.run_id, 'standing', 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing');
	UPDATE detect_log SET delta = delta - 1 WHERE run_id = OLD.run_id AND what = 'standing';
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = OLD.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = OLD.run_id);
END;

CREATE TRIGGER detect_tags_insert AFTER INSERT ON tags
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta)
	SELECT NEW.run_id, NEW.tag, 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = NEW.run_id AND what = NEW.tag);
	UPDATE detect_log SET delta = delta + 1 WHERE run_id = NEW.run_id AND what = NEW.tag;
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = NEW.tag AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = NEW.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = NEW.run_id);
END;

CREATE TRIGGER detect_tags_delete AFTER DELETE ON tags
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta)
	SELECT OLD.run_id, OLD.tag, 0
	WHERE NOT EXISTS (SELECT 1 FROM detect_log WHERE run_id = OLD.run_id AND what = OLD.tag);
	UPDATE detect_log SET delta = delta - 1 WHERE run_id = OLD.run_id AND what = OLD.tag;
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = OLD.tag AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs
	WHERE id = OLD.run_id AND NOT EXISTS (SELECT 1 FROM detect_log_runs WHERE run_id = OLD.run_id);
END;

CREATE TRIGGER detect_commits_insert AFTER INSERT ON commits
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	DELETE FROM detect_log_commits WHERE sha = NEW.sha;
	INSERT INTO detect_log_commits (sha, seq, source_hash, committed_at)
	VALUES (NEW.sha, NEW.seq, NEW.source_hash, NEW.committed_at);
END;

-- A commit dropped from main (main was rewritten) can reorder records anywhere: the next
-- detect reads every Series.
CREATE TRIGGER detect_commits_delete AFTER DELETE ON commits
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	DELETE FROM meta WHERE key = 'detect_full';
	INSERT INTO meta (key, value) VALUES ('detect_full', 'main was rewritten');
END;
