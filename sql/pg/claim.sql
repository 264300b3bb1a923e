-- The background detection's claim (web/background.c), as sql/claim.sql: on PostgreSQL a
-- session-level advisory lock that one server at a time holds while it detects. The others do
-- not wait: their changes stay in the change log, and they try again after their next wait.
-- Each statement says why it differs from SQLite's above its name.

-- Lock: 1 when this connection took the claim, 0 when another server holds it.
-- name: detect_claim
SELECT pg_try_advisory_lock(7306033440531431247)::int;

-- Lock: the claim given back.
-- name: detect_release
SELECT pg_advisory_unlock(7306033440531431247)::int;
