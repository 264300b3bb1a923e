-- migrate (store/copy.c): every table of benchline's schema read whole in its key's order, and
-- written row by row into another database, SQLite's or PostgreSQL's (the same statements in
-- its dialect, copy_finish's alone kept in sql/pg/copy.sql). The reads are streamed: PostgreSQL
-- sends their rows one at a time. The tables come in an order that keeps every reference
-- valid, meta last: the change-log triggers write only once meta says detection has run, and
-- a Regression's trigger writes into meta, which is cleared before its own rows are copied.
-- Every column of a table is named: t1300 checks that a copy loses none.

-- Whether the target already holds a history (runs, commits or lines): migrate writes only into
-- an empty database.
-- name: copy_target_rows
SELECT (SELECT count(*) FROM runs) + (SELECT count(*) FROM commits) + (SELECT count(*) FROM lines);

-- name: copy_read_machines
-- streamed
SELECT id, name, info, keep
FROM machines ORDER BY id;

-- name: copy_write_machines
INSERT INTO machines (id, name, info, keep)
VALUES (?1, ?2, ?3, ?4);

-- name: copy_read_benchmarks
-- streamed
SELECT id, name
FROM benchmarks ORDER BY id;

-- name: copy_write_benchmarks
INSERT INTO benchmarks (id, name)
VALUES (?1, ?2);

-- name: copy_read_runs
-- streamed
SELECT id, digest, machine_id, benchmark_id, config, source_hash, harness_version, content_hash, commit_sha, branch, committed_at, started_at, dirty, profile, baseline, primary_metric, quietness, raw, ingested_at
FROM runs ORDER BY id;

-- name: copy_write_runs
INSERT INTO runs (id, digest, machine_id, benchmark_id, config, source_hash, harness_version, content_hash, commit_sha, branch, committed_at, started_at, dirty, profile, baseline, primary_metric, quietness, raw, ingested_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19);

-- name: copy_read_records
-- streamed
SELECT machine_id, benchmark_id, config, source_hash, harness_version, run_id
FROM records ORDER BY machine_id, benchmark_id, config, source_hash, harness_version;

-- name: copy_write_records
INSERT INTO records (machine_id, benchmark_id, config, source_hash, harness_version, run_id)
VALUES (?1, ?2, ?3, ?4, ?5, ?6);

-- name: copy_read_metrics
-- streamed
SELECT run_id, name, kind, unit, better, median, p95, n, value, ladder, samples
FROM metrics ORDER BY run_id, name;

-- name: copy_write_metrics
INSERT INTO metrics (run_id, name, kind, unit, better, median, p95, n, value, ladder, samples)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11);

-- name: copy_read_tags
-- streamed
SELECT run_id, tag
FROM tags ORDER BY run_id, tag;

-- name: copy_write_tags
INSERT INTO tags (run_id, tag)
VALUES (?1, ?2);

-- name: copy_read_commits
-- streamed
SELECT sha, seq, parent, source_hash, committed_at, subject, pr
FROM commits ORDER BY sha;

-- name: copy_write_commits
INSERT INTO commits (sha, seq, parent, source_hash, committed_at, subject, pr)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- name: copy_read_lines
-- streamed
SELECT id, machine_id, benchmark_id, config, metric, line, reason, start_run_id, start_commit, harness_version, content_hash
FROM lines ORDER BY id;

-- name: copy_write_lines
INSERT INTO lines (id, machine_id, benchmark_id, config, metric, line, reason, start_run_id, start_commit, harness_version, content_hash)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11);

-- name: copy_read_line_ends
-- streamed
SELECT line_id, records, fingerprint, last_run_id, last_place, last_at, last_started_at, time_placed_at, judged, tail
FROM line_ends ORDER BY line_id;

-- name: copy_write_line_ends
INSERT INTO line_ends (line_id, records, fingerprint, last_run_id, last_place, last_at, last_started_at, time_placed_at, judged, tail)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10);

-- name: copy_read_alerts
-- streamed
SELECT id, machine_id, commit_sha, side, state, series, judged_series, run_wide, outcome, rebench, note, filed_url, created_at, transient_records
FROM alerts ORDER BY id;

-- name: copy_write_alerts
INSERT INTO alerts (id, machine_id, commit_sha, side, state, series, judged_series, run_wide, outcome, rebench, note, filed_url, created_at, transient_records)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14);

-- name: copy_read_suspects
-- streamed
SELECT id, run_id, metric, machine_id, benchmark_id, config, side, shift, median, center, tolerance, deviation, reference_run_id, follows_run_id, followers, persisted, alert_id, state, created_at
FROM suspects ORDER BY id;

-- name: copy_write_suspects
INSERT INTO suspects (id, run_id, metric, machine_id, benchmark_id, config, side, shift, median, center, tolerance, deviation, reference_run_id, follows_run_id, followers, persisted, alert_id, state, created_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19);

-- name: copy_read_regressions
-- streamed
SELECT id, alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq, source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, created_at, profile
FROM regressions ORDER BY id;

-- name: copy_write_regressions
INSERT INTO regressions (id, alert_id, machine_id, benchmark_id, config, metric, commit_sha, seq, source_hash, subject, pr, ratio, lo, hi, reference_commit, probes, created_at, profile)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18);

-- name: copy_read_audit
-- streamed
SELECT id, action, who, at, why, alert_id, runs
FROM audit ORDER BY id;

-- name: copy_write_audit
INSERT INTO audit (id, action, who, at, why, alert_id, runs)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7);

-- name: copy_read_removed_runs
-- streamed
SELECT run_id, audit_id, digest, machine, benchmark, config, source_hash, harness_version, commit_sha, standing, tags, raw
FROM removed_runs ORDER BY run_id;

-- name: copy_write_removed_runs
INSERT INTO removed_runs (run_id, audit_id, digest, machine, benchmark, config, source_hash, harness_version, commit_sha, standing, tags, raw)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12);

-- name: copy_read_detect_log
-- streamed
SELECT run_id, what, delta
FROM detect_log ORDER BY run_id, what;

-- name: copy_write_detect_log
INSERT INTO detect_log (run_id, what, delta)
VALUES (?1, ?2, ?3);

-- name: copy_read_detect_log_runs
-- streamed
SELECT run_id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha, content_hash, baseline, committed_at, started_at
FROM detect_log_runs ORDER BY run_id;

-- name: copy_write_detect_log_runs
INSERT INTO detect_log_runs (run_id, machine_id, benchmark_id, config, harness_version, source_hash, commit_sha, content_hash, baseline, committed_at, started_at)
VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11);

-- name: copy_read_detect_log_commits
-- streamed
SELECT sha, seq, source_hash, committed_at
FROM detect_log_commits ORDER BY sha;

-- name: copy_write_detect_log_commits
INSERT INTO detect_log_commits (sha, seq, source_hash, committed_at)
VALUES (?1, ?2, ?3, ?4);

-- name: copy_read_meta
-- streamed
SELECT key, value
FROM meta ORDER BY key;

-- name: copy_write_meta
INSERT INTO meta (key, value)
VALUES (?1, ?2);

-- The meta rows the target's own migrations and triggers wrote, before the source's are copied.
-- name: copy_clear_meta
DELETE FROM meta;

-- After the rows: SQLite's row ids need nothing (a new row takes the largest id plus one).
-- name: copy_finish
SELECT 1;
