/*
 * What the unit tests that need a database share: a new store in a fresh temporary file, and
 * its removal with the WAL and shared-memory files SQLite leaves beside it. Include after
 * cmocka.h. With BENCHLINE_TEST_PG set to a PostgreSQL server's URL (make check DB=postgres),
 * the store is a fresh database on that server instead, dropped by unit_store_close.
 */
#ifndef BENCHLINE_TESTS_UNIT_STORE_H
#define BENCHLINE_TESTS_UNIT_STORE_H

#include <libpq-fe.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/common.h"
#include "store/store.h"

/* The test server (BENCHLINE_TEST_PG), or NULL: the unit tests' databases are SQLite files. */
static inline const char *unit_pg_server(void)
{
	const char *url = getenv("BENCHLINE_TEST_PG");
	return url && *url ? url : NULL;
}

/* Runs one statement on the test server's maintenance database; fails the test if it fails. */
static inline void unit_pg_exec(const char *sql)
{
	PGconn *conn = PQconnectdb(unit_pg_server());
	PGresult *res;
	if (PQstatus(conn) != CONNECTION_OK)
		fail_msg("cannot connect to the test server: %s", PQerrorMessage(conn));
	res = PQexec(conn, sql);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		fail_msg("%s: %s", sql, PQresultErrorMessage(res));
	PQclear(res);
	PQfinish(conn);
}

/* Whether path names a database on the test server rather than a file. */
static inline int unit_store_is_pg(const char *path)
{
	return !strncmp(path, "postgresql://", 13);
}

/*
 * Runs one SQL statement with no parameters on the database path names, through a connection
 * of its own (so it sees what is committed): the first column of the first row as a new string
 * ("" for no row or NULL), or NULL when the statement fails (SQLite's or the server's refusal,
 * a CHECK, say). SQLite's connection has foreign keys off, PostgreSQL's always checks them.
 */
static inline char *unit_sql(const char *path, const char *sql)
{
	char *out = NULL;
	if (unit_store_is_pg(path)) {
		PGconn *conn = PQconnectdb(path);
		PGresult *res;
		if (PQstatus(conn) != CONNECTION_OK)
			fail_msg("cannot connect to '%s': %s", path, PQerrorMessage(conn));
		res = PQexec(conn, sql);
		if (PQresultStatus(res) == PGRES_TUPLES_OK)
			out = strdup(PQntuples(res) ? PQgetvalue(res, 0, 0) : "");
		else if (PQresultStatus(res) == PGRES_COMMAND_OK)
			out = strdup("");
		PQclear(res);
		PQfinish(conn);
	} else {
		sqlite3 *db;
		sqlite3_stmt *s;
		int rc;
		if (sqlite3_open(path, &db) != SQLITE_OK)
			fail_msg("cannot open '%s'", path);
		if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) == SQLITE_OK) {
			rc = sqlite3_step(s);
			if (rc == SQLITE_ROW)
				out = strdup(sqlite3_column_text(s, 0)
						 ? (const char *)sqlite3_column_text(s, 0)
						 : "");
			else if (rc == SQLITE_DONE)
				out = strdup("");
			sqlite3_finalize(s);
		}
		sqlite3_close(db);
	}
	return out;
}

/* unit_sql's value as an integer; the statement must not fail. */
static inline int64_t unit_sql_int64(const char *path, const char *sql)
{
	char *v = unit_sql(path, sql);
	int64_t n;
	if (!v)
		fail_msg("failed: %s", sql);
	n = strtoll(v, NULL, 10);
	free(v);
	return n;
}

/* Creates /tmp/NAME.XXXXXX (its path into path, size bytes) and opens a store on it; on the
 * test server, a database of its own (its URL into path). */
static inline struct store *unit_store_open(char *path, size_t size, const char *name)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store *st = NULL;
	int fd;
	snprintf(path, size, "/tmp/%s.XXXXXX", name);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	if (unit_pg_server()) {
		/* the database is named after the unique file name mkstemp found */
		char dbname[64], sql[128];
		const char *base = unit_pg_server(), *slash = strrchr(base, '/');
		size_t j = 0;
		for (const char *p = path + 5; *p && j < sizeof(dbname) - 1; p++)
			dbname[j++] = (*p >= 'A' && *p <= 'Z') || (*p >= 'a' && *p <= 'z') ||
					      (*p >= '0' && *p <= '9')
					  ? (char)(*p | 0x20)
					  : '_';
		dbname[j] = '\0';
		snprintf(sql, sizeof(sql), "CREATE DATABASE u_%s", dbname);
		unit_pg_exec(sql);
		snprintf(path, size, "%.*s/u_%s", (int)(slash - base), base, dbname);
	}
	if (store_open(&st, path, STORE_CREATE, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	return st;
}

/* Closes the store and removes its files (or drops its database). */
static inline void unit_store_close(struct store *st, const char *path)
{
	char side[200];
	store_free(st);
	if (unit_store_is_pg(path)) {
		snprintf(side, sizeof(side), "DROP DATABASE IF EXISTS %s WITH (FORCE)",
			 strrchr(path, '/') + 1);
		unit_pg_exec(side);
		return;
	}
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

#endif
