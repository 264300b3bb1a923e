-- The insert path (issue 14), PostgreSQL. sql/005-insert-path.sql rebuilds metrics and tags
-- to write their CHECKs as comparisons (SQLite codes a CHECK's `IN` list as a temporary table
-- built per row) and rewrites the change-log triggers as upserts (SQLite runs an INSERT ...
-- SELECT that reads its own table through a temporary table). The first is SQLite's alone:
-- PostgreSQL tests `IN (...)` as `= ANY (array)` at no such cost, so metrics and tags stay as
-- sql/pg/001-init.sql made them, with the same rules, and their triggers stay too. What
-- remains is the second.

-- The change log's one step (sql/pg/002-detect.sql), now an upsert on the log's own key: the
-- same net delta, the same copy of the run's row taken the first time it is logged. Every
-- records and tags trigger calls it, so replacing it is replacing them. As an upsert the step
-- also holds when two transactions log the same run at once (an insert after a NOT EXISTS
-- test can meet the other's row; ON CONFLICT waits for it instead).
--
-- Where it differs from SQLite's text: an entry whose net change comes back to 0 is deleted by
-- the row the upsert returns (its ctid), not looked up again by key. plpgsql keeps a generic
-- plan of each statement, made when it has run a few times; detect empties the log, so that
-- plan is made on a table of a page or none, where a sequential scan is the cheaper plan, and
-- then kept while one statement logs 100,000 rows: a scan of the whole log per row (measured:
-- 358 s for 100,000 records, against 6 s this way). The upsert itself always finds the entry
-- through the primary key (its conflict check), and the row is ours (inserted or locked by
-- the upsert) until the transaction ends, so its ctid cannot change before the DELETE.
CREATE OR REPLACE FUNCTION detect_log_note(p_run_id bigint, p_what text, p_delta bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
	v_row tid;
	v_delta bigint;
BEGIN
	INSERT INTO detect_log (run_id, what, delta) VALUES (p_run_id, p_what, p_delta)
	ON CONFLICT (run_id, what) DO UPDATE SET delta = detect_log.delta + EXCLUDED.delta
	RETURNING ctid, delta INTO v_row, v_delta;
	IF v_delta = 0 THEN
		DELETE FROM detect_log WHERE ctid = v_row;
	END IF;
	INSERT INTO detect_log_runs
	SELECT id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha,
	       content_hash, baseline, committed_at, started_at
	FROM runs WHERE id = p_run_id
	ON CONFLICT (run_id) DO NOTHING;
END;
$$;
