/*
 * The PostgreSQL side of the store's statements (store/internal.h): SQLite's model of a
 * statement on libpq. A statement is prepared on the server once per connection, under its
 * cache slot's name; its first step sends the bound parameters and reads the whole result, and
 * each step after that moves to the next row. Parameters go as text (bytea as binary) with no
 * declared types, so the server types them from the statement; results come as text and are
 * parsed here: integers by strtoll, reals by strtod (the server writes the shortest text that
 * reads back as the same double), booleans 't' and 'f' as 1 and 0, bytea from its hex form.
 */
#include <errno.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

/* Type oids of the built-in types the readers treat apart (pg_type.dat). */
#define PG_BOOLOID  16
#define PG_BYTEAOID 17

/* What SQLite's step gives for an error; the message is the connection's. */
#define PG_STEP_ERROR 1

struct store_pg {
	PGconn *conn;
	struct strbuf error; /* the last error's message, "" when none */
	int busy;	     /* the last error was a lock that was not granted in time */
	int64_t last_id;     /* column 0 of the last INSERT ... RETURNING's first row */
	int64_t changes;     /* rows the last INSERT, UPDATE or DELETE touched */
};

struct store_pg_stmt {
	struct store_pg *pg;
	char name[16];	     /* the server-side name: "bl" and the cache slot */
	int nparams;	     /* what the server says the statement takes */
	char **values;	     /* each parameter's bytes (NULL: SQL NULL), owned */
	int *lengths;	     /* their lengths, for the binary ones */
	int *formats;	     /* 0 text, 1 binary */
	PGresult *res;	     /* the result of the first step, until the reset */
	int row, nrows;	     /* the row the columns read, and how many there are */
	int stepped, done;   /* stepped since the reset; the last step found no row */
	unsigned char *blob; /* the decoded bytea of (blob_row, blob_col) */
	size_t blob_len;
	int blob_row, blob_col;
};

static void notice_ignore(void *arg, const char *message)
{
	/* Modules never print: the server's notices (an IF NOT EXISTS that found the object,
	 * say) are not errors and are dropped. */
	(void)arg;
	(void)message;
}

/* Keeps the server's message for store_db_error, and whether it was a lock timeout. */
static void keep_error(struct store_pg *pg, const PGresult *res)
{
	const char *msg = res ? PQresultErrorMessage(res) : "";
	const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	size_t len;
	if (!msg || !*msg)
		msg = PQerrorMessage(pg->conn);
	strbuf_reset(&pg->error);
	strbuf_addstr(&pg->error, msg);
	len = pg->error.len;
	while (len && (pg->error.buf[len - 1] == '\n' || pg->error.buf[len - 1] == ' '))
		len--;
	strbuf_setlen(&pg->error, len);
	/* 55P03 lock_not_available (lock_timeout), 40P01 deadlock, 40001 serialization */
	pg->busy = state &&
		   (!strcmp(state, "55P03") || !strcmp(state, "40P01") || !strcmp(state, "40001"));
}

const char *store_pg_errmsg(struct store_pg *pg)
{
	return pg->error.buf;
}

int store_pg_busy(struct store_pg *pg)
{
	return pg->busy;
}

int store_pg_exec(struct store_pg *pg, const char *sql)
{
	PGresult *res = PQexec(pg->conn, sql);
	ExecStatusType status = PQresultStatus(res);
	int ret = 0;
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		keep_error(pg, res);
		ret = -1;
	}
	PQclear(res);
	return ret;
}

char *store_pg_url_for_messages(const char *url)
{
	/* postgresql://user:secret@host/db -> postgresql://user@host/db */
	const char *auth = strstr(url, "://");
	const char *at, *colon, *slash;
	struct strbuf sb = STRBUF_INIT;
	if (!auth)
		return xstrdup(url);
	auth += 3;
	slash = strchr(auth, '/');
	at = strchr(auth, '@');
	if (!at || (slash && at > slash))
		return xstrdup(url);
	colon = memchr(auth, ':', (size_t)(at - auth));
	if (!colon)
		return xstrdup(url);
	strbuf_add(&sb, url, (size_t)(colon - url));
	strbuf_addstr(&sb, at);
	return strbuf_detach(&sb, NULL);
}

void store_pg_set_lock_timeout(struct store_pg *pg, unsigned ms)
{
	char sql[64];
	snprintf(sql, sizeof(sql), "SET lock_timeout = %u", ms);
	store_pg_exec(pg, sql);
}

int store_pg_open(struct store_pg **out, const char *url, unsigned lock_timeout_ms,
		  struct bl_error *err)
{
	struct store_pg *pg = xcalloc(1, sizeof(*pg));
	char *shown = store_pg_url_for_messages(url);
	int ret = 0;

	*out = NULL;
	strbuf_init(&pg->error, 0);
	pg->conn = PQconnectdb(url);
	if (!pg->conn || PQstatus(pg->conn) != CONNECTION_OK) {
		const char *msg = pg->conn ? PQerrorMessage(pg->conn) : "out of memory";
		size_t len = strlen(msg);
		while (len && msg[len - 1] == '\n')
			len--;
		ret =
		    bl_error_set(err, BL_EDB, "cannot connect to '%s': %.*s", shown, (int)len, msg);
		goto done;
	}
	PQsetNoticeProcessor(pg->conn, notice_ignore, NULL);
	/*
	 * The session benchline expects: UTF-8 text, times in UTC, reals written exactly, and a
	 * writer's wait for another bounded as SQLite's busy timeout bounds it. The version table
	 * is made by the first writer (store_pg_make_schema_table), not here: a connection takes
	 * no lock, as a reader takes none on SQLite.
	 */
	if (store_pg_exec(pg, "SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC';"
			      " SET extra_float_digits = 1; SET client_min_messages = warning")) {
		ret = bl_error_set(err, BL_EDB, "cannot set up the session on '%s': %s", shown,
				   pg->error.buf);
		goto done;
	}
	store_pg_set_lock_timeout(pg, lock_timeout_ms);
done:
	free(shown);
	if (ret) {
		store_pg_close(pg);
		return ret;
	}
	*out = pg;
	return 0;
}

/*
 * Makes the version table, the PRAGMA user_version of SQLite, when the database has none yet.
 * Only a writer about to migrate calls it, so a reader (or a refused command) on a database
 * benchline never made leaves nothing there, and one on a benchline database waits for no
 * writer. It is made under the writers' lock, since two servers may start on a new database
 * at once.
 */
int store_pg_make_schema_table(struct store_pg *pg)
{
	PGresult *res = PQexec(pg->conn, "SELECT to_regclass('benchline_schema') IS NOT NULL");
	int have;
	if (PQresultStatus(res) != PGRES_TUPLES_OK || PQntuples(res) != 1) {
		keep_error(pg, res);
		PQclear(res);
		return -1;
	}
	have = !strcmp(PQgetvalue(res, 0, 0), "t");
	PQclear(res);
	if (have)
		return 0;
	if (store_pg_exec(pg, "BEGIN; SELECT pg_advisory_xact_lock(7306033440531431246);"
			      " CREATE TABLE IF NOT EXISTS benchline_schema (version bigint NOT NULL);"
			      " INSERT INTO benchline_schema SELECT 0"
			      " WHERE NOT EXISTS (SELECT 1 FROM benchline_schema); COMMIT")) {
		store_pg_exec(pg, "ROLLBACK");
		return -1;
	}
	return 0;
}

void store_pg_close(struct store_pg *pg)
{
	if (!pg)
		return;
	if (pg->conn)
		PQfinish(pg->conn);
	strbuf_release(&pg->error);
	free(pg);
}

int store_pg_in_transaction(struct store_pg *pg)
{
	return PQtransactionStatus(pg->conn) != PQTRANS_IDLE;
}

int64_t store_pg_last_insert_id(struct store_pg *pg)
{
	return pg->last_id;
}

int64_t store_pg_changes(struct store_pg *pg)
{
	return pg->changes;
}

int store_pg_prepare(struct store_pg_stmt **out, struct store_pg *pg, enum sql_stmt id,
		     struct bl_error *err)
{
	struct store_pg_stmt *s;
	PGresult *res;

	*out = NULL;
	if (!sql_text_pg[id])
		return bl_error_set(err, BL_EDB, "statement %d has no PostgreSQL text", (int)id);
	s = xcalloc(1, sizeof(*s));
	s->pg = pg;
	snprintf(s->name, sizeof(s->name), "bl%d", (int)id);
	res = PQprepare(pg->conn, s->name, sql_text_pg[id], 0, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	PQclear(res);
	res = PQdescribePrepared(pg->conn, s->name);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	s->nparams = PQnparams(res);
	PQclear(res);
	if (s->nparams) {
		s->values = xcalloc((size_t)s->nparams, sizeof(*s->values));
		s->lengths = xcalloc((size_t)s->nparams, sizeof(*s->lengths));
		s->formats = xcalloc((size_t)s->nparams, sizeof(*s->formats));
	}
	s->blob_row = -1;
	*out = s;
	return 0;
fail:
	keep_error(pg, res);
	PQclear(res);
	free(s);
	return bl_error_set(err, BL_EDB, "cannot prepare a statement (%d) on PostgreSQL: %s",
			    (int)id, pg->error.buf);
}

static void drop_blob(struct store_pg_stmt *s)
{
	if (s->blob)
		PQfreemem(s->blob);
	s->blob = NULL;
	s->blob_len = 0;
	s->blob_row = -1;
}

void store_pg_reset(struct store_pg_stmt *s)
{
	drop_blob(s);
	PQclear(s->res);
	s->res = NULL;
	s->row = s->nrows = 0;
	s->stepped = s->done = 0;
}

void store_pg_clear_bindings(struct store_pg_stmt *s)
{
	for (int i = 0; i < s->nparams; i++) {
		free(s->values[i]);
		s->values[i] = NULL;
		s->lengths[i] = 0;
		s->formats[i] = 0;
	}
}

void store_pg_finalize(struct store_pg_stmt *s)
{
	if (!s)
		return;
	store_pg_reset(s);
	store_pg_clear_bindings(s);
	free(s->values);
	free(s->lengths);
	free(s->formats);
	free(s);
}

int store_pg_stmt_busy(struct store_pg_stmt *s)
{
	return s->stepped && !s->done;
}

void store_pg_bind(struct store_pg_stmt *s, int i, const void *v, size_t len, int binary)
{
	char *copy = NULL;
	if (i < 1 || i > s->nparams)
		return; /* a parameter the PostgreSQL text does not use */
	if (v) {
		copy = xmalloc(len + 1);
		memcpy(copy, v, len);
		copy[len] = '\0';
	}
	free(s->values[i - 1]);
	s->values[i - 1] = copy;
	s->lengths[i - 1] = (int)len;
	s->formats[i - 1] = binary;
}

void store_pg_bind_int64(struct store_pg_stmt *s, int i, int64_t v)
{
	char text[24];
	int n = snprintf(text, sizeof(text), "%lld", (long long)v);
	store_pg_bind(s, i, text, (size_t)n, 0);
}

void store_pg_bind_double(struct store_pg_stmt *s, int i, double v)
{
	char text[32];
	int n;
	if (v != v)
		n = snprintf(text, sizeof(text), "NaN");
	else if (v > 1.7976931348623157e308)
		n = snprintf(text, sizeof(text), "Infinity");
	else if (v < -1.7976931348623157e308)
		n = snprintf(text, sizeof(text), "-Infinity");
	else
		n = snprintf(text, sizeof(text), "%.17g", v);
	store_pg_bind(s, i, text, (size_t)n, 0);
}

int store_pg_step(struct store_pg_stmt *s)
{
	struct store_pg *pg = s->pg;
	ExecStatusType status;
	const char *command;

	if (s->stepped) {
		drop_blob(s);
		if (s->done || ++s->row >= s->nrows) {
			s->done = 1;
			return STORE_DONE;
		}
		return STORE_ROW;
	}
	s->stepped = 1;
	s->res = PQexecPrepared(pg->conn, s->name, s->nparams, (const char *const *)s->values,
				s->lengths, s->formats, 0);
	status = PQresultStatus(s->res);
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		keep_error(pg, s->res);
		PQclear(s->res);
		s->res = NULL;
		s->done = 1;
		return PG_STEP_ERROR;
	}
	command = PQcmdStatus(s->res);
	if (!strncmp(command, "INSERT", 6) || !strncmp(command, "UPDATE", 6) ||
	    !strncmp(command, "DELETE", 6))
		pg->changes = strtoll(PQcmdTuples(s->res), NULL, 10);
	s->nrows = status == PGRES_TUPLES_OK ? PQntuples(s->res) : 0;
	if (!strncmp(command, "INSERT", 6) && s->nrows > 0 && PQnfields(s->res) > 0)
		pg->last_id = strtoll(PQgetvalue(s->res, 0, 0), NULL, 10);
	s->row = 0;
	if (!s->nrows) {
		s->done = 1;
		return STORE_DONE;
	}
	return STORE_ROW;
}

/* Whether column i of the current row can be read: a row, and a column of the result. */
static int readable(const struct store_pg_stmt *s, int i)
{
	return s->res && s->row < s->nrows && i >= 0 && i < PQnfields(s->res);
}

int store_pg_column_is_null(struct store_pg_stmt *s, int i)
{
	return !readable(s, i) || PQgetisnull(s->res, s->row, i);
}

int64_t store_pg_column_int64(struct store_pg_stmt *s, int i)
{
	const char *v;
	if (store_pg_column_is_null(s, i))
		return 0;
	v = PQgetvalue(s->res, s->row, i);
	if (PQftype(s->res, i) == PG_BOOLOID)
		return v[0] == 't';
	if (strpbrk(v, ".eEnN"))
		return (int64_t)strtod(v, NULL); /* a real read as an integer, as SQLite does */
	return strtoll(v, NULL, 10);
}

double store_pg_column_double(struct store_pg_stmt *s, int i)
{
	const char *v;
	if (store_pg_column_is_null(s, i))
		return 0.0;
	v = PQgetvalue(s->res, s->row, i);
	if (PQftype(s->res, i) == PG_BOOLOID)
		return v[0] == 't' ? 1.0 : 0.0;
	return strtod(v, NULL);
}

const char *store_pg_column_text(struct store_pg_stmt *s, int i)
{
	if (store_pg_column_is_null(s, i))
		return NULL;
	return PQgetvalue(s->res, s->row, i);
}

int store_pg_column_count(struct store_pg_stmt *s)
{
	return s->res ? PQnfields(s->res) : 0;
}

int store_pg_column_type(struct store_pg_stmt *s, int i)
{
	if (store_pg_column_is_null(s, i))
		return SQLITE_NULL;
	switch (PQftype(s->res, i)) {
	case PG_BOOLOID:
	case 20: /* int8 */
	case 21: /* int2 */
	case 23: /* int4 */
		return SQLITE_INTEGER;
	case 700:  /* float4 */
	case 701:  /* float8 */
	case 1700: /* numeric */
		return SQLITE_FLOAT;
	case PG_BYTEAOID:
		return SQLITE_BLOB;
	default:
		return SQLITE_TEXT;
	}
}

/* Decodes column i of the current row when it is a bytea; 0, or -1 when it is not one. */
static int decode_blob(struct store_pg_stmt *s, int i)
{
	if (PQftype(s->res, i) != PG_BYTEAOID)
		return -1;
	if (s->blob_row == s->row && s->blob_col == i)
		return 0;
	drop_blob(s);
	s->blob =
	    PQunescapeBytea((const unsigned char *)PQgetvalue(s->res, s->row, i), &s->blob_len);
	if (!s->blob)
		abort(); /* out of memory, as xmalloc does */
	s->blob_row = s->row;
	s->blob_col = i;
	return 0;
}

const void *store_pg_column_blob(struct store_pg_stmt *s, int i)
{
	if (store_pg_column_is_null(s, i))
		return NULL;
	if (decode_blob(s, i))
		return PQgetvalue(s->res, s->row, i);
	return s->blob_len ? s->blob : (const void *)"";
}

size_t store_pg_column_bytes(struct store_pg_stmt *s, int i)
{
	if (store_pg_column_is_null(s, i))
		return 0;
	if (decode_blob(s, i))
		return (size_t)PQgetlength(s->res, s->row, i);
	return s->blob_len;
}
