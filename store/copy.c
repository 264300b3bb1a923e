/*
 * migrate: a whole history from one database into another, SQLite's or PostgreSQL's either
 * way (sql/copy.sql). Every table is read in its key's order and written row by row, each
 * value as what it is (integer, real, text, blob or NULL), in one transaction on the target;
 * the source is read in one snapshot. Each table's rows are counted and hashed on both sides,
 * from the same statements, before the target commits: a copy that differs is rolled back.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "store/internal.h"

/* The tables in the order the copy writes them (sql/copy.sql says why), with their
 * statements. */
static const struct copy_table {
	const char *name;
	enum sql_stmt read, write;
} copy_tables[STORE_COPY_NTABLES] = {
    {"machines", SQL_COPY_READ_MACHINES, SQL_COPY_WRITE_MACHINES},
    {"benchmarks", SQL_COPY_READ_BENCHMARKS, SQL_COPY_WRITE_BENCHMARKS},
    {"runs", SQL_COPY_READ_RUNS, SQL_COPY_WRITE_RUNS},
    {"records", SQL_COPY_READ_RECORDS, SQL_COPY_WRITE_RECORDS},
    {"metrics", SQL_COPY_READ_METRICS, SQL_COPY_WRITE_METRICS},
    {"tags", SQL_COPY_READ_TAGS, SQL_COPY_WRITE_TAGS},
    {"commits", SQL_COPY_READ_COMMITS, SQL_COPY_WRITE_COMMITS},
    {"lines", SQL_COPY_READ_LINES, SQL_COPY_WRITE_LINES},
    {"line_ends", SQL_COPY_READ_LINE_ENDS, SQL_COPY_WRITE_LINE_ENDS},
    {"line_values", SQL_COPY_READ_LINE_VALUES, SQL_COPY_WRITE_LINE_VALUES},
    {"line_searches", SQL_COPY_READ_LINE_SEARCHES, SQL_COPY_WRITE_LINE_SEARCHES},
    {"alerts", SQL_COPY_READ_ALERTS, SQL_COPY_WRITE_ALERTS},
    {"suspects", SQL_COPY_READ_SUSPECTS, SQL_COPY_WRITE_SUSPECTS},
    {"regressions", SQL_COPY_READ_REGRESSIONS, SQL_COPY_WRITE_REGRESSIONS},
    {"audit", SQL_COPY_READ_AUDIT, SQL_COPY_WRITE_AUDIT},
    {"removed_runs", SQL_COPY_READ_REMOVED_RUNS, SQL_COPY_WRITE_REMOVED_RUNS},
    {"detect_log", SQL_COPY_READ_DETECT_LOG, SQL_COPY_WRITE_DETECT_LOG},
    {"detect_log_runs", SQL_COPY_READ_DETECT_LOG_RUNS, SQL_COPY_WRITE_DETECT_LOG_RUNS},
    {"detect_log_commits", SQL_COPY_READ_DETECT_LOG_COMMITS, SQL_COPY_WRITE_DETECT_LOG_COMMITS},
    {"meta", SQL_COPY_READ_META, SQL_COPY_WRITE_META},
};

/*
 * Adds column i of the current row to the checksum: a type letter, then the value as text
 * (integers in decimal, reals in their shortest round-trip form, text and blobs with their
 * length first). Both databases give the same letters and text for the same stored value.
 */
static void hash_value(struct digest_ctx *ctx, struct store_stmt *s, int i)
{
	char text[40];
	int type = store_column_type(s, i), n;
	size_t len;

	switch (type) {
	case SQLITE_INTEGER:
		n = snprintf(text, sizeof(text), "i%" PRId64 ";", store_column_int64(s, i, 0));
		digest_add(ctx, text, (size_t)n);
		return;
	case SQLITE_FLOAT: {
		char real[DOUBLE_TEXT_MAX];
		format_double(real, store_column_double(s, i), 0);
		digest_add(ctx, "r", 1);
		digest_add(ctx, real, strlen(real));
		digest_add(ctx, ";", 1);
		return;
	}
	case SQLITE_NULL:
		digest_add(ctx, "n;", 2);
		return;
	default:
		/* text and blob alike: a value read back as text or as bytes is the same bytes */
		len = store_column_bytes(s, i);
		n = snprintf(text, sizeof(text), "b%zu:", len);
		digest_add(ctx, text, (size_t)n);
		digest_add(ctx,
			   type == SQLITE_BLOB ? store_column_blob(s, i)
					       : (const void *)store_column_text(s, i, ""),
			   len);
		return;
	}
}

/* Binds column i of the source's current row as parameter i + 1 of the write. */
static void bind_value(struct store_stmt *w, struct store_stmt *r, int i)
{
	switch (store_column_type(r, i)) {
	case SQLITE_INTEGER:
		store_bind_int64(w, i + 1, store_column_int64(r, i, 0));
		break;
	case SQLITE_FLOAT:
		store_bind_double(w, i + 1, store_column_double(r, i));
		break;
	case SQLITE_BLOB:
		store_bind_blob(w, i + 1, store_column_blob(r, i), store_column_bytes(r, i));
		break;
	case SQLITE_NULL:
		store_bind_null(w, i + 1);
		break;
	default:
		store_bind_text_len(w, i + 1, store_column_text(r, i, ""),
				    store_column_bytes(r, i));
		break;
	}
}

/* Reads a table whole, hashing every row, and (when write is not NULL) writes each row with
 * it. */
static int walk_table(struct store_copy_count *out, struct store *st, enum sql_stmt read,
		      struct store *to, struct store_stmt *write, struct bl_error *err)
{
	struct store_stmt *r = store_stmt(st, read, err);
	struct digest_ctx *ctx = NULL;
	int rc, ncols = -1, ret = 0;

	out->rows = 0;
	if (!r)
		return BL_EDB;
	digest_init(&ctx);
	while ((rc = store_step(r)) == STORE_ROW) {
		if (ncols < 0)
			ncols = store_column_count(r);
		for (int i = 0; i < ncols; i++) {
			hash_value(ctx, r, i);
			if (write)
				bind_value(write, r, i);
		}
		digest_add(ctx, "\n", 1);
		if (write && (ret = store_exec(to, write, "cannot write a copied row", err)))
			break;
		out->rows++;
	}
	store_reset(r);
	if (!ret && rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read a table to copy");
	if (digest_finish(out->checksum, ctx) && !ret)
		ret = bl_error_set(err, BL_EINVALID, "cannot compute a checksum");
	return ret;
}

int store_copy(struct store_copy_report *out, struct store *from, struct store *to,
	       store_copy_progress_fn progress, void *data, struct bl_error *err)
{
	struct store_stmt *s;
	int64_t rows = 0;
	int reading = 0, writing = 0, ret = 0;

	memset(out, 0, sizeof(*out));
	if (!(s = store_stmt(to, SQL_COPY_TARGET_ROWS, err)))
		return BL_EDB;
	if ((ret = store_query_int64(&rows, 0, to, s, "cannot count the target's rows", err)))
		return ret;
	if (rows)
		return bl_error_set(err, BL_ECONFLICT,
				    "'%s' already holds a history (%" PRId64
				    " runs, commits and lines): migrate writes only into an empty "
				    "database",
				    store_name(to), rows);
	if ((ret = store_begin_read(from, err)))
		return ret;
	reading = 1;
	if ((ret = store_begin(to, err)))
		goto done;
	writing = 1;
	for (size_t i = 0; i < STORE_COPY_NTABLES; i++) {
		const struct copy_table *t = &copy_tables[i];
		struct store_copy_count *src = &out->tables[i].source;
		struct store_stmt *w;
		out->tables[i].name = t->name;
		if (t->read == SQL_COPY_READ_META) {
			if (!(s = store_stmt(to, SQL_COPY_CLEAR_META, err)) ||
			    (ret = store_exec(to, s, "cannot clear meta", err))) {
				ret = ret ? ret : BL_EDB;
				goto done;
			}
		}
		if (!(w = store_stmt(to, t->write, err))) {
			ret = BL_EDB;
			goto done;
		}
		if ((ret = walk_table(src, from, t->read, to, w, err))) {
			bl_error_prefix(err, "%s", t->name);
			goto done;
		}
		if (progress)
			progress(t->name, src->rows, data);
	}
	if (!(s = store_stmt(to, SQL_COPY_FINISH, err)) ||
	    (ret = store_exec(to, s, "cannot finish the copy", err))) {
		ret = ret ? ret : BL_EDB;
		goto done;
	}
	/* The target read back inside its own transaction: what it would commit. */
	for (size_t i = 0; i < STORE_COPY_NTABLES; i++) {
		struct store_copy_table *t = &out->tables[i];
		if ((ret = walk_table(&t->target, to, copy_tables[i].read, NULL, NULL, err)))
			goto done;
		if (t->target.rows != t->source.rows ||
		    strcmp(t->target.checksum, t->source.checksum)) {
			ret =
			    bl_error_set(err, BL_EDB,
					 "the copy of %s differs: %zu rows (checksum %.12s) read, "
					 "%zu rows (%.12s) written; nothing was stored",
					 t->name, t->source.rows, t->source.checksum,
					 t->target.rows, t->target.checksum);
			goto done;
		}
	}
	ret = store_commit(to, err);
	writing = 0;
done:
	if (writing)
		store_rollback(to);
	if (reading)
		store_end_read(from);
	return ret;
}
