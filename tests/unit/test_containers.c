/* Unit tests for common/containers.c: the hash map, the interner and the index sort. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/common.h"

static void an_empty_map_finds_nothing(void **state)
{
	struct hashmap m = HASHMAP_INIT;
	int64_t v = 7;
	(void)state;
	assert_int_equal(hashmap_get(&m, "a", &v), 0);
	assert_int_equal(hashmap_get(&m, NULL, &v), 0);
	assert_int_equal(hashmap_get_len(&m, "a", 1, &v), 0);
	assert_int_equal(v, 7);
	hashmap_release(&m);
}

static void the_map_keeps_every_key_across_growth(void **state)
{
	struct hashmap m = HASHMAP_INIT;
	enum { N = 20000 };
	char(*keys)[48] = malloc(N * sizeof(*keys));
	int64_t v;
	(void)state;
	/* 40-digit hex keys sharing long prefixes, as commit hashes in a test history do */
	for (int i = 0; i < N; i++) {
		snprintf(keys[i], sizeof(keys[i]), "%040d", i);
		hashmap_put(&m, keys[i], (int64_t)i * 3);
	}
	assert_int_equal(m.nr, N);
	for (int i = 0; i < N; i++) {
		assert_int_equal(hashmap_get(&m, keys[i], &v), 1);
		assert_int_equal(v, (int64_t)i * 3);
		assert_int_equal(hashmap_get_len(&m, keys[i], strlen(keys[i]), &v), 1);
		assert_int_equal(v, (int64_t)i * 3);
	}
	/* a copy of a key finds it: keys are compared, not their addresses */
	assert_int_equal(hashmap_get(&m, "0000000000000000000000000000000000000042", &v), 1);
	assert_int_equal(v, 126);
	assert_int_equal(hashmap_get(&m, "000000000000000000000000000000000000004", &v), 0);
	assert_int_equal(hashmap_get(&m, "x", &v), 0);
	assert_int_equal(hashmap_get(&m, "", &v), 0);
	hashmap_release(&m);
	free(keys);
}

static void a_second_put_replaces_the_value(void **state)
{
	struct hashmap m = HASHMAP_INIT;
	int64_t v;
	(void)state;
	hashmap_put(&m, "", -1);
	hashmap_put(&m, "k", 1);
	hashmap_put(&m, "k", INT64_MIN);
	assert_int_equal(m.nr, 2);
	assert_int_equal(hashmap_get(&m, "k", &v), 1);
	assert_true(v == INT64_MIN);
	assert_int_equal(hashmap_get(&m, "", &v), 1);
	assert_int_equal(v, -1);
	hashmap_release(&m);
	assert_int_equal(m.nr, 0);
	assert_null(m.keys);
}

static void the_interner_numbers_in_first_seen_order(void **state)
{
	struct intern t;
	char buf[8];
	(void)state;
	intern_init(&t);
	assert_int_equal(intern_find(&t, "a"), -1);
	assert_int_equal(intern_find(&t, NULL), -1);
	assert_int_equal(intern_add(&t, "a"), 0);
	assert_int_equal(intern_add(&t, NULL), 1);
	assert_int_equal(intern_add(&t, "b"), 2);
	assert_int_equal(intern_add(&t, "a"), 0);
	assert_int_equal(intern_add(&t, NULL), 1);
	assert_int_equal(t.nr, 3);
	assert_string_equal(t.strings[0], "a");
	assert_null(t.strings[1]);
	assert_int_equal(intern_find(&t, "b"), 2);
	assert_int_equal(intern_find(&t, NULL), 1);
	/* the table keeps its own copy */
	snprintf(buf, sizeof(buf), "c");
	assert_int_equal(intern_add(&t, buf), 3);
	buf[0] = 'd';
	assert_string_equal(t.strings[3], "c");
	assert_int_equal(intern_find(&t, "c"), 3);
	assert_int_equal(intern_find(&t, "d"), -1);
	for (int i = 0; i < 1000; i++) {
		snprintf(buf, sizeof(buf), "n%d", i);
		assert_int_equal(intern_add(&t, buf), 4 + i);
	}
	assert_string_equal(t.strings[4 + 999], "n999");
	assert_int_equal(intern_add(&t, "n500"), 504);
	intern_release(&t);
	assert_int_equal(t.nr, 0);
	assert_int_equal(intern_find(&t, NULL), -1);
	intern_release(&t);
}

struct item {
	int64_t key;
	int pad;
};

static uint64_t rng = 88172645463325252ULL;

static uint64_t next_random(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

/* Whether index orders items by key, ties by index, and is a permutation of 0..n-1. */
static void assert_sorted(const uint32_t *index, const struct item *items, size_t n)
{
	char *seen = calloc(n ? n : 1, 1);
	for (size_t i = 0; i < n; i++) {
		assert_true(index[i] < n);
		assert_false(seen[index[i]]);
		seen[index[i]] = 1;
		if (i) {
			int64_t a = items[index[i - 1]].key, b = items[index[i]].key;
			assert_true(a < b || (a == b && index[i - 1] < index[i]));
		}
	}
	free(seen);
}

static void sort_case(size_t n, int64_t base, uint64_t spread)
{
	struct item *items = calloc(n ? n : 1, sizeof(*items));
	uint32_t *index = calloc(n ? n : 1, sizeof(*index));
	for (size_t i = 0; i < n; i++) {
		items[i].key = (int64_t)((uint64_t)base + (spread ? next_random() % spread : 0));
		items[i].pad = (int)i;
	}
	sort_index_by_int64(index, &items[0].key, sizeof(*items), n);
	assert_sorted(index, items, n);
	free(items);
	free(index);
}

/* A hint only spares the lookup: a wrong one, or one out of range, gives intern_add's number. */
static void a_hint_gives_the_same_numbers(void **state)
{
	struct intern t;
	(void)state;
	intern_init(&t);
	assert_int_equal(intern_add_hint(&t, "a", 0), 0); /* out of range: added */
	assert_int_equal(intern_add_hint(&t, "a", 0), 0); /* the hint */
	assert_int_equal(intern_add_hint(&t, NULL, 0), 1);
	assert_int_equal(intern_add_hint(&t, NULL, 1), 1);
	assert_int_equal(intern_add_hint(&t, "b", 0), 2); /* a wrong hint */
	assert_int_equal(intern_add_hint(&t, "a", 2), 0);
	assert_int_equal(intern_add_hint(&t, NULL, 0), 1); /* NULL against a string */
	assert_int_equal(intern_add_hint(&t, "b", 1), 2);  /* a string against NULL */
	assert_int_equal(intern_add_hint(&t, "b", 99), 2);
	assert_int_equal(t.nr, 3);
	assert_int_equal(intern_find(&t, "b"), 2);
	intern_release(&t);
}

static void the_index_sort_orders_by_key_then_index(void **state)
{
	(void)state;
	sort_case(0, 0, 0);
	sort_case(1, 5, 0);
	sort_case(1000, 7, 0);			/* every key equal: index order */
	sort_case(5000, 1, 10);			/* many ties, one pass */
	sort_case(5000, -1000, 3000);		/* negative keys, two passes */
	sort_case(100000, 1, 1000000);		/* run ids of a large history */
	sort_case(3000, 0, (uint64_t)1 << 31);	/* the widest range the radix sort takes */
	sort_case(3000, -5, (uint64_t)1 << 40); /* too wide: the comparison sort */
	sort_case(100, INT64_MIN, UINT64_MAX);	/* the whole int64 range */
	sort_case(100, INT64_MAX - 100, 100);	/* near the top */
}

static void the_index_sort_reads_keys_by_stride(void **state)
{
	/* keys of a plain array: stride sizeof(int64_t) */
	int64_t keys[] = {30, 10, 20, 10, -5};
	uint32_t index[5];
	(void)state;
	sort_index_by_int64(index, keys, sizeof(keys[0]), 5);
	assert_int_equal(index[0], 4);
	assert_int_equal(index[1], 1);
	assert_int_equal(index[2], 3);
	assert_int_equal(index[3], 2);
	assert_int_equal(index[4], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(an_empty_map_finds_nothing),
	    cmocka_unit_test(the_map_keeps_every_key_across_growth),
	    cmocka_unit_test(a_second_put_replaces_the_value),
	    cmocka_unit_test(the_interner_numbers_in_first_seen_order),
	    cmocka_unit_test(a_hint_gives_the_same_numbers),
	    cmocka_unit_test(the_index_sort_orders_by_key_then_index),
	    cmocka_unit_test(the_index_sort_reads_keys_by_stride),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
