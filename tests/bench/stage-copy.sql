-- The least a write lock can be held for one ingested file (tests/bench/run.sh, issue 14): the
-- rows `benchline ingest` stored, copied by SQLite itself in one transaction from a staged
-- database (attached as s by the caller) into benchline's own schema, which already holds a
-- few runs. Ids are offset so the copy goes through the b-trees row by row, as it would into a
-- live database, not SQLite's page-copy path for an empty table.
PRAGMA journal_mode = WAL;
PRAGMA synchronous = NORMAL;
BEGIN IMMEDIATE;
INSERT INTO machines SELECT id + 1000000, name || '~staged', info, keep FROM s.machines;
INSERT INTO benchmarks SELECT id + 1000000, name || '~staged' FROM s.benchmarks;
INSERT INTO runs
SELECT id + 1000000000, digest, machine_id + 1000000, benchmark_id + 1000000, config, source_hash,
       harness_version, content_hash, commit_sha, branch, committed_at, started_at, dirty, profile,
       baseline, primary_metric, quietness, raw, ingested_at
FROM s.runs;
INSERT INTO metrics
SELECT run_id + 1000000000, name, kind, unit, better, median, p95, n, value, ladder, samples
FROM s.metrics;
INSERT INTO tags SELECT run_id + 1000000000, tag FROM s.tags;
INSERT INTO records
SELECT machine_id + 1000000, benchmark_id + 1000000, config, source_hash, harness_version,
       run_id + 1000000000
FROM s.records;
COMMIT;
