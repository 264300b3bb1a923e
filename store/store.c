#include <math.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "store/internal.h"
#include "sql_embed.h"

/* How long a writer waits for another before a busy error reaches the caller. */
#define STORE_BUSY_TIMEOUT_MS 30000

struct store {
	enum store_backend backend;
	sqlite3 *db;	     /* SQLite's connection */
	struct store_pg *pg; /* or PostgreSQL's */
	char *path;	     /* the file, or the URL without its password: for messages */
	struct store_stmt stmts[SQL__COUNT]; /* the statement cache (store_stmt) */
	int in_transaction;
	/* Waiting for another writer's lock (busy_wait): the most, whom to tell, and this
	 * wait's start and last report (CLOCK_MONOTONIC seconds). */
	unsigned busy_ms;
	store_wait_fn wait_fn;
	void *wait_data;
	double wait_start, wait_told;
};

/* What store_set_lock_wait set, for the stores opened after it. */
static unsigned lock_wait_ms = STORE_BUSY_TIMEOUT_MS;
static store_wait_fn lock_wait_fn;
static void *lock_wait_data;

void store_set_lock_wait(unsigned timeout_ms, store_wait_fn fn, void *data)
{
	lock_wait_ms = timeout_ms;
	lock_wait_fn = fn;
	lock_wait_data = data;
}

/* One more moment of a writer's wait for the lock (count: the moments before it, 0 when the
 * wait begins): 1 to wait on, 0 to give up (the busy error). Tells st->wait_fn how long it has
 * waited, first after STORE_WAIT_FIRST_S, then every STORE_WAIT_EVERY_S. SQLite's busy
 * handler; PostgreSQL's lock wait calls it too (store_pg_begin_write). */
int store_lock_wait(struct store *st, int count)
{
	static const int delays_ms[] = {1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100};
	double now = monotonic_s(), waited, left;
	int ms = delays_ms[count < 12 ? count : 11];
	struct timespec pause;

	if (count == 0)
		st->wait_start = st->wait_told = now;
	waited = now - st->wait_start;
	left = st->busy_ms / 1000.0 - waited;
	if (left <= 0)
		return 0;
	if (st->wait_fn &&
	    ((st->wait_told == st->wait_start && waited >= STORE_WAIT_FIRST_S) ||
	     (st->wait_told > st->wait_start && now - st->wait_told >= STORE_WAIT_EVERY_S))) {
		st->wait_told = now;
		st->wait_fn(st->path, waited, st->busy_ms / 1000.0, st->wait_data);
	}
	if (ms > left * 1000)
		ms = (int)(left * 1000) + 1;
	pause.tv_sec = ms / 1000;
	pause.tv_nsec = (long)(ms % 1000) * 1000000L;
	nanosleep(&pause, NULL);
	return 1;
}

static int busy_wait(void *data, int count)
{
	return store_lock_wait(data, count);
}

const char *store_name(const struct store *st)
{
	return st->path;
}

char *store_name_of_path(const char *path)
{
	return store_is_postgres_url(path) ? store_pg_url_for_messages(path) : xstrdup(path);
}

enum store_backend store_backend_of(const struct store *st)
{
	return st->backend;
}

int store_db_error(struct bl_error *err, struct store *st, const char *what)
{
	/* A lock another connection held past the busy timeout is not a broken database: the
	 * server answers it 503, so the client tries again later. */
	int code;
	const char *msg;
	if (st->backend == STORE_POSTGRES) {
		code = store_pg_lost(st->pg)   ? BL_EUNAVAILABLE
		       : store_pg_busy(st->pg) ? BL_EBUSY
					       : BL_EDB;
		msg = store_pg_errmsg(st->pg);
	} else {
		int rc = sqlite3_errcode(st->db) & 0xff;
		code = rc == SQLITE_BUSY || rc == SQLITE_LOCKED ? BL_EBUSY : BL_EDB;
		msg = sqlite3_errmsg(st->db);
	}
	if (code == BL_EBUSY)
		return bl_error_set(err, code,
				    "%s in '%s': %s (another writer held it for over %g s)", what,
				    st->path, msg, st->busy_ms / 1000.0);
	return bl_error_set(err, code, "%s in '%s': %s", what, st->path, msg);
}

struct store_stmt *store_stmt(struct store *st, enum sql_stmt id, struct bl_error *err)
{
	struct store_stmt *s = &st->stmts[id];
	if (!s->lite && !s->pg) {
		if (st->backend == STORE_POSTGRES) {
			if (store_pg_prepare(&s->pg, st->pg, id, err))
				return NULL;
		} else if (sqlite3_prepare_v3(st->db, sql_text[id], -1, SQLITE_PREPARE_PERSISTENT,
					      &s->lite, NULL) != SQLITE_OK) {
			store_db_error(err, st, "cannot prepare a statement");
			return NULL;
		}
		return s;
	}
	if (s->lite ? sqlite3_stmt_busy(s->lite) : store_pg_stmt_busy(s->pg)) {
		bl_error_set(err, BL_EDB,
			     "a statement in '%s' is already in use (a walk's callback "
			     "started the same walk)",
			     st->path);
		return NULL;
	}
	if (s->lite) {
		sqlite3_reset(s->lite);
		sqlite3_clear_bindings(s->lite);
	} else {
		store_pg_reset(s->pg);
		store_pg_clear_bindings(s->pg);
	}
	return s;
}

void store_bind_text(struct store_stmt *s, int i, const char *v)
{
	if (!v)
		store_bind_null(s, i);
	else if (s->lite)
		sqlite3_bind_text(s->lite, i, v, -1, SQLITE_STATIC);
	else
		store_pg_bind(s->pg, i, v, strlen(v), 0);
}

void store_bind_text_copy(struct store_stmt *s, int i, const char *v)
{
	if (!v)
		store_bind_null(s, i);
	else if (s->lite)
		sqlite3_bind_text(s->lite, i, v, -1, SQLITE_TRANSIENT);
	else
		store_pg_bind(s->pg, i, v, strlen(v), 0);
}

void store_bind_text_len(struct store_stmt *s, int i, const char *v, size_t len)
{
	if (s->lite)
		sqlite3_bind_text64(s->lite, i, v, len, SQLITE_STATIC, SQLITE_UTF8);
	else
		store_pg_bind(s->pg, i, v, len, 0);
}

void store_bind_blob(struct store_stmt *s, int i, const void *v, size_t len)
{
	if (s->lite)
		sqlite3_bind_blob64(s->lite, i, v, len, SQLITE_STATIC);
	else
		store_pg_bind(s->pg, i, v, len, 1);
}

void store_bind_blob_take(struct store_stmt *s, int i, void *v, size_t len)
{
	if (s->lite) {
		sqlite3_bind_blob64(s->lite, i, v, len, free);
	} else {
		store_pg_bind(s->pg, i, v, len, 1);
		free(v);
	}
}

void store_bind_id(struct store_stmt *s, int i, int64_t id)
{
	if (id)
		store_bind_int64(s, i, id);
	else
		store_bind_null(s, i);
}

void store_bind_real(struct store_stmt *s, int i, double v)
{
	if (isnan(v))
		store_bind_null(s, i);
	else
		store_bind_double(s, i, v);
}

int64_t store_last_insert_id(struct store *st)
{
	return st->backend == STORE_POSTGRES ? store_pg_last_insert_id(st->pg)
					     : sqlite3_last_insert_rowid(st->db);
}

int64_t store_changes(struct store *st)
{
	return st->backend == STORE_POSTGRES ? store_pg_changes(st->pg) : sqlite3_changes(st->db);
}

int store_autocommit(struct store *st)
{
	return st->backend == STORE_POSTGRES ? !store_pg_in_transaction(st->pg)
					     : sqlite3_get_autocommit(st->db);
}

char *store_column_strdup(struct store_stmt *s, int i)
{
	const char *t = store_column_text(s, i, NULL);
	return xstrdup_or_null(t);
}

void store_column_sha(char out[41], struct store_stmt *s, int i)
{
	const char *t = store_column_text(s, i, "");
	size_t n = strnlen(t, 40);
	memcpy(out, t, n);
	out[n] = '\0';
}

/* An unknown name in column i, for the readers below. */
static int unknown_name(struct bl_error *err, struct store *st, const char *what,
			struct store_stmt *s, int i)
{
	return bl_error_set(err, BL_EDB, "unknown %s '%s' in '%s'", what,
			    store_column_text(s, i, "NULL"), st->path);
}

/* A reader of a column holding one of an enum's names (common/names.c): parse turns it into
 * the value, what names the kind of name in the error of a name it does not know. */
#define STORE_COLUMN_NAME(fn, type, parse, what)                                                   \
	int fn(type *out, struct store *st, struct store_stmt *s, int i, struct bl_error *err)     \
	{                                                                                          \
		if (parse(out, store_column_text(s, i, NULL)))                                     \
			return unknown_name(err, st, what, s, i);                                  \
		return 0;                                                                          \
	}
STORE_COLUMN_NAME(store_column_kind, enum metric_kind, metric_kind_parse, "metric kind")
STORE_COLUMN_NAME(store_column_line_break, enum line_break, line_break_parse, "line reason")
STORE_COLUMN_NAME(store_column_better, int, metric_better_parse, "better direction")
STORE_COLUMN_NAME(store_column_side, enum suspect_side, suspect_side_parse, "Suspect side")
STORE_COLUMN_NAME(store_column_state, enum suspect_state, suspect_state_parse, "Suspect state")
STORE_COLUMN_NAME(store_column_suspect_kind, enum suspect_kind, suspect_kind_parse, "Suspect kind")

int store_column_outcome(enum alert_outcome *out, struct store *st, struct store_stmt *s, int i,
			 struct bl_error *err)
{
	*out = ALERT_NO_OUTCOME;
	if (!store_column_is_null(s, i) && alert_outcome_parse(out, store_column_text(s, i, NULL)))
		return unknown_name(err, st, "alert outcome", s, i);
	return 0;
}

int64_t store_place_seq(double place)
{
	return place >= 0 && place == floor(place) ? (int64_t)place : -1;
}

int store_exec(struct store *st, struct store_stmt *s, const char *what, struct bl_error *err)
{
	int rc = store_step(s);
	store_reset(s);
	if (rc != STORE_DONE && rc != STORE_ROW)
		return store_db_error(err, st, what);
	return 0;
}

int store_query_int64(int64_t *out, int64_t dflt, struct store *st, struct store_stmt *s,
		      const char *what, struct bl_error *err)
{
	int rc = store_step(s);
	*out = rc == STORE_ROW ? store_column_int64(s, 0, dflt) : dflt;
	store_reset(s);
	if (rc != STORE_ROW && rc != STORE_DONE)
		return store_db_error(err, st, what);
	return 0;
}

int store_query_bytes(int *found, struct strbuf *out, struct store *st, struct store_stmt *s,
		      const char *what, struct bl_error *err)
{
	int rc = store_step(s);
	*found = rc == STORE_ROW;
	strbuf_reset(out);
	if (*found)
		strbuf_add(out, store_column_blob(s, 0), store_column_bytes(s, 0));
	store_reset(s);
	if (rc != STORE_ROW && rc != STORE_DONE)
		return store_db_error(err, st, what);
	return 0;
}

/* Runs SQL text that is no cached statement: the migrations, transactions and pragmas. */
static int exec_sql(struct store *st, const char *sql, const char *what, struct bl_error *err)
{
	if (st->backend == STORE_POSTGRES
		? store_pg_exec(st->pg, sql) != 0
		: sqlite3_exec(st->db, sql, NULL, NULL, NULL) != SQLITE_OK)
		return store_db_error(err, st, what);
	return 0;
}

/*
 * Transaction control, the one SQL text store/ keeps outside sql/ besides SQLite's pragmas: a
 * writer on PostgreSQL takes one transaction-scoped advisory lock, so that writers go one at a
 * time as on SQLite (BEGIN IMMEDIATE) and the key rule sees every record stored before its own.
 * Readers take no lock on either.
 */
static const char *const begin_write_sql[] = {
    [STORE_SQLITE] = "BEGIN IMMEDIATE",
    [STORE_POSTGRES] = STORE_PG_BEGIN_WRITE,
};
/* The same without waiting: SQLite's with no busy timeout (set around it), PostgreSQL's trying
 * the lock and failing as lock_timeout would (55P03, BL_EBUSY). */
static const char *const try_begin_write_sql[] = {
    [STORE_SQLITE] = "BEGIN IMMEDIATE",
    [STORE_POSTGRES] = STORE_PG_TRY_BEGIN_WRITE,
};

int store_latest_version(void)
{
	return (int)sql_migration_count;
}

int store_schema_version(struct store *st)
{
	struct store_stmt *s = store_stmt(st, SQL_SCHEMA_VERSION, NULL);
	int64_t v;
	if (!s || store_query_int64(&v, -1, st, s, "cannot read the schema version", NULL))
		return -1;
	return (int)v;
}

/* Applies every migration past the schema version, each in its own transaction. */
static int migrate(struct store *st, struct bl_error *err)
{
	int version = store_schema_version(st);
	size_t count = st->backend == STORE_POSTGRES ? sql_pg_migration_count : sql_migration_count;
	if (version < 0)
		return store_db_error(err, st, "cannot read the schema version");
	if ((size_t)version > count)
		return bl_error_set(err, BL_EDB,
				    "'%s' has schema version %d, newer than this benchline (%zu)",
				    st->path, version, count);
	for (size_t i = (size_t)version; i < count; i++) {
		const struct sql_migration *m =
		    st->backend == STORE_POSTGRES ? &sql_pg_migrations[i] : &sql_migrations[i];
		struct strbuf sql = STRBUF_INIT;
		int ret;
		if (st->backend == STORE_POSTGRES) {
			/* Another server may be migrating the same database: the lock orders
			 * them, and a migration applied meanwhile is not applied again. */
			strbuf_addf(&sql, "%s;\n", begin_write_sql[STORE_POSTGRES]);
			strbuf_addf(
			    &sql,
			    "DO $bl$ BEGIN IF (SELECT max(version) FROM benchline_schema) "
			    ">= %zu THEN RAISE EXCEPTION 'benchline: already migrated'; END IF; "
			    "END $bl$;\n",
			    i + 1);
			strbuf_addstr(&sql, m->text);
			strbuf_addf(&sql, "\nUPDATE benchline_schema SET version = %zu;\nCOMMIT;\n",
				    i + 1);
		} else {
			/* Foreign keys off while a migration rebuilds a table others reference
			 * (SQLite's own procedure for changing a table's schema); the pragma is
			 * a no-op inside a transaction, so it goes before BEGIN. */
			strbuf_addstr(&sql, "PRAGMA foreign_keys = OFF;\nBEGIN IMMEDIATE;\n");
			strbuf_addstr(&sql, m->text);
			strbuf_addf(&sql, "\nPRAGMA user_version = %zu;\nCOMMIT;\n", i + 1);
			strbuf_addstr(&sql, "PRAGMA foreign_keys = ON;\n");
		}
		ret = exec_sql(st, sql.buf, "cannot apply a migration", err);
		strbuf_release(&sql);
		if (ret) {
			exec_sql(st, "ROLLBACK", "rollback", NULL);
			if (st->backend == STORE_SQLITE)
				exec_sql(st, "PRAGMA foreign_keys = ON", "cannot configure", NULL);
			if (st->backend == STORE_POSTGRES &&
			    strstr(store_pg_errmsg(st->pg), "benchline: already migrated")) {
				bl_error_clear(err);
				continue;
			}
			bl_error_prefix(err, "%s", m->name);
			return ret;
		}
	}
	return 0;
}

/* Whether path names a PostgreSQL database rather than a SQLite file. */
int store_is_postgres_url(const char *path)
{
	return !strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11);
}

static int open_sqlite(struct store *st, const char *path, int flags, struct bl_error *err)
{
	struct stat sb;
	int oflags;

	if (!(flags & STORE_CREATE) && stat(path, &sb) < 0)
		return bl_error_set(err, BL_ENOTFOUND,
				    "no database at '%s' (run 'benchline init' or pass --db)",
				    path);
	oflags = (flags & STORE_READONLY) ? SQLITE_OPEN_READONLY
					  : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE;
	/* No allocation statistics: SQLite would take a global mutex for every allocation to keep
	 * them, and nothing reads them. Only possible before SQLite initialises, so the first
	 * open in a process sets it; later calls are refused harmlessly. */
	sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
	if (sqlite3_open_v2(path, &st->db, oflags | SQLITE_OPEN_NOMUTEX, NULL) != SQLITE_OK) {
		/* No connection at all only when SQLite could not allocate one. */
		return st->db ? store_db_error(err, st, "cannot open the database")
			      : bl_error_set(err, BL_EDB, "cannot open '%s': out of memory", path);
	}
	sqlite3_extended_result_codes(st->db, 1);
	sqlite3_busy_handler(st->db, busy_wait, st);
	/* A file that is not a database fails here, on its first read. */
	if (!(flags & STORE_READONLY) &&
	    exec_sql(st, "PRAGMA journal_mode = WAL", "cannot open", err))
		return BL_EDB;
	return exec_sql(st,
			"PRAGMA foreign_keys = ON; PRAGMA synchronous = NORMAL;"
			" PRAGMA temp_store = MEMORY;",
			"cannot configure", err);
}

int store_open(struct store **out, const char *path, int flags, struct bl_error *err)
{
	struct store *st = xcalloc(1, sizeof(*st));
	int ret;

	*out = NULL;
	st->busy_ms = lock_wait_ms;
	st->wait_fn = lock_wait_fn;
	st->wait_data = lock_wait_data;
	if (store_is_postgres_url(path)) {
		st->backend = STORE_POSTGRES;
		st->path = store_pg_url_for_messages(path);
		ret = store_pg_open(&st->pg, path, st->busy_ms, flags & STORE_CREATE, err);
	} else {
		st->path = xstrdup(path);
		ret = open_sqlite(st, path, flags, err);
	}
	if (ret)
		goto fail;
	if (st->backend == STORE_POSTGRES && !(flags & STORE_CREATE) &&
	    store_schema_version(st) <= 0) {
		ret = bl_error_set(
		    err, BL_ENOTFOUND,
		    "no benchline database at '%s' (run 'benchline init' or pass --db)", st->path);
		goto fail;
	}
	if (!(flags & STORE_READONLY) && (ret = migrate(st, err)))
		goto fail;
	*out = st;
	return 0;
fail:
	store_free(st);
	return ret;
}

void store_free(struct store *st)
{
	if (!st)
		return;
	for (int i = 0; i < SQL__COUNT; i++) {
		if (st->stmts[i].lite)
			sqlite3_finalize(st->stmts[i].lite);
		if (st->stmts[i].pg)
			store_pg_finalize(st->stmts[i].pg);
	}
	if (st->in_transaction)
		exec_sql(st, "ROLLBACK", "rollback", NULL);
	if (st->db)
		sqlite3_close(st->db);
	store_pg_close(st->pg);
	free(st->path);
	free(st);
}

void store_set_busy_timeout(struct store *st, unsigned ms)
{
	st->busy_ms = ms;
	st->wait_fn = NULL; /* the server's: it tells nobody, it answers 503 */
	if (st->backend == STORE_POSTGRES)
		store_pg_set_lock_timeout(st->pg, ms);
}

int store_begin(struct store *st, struct bl_error *err)
{
	int ret;
	/* With someone to tell, PostgreSQL's writers' lock is waited for as SQLite's is, a
	 * moment at a time (store_lock_wait); else in one wait, bounded by lock_timeout. */
	if (st->backend == STORE_POSTGRES && st->wait_fn)
		ret = store_pg_begin_write(st->pg, st)
			  ? store_db_error(err, st, "cannot begin a transaction")
			  : 0;
	else
		ret = exec_sql(st, begin_write_sql[st->backend], "cannot begin a transaction", err);
	if (!ret)
		st->in_transaction = 1;
	else if (st->backend == STORE_POSTGRES)
		exec_sql(st, "ROLLBACK", "rollback", NULL);
	return ret;
}

int store_try_begin(struct store *st, struct bl_error *err)
{
	int ret;
	/* No busy handler for the try, then store_lock_wait's again (sqlite3_busy_timeout would
	 * replace it, and with it the --lock-timeout's telling). */
	if (st->backend == STORE_SQLITE)
		sqlite3_busy_handler(st->db, NULL, NULL);
	ret = exec_sql(st, try_begin_write_sql[st->backend], "cannot begin a transaction", err);
	if (st->backend == STORE_SQLITE)
		sqlite3_busy_handler(st->db, busy_wait, st);
	if (!ret)
		st->in_transaction = 1;
	else if (st->backend == STORE_POSTGRES)
		exec_sql(st, "ROLLBACK", "rollback", NULL);
	return ret;
}

int store_commit(struct store *st, struct bl_error *err)
{
	int ret = exec_sql(st, "COMMIT", "cannot commit", err);
	if (ret)
		store_rollback(st);
	st->in_transaction = 0;
	return ret;
}

void store_rollback(struct store *st)
{
	/* Statements still mid-step would keep the transaction's read open. */
	for (int i = 0; i < SQL__COUNT; i++)
		if (st->stmts[i].lite || st->stmts[i].pg)
			store_reset(&st->stmts[i]);
	if (st->in_transaction || !store_autocommit(st))
		exec_sql(st, "ROLLBACK", "rollback", NULL);
	st->in_transaction = 0;
}

int store_begin_read(struct store *st, struct bl_error *err)
{
	/* PostgreSQL: one snapshot for the whole read, as SQLite's read transaction gives. */
	return exec_sql(st,
			st->backend == STORE_POSTGRES
			    ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY"
			    : "BEGIN",
			"cannot begin reading", err);
}

void store_end_read(struct store *st)
{
	exec_sql(st, "COMMIT", "commit", NULL);
}

/* Looks up an id by name with get, inserting with ins when absent. */
static int id_by_name(int64_t *id_out, struct store *st, enum sql_stmt get, enum sql_stmt ins,
		      const char *name, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, get, err);
	int rc;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, name);
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*id_out = store_column_int64(s, 0, 0);
		store_reset(s);
		return 0;
	}
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot look up a name");
	if (!(s = store_stmt(st, ins, err)))
		return BL_EDB;
	store_bind_text(s, 1, name);
	if (store_exec(st, s, "cannot insert a name", err))
		return BL_EDB;
	*id_out = store_last_insert_id(st);
	return 0;
}

int store_machine(int64_t *id_out, int *keep_first_out, struct store *st, const char *name,
		  const char *info_json, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MACHINE_GET, err);
	int rc;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, name);
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*id_out = store_column_int64(s, 0, 0);
		if (keep_first_out)
			*keep_first_out = store_column_int(s, 1);
		store_reset(s);
		if (info_json) {
			if (!(s = store_stmt(st, SQL_MACHINE_SET_INFO, err)))
				return BL_EDB;
			store_bind_int64(s, 1, *id_out);
			store_bind_text(s, 2, info_json);
			return store_exec(st, s, "cannot update a machine", err);
		}
		return 0;
	}
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot look up a machine");
	if (!(s = store_stmt(st, SQL_MACHINE_INSERT, err)))
		return BL_EDB;
	store_bind_text(s, 1, name);
	store_bind_text(s, 2, info_json);
	if (store_exec(st, s, "cannot insert a machine", err))
		return BL_EDB;
	*id_out = store_last_insert_id(st);
	if (keep_first_out)
		*keep_first_out = 0;
	return 0;
}

int store_set_machine_keep(struct store *st, const char *name, int keep_first, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MACHINE_SET_KEEP, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, name);
	store_bind_text(s, 2, keep_first ? "first" : "quieter");
	return store_exec(st, s, "cannot set a machine's keep rule", err);
}

int store_benchmark(int64_t *id_out, struct store *st, const char *name, struct bl_error *err)
{
	return id_by_name(id_out, st, SQL_BENCHMARK_GET, SQL_BENCHMARK_INSERT, name, err);
}

int store_insert_run(int64_t *run_id_out, struct store *st, const struct store_run *run,
		     struct bl_error *err)
{
	/* With its id (the intake's, numbered ahead) it is a write that returns nothing, which
	 * PostgreSQL's pipeline does not wait for; without, the database numbers it. */
	struct store_stmt *s =
	    store_stmt(st, run->id ? SQL_INTAKE_RUN_INSERT : SQL_RUN_INSERT, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, run->digest);
	store_bind_int64(s, 2, run->machine_id);
	store_bind_int64(s, 3, run->benchmark_id);
	store_bind_text(s, 4, run->config);
	store_bind_text(s, 5, run->source_hash);
	store_bind_int64(s, 6, run->harness_version);
	store_bind_text(s, 7, run->content_hash);
	store_bind_text(s, 8, run->commit);
	store_bind_text(s, 9, run->branch);
	store_bind_real(s, 10, run->committed_at);
	store_bind_real(s, 11, run->started_at);
	store_bind_int64(s, 12, run->dirty);
	store_bind_text(s, 13, run->profile);
	store_bind_int64(s, 14, run->baseline);
	store_bind_text(s, 15, run->primary_metric);
	store_bind_real(s, 16, run->quietness);
	store_bind_text(s, 17, run->raw);
	if (run->id)
		store_bind_int64(s, 18, run->id);
	if (store_exec(st, s, "cannot insert a run", err))
		return BL_EDB;
	*run_id_out = run->id ? run->id : store_last_insert_id(st);
	return 0;
}

void store_encode_samples(unsigned char *blob, const double *samples, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t bits;
		memcpy(&bits, &samples[i], 8);
		for (int b = 0; b < 8; b++)
			blob[i * 8 + (size_t)b] = (unsigned char)(bits >> (8 * b));
	}
}

double *store_decode_samples(const unsigned char *blob, size_t bytes, size_t *n_out)
{
	size_t n = bytes / 8;
	double *out = xmalloc((n ? n : 1) * sizeof(*out));
	for (size_t i = 0; i < n; i++) {
		uint64_t bits = 0;
		for (int b = 0; b < 8; b++)
			bits |= (uint64_t)blob[i * 8 + (size_t)b] << (8 * b);
		memcpy(&out[i], &bits, 8);
	}
	*n_out = n;
	return out;
}

int store_insert_metric(struct store *st, int64_t run_id, const struct store_metric *m,
			struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_METRIC_INSERT, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	store_bind_text(s, 2, m->name);
	store_bind_text(s, 3, metric_kind_name(m->kind));
	store_bind_text(s, 4, m->unit);
	store_bind_text(s, 5, metric_better_name(m->better_higher));
	store_bind_real(s, 6, m->median);
	store_bind_real(s, 7, m->p95);
	if (m->n >= 0)
		store_bind_int64(s, 8, m->n);
	store_bind_real(s, 9, m->value);
	store_bind_text(s, 10, m->ladder);
	if (m->samples && m->nsamples) {
		unsigned char *blob = xmalloc(m->nsamples * 8);
		store_encode_samples(blob, m->samples, m->nsamples);
		store_bind_blob_take(s, 11, blob, m->nsamples * 8);
	}
	return store_exec(st, s, "cannot insert a metric", err);
}

static int tag_stmt(struct store *st, enum sql_stmt id, int64_t run_id, const char *tag,
		    struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, id, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	store_bind_text(s, 2, tag);
	return store_exec(st, s, "cannot change a tag", err);
}

int store_add_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err)
{
	return tag_stmt(st, SQL_TAG_INSERT, run_id, tag, err);
}

int store_remove_tag(struct store *st, int64_t run_id, const char *tag, struct bl_error *err)
{
	return tag_stmt(st, SQL_TAG_DELETE, run_id, tag, err);
}

int store_has_tag(int *out, struct store *st, int64_t run_id, const char *tag, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_TAG_HAS, err);
	int64_t v;
	int ret;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	store_bind_text(s, 2, tag);
	ret = store_query_int64(&v, 0, st, s, "cannot read a tag", err);
	*out = (int)v;
	return ret;
}

static void bind_key(struct store_stmt *s, const struct store_key *key)
{
	store_bind_int64(s, 1, key->machine_id);
	store_bind_int64(s, 2, key->benchmark_id);
	store_bind_text(s, 3, key->config);
	store_bind_text(s, 4, key->source_hash);
	store_bind_int64(s, 5, key->harness_version);
}

int store_set_standing(struct store *st, const struct store_key *key, int64_t run_id,
		       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_STANDING_SET, err);
	if (!s)
		return BL_EDB;
	bind_key(s, key);
	store_bind_int64(s, 6, run_id);
	return store_exec(st, s, "cannot set a record", err);
}

int store_is_main(int *out, struct store *st, const char *source_hash, const char *commit,
		  const char *branch, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MAIN_KNOWN, err);
	int64_t known, has;
	char *main_branch = NULL;
	int ret;
	if (!s || store_query_int64(&known, 0, st, s, "cannot read commits", err))
		return BL_EDB;
	if (known) {
		if (!(s = store_stmt(st, SQL_MAIN_HAS, err)))
			return BL_EDB;
		store_bind_text(s, 1, source_hash);
		store_bind_text(s, 2, commit);
		ret = store_query_int64(&has, 0, st, s, "cannot read commits", err);
		*out = (int)has;
		return ret;
	}
	if ((ret = store_get_meta(&main_branch, st, "main_branch", err)))
		return ret;
	*out = store_branch_is_main(branch, main_branch);
	free(main_branch);
	return 0;
}

int store_branch_is_main(const char *branch, const char *main_branch)
{
	/* Before any sync: the record's own word for its branch. */
	if (!branch)
		return 1;
	if (main_branch)
		return !strcmp(branch, main_branch);
	return !strcmp(branch, "main") || !strcmp(branch, "master");
}

int store_set_machine_info(struct store *st, int64_t id, const char *info_json,
			   struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MACHINE_SET_INFO, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, id);
	store_bind_text(s, 2, info_json);
	return store_exec(st, s, "cannot update a machine", err);
}

int store_refresh_not_main(struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_NOT_MAIN_CLEAR, err);
	if (!s || store_exec(st, s, "cannot clear not-main tags", err))
		return BL_EDB;
	if (!(s = store_stmt(st, SQL_NOT_MAIN_SET, err)))
		return BL_EDB;
	return store_exec(st, s, "cannot set not-main tags", err);
}

int store_get_meta(char **out, struct store *st, const char *key, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_META_GET, err);
	int rc;
	*out = NULL;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, key);
	rc = store_step(s);
	if (rc == STORE_ROW)
		*out = store_column_strdup(s, 0);
	store_reset(s);
	if (rc != STORE_ROW && rc != STORE_DONE)
		return store_db_error(err, st, "cannot read a setting");
	return 0;
}

int store_set_meta(struct store *st, const char *key, const char *value, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_META_SET, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, key);
	store_bind_text(s, 2, value);
	return store_exec(st, s, "cannot write a setting", err);
}

int store_commit_tip(int *found, char sha_out[41], int64_t *seq_out, struct store *st,
		     struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COMMIT_TIP, err);
	int rc;
	*found = 0;
	if (!s)
		return BL_EDB;
	rc = store_step(s);
	if (rc == STORE_ROW) {
		*found = 1;
		store_column_sha(sha_out, s, 0);
		*seq_out = store_column_int64(s, 1, 0);
	}
	store_reset(s);
	if (rc != STORE_ROW && rc != STORE_DONE)
		return store_db_error(err, st, "cannot read commits");
	return 0;
}

int store_commit_seq(int64_t *seq_out, struct store *st, const char *sha, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COMMIT_SEQ, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, sha);
	return store_query_int64(seq_out, -1, st, s, "cannot read commits", err);
}

int store_insert_commit(struct store *st, const struct store_commit *c, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COMMIT_INSERT, err);
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, c->sha);
	store_bind_int64(s, 2, c->seq);
	store_bind_text(s, 3, c->parent[0] ? c->parent : NULL);
	store_bind_text(s, 4, c->source_hash);
	store_bind_int64(s, 5, c->committed_at);
	store_bind_text(s, 6, c->subject ? c->subject : "");
	if (c->pr > 0)
		store_bind_int64(s, 7, c->pr);
	return store_exec(st, s, "cannot insert a commit", err);
}

int store_delete_commits_after(struct store *st, int64_t after, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COMMIT_DELETE_AFTER, err);
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, after);
	return store_exec(st, s, "cannot delete commits", err);
}

int store_commit_count(int64_t *out, struct store *st, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_COMMIT_COUNT, err);
	if (!s)
		return BL_EDB;
	return store_query_int64(out, 0, st, s, "cannot count commits", err);
}

int store_count(int64_t *out, struct store *st, const char *table, struct bl_error *err)
{
	static const struct {
		const char *table;
		enum sql_stmt id;
	} counts[] = {
	    {"runs", SQL_COUNT_RUNS},	      {"records", SQL_COUNT_RECORDS},
	    {"metrics", SQL_COUNT_METRICS},   {"tags", SQL_COUNT_TAGS},
	    {"machines", SQL_COUNT_MACHINES}, {"benchmarks", SQL_COUNT_BENCHMARKS},
	    {"commits", SQL_COMMIT_COUNT},
	};
	for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
		if (!strcmp(counts[i].table, table)) {
			struct store_stmt *s = store_stmt(st, counts[i].id, err);
			if (!s)
				return BL_EDB;
			return store_query_int64(out, 0, st, s, "cannot count", err);
		}
	}
	return bl_error_set(err, BL_ENOTFOUND, "no table '%s' to count", table);
}

static void row_release(struct store_record_row *row)
{
	free(row->machine);
	free(row->benchmark);
	free(row->config);
	free(row->source_hash);
	free(row->commit);
	free(row->content_hash);
	free(row->primary_metric);
	for (size_t i = 0; i < row->ntags; i++)
		free(row->tags[i]);
	free(row->tags);
	store_metrics_free(row->metrics, row->nmetrics);
	memset(row, 0, sizeof(*row));
}

int store_metric_from_row(struct store_record_metric *m, struct store *st, struct store_stmt *s,
			  int at, struct bl_error *err)
{
	memset(m, 0, sizeof(*m));
	m->name = store_column_strdup(s, at);
	m->unit = store_column_strdup(s, at + 2);
	m->median = store_column_real(s, at + 4);
	m->p95 = store_column_real(s, at + 5);
	m->value = store_column_real(s, at + 6);
	m->n = store_column_int64(s, at + 7, -1);
	m->ladder = store_column_strdup(s, at + 8);
	if (!store_column_is_null(s, at + 9))
		m->samples =
		    store_decode_samples(store_column_blob(s, at + 9),
					 (size_t)store_column_bytes(s, at + 9), &m->nsamples);
	if (store_column_better(&m->better_higher, st, s, at + 3, err))
		return BL_EDB;
	return store_column_kind(&m->kind, st, s, at + 1, err);
}

static int load_row_details(struct store *st, struct store_record_row *row, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_RUN_TAGS, err);
	size_t alloc = 0;
	int rc;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, row->id);
	while ((rc = store_step(s)) == STORE_ROW) {
		ALLOC_GROW(row->tags, row->ntags, alloc);
		row->tags[row->ntags++] = store_column_strdup(s, 0);
	}
	store_reset(s);
	if (rc != STORE_DONE)
		return store_db_error(err, st, "cannot read tags");

	return store_read_metrics(&row->metrics, &row->nmetrics, st, row->id, err);
}

int store_read_metrics(struct store_record_metric **out, size_t *nr, struct store *st,
		       int64_t run_id, struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_RUN_METRICS, err);
	size_t alloc = 0;
	int rc, ret = 0;
	*out = NULL;
	*nr = 0;
	if (!s)
		return BL_EDB;
	store_bind_int64(s, 1, run_id);
	while ((rc = store_step(s)) == STORE_ROW) {
		ALLOC_GROW(*out, *nr, alloc);
		if ((ret = store_metric_from_row(&(*out)[(*nr)++], st, s, 0, err)))
			break;
	}
	store_reset(s);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read metrics");
	return ret;
}

void store_metrics_free(struct store_record_metric *metrics, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct store_record_metric *m = &metrics[i];
		free(m->name);
		free(m->unit);
		free(m->samples);
		free(m->ladder);
	}
	free(metrics);
}

/* Walks the rows of records_list or one of the records_page statements (the same columns). */
static int walk_records(struct store *st, struct store_stmt *list, store_record_fn fn, void *data,
			const char *what, struct bl_error *err)
{
	int rc, ret = 0;
	while ((rc = store_step(list)) == STORE_ROW) {
		struct store_record_row row;
		memset(&row, 0, sizeof(row));
		row.id = store_column_int64(list, 0, 0);
		row.machine = store_column_strdup(list, 1);
		row.benchmark = store_column_strdup(list, 2);
		row.config = store_column_strdup(list, 3);
		row.source_hash = store_column_strdup(list, 4);
		row.harness_version = store_column_int64(list, 5, 0);
		row.commit = store_column_strdup(list, 6);
		row.content_hash = store_column_strdup(list, 7);
		row.started_at = store_column_real(list, 8);
		row.committed_at = store_column_real(list, 9);
		row.baseline = store_column_int(list, 10);
		row.standing = store_column_int(list, 11);
		row.seq = store_place_seq(store_column_double(list, 12));
		row.primary_metric = store_column_strdup(list, 13);
		ret = load_row_details(st, &row, err);
		if (!ret && fn(&row, data))
			ret = 1;
		row_release(&row);
		if (ret)
			break;
	}
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, what);
	store_reset(list);
	return ret < 0 ? ret : 0;
}

int store_each_record(struct store *st, const struct store_record_filter *filter,
		      store_record_fn fn, void *data, struct bl_error *err)
{
	/* Each row's tags and metrics are read by other statements while the listing steps. */
	struct store_stmt *list = store_stmt(st, SQL_RECORDS_LIST, err);
	if (!list)
		return BL_EDB;
	store_bind_text(list, 1, filter->machine);
	store_bind_text(list, 2, filter->benchmark);
	store_bind_int64(list, 3, filter->all ? 1 : 0);
	return walk_records(st, list, fn, data, "cannot list records", err);
}

/* Binds the range of hex ids a prefix names: [prefix, prefix + "g"), "g" coming after every
 * hex digit, so the range is one index seek. */
static void bind_prefix_range(struct store_stmt *s, int i, const char *prefix, struct strbuf *hi)
{
	strbuf_reset(hi);
	strbuf_addstr(hi, prefix);
	strbuf_addch(hi, 'g');
	store_bind_text(s, i, prefix);
	store_bind_text_copy(s, i + 1, hi->buf);
}

int store_record_page(struct store *st, const struct store_record_page *p, store_record_fn fn,
		      void *data, struct bl_error *err)
{
	/* The commit or source hash leads when given (its index), else the run id. */
	enum sql_stmt which = p->commit	       ? SQL_RECORDS_PAGE_COMMIT
			      : p->source_hash ? SQL_RECORDS_PAGE_SOURCE
					       : SQL_RECORDS_PAGE;
	struct store_stmt *list = store_stmt(st, which, err);
	struct strbuf hi = STRBUF_INIT, hi2 = STRBUF_INIT;
	int ret;
	if (!list)
		return BL_EDB;
	store_bind_int64(list, 1, p->after);
	store_bind_text(list, 2, p->machine);
	store_bind_text(list, 3, p->benchmark);
	store_bind_int64(list, 4, p->all ? 1 : 0);
	if (p->commit)
		bind_prefix_range(list, 5, p->commit, &hi);
	if (p->source_hash)
		bind_prefix_range(list, 7, p->source_hash, &hi2);
	store_bind_int64(list, 9, p->limit);
	ret = walk_records(st, list, fn, data, "cannot list records", err);
	strbuf_release(&hi);
	strbuf_release(&hi2);
	return ret;
}

int store_machine_measured(int *out, struct store *st, const char *machine, const char *source_hash,
			   struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_MACHINE_MEASURED, err);
	int64_t v = 0;
	int ret;
	*out = 0;
	if (!s)
		return BL_EDB;
	store_bind_text(s, 1, machine);
	store_bind_text(s, 2, source_hash);
	ret = store_query_int64(&v, 0, st, s, "cannot read records", err);
	*out = v != 0;
	return ret;
}
