-- The insert path at the pace of plain inserts (issue 14). SQLite codes `x IN (a, b, c)` with
-- more than two constants as a temporary table built each time the statement runs: in a CHECK
-- constraint that is a table created (and its page zeroed) for every row inserted. And an
-- `INSERT ... SELECT` whose SELECT reads the table it inserts into is run through a temporary
-- table too: the change-log triggers did that for every record and tag they logged. This
-- migration writes the same rules without either.

-- metrics and tags, rebuilt with their CHECKs as comparisons. Nothing references either table;
-- the tags triggers go with the old table and are made again below.
CREATE TABLE metrics_new (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	name TEXT NOT NULL,
	kind TEXT NOT NULL CHECK (kind = 'timed' OR kind = 'counted' OR kind = 'quantile'),
	unit TEXT NOT NULL,
	better TEXT NOT NULL CHECK (better IN ('lower', 'higher')),
	median REAL,
	p95 REAL,
	n INTEGER,
	value REAL,
	ladder TEXT,
	samples BLOB,
	PRIMARY KEY (run_id, name)
) WITHOUT ROWID;
INSERT INTO metrics_new SELECT * FROM metrics;
DROP TABLE metrics;
ALTER TABLE metrics_new RENAME TO metrics;

CREATE TABLE tags_new (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	tag TEXT NOT NULL CHECK (tag = 'dirty' OR tag = 'profile' OR tag = 'not-main' OR
				 tag = 'preflight' OR tag = 'noisy' OR tag = 'superseded'),
	PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
INSERT INTO tags_new SELECT * FROM tags;
DROP TABLE tags;
ALTER TABLE tags_new RENAME TO tags;
CREATE INDEX tags_by_tag ON tags (tag, run_id);

-- The change-log triggers (sql/002-detect.sql), each step now an upsert on the log's own key:
-- the same net delta, the same copy of the run's row taken the first time it is logged. An
-- upsert's ON CONFLICT applies to its own key whatever conflict clause the firing statement
-- has, so the rule of 002 (the trigger bodies take the firing statement's clause) still holds
-- for every other constraint.
DROP TRIGGER detect_records_insert;
DROP TRIGGER detect_records_update;
DROP TRIGGER detect_records_delete;

CREATE TRIGGER detect_records_insert AFTER INSERT ON records
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (NEW.run_id, 'standing', 1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta + 1;
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = NEW.run_id
	ON CONFLICT (run_id) DO NOTHING;
END;

CREATE TRIGGER detect_records_update AFTER UPDATE OF run_id ON records
WHEN OLD.run_id IS NOT NEW.run_id AND EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (OLD.run_id, 'standing', -1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta - 1;
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log (run_id, what, delta) VALUES (NEW.run_id, 'standing', 1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta + 1;
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = OLD.run_id
	ON CONFLICT (run_id) DO NOTHING;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = NEW.run_id
	ON CONFLICT (run_id) DO NOTHING;
END;

CREATE TRIGGER detect_records_delete AFTER DELETE ON records
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (OLD.run_id, 'standing', -1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta - 1;
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = 'standing' AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = OLD.run_id
	ON CONFLICT (run_id) DO NOTHING;
END;

CREATE TRIGGER detect_tags_insert AFTER INSERT ON tags
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (NEW.run_id, NEW.tag, 1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta + 1;
	DELETE FROM detect_log WHERE run_id = NEW.run_id AND what = NEW.tag AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = NEW.run_id
	ON CONFLICT (run_id) DO NOTHING;
END;

CREATE TRIGGER detect_tags_delete AFTER DELETE ON tags
WHEN EXISTS (SELECT 1 FROM meta WHERE key = 'detect_state')
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (OLD.run_id, OLD.tag, -1)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = delta - 1;
	DELETE FROM detect_log WHERE run_id = OLD.run_id AND what = OLD.tag AND delta = 0;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = OLD.run_id
	ON CONFLICT (run_id) DO NOTHING;
END;
