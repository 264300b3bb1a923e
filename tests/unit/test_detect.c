/*
 * Unit tests for detect/: the §6 band, table-driven, each case small enough to check by hand
 * (the comments do the arithmetic); then lines, breaks and tags through a real database.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <git2.h>

#include "common/common.h"
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "ingest/adapters/adapters.h"
#include "store/store.h"
#include "detect/ladder/ladder.h"
#include "detect/stats/stats.h"
#include "tests/unit/unit_store.h"

#define MAXN 32

/* One case: medians in line order and what the band says of each: '.' not judged (fewer than
 * 3 before), '-' judged and inside, 'S' / 'F' marked above / below its center, 'c' outside but
 * continuing a marked step. */
struct rule_case {
	const char *name;
	double m[MAXN];
	size_t n;
	const char *want;
};

static const struct rule_case rule_cases[] = {
    /* 0, 1, 2 before: never judged, however wild. 3 before: {50, 100, 150} -> center 100,
     * |w - c| = {50, 0, 50} -> MAD 50, tolerance max(200, 3) = 200; 1000 is 900 out. */
    {"fewer than 3 before", {100, 150, 50, 1000}, 4, "...S"},
    /* Odd window {100, 100, 100}: MAD 0, so the 3% floor: tolerance 3. 103 is not over it
     * (strictly outside only), 104 is. */
    {"the 3% floor, strict", {100, 100, 100, 103}, 4, "...-"},
    {"the 3% floor when MAD is 0", {100, 100, 100, 104}, 4, "...S"},
    {"the floor of a larger center", {200, 200, 200, 200, 200, 206}, 6, "...---"},
    {"over the floor", {200, 200, 200, 200, 200, 206.5}, 6, "...--S"},
    /* Odd window {110, 100, 112} -> sorted {100, 110, 112}: center 110, deviations
     * {0, 10, 2} -> 2, tolerance max(8, 3.3) = 8; 102 is 8 out: inside. Then the even
     * window {110, 100, 112, 102} -> sorted {100, 102, 110, 112}: the lower middle, 102 (not
     * 106); deviations {8, 2, 10, 0} -> {0, 2, 8, 10} -> 2; tolerance max(8, 3.06) = 8, and
     * 113.5 is 11.5 out. Around 106 it would be 7.5 out of a wider band: not marked. */
    {"even window: lower middle", {110, 100, 112, 102, 113.5}, 5, "...-S"},
    /* The same window, 109.9 is 7.9 out: inside. */
    {"even window: inside", {110, 100, 112, 102, 109.9}, 5, "...--"},
    /* A step of several records: 120 after five 100s is out by 20 (tolerance 3); the next
     * ones stay out (the window's median lags) but continue it: within 3 of 120, same side.
     * Once five of the eight are 120 the center is 120 and they are inside. */
    {"a step of several records",
     {100, 100, 100, 100, 100, 120, 120, 120, 120, 120, 120},
     11,
     "...--Scccc-"},
    /* A noisy record between two of the same step falls back inside (101); the 120 after it
     * still continues the marked 120. */
    {"a noisy record inside a step", {100, 100, 100, 100, 100, 120, 101, 120}, 8, "...--S-c"},
    /* A second step on the same side: 110 is marked, then 125 is 15 from it, over the marked
     * record's tolerance (3): marked again, though the first is among its 8 before. */
    {"a second step on the same side",
     {100, 100, 100, 100, 100, 110, 110, 110, 110, 110, 110, 110, 125},
     13,
     "...--Scccc--S"},
    /* A step back: up to 120, then down to 100 once the window is all 120 (center 120,
     * tolerance 3.6): below, the other side of the marked 120, so marked. */
    {"a step back",
     {100, 100, 100, 100, 100, 120, 120, 120, 120, 120, 120, 120, 120, 100},
     14,
     "...--Scccc---F"},
    /* A faster step is marked the same way. */
    {"a faster step", {100, 100, 100, 100, 100, 80, 80}, 7, "...--Fc"},
    /* The blind spot: an outlier (112) takes the mark, and the step that follows it on the
     * same side and within its tolerance reads as continuing it. */
    {"a step right after an outlier",
     {100, 100, 100, 100, 100, 112, 100, 112, 112},
     9,
     "...--S-cc"},
    /* Window {90, 100, 110}: center 100, deviations {10, 0, 10} -> {0, 10, 10} -> 10,
     * tolerance 40: 100 is inside. Then {90, 100, 110, 100} -> center 100, deviations
     * {0, 0, 10, 10} -> the lower middle, 0: the floor, 3, and 96 is 4 below. Half the window
     * agreeing exactly makes the band as narrow as the floor. */
    {"half the window agrees", {90, 100, 110, 100, 96}, 5, "...-F"},
    /* Alternating levels: {90, 110, 90} -> center 90, deviations {0, 0, 20} -> 0, tolerance
     * 2.7: 110 is marked; {90, 110, 90, 110} -> the lower middle 90 again, deviation 0: the
     * next 110 continues it. */
    {"alternating", {90, 110, 90, 110, 110}, 5, "...Sc"},
    /* Noise of 5 on 100: window {95, 105, 100, 97, 103} -> center 100, deviations
     * {5, 5, 0, 3, 3} -> {0, 3, 3, 5, 5} -> 3; tolerance 12. 111 is inside, 113 outside. */
    {"the band follows the noise", {95, 105, 100, 97, 103, 111}, 6, "...---"},
    {"the band follows the noise, out", {95, 105, 100, 97, 103, 113}, 6, "...--S"},
    /* The worked example of docs/detection.md, row by row there. */
    {"the worked example",
     {100, 102, 99, 101, 100, 98, 113, 114, 100, 112, 128, 127},
     12,
     "...---Sc-cSc"},
};

static char verdict_char(const struct detect_verdict *v)
{
	if (!v->judged)
		return '.';
	if (v->marked)
		return v->above > 0 ? 'S' : 'F';
	if (v->continues)
		return 'c';
	return v->outside ? '?' : '-';
}

static void the_rule_table(void **state)
{
	(void)state;
	for (size_t k = 0; k < sizeof(rule_cases) / sizeof(rule_cases[0]); k++) {
		const struct rule_case *c = &rule_cases[k];
		struct detect_verdict v[MAXN];
		char got[MAXN + 1];
		detect_line(v, c->m, c->n);
		for (size_t i = 0; i < c->n; i++)
			got[i] = verdict_char(&v[i]);
		got[c->n] = '\0';
		if (strcmp(got, c->want))
			fail_msg("%s: got %s, want %s", c->name, got, c->want);
	}
}

static void the_numbers_of_a_mark(void **state)
{
	double even[] = {110, 100, 112, 102, 113.5}, back[] = {120, 120, 120, 100};
	struct detect_verdict v[5];
	(void)state;
	detect_line(v, even, 5);
	assert_true(v[4].marked);
	assert_true(v[4].center == 102);
	assert_true(v[4].deviation == 2);
	assert_true(v[4].tolerance == 8);
	assert_true(fabs(v[4].shift - 11.5 / 102) < 1e-15);
	assert_int_equal(v[4].above, 1);
	detect_line(v, back, 4);
	assert_true(v[3].marked);
	assert_true(v[3].center == 120);
	assert_true(fabs(v[3].tolerance - 3.6) < 1e-12);
	assert_true(fabs(v[3].shift + 20.0 / 120) < 1e-15);
	assert_int_equal(v[3].above, -1);
}

static void slower_and_faster(void **state)
{
	(void)state;
	/* lower is better: above the center is slower */
	assert_true(detect_is_slower(1, 0));
	assert_false(detect_is_slower(-1, 0));
	/* better: higher flips it */
	assert_false(detect_is_slower(1, 1));
	assert_true(detect_is_slower(-1, 1));
}

static void zero_center_has_no_shift(void **state)
{
	double m[] = {0, 0, 0, 5};
	struct detect_verdict v[4];
	(void)state;
	detect_line(v, m, 4);
	assert_true(v[3].marked);
	assert_true(isnan(v[3].shift));
}

/* A deterministic PRNG for the property tests. */
static uint64_t rng = 88172645463325252ULL;
static double next_unit(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (double)(rng >> 11) / 9007199254740992.0;
}

/* A line continued from an encoded and decoded tail is judged exactly as a walk from its
 * start: what lets `detect` add a record to a line without reading the line. */
static void a_line_continues_from_its_tail(void **state)
{
	(void)state;
	for (int trial = 0; trial < 2000; trial++) {
		double m[40], level = 1000;
		size_t n = 5 + (size_t)(next_unit() * 35), cut = (size_t)(next_unit() * (double)n);
		struct detect_verdict whole[40], part;
		struct detect_tail t, back;
		struct strbuf enc = STRBUF_INIT;
		for (size_t i = 0; i < n; i++) {
			if (next_unit() < 0.1)
				level *= next_unit() < 0.5 ? 1.1 : 0.9;
			m[i] = round(level * (1 + 0.04 * (next_unit() - 0.5)) * 10) / 10;
		}
		detect_line(whole, m, n);
		detect_tail_init(&t);
		for (size_t i = 0; i < cut; i++)
			detect_step(&part, &t, m[i], (int64_t)i + 1, DETECT_FLOOR);
		detect_tail_encode(&enc, &t);
		assert_int_equal(detect_tail_decode(&back, enc.buf, enc.len), 0);
		for (size_t i = cut; i < n; i++) {
			detect_step(&part, &back, m[i], (int64_t)i + 1, DETECT_FLOOR);
			assert_int_equal(part.judged, whole[i].judged);
			assert_int_equal(part.marked, whole[i].marked);
			assert_int_equal(part.continues, whole[i].continues);
			/* The alert facts survive the bytes too. */
			assert_int_equal(part.reference_id, whole[i].reference_id);
			assert_int_equal(part.follows_id, whole[i].follows_id);
			assert_int_equal((int)part.nfollowed, (int)whole[i].nfollowed);
			for (size_t k = 0; k < part.nfollowed; k++) {
				assert_int_equal(part.followed[k].id, whole[i].followed[k].id);
				assert_int_equal(part.followed[k].followers,
						 whole[i].followed[k].followers);
				assert_int_equal(part.followed[k].persisted,
						 whole[i].followed[k].persisted);
			}
			assert_int_equal(part.evicted.id, whole[i].evicted.id);
			assert_int_equal(part.evicted.persisted, whole[i].evicted.persisted);
			if (part.judged) {
				assert_true(part.center == whole[i].center);
				assert_true(part.tolerance == whole[i].tolerance);
			}
		}
		strbuf_release(&enc);
	}
}

/*
 * What §9.1 reads off a mark: the reference (the last record before it inside its band, not
 * simply its predecessor), the earlier Suspect whose level it continues, and how its followers
 * behaved (transient: back inside within the first records; a step: they stay beyond).
 */
static void the_alert_facts_of_a_mark(void **state)
{
	struct detect_verdict v[16];
	(void)state;
	/* An excursion at index 4 (id 5), back at once: the follower is not beyond its edge. */
	{
		double m[] = {100, 101, 99, 100, 120, 100, 100};
		detect_line(v, m, 7);
		assert_true(v[4].marked);
		assert_int_equal(v[4].reference_id, 4);
		assert_int_equal(v[4].follows_id, 0);
		assert_int_equal((int)v[5].nfollowed, 1);
		assert_int_equal(v[5].followed[0].id, 5);
		assert_int_equal(v[5].followed[0].followers, 1);
		assert_int_equal(v[5].followed[0].persisted, 0);
		assert_int_equal(v[6].followed[0].followers, 2);
		assert_int_equal(v[6].followed[0].persisted, 0);
	}
	/* A step that holds: every follower beyond; after 8 the mark leaves the window with its
	 * final counts. */
	{
		double m[] = {100, 101, 99, 100, 120, 121, 119, 120, 120, 121, 120, 119, 120};
		detect_line(v, m, 13);
		assert_true(v[4].marked);
		for (int i = 5; i < 12; i++) {
			assert_int_equal(v[i].followed[0].id, 5);
			assert_int_equal(v[i].followed[0].persisted, i - 4);
		}
		assert_int_equal(v[12].evicted.id, 5);
		assert_int_equal(v[12].evicted.followers, 8);
		assert_int_equal(v[12].evicted.persisted, 8);
	}
	/* A staircase: 110 was marked, 121 is too far from 110 to continue its level (10%), so
	 * §6 marks it again; its reference is the last record inside its band, 100, not 110
	 * before it. No record came back between the two (there is none): one excursion, so it
	 * joins 110's alert. */
	{
		double m[] = {100, 101, 99, 100, 100, 110, 121};
		detect_line(v, m, 7);
		assert_true(v[5].marked);
		assert_true(v[6].marked);
		assert_int_equal(v[6].reference_id, 5); /* the 100 at index 4 */
		assert_int_equal(v[6].follows_id, 6);	/* one excursion with 110 */
	}
	/* The same staircase with records between the steps: while they all stay beyond 110's
	 * edge (103), the second step joins; one that came back breaks the excursion, and a
	 * second step far from the first level is then an event of its own. */
	{
		double m[] = {100, 101, 99, 100, 100, 110, 111, 109, 124};
		detect_line(v, m, 9);
		assert_true(v[5].marked);
		assert_false(v[6].marked); /* 111 and 109 continue 110's level */
		assert_false(v[7].marked);
		assert_true(v[8].marked);
		assert_int_equal(v[8].follows_id, 6);
	}
	{
		double m[] = {100, 101, 99, 100, 100, 110, 100, 109, 124};
		detect_line(v, m, 9);
		assert_true(v[5].marked);
		assert_true(v[8].marked);
		assert_int_equal(v[8].follows_id, 0); /* 100 came back between 110 and 124 */
	}
	/* A repeat mark: 123.5 is past 120's tolerance (3, the old level's 3%), so §6 marks it
	 * again, but it is within 3% of 120 itself: the same step, the same alert. */
	{
		double m[] = {100, 101, 99, 100, 100, 120, 100, 100, 123.5};
		detect_line(v, m, 9);
		assert_true(v[5].marked);
		assert_true(v[8].marked);
		assert_int_equal(v[8].follows_id, 6);
		assert_int_equal(v[6].followed[0].persisted, 0);
	}
}

/* The window's order statistics kept incrementally match a sort of the window. */
static void the_sorted_window_matches_a_sort(void **state)
{
	(void)state;
	for (int trial = 0; trial < 500; trial++) {
		struct detect_tail t;
		struct detect_verdict v;
		detect_tail_init(&t);
		for (int i = 0; i < 30; i++) {
			double w[DETECT_WINDOW], c, dev[DETECT_WINDOW], x = floor(next_unit() * 20);
			size_t n = t.n;
			memcpy(w, t.median, n * sizeof(double));
			c = stats_nr_median(w, n);
			for (size_t k = 0; k < n; k++)
				dev[k] = fabs(t.median[k] - c);
			detect_step(&v, &t, x, 1, DETECT_FLOOR);
			if (n >= DETECT_MIN_WINDOW) {
				assert_true(v.center == c);
				assert_true(v.deviation == stats_nr_median(dev, n));
			}
		}
	}
}

static void bad_tails_are_refused(void **state)
{
	struct detect_tail t;
	unsigned char too_many[1] = {9}, short_one[5] = {1, 0, 0, 0, 0};
	unsigned char bad_mark[18] = {1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7};
	(void)state;
	assert_int_equal(detect_tail_decode(&t, too_many, 1), BL_EINVALID);
	assert_int_equal(detect_tail_decode(&t, short_one, 5), BL_EINVALID);
	assert_int_equal(detect_tail_decode(&t, bad_mark, 18), BL_EINVALID);
	assert_int_equal(detect_tail_decode(&t, NULL, 0), 0);
	assert_int_equal((int)t.n, 0);
}

/* Through a database: records ingested as native JSON, then detect_run. */
struct db {
	char path[160];
	struct store *st;
	int day;
};

static void db_open(struct db *db)
{
	db->st = unit_store_open(db->path, sizeof(db->path), "test_detect");
	db->day = 0;
}

static void db_close(struct db *db)
{
	unit_store_close(db->st, db->path);
}

/* One record a day of the Series m1/town/cfg gpu_us: extra JSON is pasted at the top level. */
static void db_add(struct db *db, double median, int harness, const char *content,
		   const char *extra, const char *better)
{
	struct ingest_batch batch = {NULL, 0, 0};
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf json = STRBUF_INIT;
	int day = ++db->day;
	strbuf_addf(
	    &json,
	    "{\"schema\": 1, \"machine\": \"m1\", \"benchmark\": \"town\", \"config\": \"cfg\","
	    " \"harness_version\": %d, \"content_hash\": \"%s\", %s"
	    " \"source\": {\"commit\": \"%040d\", \"source_hash\": \"%040d\"},"
	    " \"started_at\": \"2026-01-01T00:00:00Z\","
	    " \"metrics\": {\"gpu_us\": {\"kind\": \"timed\", \"unit\": \"us\","
	    " \"better\": \"%s\", \"median\": %.17g}}}",
	    harness, content, extra ? extra : "", day, day, better ? better : "lower", median);
	/* One day apart: placed by time in this order (no commits are synced). */
	{
		char date[32];
		snprintf(date, sizeof(date), "2026-%02d-%02dT00:00:00Z", 1 + day / 28,
			 1 + day % 28);
		char *at = strstr(json.buf, "2026-01-01T00:00:00Z");
		memcpy(at, date, strlen(date));
	}
	if (adapters_parse_native(&batch, "test", json.buf, json.len, &err) ||
	    ingest_store(db->st, &batch, NULL, NULL, NULL, &err))
		fail_msg("%s", err.msg.buf);
	ingest_batch_release(&batch);
	strbuf_release(&json);
	bl_error_release(&err);
}

struct marks {
	char s[256];
};

static int collect(const struct store_suspect *s, void *data)
{
	struct marks *m = data;
	size_t n = strlen(m->s);
	snprintf(m->s + n, sizeof(m->s) - n, "%s%s", n ? " " : "", suspect_side_name(s->side));
	return 0;
}

static void db_detect(struct db *db, struct marks *out, int all)
{
	struct detect_options opts;
	struct detect_result res;
	struct bl_error err = BL_ERROR_INIT;
	memset(&opts, 0, sizeof(opts));
	opts.all = all;
	if (detect_run(&res, db->st, &opts, &err) ||
	    store_each_suspect(db->st, 0, collect, out, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
}

static void a_break_resets_the_window(void **state)
{
	struct db db;
	struct marks m = {""};
	(void)state;
	db_open(&db);
	for (int i = 0; i < 5; i++)
		db_add(&db, 100, 1, "aa", NULL, NULL);
	/* harness 2: a new line. 150 would be a step on the old line; here it is the first
	 * record of the new one, and the next two have fewer than 3 before. */
	for (int i = 0; i < 4; i++)
		db_add(&db, 150, 2, "aa", NULL, NULL);
	/* content bb: a new line again; then an imported Baseline starts one too */
	for (int i = 0; i < 4; i++)
		db_add(&db, 200, 2, "bb", NULL, NULL);
	db_add(&db, 250, 2, "bb", "\"baseline\": true,", NULL);
	db_add(&db, 250, 2, "bb", NULL, NULL);
	db_add(&db, 250, 2, "bb", NULL, NULL);
	db_add(&db, 250, 2, "bb", NULL, NULL);
	db_detect(&db, &m, 0);
	assert_string_equal(m.s, "");
	/* Without breaks, each of those would be a step: the same values on one line. */
	db_add(&db, 300, 2, "bb", NULL, NULL);
	db_detect(&db, &m, 0);
	assert_string_equal(m.s, "slower");
	db_close(&db);
}

static void tagged_runs_are_not_on_the_line(void **state)
{
	struct db db;
	struct marks m = {""};
	(void)state;
	/* A debug build and a busy machine: neither is on the Series, so neither is judged (300
	 * and 50 would be marked) nor in the window of the records after them. */
	db_open(&db);
	for (int i = 0; i < 5; i++)
		db_add(&db, 100, 1, "aa", NULL, NULL);
	db_add(&db, 300, 1, "aa", "\"profile\": \"debug\",", NULL);
	db_add(&db, 50, 1, "aa", "\"preflight\": {\"quiet\": false},", NULL);
	db_add(&db, 101, 1, "aa", NULL, NULL);
	db_add(&db, 104, 1, "aa", NULL, NULL);
	db_detect(&db, &m, 0);
	assert_string_equal(m.s, "slower");
	db_close(&db);
}

static void better_higher_in_a_database(void **state)
{
	struct db db;
	struct marks m = {""};
	(void)state;
	db_open(&db);
	for (int i = 0; i < 5; i++)
		db_add(&db, 100, 1, "aa", NULL, "higher");
	db_add(&db, 90, 1, "aa", NULL, "higher"); /* lower throughput: slower */
	for (int i = 0; i < 8; i++)
		db_add(&db, 90, 1, "aa", NULL, "higher");
	db_add(&db, 110, 1, "aa", NULL, "higher"); /* higher: faster */
	db_detect(&db, &m, 0);
	assert_string_equal(m.s, "slower faster");
	db_close(&db);
}

static void incremental_equals_a_rebuild(void **state)
{
	struct db db;
	struct marks inc = {""}, all = {""};
	(void)state;
	db_open(&db);
	for (int i = 0; i < 60; i++) {
		double level = i < 20 ? 100 : i < 40 ? 130 : 90;
		db_add(&db, level + (i % 3), i < 30 ? 1 : 2, "aa", NULL, NULL);
		if (i % 7 == 0) {
			inc.s[0] = '\0';
			db_detect(&db, &inc, 0);
		}
	}
	inc.s[0] = '\0';
	db_detect(&db, &inc, 0);
	db_detect(&db, &all, 1);
	assert_string_equal(inc.s, all.s);
	assert_string_equal(inc.s, "slower faster");
	db_close(&db);
}

/* A histogram quantile with a ladder (§8): a step is only a reading past the bucket above its
 * center's own, or under the edge below the bucket beneath it. */
static void a_quantile_steps_by_its_ladder(void **state)
{
	double edges[] = {0.01, 0.05, 0.1, 0.5, 1, 5, 10, 50};
	struct ladder l = {(char *)"ms", (char *)"ms", edges, 8};
	/* the center stays 0.70 to 0.72, in (0.5, 1]: 4.9 (up to hi_next 5) is not a step,
	 * 5.01 against center 0.71 is (5.01 - 0.71 > 5 - 0.71), 5.5 continues it; 0.2 (one
	 * bucket down) is not a step, 0.09 (under 0.1) is */
	double m[] = {0.70, 0.72, 0.69, 0.71, 4.9, 5.01, 5.5, 0.70, 0.2, 0.70, 0.09};
	const char *want = "...--S c - - - F";
	struct detect_tail t;
	struct detect_verdict v;
	char got[32];
	size_t k = 0;
	(void)state;
	detect_tail_init(&t);
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++) {
		detect_step_ladder(&v, &t, m[i], 1, &l);
		got[k++] = !v.judged	 ? '.'
			   : v.marked	 ? (v.above > 0 ? 'S' : 'F')
			   : v.continues ? 'c'
					 : '-';
		if (i == 5) {
			/* the mark's tolerance is hi_next - center */
			assert_true(fabs(v.center - 0.71) < 1e-12);
			assert_true(fabs(v.tolerance - 4.29) < 1e-12);
		}
		if (i >= 5 && i + 1 < sizeof(m) / sizeof(m[0]))
			got[k++] = ' ';
	}
	got[k] = 0;
	assert_string_equal(got, want);

	/* a center in the top bucket cannot step up; in the first bucket it cannot step down */
	detect_tail_init(&t);
	for (int i = 0; i < 4; i++)
		detect_step_ladder(&v, &t, 60, 1, &l);
	detect_step_ladder(&v, &t, 6000, 1, &l);
	assert_true(v.judged && !v.outside);
	detect_tail_init(&t);
	for (int i = 0; i < 4; i++)
		detect_step_ladder(&v, &t, 0.008, 1, &l);
	detect_step_ladder(&v, &t, 0.0001, 1, &l);
	assert_true(v.judged && !v.outside);
	detect_step_ladder(&v, &t, 0.06, 1, &l); /* past 0.05, the top of (0.01, 0.05] */
	assert_true(v.marked && v.above > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(a_quantile_steps_by_its_ladder),
	    cmocka_unit_test(the_rule_table),
	    cmocka_unit_test(the_numbers_of_a_mark),
	    cmocka_unit_test(slower_and_faster),
	    cmocka_unit_test(zero_center_has_no_shift),
	    cmocka_unit_test(a_line_continues_from_its_tail),
	    cmocka_unit_test(the_sorted_window_matches_a_sort),
	    cmocka_unit_test(bad_tails_are_refused),
	    cmocka_unit_test(the_alert_facts_of_a_mark),
	    cmocka_unit_test(a_break_resets_the_window),
	    cmocka_unit_test(tagged_runs_are_not_on_the_line),
	    cmocka_unit_test(better_higher_in_a_database),
	    cmocka_unit_test(incremental_equals_a_rebuild),
	};
	int ret;
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
