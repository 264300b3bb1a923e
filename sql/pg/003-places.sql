-- A run's place in main's order (§3), PostgreSQL: the one definition of it in this dialect,
-- the same rule and the same columns as sql/003-places.sql, which explains it. placed_runs
-- is every column of runs, then
--   at     committed_at, else started_at: the time a record is placed by;
--   seq    its commit's seq on main, else the first seq of a main commit with its source hash;
--          NULL when neither;
--   place  seq when known, else right after the last main commit committed at or before
--          `at`, at that commit's seq + 0.5 (-0.5 before the history).
-- Series order is place, then at, started_at and run id.
--
-- Where the text differs from SQLite's, and why:
--   - place is double precision throughout (seq::float8, and the .5 added to a float8): in
--     PostgreSQL bigint + 0.5 is numeric, which the C code would not read as SQLite's real.
--     A known seq prints as an integer still ("12"), as float8's text output drops ".0".
--   - commits.committed_at is bigint and `at` double precision: compared as they are, the
--     bigint column would be cast to float8 and commits_time could not serve the lookup. For
--     an integer x, x <= at exactly when x <= floor(at), so the bigint side is compared with
--     floor(at)::bigint (exact: floor gives an integral value, far inside bigint's range).
--   - the subquery in FROM is named (PostgreSQL 15 requires it). PostgreSQL pulls it up into
--     each query that reads the view, so a query pays only for the columns it uses, as in
--     SQLite.
CREATE VIEW placed_runs AS
SELECT p.*,
       coalesce(p.seq::float8,
		coalesce((SELECT max(c.seq) FROM commits c
			  WHERE c.committed_at <= floor(p.at)::bigint), -1)::float8 + 0.5)
	       AS place
FROM (SELECT runs.*, coalesce(runs.committed_at, runs.started_at) AS at,
	     coalesce((SELECT c.seq FROM commits c WHERE c.sha = runs.commit_sha),
		      (SELECT min(c.seq) FROM commits c WHERE c.source_hash = runs.source_hash))
		     AS seq
      FROM runs) p;
