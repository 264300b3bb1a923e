-- The statements of sql/web.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name.
--
-- web_data_version: PostgreSQL's number that moves on every commit is a 64-bit hash of the
-- current snapshot (xmin:xmax:the transactions in progress): every commit changes it, either
-- moving xmax or taking a transaction out of those in progress, and it never comes back to a
-- text it had (xmax only grows; for one xmax the list only shrinks). The snapshot's xmax alone
-- would not do: a transaction that commits after a later one did leaves it where it was. Other
-- changes move it too (this connection's commits, a transaction that starts writing or aborts,
-- any database of the server): the cache is then only dropped once more than needed. Read
-- outside a transaction, as the server does, each read takes a new snapshot.

-- Aggregate: string_agg's ORDER BY for group_concat over an ordered subquery (NULL: no tags).
-- name: web_points
WITH member AS MATERIALIZED (
	SELECT r.run_id AS run_id, runs.commit_sha AS commit_sha, runs.source_hash AS source_hash,
	       runs.harness_version AS harness_version, runs.content_hash AS content_hash,
	       runs.baseline AS baseline, runs.at AS at, runs.started_at AS started_at,
	       runs.place AS place,
	       (SELECT string_agg(t.tag, ',' ORDER BY t.tag) FROM tags t
		WHERE t.run_id = r.run_id) AS tags
	FROM machines m
	JOIN benchmarks b ON b.name = $2
	JOIN records r ON r.machine_id = m.id AND r.benchmark_id = b.id AND r.config = $3
	JOIN placed_runs runs ON runs.id = r.run_id
	WHERE m.name = $1
)
SELECT p.run_id, p.commit_sha, p.source_hash, p.place, p.harness_version, p.content_hash,
       p.baseline, p.tags, mt.kind, mt.median, mt.value, c.pr, mt.p95, mt.samples, c.subject,
       coalesce(c.committed_at, p.at)
FROM member p
JOIN metrics mt ON mt.run_id = p.run_id AND mt.name = $4
LEFT JOIN commits c ON c.sha = p.commit_sha
ORDER BY p.place, p.at, p.started_at, p.run_id;

-- Catalog: no data_version here; a hash of the current snapshot moves on every commit (above).
-- name: web_data_version
SELECT hashtextextended(pg_current_snapshot()::text, 0);
