-- The statements of sql/check.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name.
-- PostgreSQL checks its own pages and indexes as it reads them (and with data checksums when
-- the cluster has them): there is no quick_check to run.

-- Catalog: no PRAGMA quick_check here, so the integrity check says 'ok'.
-- name: check_integrity
SELECT 'ok';
