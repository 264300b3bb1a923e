/*
 * Unit tests for common/names.c: each enum's (and the better direction's) names round-trip, nothing
 * else parses, and the database's CHECK constraints (sql/001-init.sql, sql/002-detect.sql) admit
 * exactly these names, so what the store writes it can read back.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "store/store.h"
#include "tests/unit/unit_store.h"

static void names_round_trip(void **state)
{
	enum metric_kind k;
	enum suspect_side side;
	enum suspect_state st;
	(void)state;
	for (int i = METRIC_TIMED; i <= METRIC_QUANTILE; i++) {
		assert_int_equal(metric_kind_parse(&k, metric_kind_name((enum metric_kind)i)), 0);
		assert_int_equal(k, i);
	}
	for (int i = SUSPECT_SLOWER; i <= SUSPECT_FASTER; i++) {
		assert_int_equal(suspect_side_parse(&side, suspect_side_name((enum suspect_side)i)),
				 0);
		assert_int_equal(side, i);
	}
	for (int i = SUSPECT_OPEN; i <= SUSPECT_PENDING; i++) {
		assert_int_equal(
		    suspect_state_parse(&st, suspect_state_name((enum suspect_state)i)), 0);
		assert_int_equal(st, i);
	}
	for (int i = SUSPECT_BAND; i <= SUSPECT_CHANGE_POINT; i++) {
		enum suspect_kind kind;
		assert_int_equal(suspect_kind_parse(&kind, suspect_kind_name((enum suspect_kind)i)),
				 0);
		assert_int_equal(kind, i);
	}
	assert_string_equal(suspect_kind_name(SUSPECT_BAND), "band");
	assert_string_equal(suspect_kind_name(SUSPECT_CHANGE_POINT), "change-point");
	for (int i = 0; i <= 1; i++) {
		int higher = -1;
		assert_int_equal(metric_better_parse(&higher, metric_better_name(i)), 0);
		assert_int_equal(higher, i);
	}
	assert_string_equal(metric_better_name(0), "lower");
	assert_string_equal(metric_better_name(1), "higher");
	assert_string_equal(metric_kind_name(METRIC_TIMED), "timed");
	assert_string_equal(metric_kind_name(METRIC_COUNTED), "counted");
	assert_string_equal(metric_kind_name(METRIC_QUANTILE), "quantile");
	assert_string_equal(suspect_side_name(SUSPECT_SLOWER), "slower");
	assert_string_equal(suspect_side_name(SUSPECT_FASTER), "faster");
	assert_string_equal(suspect_state_name(SUSPECT_OPEN), "open");
	assert_string_equal(suspect_state_name(SUSPECT_COVERED), "covered");
	assert_string_equal(suspect_state_name(SUSPECT_TRANSIENT), "transient");
	for (int i = ALERT_CLEARED; i <= ALERT_TRANSIENT; i++) {
		enum alert_outcome o;
		assert_int_equal(alert_outcome_parse(&o, alert_outcome_name((enum alert_outcome)i)),
				 0);
		assert_int_equal(o, i);
	}
	assert_null(alert_outcome_name(ALERT_NO_OUTCOME));
	/* the stored fingerprints hold these numbers */
	assert_int_equal(METRIC_TIMED, 0);
	assert_int_equal(METRIC_COUNTED, 1);
	assert_int_equal(METRIC_QUANTILE, 2);
}

static void nothing_else_parses(void **state)
{
	enum metric_kind k = METRIC_COUNTED;
	enum suspect_side side = SUSPECT_FASTER;
	enum suspect_state st = SUSPECT_CLEARED;
	int higher = 7;
	(void)state;
	assert_int_equal(metric_kind_parse(&k, "Timed"), BL_EINVALID);
	assert_int_equal(metric_kind_parse(&k, ""), BL_EINVALID);
	assert_int_equal(metric_kind_parse(&k, NULL), BL_EINVALID);
	assert_int_equal(metric_better_parse(&higher, "up"), BL_EINVALID);
	assert_int_equal(metric_better_parse(&higher, NULL), BL_EINVALID);
	assert_int_equal(higher, 7);
	assert_int_equal(suspect_side_parse(&side, "same"), BL_EINVALID);
	assert_int_equal(suspect_state_parse(&st, "opened"), BL_EINVALID);
	assert_int_equal(suspect_state_parse(&st, NULL), BL_EINVALID);
	/* a failed parse leaves the value alone */
	assert_int_equal(k, METRIC_COUNTED);
	assert_int_equal(side, SUSPECT_FASTER);
	assert_int_equal(st, SUSPECT_CLEARED);
	assert_string_equal(metric_kind_name((enum metric_kind)7), "?");
}

/* The line-break rule: first, then harness, then content (NULL differs from any hash), then a
 * Baseline, in that order of precedence. */
static void line_breaks(void **state)
{
	enum line_break b = LINE_FIRST;
	(void)state;
	assert_int_equal(line_break_at(0, 3, "a", 4, "b", 1), LINE_FIRST);
	assert_int_equal(line_break_at(1, 3, "a", 4, "b", 1), LINE_HARNESS);
	assert_int_equal(line_break_at(1, 3, "a", 3, "b", 1), LINE_CONTENT);
	assert_int_equal(line_break_at(1, 3, NULL, 3, "a", 0), LINE_CONTENT);
	assert_int_equal(line_break_at(1, 3, "a", 3, NULL, 0), LINE_CONTENT);
	assert_int_equal(line_break_at(1, 3, "a", 3, "a", 1), LINE_BASELINE);
	assert_int_equal(line_break_at(1, 3, NULL, 3, NULL, 1), LINE_BASELINE);
	assert_int_equal(line_break_at(1, 3, "a", 3, "a", 0), LINE_CONTINUES);
	assert_int_equal(line_break_at(1, 3, NULL, 3, NULL, 0), LINE_CONTINUES);
	for (int i = LINE_FIRST; i <= LINE_PINNED; i++) {
		assert_int_equal(line_break_parse(&b, line_break_name((enum line_break)i)), 0);
		assert_int_equal(b, i);
	}
	assert_null(line_break_name(LINE_CONTINUES));
	assert_string_equal(line_break_name(LINE_CONTENT), "content");
	assert_int_equal(line_break_parse(&b, ""), BL_EINVALID);
	assert_int_equal(line_break_parse(&b, "none"), BL_EINVALID);
	assert_int_equal(b, LINE_PINNED); /* a failed parse left the last one */
}

/* Whether the schema takes value in column (a CHECK refuses what it does not admit): sql with
 * every ?1 the value as a literal. On PostgreSQL, which always checks foreign keys, the
 * session replays as a replica does, so that only the CHECKs judge there too. */
static int admits(const char *path, const char *sql, const char *value)
{
	struct strbuf text = STRBUF_INIT;
	char *done;
	if (unit_store_is_pg(path))
		strbuf_addstr(&text, "SET session_replication_role = replica; ");
	for (const char *p = sql; *p; p++) {
		if (p[0] == '?' && p[1] == '1') {
			strbuf_addf(&text, "'%s'", value);
			p++;
		} else {
			strbuf_addch(&text, *p);
		}
	}
	done = unit_sql(path, text.buf);
	strbuf_release(&text);
	free(done);
	return done != NULL;
}

static void the_schema_admits_exactly_these_names(void **state)
{
	static const char metric_sql[] = "INSERT INTO metrics (run_id, name, kind, unit, better) "
					 "VALUES (1, ?1, ?1, '', 'lower')";
	static const char reason_sql[] =
	    "INSERT INTO lines (machine_id, benchmark_id, config, metric, line, reason, "
	    "start_run_id,"
	    " start_commit, harness_version) VALUES (1, 1, ?1, '', 0, ?1, 1, '', 1)";
	static const char better_sql[] = "INSERT INTO metrics (run_id, name, kind, unit, better) "
					 "VALUES (1, 'b' || ?1, 'timed', '', ?1)";
	static const char side_sql[] =
	    "INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, median,"
	    " center, tolerance, created_at) VALUES (1, ?1, 1, 1, '', ?1, 1, 1, 1, 0)";
	static const char kind_sql[] =
	    "INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, median,"
	    " center, tolerance, kind, created_at)"
	    " VALUES (3, ?1, 1, 1, '', 'slower', 1, 1, 1, ?1, 0)";
	static const char state_sql[] =
	    "INSERT INTO suspects (run_id, metric, machine_id, benchmark_id, config, side, median,"
	    " center, tolerance, state, created_at)"
	    " VALUES (2, ?1, 1, 1, '', 'slower', 1, 1, 1, ?1, 0)";
	struct store *st;
	char path[160];
	(void)state;
	st = unit_store_open(path, sizeof(path), "test_names");
	store_free(st);
	/* a plain connection: foreign keys are off, so only the CHECKs judge */
	const char *h = path;
	for (int i = METRIC_TIMED; i <= METRIC_QUANTILE; i++)
		assert_true(admits(h, metric_sql, metric_kind_name((enum metric_kind)i)));
	assert_false(admits(h, metric_sql, "sampled"));
	for (int i = 0; i <= 1; i++)
		assert_true(admits(h, better_sql, metric_better_name(i)));
	for (int i = LINE_FIRST; i <= LINE_PINNED; i++)
		assert_true(admits(h, reason_sql, line_break_name((enum line_break)i)));
	assert_false(admits(h, reason_sql, "rebased"));
	assert_false(admits(h, better_sql, "up"));
	for (int i = SUSPECT_SLOWER; i <= SUSPECT_FASTER; i++)
		assert_true(admits(h, side_sql, suspect_side_name((enum suspect_side)i)));
	assert_false(admits(h, side_sql, "same"));
	for (int i = SUSPECT_OPEN; i <= SUSPECT_PENDING; i++)
		assert_true(admits(h, state_sql, suspect_state_name((enum suspect_state)i)));
	assert_false(admits(h, state_sql, "closed"));
	for (int i = SUSPECT_BAND; i <= SUSPECT_CHANGE_POINT; i++)
		assert_true(admits(h, kind_sql, suspect_kind_name((enum suspect_kind)i)));
	assert_false(admits(h, kind_sql, "changepoint"));
	unit_store_close(NULL, path);
}

/* The names a column's CHECK (COLUMN IN ('a', 'b', ...)) lists in TABLE's schema, each followed
 * by a space, in the schema's order; or those of CHECK (COLUMN = 'a' OR COLUMN = 'b' ...), the
 * form sql/005-insert-path.sql gives lists of more than two (no temporary table per row). */
static void schema_names(struct strbuf *out, const char *h, const char *table, const char *column)
{
	struct strbuf want = STRBUF_INIT, query = STRBUF_INIT;
	const char *p;
	char *sql;
	if (unit_store_is_pg(h)) {
		/* PostgreSQL keeps the CHECK it was given as pg_get_constraintdef writes it:
		 * CHECK ((kind = ANY (ARRAY['timed'::text, ...]))) or CHECK (((kind = 'a'::text)
		 * OR ...)); every quoted name of the column's CHECK, in order. */
		strbuf_addf(&query,
			    "SELECT pg_get_constraintdef(oid) FROM pg_constraint WHERE contype = "
			    "'c' AND conrelid = '%s'::regclass AND pg_get_constraintdef(oid) LIKE "
			    "'%%(%s = %%'",
			    table, column);
		sql = unit_sql(h, query.buf);
		assert_non_null(sql);
		assert_true(*sql);
		p = sql;
	} else {
		strbuf_addf(&query, "SELECT sql FROM sqlite_schema WHERE name = '%s'", table);
		sql = unit_sql(h, query.buf);
		assert_non_null(sql);
		strbuf_addf(&want, "CHECK (%s IN (", column);
		p = strstr(sql, want.buf);
		if (!p) {
			strbuf_reset(&want);
			strbuf_addf(&want, "CHECK (%s = ", column);
			p = strstr(sql, want.buf);
		}
		assert_non_null(p);
		p += want.len;
	}
	for (; *p && (unit_store_is_pg(h) || *p != ')'); p++) {
		const char *end;
		if (*p != '\'')
			continue;
		end = strchr(p + 1, '\'');
		assert_non_null(end);
		strbuf_add(out, p + 1, (size_t)(end - p - 1));
		strbuf_addch(out, ' ');
		p = end;
	}
	free(sql);
	strbuf_release(&want);
	strbuf_release(&query);
}

/* The other way round: every name the schema admits is one the program has, so nothing it can
 * store reads back as unknown. The lists are compared in the schema's order, which is the
 * enums'. */
static void the_schema_lists_no_name_the_program_lacks(void **state)
{
	struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
	struct store *st;
	char path[160];
	const char *h = path;
	(void)state;
	st = unit_store_open(path, sizeof(path), "test_names");
	store_free(st);

	for (int i = METRIC_TIMED; i <= METRIC_QUANTILE; i++)
		strbuf_addf(&want, "%s ", metric_kind_name((enum metric_kind)i));
	schema_names(&got, h, "metrics", "kind");
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s %s ", metric_better_name(0), metric_better_name(1));
	schema_names(&got, h, "metrics", "better");
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	for (int i = LINE_FIRST; i <= LINE_PINNED; i++)
		strbuf_addf(&want, "%s ", line_break_name((enum line_break)i));
	schema_names(&got, h, "lines", "reason");
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	for (int i = SUSPECT_SLOWER; i <= SUSPECT_FASTER; i++)
		strbuf_addf(&want, "%s ", suspect_side_name((enum suspect_side)i));
	schema_names(&got, h, "suspects", "side");
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	for (int i = SUSPECT_OPEN; i <= SUSPECT_PENDING; i++)
		strbuf_addf(&want, "%s ", suspect_state_name((enum suspect_state)i));
	schema_names(&got, h, "suspects", "state");
	assert_string_equal(got.buf, want.buf);
	strbuf_reset(&got);
	schema_names(&got, h, "alerts", "state"); /* a Suspect's state is its alert's */
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	for (int i = SUSPECT_BAND; i <= SUSPECT_CHANGE_POINT; i++)
		strbuf_addf(&want, "%s ", suspect_kind_name((enum suspect_kind)i));
	schema_names(&got, h, "suspects", "kind");
	assert_string_equal(got.buf, want.buf);

	strbuf_reset(&got);
	strbuf_reset(&want);
	for (int i = ALERT_CLEARED; i <= ALERT_TRANSIENT; i++)
		strbuf_addf(&want, "%s ", alert_outcome_name((enum alert_outcome)i));
	schema_names(&got, h, "alerts", "outcome");
	assert_string_equal(got.buf, want.buf);

	unit_store_close(NULL, path);
	strbuf_release(&got);
	strbuf_release(&want);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(names_round_trip),
	    cmocka_unit_test(nothing_else_parses),
	    cmocka_unit_test(line_breaks),
	    cmocka_unit_test(the_schema_admits_exactly_these_names),
	    cmocka_unit_test(the_schema_lists_no_name_the_program_lacks),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
