-- The plain floor for the ingest bench (tests/bench/run.sh): the rows plain_insert.c writes,
-- into the least schema that holds them: no CHECK constraints, foreign keys, triggers or
-- secondary indexes; only the keys a store needs to find a run again (its digest, the
-- standing run of a key) and a metric by run and name. sql/001-init.sql is the other
-- reference, benchline's own schema, which pays for its indexes and constraints per row.
CREATE TABLE machines (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE benchmarks (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE);
CREATE TABLE runs (
	id INTEGER PRIMARY KEY,
	digest TEXT NOT NULL UNIQUE,
	machine_id INTEGER NOT NULL,
	benchmark_id INTEGER NOT NULL,
	config TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	content_hash TEXT,
	commit_sha TEXT NOT NULL,
	branch TEXT,
	committed_at REAL,
	started_at REAL NOT NULL,
	dirty INTEGER NOT NULL,
	profile TEXT NOT NULL,
	baseline INTEGER NOT NULL,
	primary_metric TEXT NOT NULL,
	quietness REAL,
	raw TEXT NOT NULL,
	ingested_at REAL NOT NULL
);
CREATE TABLE records (
	machine_id INTEGER NOT NULL,
	benchmark_id INTEGER NOT NULL,
	config TEXT NOT NULL,
	source_hash TEXT NOT NULL,
	harness_version INTEGER NOT NULL,
	run_id INTEGER NOT NULL,
	PRIMARY KEY (machine_id, benchmark_id, config, source_hash, harness_version)
) WITHOUT ROWID;
CREATE TABLE metrics (
	run_id INTEGER NOT NULL,
	name TEXT NOT NULL,
	kind TEXT NOT NULL,
	unit TEXT NOT NULL,
	better TEXT NOT NULL,
	median REAL,
	p95 REAL,
	n INTEGER,
	value REAL,
	ladder TEXT,
	samples BLOB,
	PRIMARY KEY (run_id, name)
) WITHOUT ROWID;
