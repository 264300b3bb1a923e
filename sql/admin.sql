-- Data care (store/admin.c): the runs retag re-reads and rm removes, and the audit of both and
-- of `suspects ignore`. docs/cli.md (retag, rm, suspects ignore) says what each does.

-- Every run with what the tag rules and the key rule read, by key then run id (the order runs
-- were ingested in, which the key rule replays): its machine's keep, its stored quietness and
-- tags, whether it stands, and its canonical JSON. The runs_key index gives the order.
-- name: admin_runs
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.keep = 'first', r.quietness,
       coalesce((SELECT group_concat(t.tag, ',') FROM tags t WHERE t.run_id = r.id), ''),
       EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id), r.baseline, r.raw
FROM runs r INDEXED BY runs_key
JOIN machines m ON m.id = r.machine_id
ORDER BY r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version, r.id;

-- The same for the runs of one key: ?1 machine id, ?2 benchmark id, ?3 config, ?4 source hash,
-- ?5 harness version.
-- name: admin_key_runs
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.keep = 'first', r.quietness,
       coalesce((SELECT group_concat(t.tag, ',') FROM tags t WHERE t.run_id = r.id), ''),
       EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id), r.baseline, r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
WHERE r.machine_id = ?1 AND r.benchmark_id = ?2 AND r.config = ?3 AND r.source_hash = ?4
  AND r.harness_version = ?5
ORDER BY r.id;

-- The run rm is asked to remove by its id ?1, with its key, names and whether it stands.
-- name: admin_target
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.name, b.name, r.commit_sha, EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id)
FROM runs r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
WHERE r.id = ?1;

-- The same for the runs the filters take, by id: ?1 a machine's name, ?2 a benchmark's, ?3/?4
-- the range of commits a hex prefix names ([prefix, prefix || 'g')), each NULL for any.
-- name: admin_targets
SELECT r.id, r.machine_id, r.benchmark_id, r.config, r.source_hash, r.harness_version,
       m.name, b.name, r.commit_sha, EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id)
FROM runs r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
WHERE (CAST(?1 AS TEXT) IS NULL OR m.name = ?1) AND (CAST(?2 AS TEXT) IS NULL OR b.name = ?2)
  AND (CAST(?3 AS TEXT) IS NULL OR (r.commit_sha >= ?3 AND r.commit_sha < ?4))
ORDER BY r.id;

-- name: admin_audit_insert
INSERT INTO audit (action, who, at, why, alert_id, runs)
VALUES (?1, ?2, (julianday('now') - 2440587.5) * 86400.0, ?3, ?4, ?5);

-- A run about to be removed, copied with its tags into removed_runs under audit row ?2.
-- name: admin_keep_removed
INSERT INTO removed_runs (run_id, audit_id, digest, machine, benchmark, config, source_hash,
			  harness_version, commit_sha, standing, tags, raw)
SELECT r.id, ?2, r.digest, m.name, b.name, r.config, r.source_hash, r.harness_version,
       r.commit_sha, EXISTS (SELECT 1 FROM records k WHERE k.run_id = r.id),
       coalesce((SELECT group_concat(t.tag, ',') FROM tags t WHERE t.run_id = r.id), ''), r.raw
FROM runs r
JOIN machines m ON m.id = r.machine_id
JOIN benchmarks b ON b.id = r.benchmark_id
WHERE r.id = ?1;

-- Removing run ?1, in this order: what refers to it (its Suspects, the lines that start at it,
-- its tags, metrics and standing), its change-log entries, then the run.
-- (The Suspects' key starts with the run's group: looked up first, so the delete is a seek.)
-- name: admin_rm_suspects
DELETE FROM suspects
WHERE (machine_id, benchmark_id, config) =
	(SELECT machine_id, benchmark_id, config FROM runs WHERE id = ?1)
  AND run_id = ?1;

-- name: admin_rm_lines
DELETE FROM lines WHERE start_run_id = ?1;

-- name: admin_rm_tags
DELETE FROM tags WHERE run_id = ?1;

-- name: admin_rm_metrics
DELETE FROM metrics WHERE run_id = ?1;

-- name: admin_rm_record
DELETE FROM records WHERE run_id = ?1;

-- name: admin_rm_log
DELETE FROM detect_log WHERE run_id = ?1;

-- name: admin_rm_log_run
DELETE FROM detect_log_runs WHERE run_id = ?1;

-- name: admin_rm_run
DELETE FROM runs WHERE id = ?1;

-- Removed runs may have started lines and carried Suspects anywhere on their Series: the next
-- detect reads every Series.
-- name: admin_detect_full
INSERT INTO meta (key, value) VALUES ('detect_full', 'runs were removed')
ON CONFLICT (key) DO UPDATE SET value = excluded.value;
