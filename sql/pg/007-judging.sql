-- Alerts judged as §9.1 now says, PostgreSQL: the `pending` state, the quiet settings each
-- alert was judged under, and the alert pass in C instead of triggers and flags.
-- sql/007-judging.sql is the SQLite text this follows; PostgreSQL changes the CHECKs and
-- columns in place where SQLite rebuilds the tables (ids and sequences are untouched).

ALTER TABLE alerts DROP CONSTRAINT alerts_state_check;
ALTER TABLE alerts ADD CONSTRAINT alerts_state_check
	CHECK (state IN ('open', 'cleared', 'confirmed', 'covered', 'transient', 'ignored',
			 'pending'));
ALTER TABLE alerts ALTER COLUMN state SET DEFAULT 'pending';
DROP INDEX alerts_recheck;
ALTER TABLE alerts DROP COLUMN recheck;
-- The quiet settings it was judged under: quiet.transient_records (NULL: never judged under
-- this schema).
ALTER TABLE alerts ADD COLUMN transient_records bigint;

ALTER TABLE suspects DROP CONSTRAINT suspects_state_check;
ALTER TABLE suspects ADD CONSTRAINT suspects_state_check
	CHECK (state IN ('open', 'cleared', 'confirmed', 'covered', 'transient', 'ignored',
			 'pending'));
ALTER TABLE suspects ALTER COLUMN state SET DEFAULT 'pending';
DROP TRIGGER suspects_followed ON suspects;
DROP TRIGGER suspects_assigned ON suspects;
DROP TRIGGER suspects_gone ON suspects;
DROP FUNCTION suspects_alert_recheck();
DROP INDEX suspects_unassigned;
-- No foreign keys from suspects to runs, machines and benchmarks, as in SQLite (the reason is
-- in sql/007-judging.sql): here each is a trigger that reads the parent row.
ALTER TABLE suspects DROP CONSTRAINT suspects_run_id_fkey;
ALTER TABLE suspects DROP CONSTRAINT suspects_machine_id_fkey;
ALTER TABLE suspects DROP CONSTRAINT suspects_benchmark_id_fkey;
-- One key for every lookup, as in SQLite (the reason is there).
ALTER TABLE suspects DROP CONSTRAINT suspects_run_id_metric_key;
DROP INDEX suspects_series;
ALTER TABLE suspects ADD CONSTRAINT suspects_key
	UNIQUE (machine_id, benchmark_id, config, run_id, metric);
