-- The background detection's claim (web/background.c): on PostgreSQL several servers share one
-- database and only one of them detects at a time (sql/pg/claim.sql: a session advisory lock).
-- A SQLite file has one server, whose claim always succeeds.

-- 1 when this connection may detect now.
-- name: detect_claim
SELECT 1;

-- The claim given back.
-- name: detect_release
SELECT 1;
