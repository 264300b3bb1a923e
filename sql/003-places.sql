-- A run's place in main's order (§3): the one definition of it. Every query that orders
-- records along a Series reads `placed_runs` where it would read `runs` (sql/series.sql,
-- detect.sql, queries.sql, web.sql); the full read of store/detect.c computes the same in C
-- from main's commits loaded once, and tests/unit/test_places.c checks the two agree.
--
-- placed_runs is every column of runs, then
--   at     committed_at, else started_at: the time a record is placed by;
--   seq    its commit's seq on main, else the first seq of a main commit with its source hash
--          (a pull request's head shares its squash merge's source); NULL when neither;
--   place  seq when known, else placed by time: right after the last main commit committed
--          at or before `at`, at that commit's seq + 0.5 (-0.5 before the history, as
--          imported Baselines are). So an integer place is a known seq and one ending in .5
--          an unknown one.
-- Series order is place, then at, started_at and run id.
--
-- SQLite flattens the view (and its subquery) into each query that reads it, so a query pays
-- only for the columns it uses: each place is one to three index seeks on commits, as when
-- the rule was written out in every query.
CREATE VIEW placed_runs AS
SELECT *,
       coalesce(seq, coalesce((SELECT max(c.seq) FROM commits c WHERE c.committed_at <= at),
			      -1) + 0.5) AS place
FROM (SELECT runs.*, coalesce(runs.committed_at, runs.started_at) AS at,
	     coalesce((SELECT c.seq FROM commits c WHERE c.sha = runs.commit_sha),
		      (SELECT min(c.seq) FROM commits c WHERE c.source_hash = runs.source_hash))
		     AS seq
      FROM runs);
