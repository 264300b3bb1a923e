-- check (store/check.c): the invariants of a stored history, which `benchline check` verifies
-- on either database (the same rules in PostgreSQL's dialect: only check_integrity differs,
-- in sql/pg/check.sql).

-- SQLite's own check of the file's b-trees and indexes: one row 'ok', or one row a problem.
-- name: check_integrity
PRAGMA quick_check;

-- Each invariant with the number of rows that break it (0 when it holds), in this order:
-- every standing record has its run, and the run is measured on the record's key; every
-- metric, tag and Suspect has its run; every run has its primary metric; every line's start
-- run exists.
-- name: check_invariants
SELECT 'records without their run', count(*) FROM records r
WHERE NOT EXISTS (SELECT 1 FROM runs u WHERE u.id = r.run_id)
UNION ALL
SELECT 'records whose run has another key', count(*) FROM records r JOIN runs u ON u.id = r.run_id
WHERE u.machine_id <> r.machine_id OR u.benchmark_id <> r.benchmark_id OR u.config <> r.config
   OR u.source_hash <> r.source_hash OR u.harness_version <> r.harness_version
UNION ALL
SELECT 'metrics without their run', count(*) FROM metrics m
WHERE NOT EXISTS (SELECT 1 FROM runs u WHERE u.id = m.run_id)
UNION ALL
SELECT 'tags without their run', count(*) FROM tags t
WHERE NOT EXISTS (SELECT 1 FROM runs u WHERE u.id = t.run_id)
UNION ALL
SELECT 'Suspects without their run', count(*) FROM suspects s
WHERE NOT EXISTS (SELECT 1 FROM runs u WHERE u.id = s.run_id)
UNION ALL
SELECT 'runs without their primary metric', count(*) FROM runs u
WHERE NOT EXISTS (SELECT 1 FROM metrics m WHERE m.run_id = u.id AND m.name = u.primary_metric)
UNION ALL
SELECT 'lines without their start run', count(*) FROM lines l
WHERE l.start_run_id IS NOT NULL AND NOT EXISTS (SELECT 1 FROM runs u WHERE u.id = l.start_run_id);

-- The rows a history holds, for the summary line: runs, standing records, metrics.
-- name: check_counts
SELECT (SELECT count(*) FROM runs), (SELECT count(*) FROM records), (SELECT count(*) FROM metrics);
