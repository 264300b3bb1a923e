/*
 * The PostgreSQL side of the store's statements (store/internal.h): SQLite's model of a
 * statement on libpq. A statement is prepared on the server once per connection, under its
 * cache slot's name; its first step sends the bound parameters and reads the whole result, and
 * each step after that moves to the next row. Parameters go as text (bytea as binary) with no
 * declared types, so the server types them from the statement; results come as text and are
 * parsed here: integers by strtoll, reals by strtod (the server writes the shortest text that
 * reads back as the same double), booleans 't' and 'f' as 1 and 0, bytea from its hex form.
 *
 * A read whose result can be large (its PostgreSQL text says "-- streamed": the full walk of
 * detection, migrate's table reads) is read in libpq's single-row mode instead: a row at a
 * time as the server sends it, so the caller works while the server is still reading, memory
 * holds one row, not the whole result, and the first row comes before the last is read. Its
 * results come in binary when every column is an integer, real, boolean, text or bytea (one
 * parse of a number fewer on each side). Such a read holds the connection until its last row:
 * another statement run before then first reads the rest of it into memory (settle), and one
 * reset early reads and drops the rest (the server sends every row it was asked for, so the
 * full walk's records read asks for not much more than a pass holds).
 *
 * Writes that return nothing (a metric, a tag, a record's standing run, a copied row), made
 * inside a transaction, are not waited for: they go in libpq's pipeline mode, and their
 * results are read with the next statement that returns something, or at the commit. A loopback
 * round trip costs more than such an insert, so an ingest waits for the server a few times a
 * record instead of once a row. A write that failed fails that next statement (and so the
 * transaction), with the server's message for the write.
 */
#include <errno.h>
#include <inttypes.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"

/* Type oids of the built-in types the readers know (pg_type.dat). */
#define PG_BOOLOID    16
#define PG_BYTEAOID   17
#define PG_NAMEOID    19
#define PG_INT8OID    20
#define PG_INT2OID    21
#define PG_INT4OID    23
#define PG_TEXTOID    25
#define PG_FLOAT4OID  700
#define PG_FLOAT8OID  701
#define PG_BPCHAROID  1042
#define PG_VARCHAROID 1043
#define PG_NUMERICOID 1700

/* What SQLite's step gives for an error; the message is the connection's. */
#define PG_STEP_ERROR 1

struct store_pg {
	PGconn *conn;
	struct strbuf error; /* the last error's message, "" when none */
	int busy;	     /* the last error was a lock that was not granted in time */
	int lost;	     /* the last error was the connection's: lost, or not made again */
	int64_t last_id;     /* column 0 of the last INSERT ... RETURNING's first row */
	int64_t changes;     /* rows the last INSERT, UPDATE or DELETE touched */
	unsigned lock_timeout_ms;
	int pending;	     /* writes sent in pipeline mode whose results are not read yet */
	unsigned generation; /* how many times the connection was made again (reconnect) */
	struct store_pg_stmt *streaming; /* the streamed read whose rows are still coming */
};

struct store_pg_stmt {
	struct store_pg *pg;
	enum sql_stmt id;
	unsigned generation; /* the connection's generation it was prepared on */
	char name[16];	     /* the server-side name: "bl" and the cache slot */
	int nparams;	     /* what the server says the statement takes */
	int returns_rows;    /* whether it has result columns (else a write that may wait) */
	char **values;	     /* each parameter's bytes (NULL: SQL NULL), owned */
	int *lengths;	     /* their lengths, for the binary ones */
	int *formats;	     /* 0 text, 1 binary */
	PGresult *res;	     /* the result of the first step, until the reset */
	int row, nrows;	     /* the row the columns read, and how many there are */
	int stepped, done;   /* stepped since the reset; the last step found no row */
	unsigned char *blob; /* the decoded bytea of (blob_row, blob_col) */
	size_t blob_len;
	int blob_row, blob_col;
	int streamed; /* read a row at a time (sql_pg_streamed) */
	int binary;   /* results in binary: streamed, and every column of a known type */
	char (*number_text)[DOUBLE_TEXT_MAX]; /* a binary number column read as text, by column */
	PGresult **early; /* its rows read off the connection by settle, not stepped to yet */
	size_t early_nr, early_at, early_alloc;
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
	/* The connection itself: gone (no result, or libpq says so), class 08 (connection
	 * exception), or the backend ended by an administrator or a crash (57P01 to 57P03). */
	pg->lost = PQstatus(pg->conn) == CONNECTION_BAD ||
		   (state && (!strncmp(state, "08", 2) || !strcmp(state, "57P01") ||
			      !strcmp(state, "57P02") || !strcmp(state, "57P03")));
}

int store_pg_lost(struct store_pg *pg)
{
	return pg->lost;
}

/* The code of the last error: BL_EUNAVAILABLE when it was the connection's, else BL_EDB. */
static int error_code(struct store_pg *pg)
{
	return pg->lost ? BL_EUNAVAILABLE : BL_EDB;
}

const char *store_pg_errmsg(struct store_pg *pg)
{
	return pg->error.buf;
}

int store_pg_busy(struct store_pg *pg)
{
	return pg->busy;
}

static void reconnect_if_lost(struct store_pg *pg);

/* Counts what a write changed (its command tag). */
static void note_changes(struct store_pg *pg, PGresult *res)
{
	const char *command = PQcmdStatus(res);
	if (!strncmp(command, "INSERT", 6) || !strncmp(command, "UPDATE", 6) ||
	    !strncmp(command, "DELETE", 6))
		pg->changes = strtoll(PQcmdTuples(res), NULL, 10);
}

/*
 * Reads the rest of a streamed read still coming (its rows and its end) into its statement's
 * early list, so that the connection is free for another statement: every use of the
 * connection starts here.
 */
static void settle(struct store_pg *pg)
{
	struct store_pg_stmt *s = pg->streaming;
	PGresult *res;

	if (!s)
		return;
	pg->streaming = NULL;
	while ((res = PQgetResult(pg->conn))) {
		ALLOC_GROW(s->early, s->early_nr + 1, s->early_alloc);
		s->early[s->early_nr++] = res;
	}
}

/*
 * Ends the pipeline: a sync after the writes sent (and after the statement sent last, when
 * last is not NULL: one whose result the caller wants, into *last), then every result read.
 * Returns 0, or -1 with the first failed write's error kept (*last then NULL).
 */
static int drain(struct store_pg *pg, PGresult **last)
{
	PGresult *res, *first_error = NULL, *kept = NULL;
	int want_last = last != NULL, sent = pg->pending + want_last, ret = 0;

	if (last)
		*last = NULL;
	if (!sent)
		return 0;
	settle(pg);
	if (!PQpipelineSync(pg->conn)) {
		keep_error(pg, NULL);
		ret = -1;
		goto done;
	}
	for (int i = 0; i < sent; i++) {
		while ((res = PQgetResult(pg->conn))) {
			ExecStatusType status = PQresultStatus(res);
			if (status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK) {
				note_changes(pg, res);
				if (want_last && i == sent - 1) {
					PQclear(kept);
					kept = res;
					continue;
				}
			} else if (!first_error && status != PGRES_PIPELINE_ABORTED) {
				first_error = res;
				continue;
			}
			PQclear(res);
		}
	}
	/* the sync's own result */
	while ((res = PQgetResult(pg->conn))) {
		ExecStatusType status = PQresultStatus(res);
		PQclear(res);
		if (status == PGRES_PIPELINE_SYNC)
			break;
	}
done:
	if (!PQexitPipelineMode(pg->conn) && !first_error && !ret) {
		keep_error(pg, NULL);
		ret = -1;
	}
	pg->pending = 0;
	if (first_error) {
		keep_error(pg, first_error);
		PQclear(first_error);
		ret = -1;
	}
	if (ret) {
		PQclear(kept);
		kept = NULL;
	}
	if (last)
		*last = kept;
	else
		PQclear(kept);
	return ret;
}

int store_pg_exec(struct store_pg *pg, const char *sql)
{
	PGresult *res;
	/* A write that failed fails this too, but the text still runs: a ROLLBACK must, and a
	 * COMMIT after a failed write is one (PostgreSQL answers it ROLLBACK). */
	int lost_write;
	ExecStatusType status;
	int ret;

	settle(pg);
	lost_write = pg->pending && drain(pg, NULL);
	ret = lost_write ? -1 : 0;
	reconnect_if_lost(pg);
	res = PQexec(pg->conn, sql);
	status = PQresultStatus(res);
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		if (!lost_write)
			keep_error(pg, res);
		ret = -1;
	}
	PQclear(res);
	return ret;
}

int store_pg_begin_write(struct store_pg *pg, struct store *st)
{
	static const char try_lock[] =
	    "SELECT pg_try_advisory_xact_lock(" STORE_PG_WRITERS_LOCK ")";

	if (store_pg_exec(pg, "BEGIN"))
		return -1;
	for (int count = 0;; count++) {
		PGresult *res = PQexec(pg->conn, try_lock);
		int ok = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1;
		int got = ok && !strcmp(PQgetvalue(res, 0, 0), "t");
		if (!ok)
			keep_error(pg, res);
		PQclear(res);
		if (!ok)
			break;
		if (got)
			return 0;
		if (!store_lock_wait(st, count)) {
			strbuf_reset(&pg->error);
			strbuf_addstr(&pg->error, "the writers' lock is still held");
			pg->busy = 1;
			pg->lost = 0;
			break;
		}
	}
	return -1;
}

char *store_pg_url_for_messages(const char *url)
{
	/* postgresql://user:secret@host/db?password=secret -> postgresql://user@host/db */
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_url_redacted(&sb, url);
	return strbuf_detach(&sb, NULL);
}

/* Whether the version table is there (committed with its row): no, or not known, is 0. */
static int schema_table_exists(struct store_pg *pg)
{
	PGresult *res = PQexec(pg->conn, "SELECT to_regclass('benchline_schema') IS NOT NULL");
	int yes = PQresultStatus(res) == PGRES_TUPLES_OK && PQntuples(res) == 1 &&
		  !strcmp(PQgetvalue(res, 0, 0), "t");
	PQclear(res);
	return yes;
}

void store_pg_set_lock_timeout(struct store_pg *pg, unsigned ms)
{
	char sql[64];
	pg->lock_timeout_ms = ms;
	snprintf(sql, sizeof(sql), "SET lock_timeout = %u", ms);
	store_pg_exec(pg, sql);
}

/*
 * The session benchline expects: UTF-8 text, times in UTC, reals written exactly, and a
 * writer's wait for another bounded as SQLite's busy timeout bounds it. The version table
 * is the PRAGMA user_version of SQLite: made under the writers' lock, since two servers
 * may start on a new database at once, and only when the caller may create the store (a
 * database that holds none is left as it is, as SQLite makes no file then) and the table is
 * not there yet: a database that has it is opened without the writers' lock, so a reader
 * does not wait for another's write (as a reader of SQLite's WAL does not).
 */
static int setup_session(struct store_pg *pg, int create)
{
	PQsetNoticeProcessor(pg->conn, notice_ignore, NULL);
	if (store_pg_exec(pg, "SET client_encoding = 'UTF8'; SET TIME ZONE 'UTC';"
			      " SET extra_float_digits = 1; SET client_min_messages = warning") ||
	    (create && !schema_table_exists(pg) &&
	     store_pg_exec(pg, STORE_PG_BEGIN_WRITE
			   ";"
			   " CREATE TABLE IF NOT EXISTS benchline_schema (version bigint NOT NULL);"
			   " INSERT INTO benchline_schema SELECT 0"
			   " WHERE NOT EXISTS (SELECT 1 FROM benchline_schema); COMMIT")))
		return -1;
	store_pg_set_lock_timeout(pg, pg->lock_timeout_ms);
	return 0;
}

/*
 * A connection the server dropped (a restart, a failover, an idle timeout) is made again
 * before the next statement, when no transaction was open on it: what that transaction did is
 * gone with it, and its caller hears of that from its own next statement. Statements are
 * prepared again on the new connection as they are used. The store was open on it, so its
 * version table is there already.
 */
static void reconnect_if_lost(struct store_pg *pg)
{
	if (PQstatus(pg->conn) != CONNECTION_BAD)
		return;
	PQreset(pg->conn);
	if (PQstatus(pg->conn) == CONNECTION_OK && !setup_session(pg, 0))
		pg->generation++;
}

int store_pg_open(struct store_pg **out, const char *url, unsigned lock_timeout_ms, int create,
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
		ret = bl_error_set(err, BL_EUNAVAILABLE, "cannot connect to '%s': %.*s", shown,
				   (int)len, msg);
		goto done;
	}
	pg->lock_timeout_ms = lock_timeout_ms;
	if (setup_session(pg, create)) {
		ret = bl_error_set(err, error_code(pg), "cannot set up the session on '%s': %s",
				   shown, pg->error.buf);
		goto done;
	}
done:
	free(shown);
	if (ret) {
		store_pg_close(pg);
		return ret;
	}
	*out = pg;
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
	settle(pg);
	return PQtransactionStatus(pg->conn) != PQTRANS_IDLE;
}

int64_t store_pg_last_insert_id(struct store_pg *pg)
{
	return pg->last_id;
}

int64_t store_pg_changes(struct store_pg *pg)
{
	settle(pg);
	if (pg->pending && drain(pg, NULL))
		return 0;
	return pg->changes;
}

/* What a column's type is to the readers. */
enum pg_kind {
	PG_KIND_INTEGER,
	PG_KIND_REAL,
	PG_KIND_NUMERIC, /* a real to the readers, never read in binary */
	PG_KIND_BOOL,
	PG_KIND_BYTES, /* text or bytea */
	PG_KIND_OTHER  /* text to the readers, never read in binary */
};

static enum pg_kind kind_of(unsigned type)
{
	switch (type) {
	case PG_INT8OID:
	case PG_INT4OID:
	case PG_INT2OID:
		return PG_KIND_INTEGER;
	case PG_FLOAT8OID:
	case PG_FLOAT4OID:
		return PG_KIND_REAL;
	case PG_NUMERICOID:
		return PG_KIND_NUMERIC;
	case PG_BOOLOID:
		return PG_KIND_BOOL;
	case PG_TEXTOID:
	case PG_VARCHAROID:
	case PG_BPCHAROID:
	case PG_NAMEOID:
	case PG_BYTEAOID:
		return PG_KIND_BYTES;
	default:
		return PG_KIND_OTHER;
	}
}

/* Whether every column of a described statement can be read in binary: integers, reals,
 * booleans, text and bytea (a numeric, say, is read as text). Binary spares the server
 * writing, and the reader parsing, a number's digits and a bytea's hex. */
static int binary_readable(const PGresult *described)
{
	for (int i = 0; i < PQnfields(described); i++) {
		enum pg_kind kind = kind_of(PQftype(described, i));
		if (kind == PG_KIND_NUMERIC || kind == PG_KIND_OTHER)
			return 0;
	}
	return 1;
}

int store_pg_prepare(struct store_pg_stmt **out, struct store_pg *pg, enum sql_stmt id,
		     struct bl_error *err)
{
	struct store_pg_stmt *s;
	PGresult *res;

	*out = NULL;
	if (!sql_text_pg[id])
		return bl_error_set(err, BL_EDB, "statement %d has no PostgreSQL text", (int)id);
	/* preparing waits for the server, which pipeline mode forbids: the writes sent first */
	settle(pg);
	if (pg->pending && drain(pg, NULL))
		return bl_error_set(err, error_code(pg), "a write on PostgreSQL failed: %s",
				    pg->error.buf);
	reconnect_if_lost(pg);
	s = xcalloc(1, sizeof(*s));
	s->pg = pg;
	s->id = id;
	s->generation = pg->generation;
	snprintf(s->name, sizeof(s->name), "bl%d", (int)id);
	res = PQprepare(pg->conn, s->name, sql_text_pg[id], 0, NULL);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	PQclear(res);
	res = PQdescribePrepared(pg->conn, s->name);
	if (PQresultStatus(res) != PGRES_COMMAND_OK)
		goto fail;
	s->nparams = PQnparams(res);
	s->returns_rows = PQnfields(res) > 0;
	s->streamed = sql_pg_streamed[id] && s->returns_rows;
	s->binary = s->streamed && binary_readable(res);
	if (s->binary)
		s->number_text = xcalloc((size_t)PQnfields(res), sizeof(*s->number_text));
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
	return bl_error_set(err, error_code(pg),
			    "cannot prepare a statement (%d) on PostgreSQL: %s", (int)id,
			    pg->error.buf);
}

static void drop_blob(struct store_pg_stmt *s)
{
	if (s->blob)
		PQfreemem(s->blob);
	s->blob = NULL;
	s->blob_len = 0;
	s->blob_row = -1;
}

/* Ends a streamed read: the rows still coming are read and dropped (the server sends them
 * all: a cancel would end the caller's transaction), and those read early are freed. */
static void end_stream(struct store_pg_stmt *s)
{
	PGresult *res;
	if (s->pg->streaming == s) {
		while ((res = PQgetResult(s->pg->conn)))
			PQclear(res);
		s->pg->streaming = NULL;
	}
	for (size_t i = s->early_at; i < s->early_nr; i++)
		PQclear(s->early[i]);
	s->early_nr = s->early_at = 0;
}

void store_pg_reset(struct store_pg_stmt *s)
{
	if (s->streamed)
		end_stream(s);
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
	free(s->early);
	free(s->number_text);
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

/* The next row of a streamed read (from those read early first), its end, or its error. */
static int next_row(struct store_pg_stmt *s)
{
	struct store_pg *pg = s->pg;
	PGresult *res;
	ExecStatusType status;

	PQclear(s->res);
	s->res = NULL;
	s->row = s->nrows = 0;
	if (s->early_at < s->early_nr)
		res = s->early[s->early_at++];
	else
		res = pg->streaming == s ? PQgetResult(pg->conn) : NULL;
	status = res ? PQresultStatus(res) : PGRES_TUPLES_OK;
	if (status == PGRES_SINGLE_TUPLE) {
		s->res = res;
		s->nrows = 1;
		return STORE_ROW;
	}
	if (status != PGRES_TUPLES_OK)
		keep_error(pg, res);
	PQclear(res);
	end_stream(s);
	s->done = 1;
	return status == PGRES_TUPLES_OK ? STORE_DONE : PG_STEP_ERROR;
}

/* The first step of a streamed read: sent, and its first row read. */
static int start_stream(struct store_pg_stmt *s)
{
	struct store_pg *pg = s->pg;
	if (pg->pending && drain(pg, NULL)) {
		s->done = 1;
		return PG_STEP_ERROR;
	}
	if (!PQsendQueryPrepared(pg->conn, s->name, s->nparams, (const char *const *)s->values,
				 s->lengths, s->formats, s->binary) ||
	    !PQsetSingleRowMode(pg->conn)) {
		keep_error(pg, NULL);
		end_stream(s);
		s->done = 1;
		return PG_STEP_ERROR;
	}
	pg->streaming = s;
	return next_row(s);
}

int store_pg_step(struct store_pg_stmt *s)
{
	struct store_pg *pg = s->pg;
	ExecStatusType status;
	const char *command;

	if (s->stepped) {
		drop_blob(s);
		if (s->done)
			return STORE_DONE;
		if (s->streamed)
			return next_row(s);
		if (++s->row >= s->nrows) {
			s->done = 1;
			return STORE_DONE;
		}
		return STORE_ROW;
	}
	s->stepped = 1;
	settle(pg);
	if (!pg->pending)
		reconnect_if_lost(pg);
	if (s->generation != pg->generation) {
		/* a new connection: the statement is prepared on it again (same text, same
		 * parameters), which waits for the server: the writes sent go first */
		PGresult *res;
		if (pg->pending && drain(pg, NULL)) {
			s->done = 1;
			return PG_STEP_ERROR;
		}
		res = PQprepare(pg->conn, s->name, sql_text_pg[s->id], 0, NULL);
		int ok = PQresultStatus(res) == PGRES_COMMAND_OK;
		if (!ok)
			keep_error(pg, res);
		PQclear(res);
		if (!ok) {
			s->done = 1;
			return PG_STEP_ERROR;
		}
		s->generation = pg->generation;
	}
	if (!s->returns_rows && (pg->pending || PQtransactionStatus(pg->conn) == PQTRANS_INTRANS)) {
		/* a write inside a transaction: sent, not waited for */
		if ((pg->pending || PQenterPipelineMode(pg->conn)) &&
		    PQsendQueryPrepared(pg->conn, s->name, s->nparams,
					(const char *const *)s->values, s->lengths, s->formats,
					0)) {
			pg->pending++;
			s->done = 1;
			return STORE_DONE;
		}
		keep_error(pg, NULL);
		drain(pg, NULL);
		s->done = 1;
		return PG_STEP_ERROR;
	}
	if (s->streamed)
		return start_stream(s);
	if (pg->pending) {
		/* the writes before it and this statement, with one wait */
		if (!PQsendQueryPrepared(pg->conn, s->name, s->nparams,
					 (const char *const *)s->values, s->lengths, s->formats,
					 0)) {
			keep_error(pg, NULL);
			drain(pg, NULL);
			s->done = 1;
			return PG_STEP_ERROR;
		}
		if (drain(pg, &s->res)) {
			s->done = 1;
			return PG_STEP_ERROR;
		}
	} else {
		s->res = PQexecPrepared(pg->conn, s->name, s->nparams,
					(const char *const *)s->values, s->lengths, s->formats, 0);
	}
	status = PQresultStatus(s->res);
	if (status != PGRES_COMMAND_OK && status != PGRES_TUPLES_OK) {
		keep_error(pg, s->res);
		PQclear(s->res);
		s->res = NULL;
		s->done = 1;
		return PG_STEP_ERROR;
	}
	command = PQcmdStatus(s->res);
	note_changes(pg, s->res);
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

/* A binary integer: 2, 4 or 8 bytes, big-endian, signed. */
static int64_t binary_integer(const unsigned char *v, int len)
{
	uint64_t x = 0;
	for (int k = 0; k < len; k++)
		x = x << 8 | v[k];
	if (len < 8 && (x >> (8 * len - 1)) & 1)
		x |= ~(uint64_t)0 << (8 * len); /* sign-extended */
	return (int64_t)x;
}

/* A binary real: a float4 or float8's bits, big-endian. */
static double binary_real(const unsigned char *v, int len)
{
	uint64_t x = (uint64_t)binary_integer(v, len);
	uint32_t x4 = (uint32_t)x;
	double d;
	float f;
	if (len == 4) {
		memcpy(&f, &x4, sizeof(f));
		return f;
	}
	memcpy(&d, &x, sizeof(d));
	return d;
}

int64_t store_pg_column_int64(struct store_pg_stmt *s, int i)
{
	const char *v;
	enum pg_kind kind;
	if (store_pg_column_is_null(s, i))
		return 0;
	v = PQgetvalue(s->res, s->row, i);
	kind = kind_of(PQftype(s->res, i));
	if (s->binary && kind != PG_KIND_BYTES) {
		const unsigned char *b = (const unsigned char *)v;
		int len = PQgetlength(s->res, s->row, i);
		if (kind == PG_KIND_REAL)
			return (int64_t)binary_real(b, len);
		return kind == PG_KIND_BOOL ? b[0] != 0 : binary_integer(b, len);
	}
	switch (kind) {
	case PG_KIND_BOOL:
		return v[0] == 't';
	case PG_KIND_REAL:
	case PG_KIND_NUMERIC:
		return (int64_t)strtod(v, NULL); /* a real read as an integer, as SQLite does */
	default:
		return strtoll(v, NULL, 10);
	}
}

double store_pg_column_double(struct store_pg_stmt *s, int i)
{
	const char *v;
	enum pg_kind kind;
	if (store_pg_column_is_null(s, i))
		return 0.0;
	v = PQgetvalue(s->res, s->row, i);
	kind = kind_of(PQftype(s->res, i));
	if (s->binary && kind != PG_KIND_BYTES) {
		if (kind == PG_KIND_REAL)
			return binary_real((const unsigned char *)v,
					   PQgetlength(s->res, s->row, i));
		return (double)store_pg_column_int64(s, i);
	}
	if (kind == PG_KIND_BOOL)
		return v[0] == 't' ? 1.0 : 0.0;
	return strtod(v, NULL);
}

const char *store_pg_column_text(struct store_pg_stmt *s, int i)
{
	enum pg_kind kind;
	if (store_pg_column_is_null(s, i))
		return NULL;
	kind = kind_of(PQftype(s->res, i));
	if (s->binary && kind == PG_KIND_REAL)
		return format_double(s->number_text[i], store_pg_column_double(s, i), 0);
	if (s->binary && kind != PG_KIND_BYTES) {
		snprintf(s->number_text[i], sizeof(s->number_text[i]), "%" PRId64,
			 store_pg_column_int64(s, i));
		return s->number_text[i];
	}
	return PQgetvalue(s->res, s->row, i);
}

int store_pg_column_count(struct store_pg_stmt *s)
{
	return s->res ? PQnfields(s->res) : 0;
}

int store_pg_column_type(struct store_pg_stmt *s, int i)
{
	unsigned type;
	if (store_pg_column_is_null(s, i))
		return SQLITE_NULL;
	type = PQftype(s->res, i);
	switch (kind_of(type)) {
	case PG_KIND_BOOL:
	case PG_KIND_INTEGER:
		return SQLITE_INTEGER;
	case PG_KIND_REAL:
	case PG_KIND_NUMERIC:
		return SQLITE_FLOAT;
	case PG_KIND_BYTES:
		return type == PG_BYTEAOID ? SQLITE_BLOB : SQLITE_TEXT;
	default:
		return SQLITE_TEXT;
	}
}

/* Decodes column i of the current row when it is a bytea; 0, or -1 when it is not one. */
static int decode_blob(struct store_pg_stmt *s, int i)
{
	if (PQftype(s->res, i) != PG_BYTEAOID || s->binary)
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
	if (s->binary && kind_of(PQftype(s->res, i)) != PG_KIND_BYTES)
		return store_pg_column_text(s, i);
	if (decode_blob(s, i))
		return PQgetvalue(s->res, s->row, i);
	return s->blob_len ? s->blob : (const void *)"";
}

size_t store_pg_column_bytes(struct store_pg_stmt *s, int i)
{
	if (store_pg_column_is_null(s, i))
		return 0;
	if (s->binary && kind_of(PQftype(s->res, i)) != PG_KIND_BYTES)
		return strlen(store_pg_column_text(s, i));
	if (decode_blob(s, i))
		return (size_t)PQgetlength(s->res, s->row, i);
	return s->blob_len;
}
