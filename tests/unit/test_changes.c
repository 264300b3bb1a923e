/*
 * Unit tests for the change points of §6.1 (detect/changes.c): PELT checked against an
 * exhaustive search of every partition on small random Series; then hand-made lines for each
 * rule: a descending staircase that jumps back (found), a bimodal runner (not found while it
 * flips; found once it stays on the upper level), a 2-record blip (never), the minimum segment
 * and the 5% filter at their edges, and a penalty setting that changes the answer; a step the
 * band marked gets no second mark; the values a line keeps for the search round-trip.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"
#include "detect/detect.h"

/* The sum of squared deviations from the mean of y[a..b). */
static double sse(const double *y, size_t a, size_t b)
{
	double s = 0, q = 0, n = (double)(b - a);
	for (size_t i = a; i < b; i++) {
		s += y[i];
		q += y[i] * y[i];
	}
	return q - s * s / n;
}

/* The penalised cost of a split of y[0..n) at the given starts. */
static double split_cost(const double *y, size_t n, const size_t *starts, size_t k, double pen)
{
	double c = 0;
	size_t a = 0;
	for (size_t i = 0; i <= k; i++) {
		size_t b = i < k ? starts[i] : n;
		c += sse(y, a, b);
		a = b;
	}
	return c + pen * (double)k;
}

/* The least penalised cost over every split with segments of m or more: every subset of the
 * n - 1 places between records, 2^(n-1) of them. */
static double exhaustive(const double *y, size_t n, size_t m, double pen)
{
	double best = INFINITY;
	for (uint32_t mask = 0; mask < (1u << (n - 1)); mask++) {
		size_t starts[32], k = 0, a = 0;
		int ok = 1;
		for (size_t i = 1; i < n; i++)
			if (mask & (1u << (i - 1))) {
				if (i - a < m)
					ok = 0;
				starts[k++] = i;
				a = i;
			}
		if (!ok || n - a < m)
			continue;
		double c = split_cost(y, n, starts, k, pen);
		if (c < best)
			best = c;
	}
	return best;
}

/* A deterministic generator (xorshift), so a failure can be replayed. */
static uint64_t rng_state;
static double uniform(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (double)(rng_state >> 11) / (double)(1ULL << 53);
}

static void pelt_is_the_optimal_partition(void **state)
{
	(void)state;
	rng_state = 0x9e3779b97f4a7c15ULL;
	for (int trial = 0; trial < 600; trial++) {
		size_t n = 6 + (size_t)(uniform() * 9); /* 6 to 14 */
		size_t m = 1 + (size_t)(uniform() * 4); /* 1 to 4 */
		double y[16], pen = uniform() * 2.0, level = 0;
		size_t out[16], k;
		for (size_t i = 0; i < n; i++) {
			if (uniform() < 0.2)
				level += uniform() * 2 - 1;
			y[i] = level + (uniform() - 0.5) * 0.6;
		}
		k = detect_change_points(out, y, n, pen, m);
		if (n < 2 * m) {
			assert_int_equal((int)k, 0);
			continue;
		}
		/* a valid split ... */
		for (size_t i = 0; i < k; i++) {
			assert_true(out[i] >= (i ? out[i - 1] : 0) + m);
			assert_true(out[i] + m <= n);
		}
		/* ... and the best one */
		double got = split_cost(y, n, out, k, pen), want = exhaustive(y, n, m, pen);
		if (fabs(got - want) > 1e-9 * (1 + fabs(want)))
			fail_msg("trial %d (n %zu, m %zu): PELT %.12g, the best %.12g", trial, n, m,
				 got, want);
	}
}

/* medians[i] with the rule's defaults, lower is better; the changes' indexes as text. */
static void judge(char *out, size_t size, const double *v, size_t n,
		  const struct detect_change_options *o)
{
	struct detect_change c[64];
	size_t k = detect_changes_judge(c, v, n, 0, o), used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < k; i++)
		used +=
		    (size_t)snprintf(out + used, size - used, "%s%zu", i ? " " : "", c[i].index);
}

#define JUDGE(buf, o, ...)                                                                         \
	do {                                                                                       \
		const double v_[] = {__VA_ARGS__};                                                 \
		judge(buf, sizeof(buf), v_, sizeof(v_) / sizeof(v_[0]), o);                        \
	} while (0)

/* asv's Django: the level falls 2.0 -> 1.6 -> 1.0 in pairs (faster), then jumps back to 2.1
 * and stays. The band's window spans both levels; PELT sees "low, then high for 20". */
static void a_staircase_down_then_back_up_is_found(void **state)
{
	char got[256];
	(void)state;
	JUDGE(got, NULL, 2.0, 2.01, 1.99, 2.0, 2.02, 1.98, 2.0, 2.01, 1.6, 1.61, 1.0, 1.01, 0.99,
	      1.0, 2.1, 2.11, 2.09, 2.1, 2.12, 2.1, 2.08, 2.1, 2.11, 2.1, 2.09, 2.1, 2.1, 2.11, 2.1,
	      2.09, 2.1, 2.1, 2.11, 2.1);
	assert_string_equal(got, "14");
}

/* A runner that flips between two tiers at random is no change while it flips (the first
 * differences are large, so is sigma and the penalty); once it stays on the upper tier for 12
 * records, that is a change, found where the stay begins. */
static void a_bimodal_runner(void **state)
{
	char got[256];
	(void)state;
	JUDGE(got, NULL, 1.0, 1.2, 1.0, 1.0, 1.2, 1.2, 1.0, 1.2, 1.0, 1.0, 1.2, 1.0, 1.2, 1.2, 1.0,
	      1.0, 1.2, 1.0, 1.2, 1.0);
	assert_string_equal(got, "");
	JUDGE(got, NULL, 1.0, 1.2, 1.0, 1.0, 1.2, 1.0, 1.0, 1.0, 1.2, 1.0, 1.0, 1.0, 1.0, 1.2, 1.0,
	      1.0, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2, 1.2);
	assert_string_equal(got, "16");
}

/* A blip of 2 records is never a change: segments are 4 records or more. */
static void a_two_record_blip_is_never_a_change(void **state)
{
	char got[256];
	(void)state;
	JUDGE(got, NULL, 100, 101, 99, 100, 100, 101, 99, 100, 140, 141, 100, 101, 99, 100, 100,
	      101, 99, 100, 100, 101);
	assert_string_equal(got, "");
}

/* The 5% filter and the segment's length at their edges: the level after must be at least 5%
 * worse (5.0% counts, 4.9% does not) and last 8 records (8 counts, 7 does not). */
static void the_filters_at_their_edges(void **state)
{
	char got[256];
	(void)state;
	JUDGE(got, NULL, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 105, 105, 105, 105, 105,
	      105, 105, 105);
	assert_string_equal(got, "10");
	JUDGE(got, NULL, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 104.9, 104.9, 104.9,
	      104.9, 104.9, 104.9, 104.9, 104.9);
	assert_string_equal(got, "");
	JUDGE(got, NULL, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 110, 110, 110, 110, 110,
	      110, 110);
	assert_string_equal(got, "");
	/* faster is never a change that counts */
	JUDGE(got, NULL, 100, 100, 100, 100, 100, 100, 100, 100, 100, 100, 80, 80, 80, 80, 80, 80,
	      80, 80);
	assert_string_equal(got, "");
	/* ... unless higher is better */
	{
		const double v[] = {100, 100, 100, 100, 100, 100, 100, 100, 100,
				    100, 80,  80,  80,	80,  80,  80,  80,  80};
		struct detect_change c[8];
		assert_int_equal((int)detect_changes_judge(c, v, 18, 1, NULL), 1);
		assert_int_equal((int)c[0].index, 10);
		assert_true(c[0].shift == -0.2);
	}
	/* a median that is not positive: no opinion */
	JUDGE(got, NULL, 0, 100, 100, 100, 100, 100, 100, 100, 100, 100, 110, 110, 110, 110, 110,
	      110, 110, 110);
	assert_string_equal(got, "");
	/* too short a line to judge at all */
	JUDGE(got, NULL, 100, 100, 100, 110, 110, 110, 110, 110, 110, 110, 110);
	assert_string_equal(got, "");
}

/* A 6% step on a line whose records scatter by +-4%: the default penalty (32) does not split
 * there, a smaller one (quiet.change_penalty 4) does; a larger minimum shift hides it again. */
static void the_penalty_setting_changes_the_answer(void **state)
{
	char got[256];
	struct detect_change_options o = {4, -1};
	double v[40];
	(void)state;
	rng_state = 42;
	for (int i = 0; i < 40; i++)
		v[i] = (i < 20 ? 100 : 106) * (1 + (uniform() - 0.5) * 0.08);
	judge(got, sizeof(got), v, 40, NULL);
	assert_string_equal(got, "");
	judge(got, sizeof(got), v, 40, &o);
	assert_string_equal(
	    got, "21"); /* record 20 happens to scatter low: the split is a record late */
	o.min_shift = 0.2;
	judge(got, sizeof(got), v, 40, &o);
	assert_string_equal(got, "");
}

static void sigma_and_penalty(void **state)
{
	const double y[] = {0, 1, 3, 6, 10}, flips[] = {0, 1, 0, 1, 0};
	const double flat[] = {5, 5, 5, 5, 5, 5};
	(void)state;
	/* differences 1 2 3 4: median 2 (the lower middle), deviations 1 0 1 2, MAD 1 */
	assert_true(fabs(detect_change_sigma(y, 5) - 1.4826 / sqrt(2.0)) < 1e-12);
	/* the penalty: 32 times sigma^2 ln(n) rounded to the nearest power of 2^(1/8) */
	{
		double u = pow(1.4826 / sqrt(2.0), 2) * log(5.0);
		double want = 32 * exp2(round(8 * log2(u)) / 8);
		assert_true(detect_change_penalty(y, 5, 32) == want);
		assert_true(fabs(detect_change_penalty(y, 5, 32) / (32 * u) - 1) <=
			    exp2(1.0 / 16) - 1);
	}
	/* differences 1 -1 1 -1: median -1, deviations 2 0 2 0, MAD 0: the minimum; so too for a
	 * flat line */
	assert_true(detect_change_sigma(flips, 5) == DETECT_CHANGE_MIN_SIGMA);
	assert_true(detect_change_sigma(flat, 6) == DETECT_CHANGE_MIN_SIGMA);
}

/* A clean step the band marks: the search finds it at the same record, and detect gives it no
 * second mark; nor when the band's mark is one record away; two records away it is a second
 * opinion again. A faster mark beside it does not count (it is the other side). */
static void a_step_the_band_marked_gets_no_second_mark(void **state)
{
	double v[40];
	struct detect_verdict verdicts[40];
	struct detect_values vals;
	struct detect_change c[40], hand[1];
	unsigned char marks[40];
	(void)state;
	for (int i = 0; i < 40; i++)
		v[i] = (i < 20 ? 100 : 110) + (i % 3) * 0.1;
	detect_line(verdicts, v, 40);
	assert_true(verdicts[20].marked && verdicts[20].above > 0);
	detect_values_init(&vals);
	for (int i = 0; i < 40; i++)
		detect_values_add(&vals, v[i], i + 1,
				  verdicts[i].marked ? (verdicts[i].above > 0 ? DETECT_VALUE_SLOWER
									      : DETECT_VALUE_FASTER)
						     : DETECT_VALUE_UNMARKED);
	/* the search alone finds the step at record 20 ... */
	assert_int_equal((int)detect_changes_judge(c, v, 40, 0, NULL), 1);
	assert_int_equal((int)c[0].index, 20);
	/* ... which the band marked: no second mark */
	{
		struct detect_fpop st;
		detect_fpop_init(&st);
		assert_int_equal((int)detect_changes_line(c, &vals, 0, NULL, &st), 0);
		detect_fpop_release(&st);
	}
	detect_values_release(&vals);
	/* the edges of "within one record", on hand-made marks */
	hand[0].index = 20;
	for (int at = 17; at <= 23; at++) {
		memset(marks, DETECT_VALUE_UNMARKED, sizeof(marks));
		marks[at] = DETECT_VALUE_SLOWER;
		assert_int_equal((int)detect_changes_unmarked(hand, 1, marks, 40),
				 at >= 19 && at <= 21 ? 0 : 1);
		marks[at] = DETECT_VALUE_FASTER;
		assert_int_equal((int)detect_changes_unmarked(hand, 1, marks, 40), 1);
	}
}

/* Segments of 4 records or more: a 4-record excursion can be a segment of its own, a 3-record
 * one cannot (the split takes a record more); a change counts once the line holds 4 records before
 * it and 8 after (12 in all), not with 3 before. */
static void the_minimum_segment_at_its_edge(void **state)
{
	const double four[] = {0, 0, 0, 0, 5, 5, 5, 5, 0, 0, 0, 0};
	const double three[] = {0, 0, 0, 0, 5, 5, 5, 0, 0, 0, 0, 0};
	size_t out[16], k;
	char got[256];
	(void)state;
	k = detect_change_points(out, four, 12, 1.0, DETECT_CHANGE_MIN_SEGMENT);
	assert_int_equal((int)k, 2);
	assert_int_equal((int)out[0], 4);
	assert_int_equal((int)out[1], 8);
	/* the 3 records cannot end a segment at 7: the nearest split takes one more */
	k = detect_change_points(out, three, 12, 1.0, DETECT_CHANGE_MIN_SEGMENT);
	assert_int_equal((int)k, 2);
	assert_int_equal((int)out[0], 4);
	assert_int_equal((int)out[1], 8);
	/* with segments of 3 allowed it ends at 7 */
	k = detect_change_points(out, three, 12, 1.0, 3);
	assert_int_equal((int)k, 2);
	assert_int_equal((int)out[1], 7);
	/* 4 before, 8 after: found at record 4 */
	JUDGE(got, NULL, 100, 100.1, 99.9, 100, 110, 110.1, 109.9, 110, 110, 110.1, 109.9, 110);
	assert_string_equal(got, "4");
	/* 3 before: too short a line, and no first segment of 3 */
	JUDGE(got, NULL, 100, 100.1, 99.9, 110, 110.1, 109.9, 110, 110, 110.1, 109.9, 110);
	assert_string_equal(got, "");
}

/* The values a line keeps for the search: full chunks and the head (the records after them,
 * the changes, the state) round-trip, run ids that go back (a late record) and far included;
 * broken bytes are refused. */
static void values_round_trip(void **state)
{
	struct detect_values a, b;
	struct strbuf sb = STRBUF_INIT;
	size_t n, *ch, nch;
	const size_t changes[] = {4, 70, 129};
	(void)state;
	detect_values_init(&a);
	detect_values_init(&b);
	for (int i = 0; i < 130; i++)
		detect_values_add(&a, 1.0 / (i + 3), i == 50 ? 7 : (int64_t)i * 1000 + 1,
				  (unsigned char)(i % 3));
	for (size_t k = 0; (k + 1) * DETECT_VALUES_CHUNK <= a.n; k++) {
		strbuf_reset(&sb);
		detect_values_encode(&sb, &a, k * DETECT_VALUES_CHUNK,
				     (k + 1) * DETECT_VALUES_CHUNK);
		assert_int_equal(detect_values_decode(&b, sb.buf, sb.len), 0);
	}
	assert_int_equal((int)b.n, 128);
	/* a chunk cut short is refused */
	{
		struct detect_values c;
		detect_values_init(&c);
		strbuf_reset(&sb);
		detect_values_encode(&sb, &a, 0, DETECT_VALUES_CHUNK);
		assert_int_equal(detect_values_decode(&c, sb.buf, sb.len - 1), BL_EINVALID);
		detect_values_release(&c);
	}
	{
		struct detect_fpop st, back;
		size_t cp[40];
		double y[40];
		detect_fpop_init(&st);
		detect_fpop_init(&back);
		for (int i = 0; i < 40; i++)
			y[i] = (i < 20 ? 0 : 1) + (i % 5) * 0.01;
		detect_change_points_from(cp, y, 40, 0.5, DETECT_CHANGE_MIN_SEGMENT, &st);
		assert_true(st.n == 40 && st.ncand > 0);
		strbuf_reset(&sb);
		detect_values_encode_head(&sb, &a, changes, 3, &st);
		assert_int_equal(
		    detect_values_decode_head(&n, &ch, &nch, &back, &b, sb.buf, sb.len), 0);
		assert_int_equal((int)n, 130);
		assert_int_equal((int)b.n, 130);
		assert_memory_equal(a.median, b.median, 130 * sizeof(double));
		assert_memory_equal(a.run_id, b.run_id, 130 * sizeof(int64_t));
		assert_memory_equal(a.mark, b.mark, 130);
		assert_int_equal((int)nch, 3);
		assert_memory_equal(ch, changes, sizeof(changes));
		free(ch);
		assert_int_equal((int)back.n, 40);
		assert_true(back.penalty == st.penalty && back.ps == st.ps && back.pq == st.pq);
		assert_int_equal((int)back.ncand, (int)st.ncand);
		for (size_t k = 0; k < st.ncand; k++) {
			assert_int_equal((int)back.cand[k].t, (int)st.cand[k].t);
			assert_int_equal((int)back.cand[k].nchain, (int)st.cand[k].nchain);
			assert_memory_equal(back.cand[k].chain, st.cand[k].chain,
					    st.cand[k].nchain * sizeof(size_t));
			assert_int_equal((int)back.cand[k].nz, (int)st.cand[k].nz);
			assert_memory_equal(back.cand[k].z, st.cand[k].z,
					    2 * st.cand[k].nz * sizeof(double));
		}
		/* a change past the end, a record left over, or a head of other values, is no
		 * head */
		{
			struct detect_values short_a = a;
			short_a.n = 100;
			strbuf_reset(&sb);
			detect_values_encode_head(&sb, &short_a, changes, 3, NULL);
			b.n = 64;
			assert_int_equal(
			    detect_values_decode_head(&n, &ch, &nch, &back, &b, sb.buf, sb.len),
			    BL_EINVALID);
		}
		strbuf_reset(&sb);
		detect_values_encode_head(&sb, &a, changes, 3, &st);
		b.n = 128;
		strbuf_add(&sb, sb.buf + sb.len - 9, 9);
		assert_int_equal(
		    detect_values_decode_head(&n, &ch, &nch, &back, &b, sb.buf, sb.len),
		    BL_EINVALID);
		b.n = 64;
		strbuf_setlen(&sb, sb.len - 9);
		assert_int_equal(
		    detect_values_decode_head(&n, &ch, &nch, &back, &b, sb.buf, sb.len),
		    BL_EINVALID);
		/* nor is one cut short */
		b.n = 128;
		strbuf_setlen(&sb, sb.len - 3);
		assert_int_equal(
		    detect_values_decode_head(&n, &ch, &nch, &back, &b, sb.buf, sb.len),
		    BL_EINVALID);
		detect_fpop_release(&st);
		detect_fpop_release(&back);
	}
	strbuf_release(&sb);
	detect_values_release(&a);
	detect_values_release(&b);
}

/* The search of a growing line, record by record, each time going on from where the last left
 * off (through its stored form: the head and the values' chunks), finds exactly what a search
 * of the whole line from its start finds, bit for bit: the same changes, the same splits of
 * every prefix, the same state. Lines with steps, drifts and noise, some of whose records
 * change the rounded penalty (and start the search over) and most of which do not. */
static void going_on_is_searching_from_the_start(void **state)
{
	(void)state;
	rng_state = 0x2545f4914f6cdd1dULL;
	int went_on = 0, started_over = 0;
	for (int trial = 0; trial < 40; trial++) {
		size_t n = 30 + (size_t)(uniform() * 150);
		double *m = xmalloc(n * sizeof(*m)), level = 100;
		struct detect_values grown, whole;
		struct detect_fpop st, st_whole;
		struct detect_change *c1 = xmalloc(n * sizeof(*c1)), *c2 = xmalloc(n * sizeof(*c2));
		size_t k1 = 0, k2;
		double noise = trial % 3 == 0 ? 0.001 : 0.02;
		for (size_t i = 0; i < n; i++) {
			if (uniform() < 0.03)
				level *= 0.8 + uniform() * 0.5;
			m[i] = level * (1 + (uniform() - 0.5) * noise);
		}
		detect_values_init(&grown);
		detect_fpop_init(&st);
		for (size_t i = 0; i < n; i++) {
			struct strbuf sb = STRBUF_INIT;
			struct detect_values back;
			size_t hn, *hch, hnch;
			double before = st.penalty;
			size_t had = st.n;
			detect_values_add(&grown, m[i], (int64_t)i + 1, DETECT_VALUE_UNMARKED);
			k1 = detect_changes_line(c1, &grown, 0, NULL, &st);
			if (had && st.n && st.penalty == before)
				went_on++;
			else if (had)
				started_over++;
			/* stored and read back, as detect keeps them between runs: the full
			 * chunks, then the head */
			detect_values_init(&back);
			for (size_t k = 0; (k + 1) * DETECT_VALUES_CHUNK <= grown.n; k++) {
				strbuf_reset(&sb);
				detect_values_encode(&sb, &grown, k * DETECT_VALUES_CHUNK,
						     (k + 1) * DETECT_VALUES_CHUNK);
				assert_int_equal(detect_values_decode(&back, sb.buf, sb.len), 0);
			}
			strbuf_reset(&sb);
			detect_values_encode_head(&sb, &grown, NULL, 0, &st);
			assert_int_equal(
			    detect_values_decode_head(&hn, &hch, &hnch, &st, &back, sb.buf, sb.len),
			    0);
			assert_int_equal((int)hn, (int)grown.n);
			assert_int_equal((int)back.n, (int)grown.n);
			detect_values_release(&grown);
			grown = back;
			strbuf_release(&sb);
		}
		detect_values_init(&whole);
		detect_fpop_init(&st_whole);
		for (size_t i = 0; i < n; i++)
			detect_values_add(&whole, m[i], (int64_t)i + 1, DETECT_VALUE_UNMARKED);
		k2 = detect_changes_line(c2, &whole, 0, NULL, &st_whole);
		assert_int_equal((int)k1, (int)k2);
		for (size_t k = 0; k < k1; k++) {
			assert_int_equal((int)c1[k].index, (int)c2[k].index);
			assert_true(c1[k].shift == c2[k].shift);
		}
		if (st_whole.n) {
			assert_true(st.penalty == st_whole.penalty && st.ps == st_whole.ps &&
				    st.pq == st_whole.pq && st.ncand == st_whole.ncand);
			/* the same splits of every prefix the state keeps */
			for (size_t k = 0; k < st.ncand; k++) {
				assert_int_equal((int)st.cand[k].t, (int)st_whole.cand[k].t);
				assert_int_equal((int)st.cand[k].nchain,
						 (int)st_whole.cand[k].nchain);
				assert_memory_equal(st.cand[k].chain, st_whole.cand[k].chain,
						    st.cand[k].nchain * sizeof(size_t));
			}
			for (size_t i = 0; i < DETECT_CHANGE_MIN_SEGMENT; i++) {
				assert_int_equal((int)st.tail[i].nchain,
						 (int)st_whole.tail[i].nchain);
				assert_memory_equal(st.tail[i].chain, st_whole.tail[i].chain,
						    st.tail[i].nchain * sizeof(size_t));
			}
		}
		detect_values_release(&grown);
		detect_values_release(&whole);
		detect_fpop_release(&st);
		detect_fpop_release(&st_whole);
		free(m);
		free(c1);
		free(c2);
	}
	/* both ways were taken */
	assert_true(went_on > 100);
	assert_true(started_over > 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(pelt_is_the_optimal_partition),
	    cmocka_unit_test(sigma_and_penalty),
	    cmocka_unit_test(a_staircase_down_then_back_up_is_found),
	    cmocka_unit_test(a_bimodal_runner),
	    cmocka_unit_test(a_two_record_blip_is_never_a_change),
	    cmocka_unit_test(the_filters_at_their_edges),
	    cmocka_unit_test(the_penalty_setting_changes_the_answer),
	    cmocka_unit_test(a_step_the_band_marked_gets_no_second_mark),
	    cmocka_unit_test(the_minimum_segment_at_its_edge),
	    cmocka_unit_test(values_round_trip),
	    cmocka_unit_test(going_on_is_searching_from_the_start),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
