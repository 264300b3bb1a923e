-- Confirmation (§9): alerts, the unit confirm measures and triage files; what detection now
-- remembers of each Suspect so that alerts can be formed without reading a Series again; and
-- Regressions, the commits bisection pinned. docs/confirm.md explains the rules.

-- Open Suspects of one machine at one commit, of one side, form an alert; a Suspect that
-- continues an earlier one (§9.1) joins that one's alert instead. An alert's state is its
-- Suspects' state: open until confirm (or transience) moves it on.
CREATE TABLE alerts (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	commit_sha TEXT NOT NULL, -- the commit of the record that started it
	side TEXT NOT NULL CHECK (side IN ('slower', 'faster')),
	state TEXT NOT NULL DEFAULT 'open'
		CHECK (state IN ('open', 'cleared', 'confirmed', 'covered', 'transient',
				 'ignored')),
	series INTEGER NOT NULL DEFAULT 0, -- the Series its Suspects are on
	-- The machine's judged Series at its commit, counted only when its Suspects there are on
	-- more than one (run-wide needs that): NULL otherwise.
	judged_series INTEGER,
	run_wide INTEGER NOT NULL DEFAULT 0, -- on half the judged Series at its commit, or more
	-- What confirm found (NULL before it took the alert up), with its re-bench report (§14
	-- JSON) and a note (the error that left it unbuildable, the range bisection left).
	outcome TEXT CHECK (outcome IN ('cleared', 'confirmed', 'unbuildable', 'inconclusive',
					'transient')),
	rebench TEXT,
	note TEXT,
	filed_url TEXT, -- where triage's issue was filed (--mark-filed), NULL until then
	recheck INTEGER NOT NULL DEFAULT 1, -- its Suspects changed since the last look
	created_at REAL NOT NULL
);
CREATE INDEX alerts_by_commit ON alerts (machine_id, commit_sha, side);

-- The alert pass counts a machine's judged Series at a commit from this index alone (the
-- runs table's rows are wide); it serves runs_commit's lookups by commit too.
DROP INDEX runs_commit;
CREATE INDEX runs_commit ON runs (commit_sha, machine_id, benchmark_id, config);
CREATE INDEX alerts_recheck ON alerts (id) WHERE recheck;

-- suspects, rebuilt: the states of §9.1 and what the alert rules need, each computed by the
-- walk that marked it. The ids and states of existing Suspects are kept.
CREATE TABLE suspects_v4 (
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
	deviation REAL NOT NULL DEFAULT 0, -- the band's median absolute deviation
	-- The last record before it on its line whose median is inside its band: the record
	-- confirm re-benches against (NULL when none is).
	reference_run_id INTEGER,
	-- The run of an earlier Suspect of the same side, within 8 records, whose level this one
	-- continues (§9.1): it joins that one's alert. NULL when it continues none.
	follows_run_id INTEGER,
	-- Records after it on its line (counted up to 8), and how many of the first of them in a
	-- row stayed beyond its band on its side: transient when it came back within
	-- quiet.transient_records (followers > persisted and persisted < that).
	followers INTEGER NOT NULL DEFAULT 0,
	persisted INTEGER NOT NULL DEFAULT 0,
	alert_id INTEGER REFERENCES alerts (id),
	state TEXT NOT NULL DEFAULT 'open'
		CHECK (state IN ('open', 'cleared', 'confirmed', 'covered', 'transient',
				 'ignored')),
	created_at REAL NOT NULL,
	UNIQUE (run_id, metric)
);
INSERT INTO suspects_v4 (id, run_id, metric, machine_id, benchmark_id, config, side, shift,
			 median, center, tolerance, state, created_at)
SELECT id, run_id, metric, machine_id, benchmark_id, config, side, shift, median, center,
       tolerance, state, created_at
FROM suspects;
DROP TABLE suspects;
ALTER TABLE suspects_v4 RENAME TO suspects;
CREATE INDEX suspects_series ON suspects (machine_id, benchmark_id, config, metric);
CREATE INDEX suspects_alert ON suspects (alert_id);
CREATE INDEX suspects_unassigned ON suspects (id) WHERE alert_id IS NULL;

-- An alert whose Suspects change (one joins it, their followers move, one is gone) is looked
-- at again by the next alert pass (detect/alerts.c).
CREATE TRIGGER suspects_followed AFTER UPDATE OF followers, persisted ON suspects
WHEN NEW.alert_id IS NOT NULL
BEGIN
	UPDATE alerts SET recheck = 1 WHERE id = NEW.alert_id AND NOT recheck;
END;

CREATE TRIGGER suspects_assigned AFTER UPDATE OF alert_id ON suspects
WHEN NEW.alert_id IS NOT NULL
BEGIN
	UPDATE alerts SET recheck = 1 WHERE id = NEW.alert_id AND NOT recheck;
END;

CREATE TRIGGER suspects_gone AFTER DELETE ON suspects
WHEN OLD.alert_id IS NOT NULL
BEGIN
	UPDATE alerts SET recheck = 1 WHERE id = OLD.alert_id AND NOT recheck;
END;

-- A commit bisection pinned on one Series (§9.3): where its line breaks (`pinned`), with the
-- measurement that pinned it. seq is the commit's place on main when it is there.
CREATE TABLE regressions (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	alert_id INTEGER REFERENCES alerts (id), -- NULL when bisect ran on its own
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
	config TEXT NOT NULL,
	metric TEXT NOT NULL,
	commit_sha TEXT NOT NULL,
	seq INTEGER,
	source_hash TEXT NOT NULL,
	subject TEXT,
	pr INTEGER,
	ratio REAL,
	lo REAL,
	hi REAL,
	reference_commit TEXT NOT NULL, -- the good end of the bisection
	probes TEXT NOT NULL, -- the probe log, as `bisect --json` gives it (§14)
	created_at REAL NOT NULL,
	UNIQUE (machine_id, benchmark_id, config, metric, commit_sha)
);
CREATE INDEX regressions_alert ON regressions (alert_id);

-- A pinned commit splits its Series' line: the next detect reads every Series (Regressions
-- are rare; a full walk is cheap next to the bisection that found one).
CREATE TRIGGER regressions_pinned AFTER INSERT ON regressions
BEGIN
	DELETE FROM meta WHERE key = 'detect_full';
	INSERT INTO meta (key, value) VALUES ('detect_full', 'a Regression was pinned');
END;
