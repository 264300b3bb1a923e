/*
 * Bucket ladders (§8), the pure part: where a value lies on a ladder, the bound and detection
 * floor that follow from it, the floor signature, the AND rule for one reading, and reading
 * ladder definitions from JSON. No I/O; docs/ladder.md explains the arithmetic with a worked
 * example. The files and the four `benchline ladder` operations are in files.c.
 */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/ladder/ladder.h"

void ladder_bucket_locate(struct ladder_bucket *out, const struct ladder *l, double value)
{
	size_t lo = 0, hi = l->n;

	/* The first edge at or above value: buckets are (lo, hi], so a value equal to an edge
	 * belongs to the bucket that edge closes. */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (l->edges[mid] < value)
			lo = mid + 1;
		else
			hi = mid;
	}
	out->index = lo;
	out->lo = lo > 0 && l->n ? l->edges[lo - 1] : NAN;
	out->hi = lo < l->n ? l->edges[lo] : NAN;
	out->hi_next = lo + 1 < l->n ? l->edges[lo + 1] : NAN;
	out->top = isnan(out->hi_next);
	if (isnan(value)) {
		/* NAN compares false with every edge: it lies nowhere. */
		out->index = l->n;
		out->lo = out->hi = out->hi_next = NAN;
		out->top = 1;
	}
}

double ladder_bound(const struct ladder *l, double baseline)
{
	struct ladder_bucket b;
	ladder_bucket_locate(&b, l, baseline);
	return b.top ? NAN : b.hi_next - baseline;
}

double ladder_floor(const struct ladder *l, double baseline)
{
	struct ladder_bucket b;
	if (!(baseline > 0))
		return NAN;
	ladder_bucket_locate(&b, l, baseline);
	return b.top ? NAN : b.hi_next / baseline;
}

int ladder_floor_signature(const struct ladder *l, double q, double value)
{
	if (!l->n || isnan(q) || isnan(value))
		return 0;
	/* fma rounds the exact product once, so this is the double nearest q * edge whatever
	 * FLT_EVAL_METHOD says: the value a histogram's interpolation in its first bucket (from 0
	 * to the first edge) prints. Equality is exact on purpose: one ulp off is a latency. */
	return fma(q, l->edges[0], 0.0) == value;
}

int ladder_regressed(double baseline, double current, double max_abs, double max_pct)
{
	double delta = current - baseline;
	int over_abs, over_pct;

	if (isnan(baseline) || isnan(current))
		return 0;
	/* A percentage of a baseline that is not positive means nothing: the absolute bound
	 * decides alone (without it, 0 -> 500 would pass every AND). */
	if (!(baseline > 0))
		return !isnan(max_abs) && delta > max_abs;
	if (isnan(max_abs) && isnan(max_pct))
		return 0;
	over_abs = isnan(max_abs) || delta > max_abs;
	over_pct = isnan(max_pct) || 100.0 * delta / baseline > max_pct;
	return over_abs && over_pct;
}

void ladder_set_init(struct ladder_set *set)
{
	memset(set, 0, sizeof(*set));
}

void ladder_set_release(struct ladder_set *set)
{
	for (size_t i = 0; i < set->n; i++) {
		free(set->ladders[i].name);
		free(set->ladders[i].unit);
		free(set->ladders[i].edges);
	}
	free(set->ladders);
	for (size_t i = 0; i < set->ncategories; i++) {
		free(set->categories[i]);
		free(set->category_ladder[i]);
	}
	free(set->categories);
	free(set->category_ladder);
	ladder_set_init(set);
}

const char *ladder_type_name(const struct json_t *v)
{
	if (!v)
		return "missing";
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		break;
	}
	return "null";
}

/* One ladder {"unit": "ms", "edges": [...]} into l (name already set). */
static int ladder_from_json(struct ladder *l, const json_t *v, const char *file,
			    struct bl_error *err)
{
	const char *key;
	json_t *val, *unit, *edges;
	size_t i, n;

	if (!json_is_object(v))
		return bl_error_set(err, BL_EINVALID, "%s: %s: a ladder must be an object, not %s",
				    file, l->name, ladder_type_name(v));
	json_object_foreach ((json_t *)v, key, val) {
		if (strcmp(key, "unit") && strcmp(key, "edges"))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: unknown key '%s' (a ladder has \"unit\" and "
					    "\"edges\")",
					    file, l->name, key);
	}
	unit = json_object_get(v, "unit");
	if (!json_is_string(unit) || !json_string_length(unit))
		return bl_error_set(err, BL_EINVALID,
				    "%s: %s: \"unit\" must be a non-empty string, not %s", file,
				    l->name, ladder_type_name(unit));
	edges = json_object_get(v, "edges");
	if (!json_is_array(edges))
		return bl_error_set(err, BL_EINVALID, "%s: %s: \"edges\" must be an array, not %s",
				    file, l->name, ladder_type_name(edges));
	n = json_array_size(edges);
	if (n < 2)
		return bl_error_set(err, BL_EINVALID,
				    "%s: %s: \"edges\" needs at least 2 edges, has %zu", file,
				    l->name, n);
	l->unit = xstrdup(json_string_value(unit));
	l->edges = xcalloc(n, sizeof(*l->edges));
	l->n = n;
	for (i = 0; i < n; i++) {
		json_t *e = json_array_get(edges, i);
		char a[DOUBLE_TEXT_MAX], b[DOUBLE_TEXT_MAX];
		double x;
		if (!json_is_number(e))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: edge %zu must be a number, not %s", file,
					    l->name, i + 1, ladder_type_name(e));
		x = json_number_value(e);
		if (!(x > 0) || !isfinite(x))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: edge %zu (%s) must be positive", file, l->name,
					    i + 1, format_double(a, x, 0));
		if (i && !(x > l->edges[i - 1]))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: edges must be strictly increasing: edge %zu "
					    "(%s) is not above edge %zu (%s)",
					    file, l->name, i + 1, format_double(a, x, 0), i,
					    format_double(b, l->edges[i - 1], 0));
		l->edges[i] = x;
	}
	return 0;
}

int ladder_set_from_json(struct ladder_set *set, const json_t *ladders, const char *file,
			 struct bl_error *err)
{
	const char *name;
	json_t *v;
	size_t alloc = set->n;

	if (!json_is_object(ladders))
		return bl_error_set(err, BL_EINVALID, "%s: ladders: must be an object, not %s",
				    file, ladder_type_name(ladders));
	json_object_foreach ((json_t *)ladders, name, v) {
		struct ladder *l;
		int ret;
		if (ladder_find(set, name))
			return bl_error_set(err, BL_EINVALID, "%s: %s: ladder defined twice", file,
					    name);
		ALLOC_GROW(set->ladders, set->n, alloc);
		l = &set->ladders[set->n++];
		memset(l, 0, sizeof(*l));
		l->name = xstrdup(name);
		/* Kept in the set even when broken, so release frees what it holds. */
		if ((ret = ladder_from_json(l, v, file, err)))
			return ret;
	}
	return 0;
}

const struct ladder *ladder_find(const struct ladder_set *set, const char *name)
{
	for (size_t i = 0; i < set->n; i++)
		if (!strcmp(set->ladders[i].name, name))
			return &set->ladders[i];
	return NULL;
}

int ladder_quantile(double *q, const char *suffix, struct bl_error *err)
{
	char text[24];
	size_t n = strlen(suffix);

	*q = NAN;
	if (suffix[0] != 'p' || n < 2 || n > 16 || strspn(suffix + 1, "0123456789") != n - 1)
		return bl_error_set(err, BL_EINVALID,
				    "'%s' is not a quantile (p followed by digits: p50, p95, p999)",
				    suffix);
	/* The digits are a decimal fraction: p95 is 0.95, p999 0.999; one digit is hundredths
	 * (p5 is 0.05). A longer spelling ending in 0 would be another name of a shorter one
	 * (p500 is p50), and p100 would read as 0.100: both are refused. */
	if (n > 3 && suffix[n - 1] == '0') {
		size_t short_len = n;
		while (short_len > 3 && suffix[short_len - 1] == '0')
			short_len--;
		return bl_error_set(err, BL_EINVALID,
				    "'%s' reads as 0.%s: write it p%.*s (there is no p100)", suffix,
				    suffix + 1, (int)(short_len - 1), suffix + 1);
	}
	snprintf(text, sizeof(text), "0.%s%s", n == 2 ? "0" : "", suffix + 1);
	*q = strtod(text, NULL);
	if (!(*q > 0))
		return bl_error_set(err, BL_EINVALID, "'%s' is not a quantile: it is 0", suffix);
	return 0;
}

int ladder_key_parse(struct ladder_key *out, const char *key, struct bl_error *err)
{
	const char *first = strchr(key, '.'), *last = strrchr(key, '.');
	int ret;

	memset(out, 0, sizeof(*out));
	out->q = NAN;
	if (!first || first == last || first == key || last == first + 1)
		return bl_error_set(err, BL_EINVALID,
				    "not a key of the form {category}.{name}.p{quantile}");
	out->category_len = (size_t)(first - key);
	out->group_len = (size_t)(last - key);
	out->suffix = last + 1;
	if ((ret = ladder_quantile(&out->q, out->suffix, err)))
		return ret;
	return 0;
}

/* Powers of ten of the time units, the only units a bound may be converted between. */
static int time_unit_exp(const char *unit, int *exp)
{
	static const struct {
		const char *name;
		int exp;
	} units[] = {{"s", 0}, {"ms", -3}, {"us", -6}, {"ns", -9}};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(units[i].name, unit)) {
			*exp = units[i].exp;
			return 1;
		}
	return 0;
}

int ladder_unit_convert(double *out, double v, const char *from, const char *to)
{
	int ef, et, d;
	double scale = 1;

	*out = v;
	if (!strcmp(from, to))
		return 0;
	if (!time_unit_exp(from, &ef) || !time_unit_exp(to, &et))
		return BL_EINVALID;
	d = ef - et;
	for (int i = 0; i < (d < 0 ? -d : d); i++)
		scale *= 10;
	/* Multiplying or dividing by an exact power of ten rounds once. */
	*out = d >= 0 ? v * scale : v / scale;
	return 0;
}
