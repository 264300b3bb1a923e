-- Data care (docs/cli.md: retag, rm, suspects ignore): who changed the stored history by hand,
-- when and why, and the runs `rm` removed, kept whole so that a removal can be undone by
-- ingesting their raw JSON again.

-- One row per command that changed something: the action, who (the login name on the command
-- line, the token on the web), when (seconds since the epoch) and the reason given; the alert
-- an `ignore` named, and how many runs an `rm` removed or a `retag` re-tagged. No foreign key
-- to alerts: the alert pass may drop an alert later, and its audit row stays.
CREATE TABLE audit (
	id INTEGER PRIMARY KEY AUTOINCREMENT,
	action TEXT NOT NULL CHECK (action = 'retag' OR action = 'rm' OR action = 'ignore'),
	who TEXT NOT NULL,
	at REAL NOT NULL,
	why TEXT,
	alert_id INTEGER,
	runs INTEGER NOT NULL DEFAULT 0
);

-- A run `rm` removed, as it was stored: its key by name, whether it stood for its key, its
-- tags, and its canonical JSON (`benchline ingest` takes it back).
CREATE TABLE removed_runs (
	run_id INTEGER PRIMARY KEY,
	audit_id INTEGER NOT NULL REFERENCES audit (id),
	digest TEXT NOT NULL,
	machine TEXT NOT NULL,
	benchmark TEXT NOT NULL,
	config TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	commit_sha TEXT NOT NULL,
	standing INTEGER NOT NULL,
	tags TEXT NOT NULL, -- comma-separated, '' when none
	raw TEXT NOT NULL
);
CREATE INDEX removed_runs_audit ON removed_runs (audit_id);
