-- The statements of sql/copy.sql whose PostgreSQL text is not the one store/embed-sql.sh
-- derives from SQLite's (every other one is derived); each says why above its name.

-- Catalog: each identity column's sequence moves past the largest id copied, as SQLite's would.
-- name: copy_finish
SELECT setval(pg_get_serial_sequence('machines', 'id'), coalesce((SELECT max(id) FROM machines), 0) + 1, false),
       setval(pg_get_serial_sequence('benchmarks', 'id'), coalesce((SELECT max(id) FROM benchmarks), 0) + 1, false),
       setval(pg_get_serial_sequence('runs', 'id'), coalesce((SELECT max(id) FROM runs), 0) + 1, false),
       setval(pg_get_serial_sequence('lines', 'id'), coalesce((SELECT max(id) FROM lines), 0) + 1, false),
       setval(pg_get_serial_sequence('alerts', 'id'), coalesce((SELECT max(id) FROM alerts), 0) + 1, false),
       setval(pg_get_serial_sequence('suspects', 'id'), coalesce((SELECT max(id) FROM suspects), 0) + 1, false),
       setval(pg_get_serial_sequence('regressions', 'id'), coalesce((SELECT max(id) FROM regressions), 0) + 1, false),
       setval(pg_get_serial_sequence('audit', 'id'), coalesce((SELECT max(id) FROM audit), 0) + 1, false);
