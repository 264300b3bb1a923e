/*
 * Containers (common/common.h): a string-keyed hash map, an interner built on it, and a radix
 * sort of an index by 64-bit keys. Written for store/'s full read of a million records, where
 * each is called once per record or metric: no allocation per call, no indirection per pass.
 */
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

/* A fast hash of len bytes, eight at a time (the keys are mostly 40-digit hex hashes). */
static uint64_t hashmap_hash(const char *s, size_t len)
{
	uint64_t h = 0x9e3779b97f4a7c15ULL ^ len;
	while (len >= 8) {
		uint64_t w;
		memcpy(&w, s, 8);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
		h ^= h >> 32;
		s += 8;
		len -= 8;
	}
	if (len) {
		uint64_t w = 0;
		memcpy(&w, s, len);
		h = (h ^ w) * 0xff51afd7ed558ccdULL;
	}
	h ^= h >> 29;
	h *= 0xc4ceb9fe1a85ec53ULL;
	return h ^ (h >> 32);
}

void hashmap_release(struct hashmap *m)
{
	free(m->keys);
	free(m->hashes);
	free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* The slot of key: where it is, or the empty slot where it would go (cap is a power of 2 and
 * at least twice nr, so there is always an empty one). */
static size_t hashmap_slot(const struct hashmap *m, const char *key, uint64_t h)
{
	size_t i = (size_t)h & (m->cap - 1);
	while (m->keys[i] && (m->hashes[i] != h || strcmp(m->keys[i], key)))
		i = (i + 1) & (m->cap - 1);
	return i;
}

int hashmap_get_len(const struct hashmap *m, const char *key, size_t len, int64_t *val)
{
	size_t i;
	if (!m->nr || !key)
		return 0;
	i = hashmap_slot(m, key, hashmap_hash(key, len));
	if (!m->keys[i])
		return 0;
	*val = m->vals[i];
	return 1;
}

int hashmap_get(const struct hashmap *m, const char *key, int64_t *val)
{
	return key && hashmap_get_len(m, key, strlen(key), val);
}

/* Puts key, whose hash is h, at its slot: growing first re-slots the keys by their kept hashes,
 * never hashing them again. */
static void put_hashed(struct hashmap *m, const char *key, uint64_t h, int64_t val)
{
	size_t i;
	if ((m->nr + 1) * 2 > m->cap) {
		struct hashmap bigger = HASHMAP_INIT;
		bigger.cap = m->cap ? m->cap * 2 : 64;
		bigger.keys = xcalloc(bigger.cap, sizeof(*bigger.keys));
		bigger.hashes = xcalloc(bigger.cap, sizeof(*bigger.hashes));
		bigger.vals = xcalloc(bigger.cap, sizeof(*bigger.vals));
		for (size_t j = 0; j < m->cap; j++)
			if (m->keys[j])
				put_hashed(&bigger, m->keys[j], m->hashes[j], m->vals[j]);
		hashmap_release(m);
		*m = bigger;
	}
	i = hashmap_slot(m, key, h);
	if (!m->keys[i]) {
		m->keys[i] = key;
		m->hashes[i] = h;
		m->nr++;
	}
	m->vals[i] = val;
}

void hashmap_put(struct hashmap *m, const char *key, int64_t val)
{
	put_hashed(m, key, hashmap_hash(key, strlen(key)), val);
}

void intern_init(struct intern *t)
{
	memset(t, 0, sizeof(*t));
	t->null_index = -1;
}

int64_t intern_find(const struct intern *t, const char *s)
{
	int64_t v;
	if (!s)
		return t->null_index;
	return hashmap_get(&t->index, s, &v) ? v : -1;
}

uint32_t intern_add(struct intern *t, const char *s)
{
	int64_t v = intern_find(t, s);
	if (v >= 0)
		return (uint32_t)v;
	ALLOC_GROW(t->strings, t->nr, t->alloc);
	if (s) {
		/* The map's key is the table's own copy, which never moves. */
		t->strings[t->nr] = xstrdup(s);
		hashmap_put(&t->index, t->strings[t->nr], (int64_t)t->nr);
	} else {
		t->strings[t->nr] = NULL;
		t->null_index = (int64_t)t->nr;
	}
	return (uint32_t)t->nr++;
}

uint32_t intern_add_hint(struct intern *t, const char *s, uint32_t hint)
{
	if (hint < t->nr) {
		const char *h = t->strings[hint];
		if (s ? h && !strcmp(s, h) : !h)
			return hint;
	}
	return intern_add(t, s);
}

void intern_release(struct intern *t)
{
	strings_free(t->strings, t->nr);
	hashmap_release(&t->index);
	intern_init(t);
}

static int64_t key_at(const int64_t *keys, size_t stride, size_t i)
{
	int64_t k;
	memcpy(&k, (const char *)keys + i * stride, sizeof(k));
	return k;
}

struct index_keys {
	const int64_t *keys;
	size_t stride;
};

static int index_cmp(const void *a, const void *b, void *data)
{
	const struct index_keys *ik = data;
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	int64_t x = key_at(ik->keys, ik->stride, i), y = key_at(ik->keys, ik->stride, j);
	if (x != y)
		return x < y ? -1 : 1;
	return i < j ? -1 : i > j;
}

void sort_index_by_int64(uint32_t *index, const int64_t *keys, size_t stride, size_t n)
{
	uint64_t *a, *tmp;
	uint64_t range;
	int64_t lo, hi;
	size_t count[2048];

	if (!n)
		return;
	lo = hi = key_at(keys, stride, 0);
	for (size_t i = 1; i < n; i++) {
		int64_t k = key_at(keys, stride, i);
		if (k < lo)
			lo = k;
		if (k > hi)
			hi = k;
	}
	range = (uint64_t)hi - (uint64_t)lo;
	if (range >> 32) {
		/* Keys 2^32 or more apart do not fit beside the index in one word. */
		struct index_keys ik = {keys, stride};
		for (size_t i = 0; i < n; i++)
			index[i] = (uint32_t)i;
		qsort_r(index, n, sizeof(*index), index_cmp, &ik);
		return;
	}
	/* Each entry one word: the key's offset from the smallest above the index. The passes
	 * are stable and the index starts in order, so ties keep index order. */
	a = xmalloc(n * sizeof(*a));
	tmp = xmalloc(n * sizeof(*tmp));
	for (size_t i = 0; i < n; i++)
		a[i] = ((uint64_t)key_at(keys, stride, i) - (uint64_t)lo) << 32 | i;
	for (int shift = 32; shift < 64 && (range >> (shift - 32)); shift += 11) {
		size_t sum = 0;
		uint64_t *t;
		memset(count, 0, sizeof(count));
		for (size_t i = 0; i < n; i++)
			count[(a[i] >> shift) & 2047]++;
		for (size_t k = 0; k < 2048; k++) {
			size_t c = count[k];
			count[k] = sum;
			sum += c;
		}
		for (size_t i = 0; i < n; i++)
			tmp[count[(a[i] >> shift) & 2047]++] = a[i];
		t = a;
		a = tmp;
		tmp = t;
	}
	for (size_t i = 0; i < n; i++)
		index[i] = (uint32_t)a[i];
	free(a);
	free(tmp);
}

int cmp_strp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}
