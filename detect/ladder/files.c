/*
 * Bucket ladders (§8), the files: reading baselines, captured runs, ladders, thresholds and
 * declared keys (every malformed file is refused as `FILE: KEY: what is wrong`), and the four
 * operations of `benchline ladder` as functions that return their findings: derive, check,
 * compare, floors. Nothing here prints; cli/cmd_ladder.c does. The JSON this writes is in one
 * format (sorted keys, 2-space indent, shortest round-trip reals, trailing newline), so a
 * printed capture can be pasted as a baseline byte for byte.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/ladder/ladder.h"

/* --- JSON out ------------------------------------------------------------------------------ */

static void indent(struct strbuf *sb, int depth)
{
	for (int i = 0; i < depth * 2; i++)
		strbuf_addch(sb, ' ');
}

static void dump_value(struct strbuf *sb, const json_t *v, int depth)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT: {
		size_t n = json_object_size(v), i = 0;
		const char **keys;
		const char *key;
		json_t *child;
		if (!n) {
			strbuf_addstr(sb, "{}");
			break;
		}
		keys = xcalloc(n, sizeof(*keys));
		json_object_foreach ((json_t *)v, key, child) {
			keys[i++] = key;
		}
		qsort(keys, n, sizeof(*keys), cmp_strp);
		strbuf_addstr(sb, "{\n");
		for (i = 0; i < n; i++) {
			indent(sb, depth + 1);
			strbuf_add_json_string(sb, keys[i]);
			strbuf_addstr(sb, ": ");
			dump_value(sb, json_object_get(v, keys[i]), depth + 1);
			strbuf_addstr(sb, i + 1 < n ? ",\n" : "\n");
		}
		indent(sb, depth);
		strbuf_addch(sb, '}');
		free(keys);
		break;
	}
	case JSON_ARRAY: {
		size_t n = json_array_size(v);
		if (!n) {
			strbuf_addstr(sb, "[]");
			break;
		}
		strbuf_addstr(sb, "[\n");
		for (size_t i = 0; i < n; i++) {
			indent(sb, depth + 1);
			dump_value(sb, json_array_get(v, i), depth + 1);
			strbuf_addstr(sb, i + 1 < n ? ",\n" : "\n");
		}
		indent(sb, depth);
		strbuf_addch(sb, ']');
		break;
	}
	default:
		strbuf_add_json_scalar(sb, v, DOUBLE_POINT_ZERO);
		break;
	}
}

void ladder_json_dump(struct strbuf *sb, const json_t *doc)
{
	dump_value(sb, doc, 0);
	strbuf_addch(sb, '\n');
}

/* --- JSON in ------------------------------------------------------------------------------- */

/* Parses text as one JSON object; jansson's errors as FILE:LINE:COLUMN: message. */
static int load_object(json_t **out, const char *file, const char *text, size_t len,
		       struct bl_error *err)
{
	json_error_t jerr;
	json_t *root = json_loadb(text, len, JSON_REJECT_DUPLICATES, &jerr);
	*out = NULL;
	if (!root) {
		if (jerr.line > 0)
			return bl_error_set(err, BL_EINVALID, "%s:%d:%d: %s", file, jerr.line,
					    jerr.column, jerr.text);
		return bl_error_set(err, BL_EINVALID, "%s: %s", file, jerr.text);
	}
	if (!json_is_object(root)) {
		json_decref(root);
		return bl_error_set(err, BL_EINVALID, "%s: expected a JSON object", file);
	}
	*out = root;
	return 0;
}

static int read_text(struct strbuf *text, const char *path, struct bl_error *err)
{
	return read_file_capped(text, path, LADDER_FILE_MAX, err);
}

/* Keys starting with "_" at the top level of every file are notes for people (the derivation
 * table among them): every reader skips them. */
static int is_note(const char *key)
{
	return key[0] == '_';
}

/* --- baselines and captured runs ---------------------------------------------------------- */

void ladder_run_init(struct ladder_run *r)
{
	memset(r, 0, sizeof(*r));
}

void ladder_run_release(struct ladder_run *r)
{
	for (size_t i = 0; i < r->n; i++) {
		free(r->metrics[i].key);
		free(r->metrics[i].category);
		free(r->metrics[i].group);
		free(r->metrics[i].unit);
	}
	free(r->metrics);
	json_decref(r->doc);
	ladder_run_init(r);
}

static int cmp_metric(const void *a, const void *b)
{
	return strcmp(((const struct ladder_metric *)a)->key,
		      ((const struct ladder_metric *)b)->key);
}

/* One entry of "metrics": {"value": 12.4, "unit": "ms"}, or null (not captured). */
static int parse_metric(struct ladder_metric *m, const char *key, const json_t *v, int nulls_ok,
			const char *file, struct bl_error *err)
{
	struct ladder_key k;
	const json_t *value = NULL, *unit = NULL;
	int ret;

	m->key = xstrdup(key);
	m->value = NAN;
	if ((ret = ladder_key_parse(&k, key, err))) {
		bl_error_prefix(err, "%s: %s", file, key);
		return ret;
	}
	m->category = xstrndup(key, k.category_len);
	m->group = xstrndup(key, k.group_len);
	m->suffix = m->key + (k.suffix - key);
	m->q = k.q;
	if (!json_is_null(v)) {
		if (!json_is_object(v))
			return bl_error_set(
			    err, BL_EINVALID,
			    "%s: %s: must be an object {\"value\", \"unit\"}, not %s", file, key,
			    ladder_type_name(v));
		value = json_object_get(v, "value");
		unit = json_object_get(v, "unit");
		if (!value)
			return bl_error_set(err, BL_EINVALID, "%s: %s: has no \"value\"", file,
					    key);
		if (!json_is_number(value) && !json_is_null(value))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: \"value\" must be a number, not %s", file, key,
					    ladder_type_name(value));
		if (unit && !json_is_null(unit) &&
		    (!json_is_string(unit) || !json_string_length(unit)))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: \"unit\" must be a non-empty string, not %s",
					    file, key, ladder_type_name(unit));
		if (json_is_string(unit))
			m->unit = xstrdup(json_string_value(unit));
		if (json_is_number(value)) {
			m->value = json_number_value(value);
			if (!m->unit)
				return bl_error_set(err, BL_EINVALID, "%s: %s: has no \"unit\"",
						    file, key);
		}
	}
	if (isnan(m->value) && !nulls_ok)
		return bl_error_set(err, BL_EINVALID,
				    "%s: %s: value is null: a baseline holds captured values only "
				    "(leave the key out)",
				    file, key);
	return 0;
}

int ladder_run_parse(struct ladder_run *r, const char *file, const char *text, size_t len,
		     int baseline, struct bl_error *err)
{
	const json_t *metrics, *v;
	const char *key;
	size_t alloc = 0;
	int ret;

	ladder_run_init(r);
	if ((ret = load_object(&r->doc, file, text, len, err)))
		return ret;
	v = json_object_get(r->doc, "schema_version");
	if (v && !(json_is_integer(v) && json_integer_value(v) == 1)) {
		ret = bl_error_set(
		    err, BL_EINVALID,
		    "%s: schema_version: must be 1 (the version this benchline reads)", file);
		goto fail;
	}
	v = json_object_get(r->doc, "placeholder");
	if (v && !json_is_boolean(v)) {
		ret = bl_error_set(err, BL_EINVALID, "%s: placeholder: must be a boolean, not %s",
				   file, ladder_type_name(v));
		goto fail;
	}
	metrics = json_object_get(r->doc, "metrics");
	if (metrics && !json_is_object(metrics)) {
		ret = bl_error_set(err, BL_EINVALID, "%s: metrics: must be an object, not %s", file,
				   ladder_type_name(metrics));
		goto fail;
	}
	/* A placeholder (flagged, or with no metrics) is what a baseline is bootstrapped from. */
	r->placeholder = json_is_true(v) || !metrics || !json_object_size(metrics);
	json_object_foreach ((json_t *)metrics, key, v) {
		ALLOC_GROW(r->metrics, r->n, alloc);
		memset(&r->metrics[r->n], 0, sizeof(r->metrics[r->n]));
		r->n++;
		if ((ret = parse_metric(&r->metrics[r->n - 1], key, v, !baseline || r->placeholder,
					file, err)))
			goto fail;
	}
	if (r->n)
		qsort(r->metrics, r->n, sizeof(*r->metrics), cmp_metric);
	return 0;
fail:
	ladder_run_release(r);
	return ret;
}

int ladder_run_read(struct ladder_run *r, const char *path, int baseline, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;
	ladder_run_init(r);
	if ((ret = read_text(&text, path, err)) == 0)
		ret = ladder_run_parse(r, path, text.buf, text.len, baseline, err);
	strbuf_release(&text);
	return ret;
}

const struct ladder_metric *ladder_run_find(const struct ladder_run *r, const char *key)
{
	struct ladder_metric probe;
	probe.key = (char *)key;
	if (!r->n)
		return NULL;
	return bsearch(&probe, r->metrics, r->n, sizeof(*r->metrics), cmp_metric);
}

json_t *ladder_capture_json(const struct ladder_run *cur, struct strbuf *dropped)
{
	json_t *doc = json_deep_copy(cur->doc), *metrics = json_object_get(doc, "metrics");
	json_object_del(doc, "placeholder");
	for (size_t i = 0; i < cur->n; i++) {
		if (!isnan(cur->metrics[i].value))
			continue;
		json_object_del(metrics, cur->metrics[i].key);
		strbuf_addf(dropped, "%s\n", cur->metrics[i].key);
	}
	return doc;
}

/* --- ladders files ------------------------------------------------------------------------ */

int ladder_set_parse(struct ladder_set *set, const char *file, const char *text, size_t len,
		     struct bl_error *err)
{
	json_t *root = NULL, *ladders, *categories, *v;
	const char *key;
	size_t alloc = 0;
	int ret;

	ladder_set_init(set);
	if ((ret = load_object(&root, file, text, len, err)))
		return ret;
	json_object_foreach (root, key, v) {
		if (!is_note(key) && strcmp(key, "ladders") && strcmp(key, "categories")) {
			ret =
			    bl_error_set(err, BL_EINVALID,
					 "%s: %s: unknown key (a ladders file has \"ladders\" and "
					 "\"categories\")",
					 file, key);
			goto done;
		}
	}
	ladders = json_object_get(root, "ladders");
	categories = json_object_get(root, "categories");
	if (!ladders) {
		ret = bl_error_set(err, BL_EINVALID, "%s: ladders: missing", file);
		goto done;
	}
	if ((ret = ladder_set_from_json(set, ladders, file, err)))
		goto done;
	if (!json_is_object(categories)) {
		ret = bl_error_set(err, BL_EINVALID, "%s: categories: must be an object, not %s",
				   file, ladder_type_name(categories));
		goto done;
	}
	json_object_foreach (categories, key, v) {
		if (!json_is_string(v)) {
			ret = bl_error_set(err, BL_EINVALID,
					   "%s: categories.%s: must name a ladder, not %s", file,
					   key, ladder_type_name(v));
			goto done;
		}
		if (!ladder_find(set, json_string_value(v))) {
			ret =
			    bl_error_set(err, BL_EINVALID, "%s: categories.%s: unknown ladder '%s'",
					 file, key, json_string_value(v));
			goto done;
		}
		if (set->ncategories >= alloc) {
			alloc = alloc < 16 ? 16 : alloc * 2;
			set->categories = xrealloc(set->categories, alloc * sizeof(char *));
			set->category_ladder =
			    xrealloc(set->category_ladder, alloc * sizeof(char *));
		}
		set->categories[set->ncategories] = xstrdup(key);
		set->category_ladder[set->ncategories++] = xstrdup(json_string_value(v));
	}
done:
	json_decref(root);
	if (ret)
		ladder_set_release(set);
	return ret;
}

int ladder_set_read(struct ladder_set *set, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;
	ladder_set_init(set);
	if ((ret = read_text(&text, path, err)) == 0)
		ret = ladder_set_parse(set, path, text.buf, text.len, err);
	strbuf_release(&text);
	return ret;
}

const struct ladder *ladder_for_category(const struct ladder_set *set, const char *category)
{
	for (size_t i = 0; i < set->ncategories; i++)
		if (!strcmp(set->categories[i], category))
			return ladder_find(set, set->category_ladder[i]);
	return NULL;
}

/* The ladder a baseline key is judged on: its category's, in the key's own unit. */
static int ladder_of(const struct ladder **out, const struct ladder_set *set,
		     const struct ladder_metric *m, const char *file, struct bl_error *err)
{
	*out = ladder_for_category(set, m->category);
	if (!*out)
		return bl_error_set(err, BL_EINVALID,
				    "%s: %s: category '%s' has no ladder (it is not in the ladders "
				    "file's \"categories\")",
				    file, m->key, m->category);
	if (strcmp((*out)->unit, m->unit))
		return bl_error_set(err, BL_EINVALID,
				    "%s: %s: unit '%s', but its ladder '%s' is in '%s'", file,
				    m->key, m->unit, (*out)->name, (*out)->unit);
	return 0;
}

/* --- thresholds ---------------------------------------------------------------------------- */

void ladder_thresholds_init(struct ladder_thresholds *t)
{
	memset(t, 0, sizeof(*t));
}

static void limits_free(struct ladder_limit *l, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(l[i].scope);
		free(l[i].suffix);
		free(l[i].abs_unit);
	}
	free(l);
}

void ladder_thresholds_release(struct ladder_thresholds *t)
{
	limits_free(t->defaults, t->ndefaults);
	limits_free(t->overrides, t->noverrides);
	free(t->file);
	ladder_thresholds_init(t);
}

#define ABS_PREFIX "max_abs_increase_"

/* One entry {"max_pct_increase": 50.0, "max_abs_increase_ms": 0.01}; where names it in
 * messages ("defaults.span.p95"). */
static int parse_limit(struct ladder_limit *l, const json_t *v, const char *file, const char *where,
		       struct bl_error *err)
{
	const char *key;
	json_t *f;

	l->max_abs = l->max_pct = NAN;
	if (!json_is_object(v))
		return bl_error_set(err, BL_EINVALID, "%s: %s: must be an object, not %s", file,
				    where, ladder_type_name(v));
	json_object_foreach ((json_t *)v, key, f) {
		int is_abs =
		    !strncmp(key, ABS_PREFIX, strlen(ABS_PREFIX)) && key[strlen(ABS_PREFIX)];
		double x;
		if (!is_abs && strcmp(key, "max_pct_increase"))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s.%s: unknown bound (expected max_pct_increase "
					    "or max_abs_increase_<unit>)",
					    file, where, key);
		if (!json_is_number(f))
			return bl_error_set(err, BL_EINVALID, "%s: %s.%s: must be a number, not %s",
					    file, where, key, ladder_type_name(f));
		x = json_number_value(f);
		if (!(x >= 0) || isinf(x))
			return bl_error_set(err, BL_EINVALID, "%s: %s.%s: must not be negative",
					    file, where, key);
		if (!is_abs) {
			l->max_pct = x;
			continue;
		}
		if (l->abs_unit)
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: two absolute bounds (" ABS_PREFIX
					    "%s and %s): keep one",
					    file, where, l->abs_unit, key);
		l->abs_unit = xstrdup(key + strlen(ABS_PREFIX));
		l->max_abs = x;
	}
	return 0;
}

/* defaults {CATEGORY: {pNN: entry}} (groups 0) or overrides {"CATEGORY.NAME": {pNN: entry}}. */
static int parse_limits(struct ladder_limit **out, size_t *n, const json_t *v, const char *section,
			int groups, const char *file, struct bl_error *err)
{
	const char *scope, *suffix;
	json_t *per, *entry;
	size_t alloc = 0;
	int ret;

	if (!json_is_object(v))
		return bl_error_set(err, BL_EINVALID, "%s: %s: must be an object, not %s", file,
				    section, ladder_type_name(v));
	json_object_foreach ((json_t *)v, scope, per) {
		const char *dot = strchr(scope, '.');
		if (groups ? (!dot || dot == scope || !dot[1]) : (!scope[0] || !!dot))
			return bl_error_set(err, BL_EINVALID,
					    groups ? "%s: %s.%s: must be CATEGORY.NAME"
						   : "%s: %s.%s: must be a category (no dot)",
					    file, section, scope);
		if (!json_is_object(per))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s.%s: must be an object of quantiles, not %s",
					    file, section, scope, ladder_type_name(per));
		json_object_foreach (per, suffix, entry) {
			struct strbuf where = STRBUF_INIT;
			struct ladder_limit *l;
			strbuf_addf(&where, "%s.%s.%s", section, scope, suffix);
			ALLOC_GROW(*out, *n, alloc);
			l = &(*out)[(*n)++];
			memset(l, 0, sizeof(*l));
			l->scope = xstrdup(scope);
			l->suffix = xstrdup(suffix);
			if ((ret = ladder_quantile(&l->q, suffix, err)))
				bl_error_prefix(err, "%s: %s", file, where.buf);
			else
				ret = parse_limit(l, entry, file, where.buf, err);
			strbuf_release(&where);
			if (ret)
				return ret;
		}
	}
	return 0;
}

int ladder_thresholds_parse(struct ladder_thresholds *t, const char *file, const char *text,
			    size_t len, struct bl_error *err)
{
	json_t *root = NULL, *v;
	const char *key;
	int ret;

	ladder_thresholds_init(t);
	t->file = xstrdup(file);
	if ((ret = load_object(&root, file, text, len, err)))
		goto done;
	json_object_foreach (root, key, v) {
		if (is_note(key))
			continue;
		if (!strcmp(key, "defaults"))
			ret = parse_limits(&t->defaults, &t->ndefaults, v, key, 0, file, err);
		else if (!strcmp(key, "overrides"))
			ret = parse_limits(&t->overrides, &t->noverrides, v, key, 1, file, err);
		else
			ret =
			    bl_error_set(err, BL_EINVALID,
					 "%s: %s: unknown key (a thresholds file has \"defaults\" "
					 "and \"overrides\")",
					 file, key);
		if (ret)
			goto done;
	}
done:
	json_decref(root);
	if (ret)
		ladder_thresholds_release(t);
	return ret;
}

int ladder_thresholds_read(struct ladder_thresholds *t, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;
	ladder_thresholds_init(t);
	if ((ret = read_text(&text, path, err)) == 0)
		ret = ladder_thresholds_parse(t, path, text.buf, text.len, err);
	strbuf_release(&text);
	return ret;
}

static const struct ladder_limit *find_limit(const struct ladder_limit *l, size_t n,
					     const char *scope, double q)
{
	for (size_t i = 0; i < n; i++)
		if (l[i].q == q && !strcmp(l[i].scope, scope))
			return &l[i];
	return NULL;
}

int ladder_limits_resolve(struct ladder_limits *out, const struct ladder_thresholds *t,
			  const struct ladder_metric *m, struct bl_error *err)
{
	const struct ladder_limit *def, *ovr;

	memset(out, 0, sizeof(*out));
	out->max_abs = out->max_pct = out->abs_given = NAN;
	def = find_limit(t->defaults, t->ndefaults, m->category, m->q);
	ovr = find_limit(t->overrides, t->noverrides, m->group, m->q);
	/* Field by field: what the override gives wins over the default. */
	if (ovr && ovr->abs_unit)
		out->abs_from = ovr, out->abs_override = 1;
	else if (def && def->abs_unit)
		out->abs_from = def;
	if (ovr && !isnan(ovr->max_pct))
		out->pct_from = ovr, out->pct_override = 1;
	else if (def && !isnan(def->max_pct))
		out->pct_from = def;
	if (out->pct_from)
		out->max_pct = out->pct_from->max_pct;
	if (out->abs_from) {
		out->abs_given = out->abs_from->max_abs;
		if (!m->unit || ladder_unit_convert(&out->max_abs, out->abs_given,
						    out->abs_from->abs_unit, m->unit))
			return bl_error_set(err, BL_EINVALID,
					    "%s: %s: " ABS_PREFIX "%s (%s '%s'): '%s' is not the "
					    "key's unit '%s' and cannot be converted to it",
					    t->file, m->key, out->abs_from->abs_unit,
					    out->abs_override ? "override" : "default",
					    out->abs_from->scope, out->abs_from->abs_unit,
					    m->unit ? m->unit : "(none)");
	}
	return 0;
}

/* --- declared keys ------------------------------------------------------------------------- */

void ladder_declared_release(struct ladder_declared *d)
{
	for (size_t i = 0; i < d->n; i++)
		free(d->keys[i]);
	free(d->keys);
	d->keys = NULL;
	d->n = 0;
}

int ladder_declared_parse(struct ladder_declared *d, const char *file, const char *text, size_t len,
			  struct bl_error *err)
{
	json_t *root = NULL, *keys, *v;
	const char *key;
	size_t i;
	int ret;

	d->keys = NULL;
	d->n = 0;
	if ((ret = load_object(&root, file, text, len, err)))
		return ret;
	json_object_foreach (root, key, v) {
		if (!is_note(key) && strcmp(key, "keys")) {
			ret = bl_error_set(
			    err, BL_EINVALID,
			    "%s: %s: unknown key (a declared-keys file has \"keys\")", file, key);
			goto done;
		}
	}
	keys = json_object_get(root, "keys");
	if (!json_is_array(keys)) {
		ret = bl_error_set(err, BL_EINVALID, "%s: keys: must be an array, not %s", file,
				   ladder_type_name(keys));
		goto done;
	}
	d->keys = xcalloc(json_array_size(keys), sizeof(*d->keys));
	json_array_foreach (keys, i, v) {
		struct ladder_key k;
		if (!json_is_string(v)) {
			ret = bl_error_set(err, BL_EINVALID,
					   "%s: keys: entry %zu must be a string, not %s", file,
					   i + 1, ladder_type_name(v));
			goto done;
		}
		if ((ret = ladder_key_parse(&k, json_string_value(v), err))) {
			bl_error_prefix(err, "%s: %s", file, json_string_value(v));
			goto done;
		}
		d->keys[d->n++] = xstrdup(json_string_value(v));
	}
	qsort(d->keys, d->n, sizeof(*d->keys), cmp_strp);
	for (i = 1; i < d->n; i++)
		if (!strcmp(d->keys[i], d->keys[i - 1])) {
			ret = bl_error_set(err, BL_EINVALID, "%s: %s: declared twice", file,
					   d->keys[i]);
			goto done;
		}
done:
	json_decref(root);
	if (ret)
		ladder_declared_release(d);
	return ret;
}

int ladder_declared_read(struct ladder_declared *d, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	int ret;
	d->keys = NULL;
	d->n = 0;
	if ((ret = read_text(&text, path, err)) == 0)
		ret = ladder_declared_parse(d, path, text.buf, text.len, err);
	strbuf_release(&text);
	return ret;
}

static int declared_has(const struct ladder_declared *d, const char *key)
{
	return d->n && bsearch(&key, d->keys, d->n, sizeof(*d->keys), cmp_strp) != NULL;
}

/* derive and floors need values: a placeholder has none to work from. */
static int placeholder_error(const char *file, struct bl_error *err)
{
	return bl_error_set(
	    err, BL_EINVALID,
	    "%s: the baseline is a placeholder: capture one first (benchline ladder "
	    "compare prints a captured run in the baseline format)",
	    file);
}

/* --- derive -------------------------------------------------------------------------------- */

void ladder_derivation_init(struct ladder_derivation *d)
{
	d->doc = NULL;
	strbuf_init(&d->warnings, 0);
	strbuf_init(&d->refusals, 0);
	d->nrefused = 0;
}

void ladder_derivation_release(struct ladder_derivation *d)
{
	json_decref(d->doc);
	strbuf_release(&d->warnings);
	strbuf_release(&d->refusals);
	ladder_derivation_init(d);
}

/* "(0.5, 1]", "(-inf, 0.01]" or "(1000, +inf)": the bucket a value lies in, for messages. */
static void add_bucket(struct strbuf *sb, const struct ladder_bucket *b)
{
	char lo[DOUBLE_TEXT_MAX], hi[DOUBLE_TEXT_MAX];
	if (isnan(b->hi))
		strbuf_addf(sb, "(%s, +inf)", format_double(lo, b->lo, 0));
	else
		strbuf_addf(sb, "(%s, %s]", isnan(b->lo) ? "-inf" : format_double(lo, b->lo, 0),
			    format_double(hi, b->hi, 0));
}

static json_t *bucket_json(const struct ladder_bucket *b)
{
	json_t *a = json_array();
	json_array_append_new(a, json_real_or_null(b->lo));
	json_array_append_new(a, json_real_or_null(b->hi));
	return a;
}

const char *ladder_gating_name(enum ladder_gating g)
{
	static const char *const names[] = {
	    [LADDER_GATED] = NULL,
	    [LADDER_TOP_BUCKET] = "top-bucket",
	    [LADDER_FLOOR_SIGNATURE] = "floor-signature",
	    [LADDER_BASELINE_NOT_POSITIVE] = "baseline-not-positive",
	};
	return (unsigned)g < sizeof(names) / sizeof(names[0]) ? names[g] : NULL;
}

/* Why a key cannot be gated (top bucket, floor signature), or GATED; message gets the details. */
static enum ladder_gating cannot_gate(struct strbuf *message, const struct ladder *l,
				      const struct ladder_metric *m, const struct ladder_bucket *b)
{
	char v[DOUBLE_TEXT_MAX], e[DOUBLE_TEXT_MAX], q[DOUBLE_TEXT_MAX];
	if (b->top) {
		strbuf_addf(message, "baseline %s %s is in the top bucket ",
			    format_double(v, m->value, 0), m->unit);
		add_bucket(message, b);
		strbuf_addf(message, " of ladder '%s': no edge above it, so it cannot be gated",
			    l->name);
		return LADDER_TOP_BUCKET;
	}
	if (ladder_floor_signature(l, m->q, m->value)) {
		strbuf_addf(message,
			    "baseline %s %s is %s x the first edge %s %s: every sample fell in the "
			    "first bucket, so it cannot move and must not be gated",
			    format_double(v, m->value, 0), m->unit, format_double(q, m->q, 0),
			    format_double(e, l->edges[0], 0), m->unit);
		return LADDER_FLOOR_SIGNATURE;
	}
	return LADDER_GATED;
}

int ladder_derive(struct ladder_derivation *out, const struct ladder_run *b,
		  const struct ladder_set *set, double pct, const char *file, struct bl_error *err)
{
	json_t *table = json_array(), *overrides = json_object();
	struct strbuf msg = STRBUF_INIT;
	int ret = 0;

	ladder_derivation_init(out);
	if (b->placeholder) {
		ret = placeholder_error(file, err);
		goto done;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct ladder_metric *m = &b->metrics[i];
		const struct ladder *l;
		enum ladder_gating why;
		struct ladder_bucket bk;
		json_t *row, *group, *entry;
		double bound;
		char w[DOUBLE_TEXT_MAX], x[DOUBLE_TEXT_MAX], y[DOUBLE_TEXT_MAX], z[DOUBLE_TEXT_MAX];

		if ((ret = ladder_of(&l, set, m, file, err)))
			goto done;
		ladder_bucket_locate(&bk, l, m->value);
		bound = bk.top ? NAN : bk.hi_next - m->value;
		strbuf_reset(&msg);
		why = cannot_gate(&msg, l, m, &bk);
		row = json_object();
		json_object_set_new(row, "key", json_string(m->key));
		json_object_set_new(row, "unit", json_string(m->unit));
		json_object_set_new(row, "baseline", json_real(m->value));
		json_object_set_new(row, "bucket", bucket_json(&bk));
		json_object_set_new(row, "hi_next", json_real_or_null(bk.hi_next));
		json_object_set_new(row, "bound", json_real_or_null(bound));
		json_object_set_new(row, "floor", json_real_or_null(ladder_floor(l, m->value)));
		json_object_set_new(row, "note",
				    why ? json_string(ladder_gating_name(why)) : json_null());
		json_array_append_new(table, row);
		if (why) {
			strbuf_addf(&out->warnings, "%s: %s; no bound written\n", m->key, msg.buf);
			continue;
		}
		if (!isnan(pct) && m->value > 0 && pct >= 100.0 * bound / m->value) {
			strbuf_addf(&out->refusals,
				    "%s: --pct %s would be the operative bound: it is at or above "
				    "100 * bound / baseline = 100 * %s / %s = %s\n",
				    m->key, format_double(x, pct, 0), format_double(y, bound, 0),
				    format_double(z, m->value, 0),
				    format_double(w, 100.0 * bound / m->value, 0));
			out->nrefused++;
			continue;
		}
		if (!(group = json_object_get(overrides, m->group))) {
			group = json_object();
			json_object_set_new(overrides, m->group, group);
		}
		entry = json_object();
		strbuf_reset(&msg);
		strbuf_addf(&msg, ABS_PREFIX "%s", m->unit);
		json_object_set_new(entry, msg.buf, json_real(bound));
		if (!isnan(pct))
			json_object_set_new(entry, "max_pct_increase", json_real(pct));
		json_object_set_new(group, m->suffix, entry);
	}
	if (!out->nrefused) {
		out->doc = json_object();
		json_object_set(out->doc, "_derivation_table", table);
		json_object_set(out->doc, "overrides", overrides);
	}
done:
	json_decref(table);
	json_decref(overrides);
	strbuf_release(&msg);
	return ret;
}

/* --- check --------------------------------------------------------------------------------- */

void ladder_lint_init(struct ladder_lint *lint)
{
	memset(lint, 0, sizeof(*lint));
}

void ladder_lint_release(struct ladder_lint *lint)
{
	for (size_t i = 0; i < lint->n; i++) {
		free(lint->v[i].key);
		free(lint->v[i].message);
	}
	free(lint->v);
	ladder_lint_init(lint);
}

static void violation(struct ladder_lint *lint, size_t *alloc, const char *rule, const char *key,
		      const char *message)
{
	ALLOC_GROW(lint->v, lint->n, *alloc);
	lint->v[lint->n].rule = rule;
	lint->v[lint->n].key = xstrdup(key);
	lint->v[lint->n].message = xstrdup(message);
	lint->v[lint->n].order = lint->n;
	lint->n++;
}

static int cmp_violation(const void *a, const void *b)
{
	const struct ladder_violation *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	if (c)
		return c;
	return x->order < y->order ? -1 : x->order > y->order;
}

/* Where a resolved bound came from, for messages: "override 'span.tx'" or "default 'span'". */
static void add_origin(struct strbuf *sb, const struct ladder_limit *from, int override)
{
	strbuf_addf(sb, "%s '%s'", override ? "override" : "default", from->scope);
}

/* The bound rules of one key that can be gated: missing-bound, bound-not-derived,
 * pct-operative. */
static void check_bounds(struct ladder_lint *lint, size_t *alloc, const struct ladder_metric *m,
			 const struct ladder_bucket *bk, const struct ladder_limits *lim)
{
	char a[DOUBLE_TEXT_MAX], b[DOUBLE_TEXT_MAX], c[DOUBLE_TEXT_MAX], d[DOUBLE_TEXT_MAX];
	struct strbuf msg = STRBUF_INIT;
	double derived = bk->hi_next - m->value;

	if (!lim->abs_from) {
		strbuf_addf(&msg,
			    "no " ABS_PREFIX "%s bound (the derived one is %s = hi_next %s - "
			    "baseline %s)",
			    m->unit, format_double(a, derived, 0), format_double(b, bk->hi_next, 0),
			    format_double(c, m->value, 0));
		violation(lint, alloc, "missing-bound", m->key, msg.buf);
		goto done;
	}
	if (!(fabs(lim->max_abs - derived) <= 1e-12 * fabs(derived))) {
		strbuf_addf(&msg, ABS_PREFIX "%s %s", lim->abs_from->abs_unit,
			    format_double(a, lim->abs_given, 0));
		if (strcmp(lim->abs_from->abs_unit, m->unit))
			strbuf_addf(&msg, " (= %s %s)", format_double(a, lim->max_abs, 0), m->unit);
		strbuf_addstr(&msg, " (");
		add_origin(&msg, lim->abs_from, lim->abs_override);
		strbuf_addf(&msg,
			    ") is not the derived %s = hi_next %s - baseline %s (baseline in ",
			    format_double(b, derived, 0), format_double(c, bk->hi_next, 0),
			    format_double(d, m->value, 0));
		add_bucket(&msg, bk);
		strbuf_addstr(&msg, ")");
		violation(lint, alloc, "bound-not-derived", m->key, msg.buf);
	}
	/* With a baseline that is not positive the percentage never counts (§8). */
	if (lim->pct_from && m->value > 0 && lim->max_pct >= 100.0 * derived / m->value) {
		strbuf_reset(&msg);
		strbuf_addf(&msg, "max_pct_increase %s (", format_double(a, lim->max_pct, 0));
		add_origin(&msg, lim->pct_from, lim->pct_override);
		strbuf_addf(&msg,
			    ") is at or above 100 * bound / baseline = 100 * %s / %s = %s: the "
			    "percentage bound would be the operative one",
			    format_double(b, derived, 0), format_double(c, m->value, 0),
			    format_double(d, 100.0 * derived / m->value, 0));
		violation(lint, alloc, "pct-operative", m->key, msg.buf);
	}
done:
	strbuf_release(&msg);
}

int ladder_check(struct ladder_lint *lint, const struct ladder_run *b,
		 const struct ladder_thresholds *t, const struct ladder_set *set,
		 const struct ladder_declared *declared, const char *baseline_file,
		 const char *declared_file, struct bl_error *err)
{
	struct strbuf msg = STRBUF_INIT, key = STRBUF_INIT;
	size_t alloc = 0;
	int ret = 0;

	ladder_lint_init(lint);
	if (b->placeholder) {
		strbuf_addf(&msg,
			    "the baseline is a placeholder, so no key is gated: capture one "
			    "(benchline ladder compare prints it) and paste it into '%s'",
			    baseline_file);
		violation(lint, &alloc, "placeholder", baseline_file, msg.buf);
	}
	for (size_t i = 0; i < b->n && !b->placeholder; i++) {
		const struct ladder_metric *m = &b->metrics[i];
		const struct ladder *l;
		struct ladder_limits lim;
		struct ladder_bucket bk;
		enum ladder_gating why;

		if ((ret = ladder_of(&l, set, m, baseline_file, err)) ||
		    (ret = ladder_limits_resolve(&lim, t, m, err)))
			goto done;
		lint->checked++;
		if (declared && !declared_has(declared, m->key)) {
			strbuf_reset(&msg);
			strbuf_addf(&msg, "in the baseline but not declared in '%s'",
				    declared_file);
			violation(lint, &alloc, "undeclared-key", m->key, msg.buf);
		}
		ladder_bucket_locate(&bk, l, m->value);
		strbuf_reset(&msg);
		if ((why = cannot_gate(&msg, l, m, &bk)))
			violation(lint, &alloc, ladder_gating_name(why), m->key, msg.buf);
		else
			check_bounds(lint, &alloc, m, &bk, &lim);
	}
	for (size_t i = 0; declared && i < declared->n; i++) {
		if (ladder_run_find(b, declared->keys[i]))
			continue;
		strbuf_reset(&msg);
		strbuf_addf(&msg, "declared in '%s' but the baseline has no value for it",
			    declared_file);
		violation(lint, &alloc, "declared-not-in-baseline", declared->keys[i], msg.buf);
	}
	for (size_t i = 0; i < t->noverrides; i++) {
		const struct ladder_limit *o = &t->overrides[i];
		int found = 0;
		for (size_t j = 0; j < b->n && !found; j++)
			found = b->metrics[j].q == o->q && !strcmp(b->metrics[j].group, o->scope);
		if (found)
			continue;
		strbuf_reset(&key);
		strbuf_addf(&key, "%s.%s", o->scope, o->suffix);
		violation(lint, &alloc, "orphan-bound", key.buf,
			  "an override for a key the baseline does not have (a stale bound: "
			  "remove it, or add the key to the baseline)");
	}
	if (lint->n)
		qsort(lint->v, lint->n, sizeof(*lint->v), cmp_violation);
done:
	strbuf_release(&msg);
	strbuf_release(&key);
	return ret;
}

/* --- compare ------------------------------------------------------------------------------- */

void ladder_comparison_release(struct ladder_comparison *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->rows[i].key);
		free(c->rows[i].unit);
		free(c->rows[i].note);
	}
	free(c->rows);
	memset(c, 0, sizeof(*c));
}

static struct ladder_row *new_row(struct ladder_comparison *c, size_t *alloc, const char *key,
				  const char *unit)
{
	struct ladder_row *r;
	ALLOC_GROW(c->rows, c->n, *alloc);
	r = &c->rows[c->n++];
	memset(r, 0, sizeof(*r));
	r->key = xstrdup(key);
	r->unit = xstrdup_or_null(unit);
	r->baseline = r->current = r->delta = r->pct_change = NAN;
	r->max_abs = r->max_pct = NAN;
	return r;
}

/* One baseline key against its reading (NULL when the current run lacks the key). */
static int compare_one(struct ladder_comparison *c, size_t *alloc, const struct ladder_metric *m,
		       const struct ladder_metric *cur, const struct ladder_thresholds *t,
		       struct bl_error *err)
{
	struct ladder_limits lim;
	struct ladder_row *r;
	struct strbuf note = STRBUF_INIT;
	int ret;

	if ((ret = ladder_limits_resolve(&lim, t, m, err)))
		return ret;
	r = new_row(c, alloc, m->key, m->unit);
	r->baseline = m->value;
	r->max_abs = lim.max_abs;
	r->max_pct = lim.max_pct;
	if (!cur || isnan(cur->value)) {
		r->note = xstrdup("not captured in current run");
		c->missing++;
		return 0;
	}
	r->current = cur->value;
	if (strcmp(cur->unit, m->unit)) {
		/* A reading in another unit measured something else: never compared, always a
		 * regression, whatever the thresholds say. */
		strbuf_addf(&note, "unit mismatch: baseline %s, current %s", m->unit, cur->unit);
		r->note = strbuf_detach(&note, NULL);
		r->regressed = 1;
		c->gated++;
		c->regressed++;
		return 0;
	}
	r->delta = cur->value - m->value;
	if (m->value > 0)
		r->pct_change = 100.0 * r->delta / m->value;
	if (isnan(lim.max_abs) && isnan(lim.max_pct)) {
		r->note = xstrdup("no threshold configured");
		c->not_gated++;
		return 0;
	}
	if (!(m->value > 0) && isnan(lim.max_abs)) {
		r->note = xstrdup("baseline not positive and no absolute bound: not gated");
		c->not_gated++;
		return 0;
	}
	c->gated++;
	r->regressed = ladder_regressed(m->value, cur->value, lim.max_abs, lim.max_pct);
	c->regressed += (size_t)r->regressed;
	return 0;
}

int ladder_compare(struct ladder_comparison *out, const struct ladder_run *b,
		   const struct ladder_thresholds *t, const struct ladder_run *cur,
		   struct bl_error *err)
{
	size_t i = 0, j = 0, alloc = 0;
	int ret = 0;

	memset(out, 0, sizeof(*out));
	/* Both runs are sorted by key: walk them together, so every key of either is a row. */
	while (i < b->n || j < cur->n) {
		int c = i >= b->n     ? 1
			: j >= cur->n ? -1
				      : strcmp(b->metrics[i].key, cur->metrics[j].key);
		if (c < 0) {
			ret = compare_one(out, &alloc, &b->metrics[i++], NULL, t, err);
		} else if (c == 0) {
			ret =
			    compare_one(out, &alloc, &b->metrics[i++], &cur->metrics[j++], t, err);
		} else {
			const struct ladder_metric *m = &cur->metrics[j++];
			struct ladder_row *r = new_row(out, &alloc, m->key, m->unit);
			r->current = m->value;
			r->note = xstrdup("not in baseline");
			out->not_gated++;
		}
		if (ret) {
			ladder_comparison_release(out);
			return ret;
		}
	}
	return 0;
}

json_t *ladder_comparison_json(const struct ladder_comparison *c)
{
	json_t *o = json_object(), *summary = json_object(), *metrics = json_array();
	json_object_set_new(summary, "gated", json_integer((json_int_t)c->gated));
	json_object_set_new(summary, "regressed", json_integer((json_int_t)c->regressed));
	json_object_set_new(summary, "missing", json_integer((json_int_t)c->missing));
	json_object_set_new(summary, "not_gated", json_integer((json_int_t)c->not_gated));
	for (size_t i = 0; i < c->n; i++) {
		const struct ladder_row *r = &c->rows[i];
		json_t *m = json_object();
		json_object_set_new(m, "key", json_string(r->key));
		json_object_set_new(m, "unit", r->unit ? json_string(r->unit) : json_null());
		json_object_set_new(m, "baseline", json_real_or_null(r->baseline));
		json_object_set_new(m, "current", json_real_or_null(r->current));
		json_object_set_new(m, "delta", json_real_or_null(r->delta));
		json_object_set_new(m, "pct_change", json_real_or_null(r->pct_change));
		json_object_set_new(m, "max_abs_increase", json_real_or_null(r->max_abs));
		json_object_set_new(m, "max_pct_increase", json_real_or_null(r->max_pct));
		json_object_set_new(m, "regressed", json_boolean(r->regressed));
		json_object_set_new(m, "note", r->note ? json_string(r->note) : json_null());
		json_array_append_new(metrics, m);
	}
	json_object_set_new(o, "summary", summary);
	json_object_set_new(o, "metrics", metrics);
	return o;
}

/* --- floors -------------------------------------------------------------------------------- */

/* 0: cannot be gated, 1: gated but with no floor (a baseline that is not positive), 2: a floor. */
static int floor_rank(const struct ladder_floor_row *r)
{
	if (r->reason == LADDER_GATED)
		return 2;
	return r->reason == LADDER_BASELINE_NOT_POSITIVE;
}

static int cmp_floor(const void *a, const void *b)
{
	const struct ladder_floor_row *x = a, *y = b;
	int rx = floor_rank(x), ry = floor_rank(y);
	/* Keys that cannot be gated first, then the weakest floor (the largest factor). */
	if (rx != ry)
		return rx < ry ? -1 : 1;
	if (rx == 2 && x->floor != y->floor)
		return x->floor > y->floor ? -1 : 1;
	return strcmp(x->m->key, y->m->key);
}

int ladder_floors(struct ladder_floor_row **rows, size_t *n, const struct ladder_run *b,
		  const struct ladder_set *set, const char *file, struct bl_error *err)
{
	struct strbuf msg = STRBUF_INIT;
	int ret = 0;

	*rows = NULL;
	*n = 0;
	if (b->placeholder)
		return placeholder_error(file, err);
	*rows = xcalloc(b->n, sizeof(**rows));
	for (size_t i = 0; i < b->n; i++) {
		struct ladder_floor_row *r = &(*rows)[i];
		const struct ladder *l;
		if ((ret = ladder_of(&l, set, &b->metrics[i], file, err))) {
			free(*rows);
			*rows = NULL;
			goto done;
		}
		r->m = &b->metrics[i];
		r->ladder = l;
		ladder_bucket_locate(&r->bucket, l, r->m->value);
		r->floor = ladder_floor(l, r->m->value);
		strbuf_reset(&msg);
		r->reason = cannot_gate(&msg, l, r->m, &r->bucket);
		if (r->reason == LADDER_GATED && isnan(r->floor))
			r->reason = LADDER_BASELINE_NOT_POSITIVE;
	}
	*n = b->n;
	if (*n)
		qsort(*rows, *n, sizeof(**rows), cmp_floor);
done:
	strbuf_release(&msg);
	return ret;
}

json_t *ladder_floors_json(const struct ladder_floor_row *rows, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++) {
		const struct ladder_floor_row *r = &rows[i];
		json_t *o = json_object();
		json_object_set_new(o, "key", json_string(r->m->key));
		json_object_set_new(o, "unit", json_string(r->m->unit));
		json_object_set_new(o, "baseline", json_real(r->m->value));
		json_object_set_new(o, "bucket", bucket_json(&r->bucket));
		json_object_set_new(o, "hi_next", json_real_or_null(r->bucket.hi_next));
		json_object_set_new(o, "floor",
				    r->reason != LADDER_GATED ? json_null()
							      : json_real_or_null(r->floor));
		json_object_set_new(o, "gated", json_boolean(floor_rank(r) > 0));
		json_object_set_new(o, "note",
				    r->reason ? json_string(ladder_gating_name(r->reason))
					      : json_null());
		json_array_append_new(a, o);
	}
	return a;
}
