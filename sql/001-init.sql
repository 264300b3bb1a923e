-- The first schema: machines, benchmarks, every run with its raw JSON, the standing run per
-- key, metrics with their samples as one blob, tags, and main's commits.

-- A sweep machine. keep is 'first' for machines whose times mean nothing (the first run of
-- a key stands), else 'quieter' (the run with the lower p95/median of its primary stands).
CREATE TABLE machines (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE,
	info TEXT, -- machine_info of the latest run, as JSON
	keep TEXT NOT NULL DEFAULT 'quieter' CHECK (keep IN ('quieter', 'first'))
);

CREATE TABLE benchmarks (
	id INTEGER PRIMARY KEY,
	name TEXT NOT NULL UNIQUE
);

-- Every ingested run, kept forever. digest (SHA-1 of the record's canonical JSON) makes a
-- re-ingest of the same run a no-op.
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	digest TEXT NOT NULL UNIQUE,
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
	config TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	content_hash TEXT,
	commit_sha TEXT NOT NULL,
	branch TEXT,
	committed_at REAL, -- seconds since the epoch, NULL when the record did not say
	started_at REAL NOT NULL,
	dirty INTEGER NOT NULL,
	profile TEXT NOT NULL,
	baseline INTEGER NOT NULL,
	primary_metric TEXT NOT NULL,
	quietness REAL, -- p95/median of the primary metric, NULL when unknown
	raw TEXT NOT NULL, -- the record as ingested (canonical JSON, unknown keys kept)
	ingested_at REAL NOT NULL
);
CREATE INDEX runs_key ON runs (machine_id, benchmark_id, config, source_hash, harness_version);
CREATE INDEX runs_commit ON runs (commit_sha);
CREATE INDEX runs_source ON runs (source_hash);

-- The standing run of each key. The primary key's prefix (machine, benchmark, config) is the
-- Series, so a Series query is one index range scan.
CREATE TABLE records (
	machine_id INTEGER NOT NULL REFERENCES machines (id),
	benchmark_id INTEGER NOT NULL REFERENCES benchmarks (id),
	config TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	run_id INTEGER NOT NULL UNIQUE REFERENCES runs (id),
	PRIMARY KEY (machine_id, benchmark_id, config, source_hash, harness_version)
) WITHOUT ROWID;

-- One row per metric of a run. samples is the raw sample array as little-endian IEEE 754
-- doubles (8 bytes each), NULL when the run gave none.
CREATE TABLE metrics (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	name TEXT NOT NULL,
	kind TEXT NOT NULL CHECK (kind IN ('timed', 'counted', 'quantile')),
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

-- Why a run is not on its Series (§5): dirty, profile, not-main, preflight, noisy,
-- superseded. A run with no tag joins its Series.
CREATE TABLE tags (
	run_id INTEGER NOT NULL REFERENCES runs (id),
	tag TEXT NOT NULL CHECK (tag IN ('dirty', 'profile', 'not-main', 'preflight', 'noisy',
					 'superseded')),
	PRIMARY KEY (run_id, tag)
) WITHOUT ROWID;
CREATE INDEX tags_by_tag ON tags (tag, run_id);

-- main's first-parent history, seq 0 at the root.
CREATE TABLE commits (
	sha TEXT PRIMARY KEY,
	seq INTEGER NOT NULL UNIQUE,
	parent TEXT,
	source_hash TEXT NOT NULL,
	committed_at INTEGER NOT NULL,
	subject TEXT NOT NULL,
	pr INTEGER -- pull request number named by the subject, else NULL
) WITHOUT ROWID;
CREATE INDEX commits_source ON commits (source_hash, seq);
-- Places a record whose commit is not on main by time (records_list, series_members).
CREATE INDEX commits_time ON commits (committed_at, seq);

-- Small settings the store keeps between commands: main_branch, synced_tip.
CREATE TABLE meta (
	key TEXT PRIMARY KEY,
	value TEXT
) WITHOUT ROWID;
