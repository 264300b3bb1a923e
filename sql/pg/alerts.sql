-- The statements of sql/alerts.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name. The same
-- names, parameters, columns and row order.

-- Clock and RETURNING: clock_timestamp() for julianday('now'); the new alert's id.
-- name: alerts_insert
INSERT INTO alerts (machine_id, commit_sha, side, state, transient_records, created_at)
VALUES ($1, $2, $3, $4, $5, extract(epoch FROM clock_timestamp())::float8)
RETURNING id;
