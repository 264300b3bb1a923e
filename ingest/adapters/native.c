/*
 * The native record parser (§2). jansson reads the text one top-level value at a time (one
 * object, each element of a top-level array, or each object of a JSON-lines file), so memory
 * stays at one record's tree. Every rule is checked on the parsed value; only when one is
 * broken does jsonpos re-scan the record's text to name the line and column of the
 * offending value.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

#define LOAD_FLAGS (JSON_DECODE_ANY | JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES)
/* How much of a bad string value a message quotes. */
#define QUOTE_MAX 40

struct native_parser {
	const char *name;
	const char *text; /* the text read so far and not yet let go (a file is read piece by
			     piece into buf; text in memory is all there from the start) */
	size_t len;
	int fd;		   /* where more text comes from, -1 for none */
	int eof;	   /* no more text: the file ended, or a NUL byte ends it for jansson */
	int nul;	   /* the text was cut at a NUL byte */
	size_t consumed;   /* bytes of the file before text[0] */
	struct strbuf buf; /* text's storage when reading a file */
	ingest_record_fn *fn;
	void *fn_data;
	struct bl_error *err;
	struct ingest_json_cursor cur; /* at the start of the value being parsed */
	size_t rec_start;	       /* byte offset of the current record */
	size_t recno;		       /* 1-based */
	size_t err_stop;	       /* where the parser stopped on the error reported */
	struct ingest_json_seg *path;  /* where in the record the check is */
	size_t depth, path_alloc;
};

enum where {
	AT_VALUE,  /* the value at the path */
	AT_KEY,	   /* the key of the path's last step */
	AT_PARENT, /* the object holding the path's last step (a missing field) */
};

static void push_key(struct native_parser *p, const char *key)
{
	ALLOC_GROW(p->path, p->depth, p->path_alloc);
	p->path[p->depth].key = key;
	p->path[p->depth].index = 0;
	p->depth++;
}

static void push_index(struct native_parser *p, size_t index)
{
	ALLOC_GROW(p->path, p->depth, p->path_alloc);
	p->path[p->depth].key = NULL;
	p->path[p->depth].index = index;
	p->depth++;
}

static void pop(struct native_parser *p)
{
	p->depth--;
}

/* "NAME:LINE:COLUMN: " for byte offset off. */
static void add_position(struct strbuf *sb, const struct native_parser *p, size_t off)
{
	struct ingest_json_cursor at = p->cur;

	if (off < at.offset)
		ingest_json_cursor_init(&at);
	ingest_json_cursor_advance(&at, p->text, off);
	strbuf_addf(sb, "%s:%d:%d: ", p->name, at.line, at.column);
}

__attribute__((format(printf, 3, 4))) static int fail_offset(struct native_parser *p, size_t off,
							     const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int ret;

	p->err_stop = off;
	add_position(&sb, p, off);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ret = bl_error_set(p->err, BL_EINVALID, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* The dotted path of a field: metrics.gpu_frame_us.samples[3]. */
static void add_field(struct strbuf *sb, const struct ingest_json_seg *path, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		if (!path[i].key) {
			strbuf_addf(sb, "[%zu]", path[i].index);
			continue;
		}
		if (i)
			strbuf_addch(sb, '.');
		for (const char *s = path[i].key; *s; s++)
			strbuf_addch(sb, (unsigned char)*s < 0x20 ? '?' : *s);
	}
}

static int vfail(struct native_parser *p, enum where where, const char *fmt, va_list ap)
{
	size_t n = p->depth, named = p->depth, off;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (where == AT_PARENT && n)
		n--;
	if (where == AT_KEY && named)
		named--;
	off = ingest_json_locate(p->text, p->len, p->rec_start, p->path, n, where == AT_KEY);
	if (off == INGEST_JSON_NOT_FOUND)
		off = p->rec_start;
	p->err_stop = off;
	add_position(&sb, p, off);
	strbuf_addf(&sb, "record %zu: ", p->recno);
	if (named) {
		add_field(&sb, p->path, named);
		strbuf_addstr(&sb, ": ");
	}
	strbuf_vaddf(&sb, fmt, ap);
	ret = bl_error_set(p->err, BL_EINVALID, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* Fails at the path's current position. */
__attribute__((format(printf, 3, 4))) static int fail(struct native_parser *p, enum where where,
						      const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = vfail(p, where, fmt, ap);
	va_end(ap);
	return ret;
}

/* Fails at the value of member key of the path's current object. */
__attribute__((format(printf, 3, 4))) static int fail_field(struct native_parser *p,
							    const char *key, const char *fmt, ...)
{
	va_list ap;
	int ret;

	push_key(p, key);
	va_start(ap, fmt);
	ret = vfail(p, AT_VALUE, fmt, ap);
	va_end(ap);
	pop(p);
	return ret;
}

static int fail_missing(struct native_parser *p, const char *key)
{
	int ret;

	push_key(p, key);
	ret = fail(p, AT_PARENT, "missing required field");
	pop(p);
	return ret;
}

/* A short rendering of a value for messages: numbers as written, strings quoted. */
static void describe(struct strbuf *sb, const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_STRING: {
		const char *s = json_string_value(v);
		size_t cut = json_string_length(v);
		char *head;
		if (cut <= QUOTE_MAX) {
			strbuf_add_json_string(sb, s);
			break;
		}
		for (cut = QUOTE_MAX; cut && ((unsigned char)s[cut] & 0xC0) == 0x80; cut--)
			;
		head = xstrndup(s, cut);
		strbuf_add_json_string(sb, head);
		strbuf_addstr(sb, "...");
		free(head);
		break;
	}
	default:
		/* a number as the shortest text that reads back as the value, as %g lays it out,
		 * with ".0" on whole numbers */
		strbuf_add_json_scalar(sb, v, DOUBLE_LAYOUT_G | DOUBLE_POINT_ZERO);
		break;
	case JSON_OBJECT:
		strbuf_addstr(sb, "{...}");
		break;
	case JSON_ARRAY:
		strbuf_addstr(sb, "[...]");
		break;
	}
}

/* Fails at member key of the path's current object with "WHAT VALUE SUFFIX". */
static int fail_value(struct native_parser *p, const char *key, const json_t *v, const char *what,
		      const char *suffix)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	describe(&sb, v);
	ret = fail_field(p, key, "%s %s%s", what, sb.buf, suffix);
	strbuf_release(&sb);
	return ret;
}

/* Strings (values and keys) over INGEST_MAX_STRING anywhere in v, unknown keys included. */
static int check_caps(struct native_parser *p, json_t *v)
{
	const char *key;
	json_t *child;
	size_t i;
	int ret = 0;

	switch (json_typeof(v)) {
	case JSON_STRING:
		if (json_string_length(v) > INGEST_MAX_STRING)
			return fail(p, AT_VALUE, "string longer than %d bytes (%zu)",
				    INGEST_MAX_STRING, json_string_length(v));
		return 0;
	case JSON_OBJECT:
		json_object_foreach (v, key, child) {
			size_t klen = strlen(key);
			push_key(p, key);
			if (klen > INGEST_MAX_STRING)
				ret = fail(p, AT_KEY, "key longer than %d bytes (%zu)",
					   INGEST_MAX_STRING, klen);
			else if (json_is_string(child) || json_is_object(child) ||
				 json_is_array(child))
				ret = check_caps(p, child);
			pop(p);
			if (ret)
				return ret;
		}
		return 0;
	case JSON_ARRAY:
		json_array_foreach (v, i, child) {
			if (!json_is_string(child) && !json_is_object(child) &&
			    !json_is_array(child))
				continue;
			push_index(p, i);
			ret = check_caps(p, child);
			pop(p);
			if (ret)
				return ret;
		}
		return 0;
	default:
		return 0;
	}
}

static int get_string(struct native_parser *p, json_t *obj, const char *key, int required,
		      const char **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return required ? fail_missing(p, key) : 0;
	if (!json_is_string(v))
		return fail_field(p, key, "expected a string");
	*out = json_string_value(v);
	return 0;
}

/* A finite number; *present says whether it was there. */
static int get_number(struct native_parser *p, json_t *obj, const char *key, int required,
		      double *out, int *present)
{
	json_t *v = json_object_get(obj, key);

	*present = v != NULL;
	if (!v)
		return required ? fail_missing(p, key) : 0;
	if (!json_is_number(v))
		return fail_field(p, key, "expected a number");
	if (!isfinite(json_number_value(v)))
		return fail_field(p, key, "expected a finite number");
	*out = json_number_value(v);
	return 0;
}

/* An integer that is not negative; *present says whether it was there. */
static int get_count(struct native_parser *p, json_t *obj, const char *key, int required,
		     int64_t *out, int *present, const char *what)
{
	json_t *v = json_object_get(obj, key);

	*present = v != NULL;
	if (!v)
		return required ? fail_missing(p, key) : 0;
	if (!json_is_integer(v))
		return fail_field(p, key, "expected an integer");
	if (json_integer_value(v) < 0)
		return fail_value(p, key, v, what, "");
	*out = json_integer_value(v);
	return 0;
}

static int get_bool(struct native_parser *p, json_t *obj, const char *key, int required, int *out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return required ? fail_missing(p, key) : 0;
	if (!json_is_boolean(v))
		return fail_field(p, key, "expected a boolean");
	*out = json_is_true(v);
	return 0;
}

static int get_object(struct native_parser *p, json_t *obj, const char *key, int required,
		      json_t **out)
{
	json_t *v = json_object_get(obj, key);

	*out = NULL;
	if (!v)
		return required ? fail_missing(p, key) : 0;
	if (!json_is_object(v))
		return fail_field(p, key, "expected an object");
	*out = v;
	return 0;
}

static int get_timestamp(struct native_parser *p, json_t *obj, const char *key, int required,
			 double *out)
{
	const char *s;
	int ret;

	if ((ret = get_string(p, obj, key, required, &s)) || !s)
		return ret;
	if (parse_rfc3339_utc(s, out))
		return fail_value(p, key, json_object_get(obj, key), "bad timestamp",
				  " (expected rfc 3339 utc, like 2026-11-02T04:00:00Z)");
	return 0;
}

/* 40 hex digits, stored lowercase in dst. */
static int get_hex40(struct native_parser *p, json_t *obj, const char *key, int required, char *dst)
{
	const char *s;
	int ret;

	if ((ret = get_string(p, obj, key, required, &s)) || !s)
		return ret;
	if (!is_hex40(s))
		return fail_value(p, key, json_object_get(obj, key), "expected 40 hex digits, got",
				  "");
	for (int i = 0; i < 40; i++)
		dst[i] = (char)(s[i] >= 'A' && s[i] <= 'F' ? s[i] - 'A' + 'a' : s[i]);
	dst[40] = '\0';
	return 0;
}

/* A timed metric's figures: median, p95, samples, n. */
static int parse_timed(struct native_parser *p, json_t *mo, json_t *samples,
		       struct ingest_metric *m)
{
	int has_median, has_p95, has_n, ret;
	double *sorted;
	size_t n;

	if ((ret = get_number(p, mo, "median", 0, &m->median, &has_median)))
		return ret;
	if (has_median && m->median < 0)
		return fail_value(p, "median", json_object_get(mo, "median"), "negative time", "");
	if ((ret = get_number(p, mo, "p95", 0, &m->p95, &has_p95)))
		return ret;
	if (has_p95 && m->p95 < 0)
		return fail_value(p, "p95", json_object_get(mo, "p95"), "negative time", "");
	n = samples ? json_array_size(samples) : 0;
	if (n) {
		m->samples = xmalloc(n * sizeof(*m->samples));
		m->nsamples = n;
		for (size_t i = 0; i < n; i++) {
			json_t *e = json_array_get(samples, i);
			double d = json_is_number(e) ? json_number_value(e) : NAN;
			if (json_is_number(e) && isfinite(d) && d >= 0) {
				m->samples[i] = d;
				continue;
			}
			push_key(p, "samples");
			push_index(p, i);
			if (!json_is_number(e))
				ret = fail(p, AT_VALUE, "expected a number");
			else if (!isfinite(d))
				ret = fail(p, AT_VALUE, "expected a finite number");
			else {
				struct strbuf sb = STRBUF_INIT;
				describe(&sb, e);
				ret = fail(p, AT_VALUE, "negative time %s", sb.buf);
				strbuf_release(&sb);
			}
			p->depth -= 2;
			if (ret)
				return ret;
		}
	}
	if (!has_median && !n) {
		push_key(p, "median");
		ret = fail(p, AT_PARENT, "missing required field (give median or samples)");
		pop(p);
		return ret;
	}
	if (n && (!has_median || !has_p95)) {
		sorted = xmalloc(n * sizeof(*sorted));
		memcpy(sorted, m->samples, n * sizeof(*sorted));
		qsort(sorted, n, sizeof(*sorted), cmp_double);
		if (!has_median)
			m->median = nearest_rank_sorted(sorted, n, 50);
		if (!has_p95)
			m->p95 = nearest_rank_sorted(sorted, n, 95);
		free(sorted);
	}
	/* A p95 under the median is impossible, and would make the run look quieter than any. */
	if (has_p95 && m->p95 < m->median) {
		struct strbuf med = STRBUF_INIT;
		strbuf_addf(&med, " (median %.17g)", m->median);
		ret = fail_value(p, "p95", json_object_get(mo, "p95"), "p95 below the median",
				 med.buf);
		strbuf_release(&med);
		return ret;
	}
	m->n = n ? (int64_t)n : -1;
	return get_count(p, mo, "n", 0, &m->n, &has_n, "negative count");
}

static int parse_metric(struct native_parser *p, const char *name, json_t *mo,
			struct ingest_metric *m)
{
	const char *kind = NULL, *unit, *better = NULL, *ladder;
	json_t *samples;
	int present, ret;

	m->name = xstrdup(name);
	m->median = m->p95 = m->value = NAN;
	m->n = -1;
	push_key(p, name);
	if (!*name) {
		ret = fail(p, AT_KEY, "empty metric name");
		goto done;
	}
	if (!json_is_object(mo)) {
		ret = fail(p, AT_VALUE, "expected an object");
		goto done;
	}
	if ((ret = get_string(p, mo, "kind", 0, &kind)))
		goto done;
	if (!kind) {
		m->kind = METRIC_TIMED;
	} else if (metric_kind_parse(&m->kind, kind)) {
		ret = fail_value(p, "kind", json_object_get(mo, "kind"), "unknown metric kind",
				 " (expected \"timed\", \"counted\" or \"quantile\")");
		goto done;
	}
	if ((ret = get_string(p, mo, "unit", 1, &unit)))
		goto done;
	m->unit = xstrdup(unit);
	if ((ret = get_string(p, mo, "better", 0, &better)))
		goto done;
	if (better && metric_better_parse(&m->better_higher, better)) {
		ret = fail_value(p, "better", json_object_get(mo, "better"), "unknown direction",
				 " (expected \"lower\" or \"higher\")");
		goto done;
	}

	samples = json_object_get(mo, "samples");
	if (samples && !json_is_array(samples)) {
		ret = fail_field(p, "samples", "expected an array");
		goto done;
	}
	if (samples && json_array_size(samples) > INGEST_MAX_SAMPLES) {
		ret = fail_field(p, "samples", "%zu samples, over the limit of %d",
				 json_array_size(samples), INGEST_MAX_SAMPLES);
		goto done;
	}

	switch (m->kind) {
	case METRIC_TIMED:
		ret = parse_timed(p, mo, samples, m);
		break;
	case METRIC_COUNTED:
		if ((ret = get_number(p, mo, "value", 1, &m->value, &present)))
			break;
		if (m->value < 0)
			ret = fail_value(p, "value", json_object_get(mo, "value"), "negative count",
					 "");
		break;
	case METRIC_QUANTILE:
		if ((ret = get_number(p, mo, "value", 1, &m->value, &present)) ||
		    (ret = get_string(p, mo, "ladder", 0, &ladder)))
			break;
		m->ladder = xstrdup_or_null(ladder);
		break;
	}
done:
	pop(p);
	return ret;
}

static int parse_source(struct native_parser *p, json_t *src, struct ingest_record *rec)
{
	const char *branch;
	int ret;

	push_key(p, "source");
	if ((ret = get_hex40(p, src, "commit", 1, rec->commit)) ||
	    (ret = get_hex40(p, src, "source_hash", 0, rec->source_hash)) ||
	    (ret = get_string(p, src, "branch", 0, &branch)))
		goto done;
	rec->branch = xstrdup_or_null(branch);
	if ((ret = get_timestamp(p, src, "committed_at", 0, &rec->committed_at)) ||
	    (ret = get_bool(p, src, "dirty", 0, &rec->dirty)))
		goto done;
done:
	pop(p);
	return ret;
}

static int parse_metrics(struct native_parser *p, json_t *metrics, struct ingest_record *rec)
{
	const char *key;
	json_t *mo;
	int ret = 0;

	if (!json_object_size(metrics))
		return fail_field(p, "metrics", "no metrics (at least one is required)");
	rec->metrics = xcalloc(json_object_size(metrics), sizeof(*rec->metrics));
	push_key(p, "metrics");
	json_object_foreach (metrics, key, mo) {
		if ((ret = parse_metric(p, key, mo, &rec->metrics[rec->nmetrics++])))
			break;
	}
	pop(p);
	return ret;
}

/* Fills rec from obj, checking every rule of §2 but the string caps. */
static int parse_fields(struct native_parser *p, json_t *obj, struct ingest_record *rec)
{
	const char *s;
	json_t *v;
	int ret, present;

	v = json_object_get(obj, "schema");
	if (!v)
		return fail_missing(p, "schema");
	if (!json_is_integer(v) || json_integer_value(v) != 1)
		return fail_value(p, "schema", v, "unknown schema", "");

	if ((ret = get_string(p, obj, "machine", 1, &s)))
		return ret;
	if (!machine_name_valid(s))
		return fail_value(p, "machine", json_object_get(obj, "machine"),
				  "invalid machine name", " (expected [A-Za-z0-9._-]{1,64})");
	rec->machine = xstrdup(s);

	if ((ret = get_string(p, obj, "benchmark", 1, &s)))
		return ret;
	if (!*s)
		return fail_field(p, "benchmark", "empty string");
	rec->benchmark = xstrdup(s);

	if ((ret = get_count(p, obj, "harness_version", 1, &rec->harness_version, &present,
			     "negative harness version")))
		return ret;

	if ((ret = get_object(p, obj, "source", 1, &v)) || (ret = parse_source(p, v, rec)))
		return ret;

	if ((ret = get_timestamp(p, obj, "started_at", 1, &rec->started_at)))
		return ret;

	if ((ret = get_string(p, obj, "config", 0, &s)))
		return ret;
	rec->config = xstrdup_or_null(s);
	if ((ret = get_string(p, obj, "content_hash", 0, &s)))
		return ret;
	rec->content_hash = xstrdup_or_null(s);
	if ((ret = get_string(p, obj, "profile", 0, &s)))
		return ret;
	rec->profile = xstrdup_or_null(s);
	if ((ret = get_bool(p, obj, "baseline", 0, &rec->baseline)))
		return ret;

	if ((ret = get_object(p, obj, "machine_info", 0, &v)))
		return ret;
	if (v) {
		char *info = json_write_text(v, JSON_WRITE_SORT_KEYS);
		if (!info)
			return fail_field(p, "machine_info", "cannot encode as json");
		rec->machine_info = xstrdup(info);
		free(info);
	}

	if ((ret = get_object(p, obj, "preflight", 0, &v)))
		return ret;
	if (v) {
		push_key(p, "preflight");
		ret = get_bool(p, v, "quiet", 1, &rec->preflight_quiet);
		pop(p);
		if (ret)
			return ret;
		rec->has_preflight = 1;
	}

	if ((ret = get_object(p, obj, "metrics", 1, &v)) || (ret = parse_metrics(p, v, rec)))
		return ret;

	if ((ret = get_string(p, obj, "primary", 0, &s)))
		return ret;
	if (s) {
		size_t i;
		for (i = 0; i < rec->nmetrics && strcmp(rec->metrics[i].name, s); i++)
			;
		if (i == rec->nmetrics)
			return fail_value(p, "primary", json_object_get(obj, "primary"),
					  "no metric named", "");
		rec->primary = xstrdup(s);
	}
	return 0;
}

/* Parses the top-level value at *pos into a record for p->fn; *pos moves past it. */
static int parse_one(struct native_parser *p, size_t *pos)
{
	struct ingest_record one, *rec = &one;
	json_error_t je;
	json_t *obj;
	int ret;

	ingest_json_cursor_advance(&p->cur, p->text, *pos);
	obj = json_loadb(p->text + *pos, p->len - *pos, LOAD_FLAGS, &je);
	if (!obj) {
		size_t stop = *pos + (je.position > 0 ? (size_t)je.position : 0), off = stop;
		const char *near = strstr(je.text, " near '");
		size_t tlen = strlen(je.text);
		static const char eof[] = " near end of file";

		if (stop > p->len)
			stop = off = p->len;
		if (json_error_code(&je) == json_error_invalid_utf8) {
			off = stop; /* jansson stopped on the bad byte itself */
		} else if (near) {
			/* jansson stopped just past the token it quotes */
			size_t tok = strlen(near + 7);
			tok = tok ? tok - 1 : 0;
			off = stop - *pos >= tok ? stop - tok : *pos;
		} else if (tlen < sizeof(eof) - 1 ||
			   strcmp(je.text + tlen - (sizeof(eof) - 1), eof)) {
			/* a token too long for jansson to quote */
			off = ingest_json_token_start(p->text, p->len, *pos, stop);
		}
		ret = fail_offset(p, off, "%s", je.text);
		p->err_stop = stop;
		return ret;
	}

	p->rec_start = *pos;
	p->recno++;
	p->depth = 0;
	*pos += je.position > 0 ? (size_t)je.position : 0;
	memset(rec, 0, sizeof(*rec));
	rec->committed_at = NAN;
	if (!json_is_object(obj))
		ret = fail(p, AT_VALUE, "expected an object");
	else if (!(ret = check_caps(p, obj)) && !(ret = parse_fields(p, obj, rec))) {
		rec->line = p->cur.line;
		rec->column = p->cur.column;
		p->err_stop = p->rec_start;
		if ((ret = ingest_record_finish(rec, obj, p->err)))
			ingest_record_error_prefix(p->err, p->name, rec, p->recno);
	}
	json_decref(obj);
	if (!ret)
		ret = p->fn(rec, p->fn_data, p->err);
	ingest_record_release(rec);
	return ret;
}

/*
 * The end of the value starting at i when the text holds all of it: a string by its quotes, an
 * object or array by its brackets (strings skipped), anything else up to the next delimiter.
 * 0 when the text ends first. Invalid text is only measured here; jansson judges it.
 */
static size_t value_end(const char *t, size_t len, size_t i)
{
	size_t depth = 0;

	if (t[i] != '{' && t[i] != '[' && t[i] != '"') {
		for (; i < len; i++)
			if (strchr(" \t\r\n{}[]:,\"", t[i]))
				return i;
		return 0;
	}
	for (; i < len; i++) {
		char c = t[i];
		if (c == '"') {
			for (i++; i < len && t[i] != '"'; i++)
				if (t[i] == '\\')
					i++;
			if (i >= len)
				return 0;
			if (!depth)
				return i + 1;
		} else if (c == '{' || c == '[') {
			depth++;
		} else if ((c == '}' || c == ']') && !--depth) {
			return i + 1;
		}
	}
	return 0;
}

/* Reads more of the file, first letting go of the text before *pos (the cursor, which is never
 * past *pos, moves there). At the end of the file, or at a NUL byte, p->eof is set. */
static int read_more(struct native_parser *p, size_t *pos)
{
	ssize_t n;

	ingest_json_cursor_advance(&p->cur, p->text, *pos);
	if (*pos) {
		memmove(p->buf.buf, p->buf.buf + *pos, p->buf.len - *pos);
		strbuf_setlen(&p->buf, p->buf.len - *pos);
		p->consumed += *pos;
		p->cur.offset -= *pos;
		*pos = 0;
	}
	/* a read as large as what is held already (at least 64 KiB): a record longer than the
	 * buffer doubles it */
	n = read_once(&p->buf, p->fd, p->buf.len > (1 << 16) ? p->buf.len : 1 << 16, p->name,
		      p->err);
	if (n < 0)
		return (int)n;
	if (n == 0) {
		p->eof = 1;
	} else {
		const char *nul = memchr(p->buf.buf + p->buf.len - n, '\0', (size_t)n);
		if (nul) {
			strbuf_setlen(&p->buf, (size_t)(nul - p->buf.buf));
			p->eof = p->nul = 1;
		}
	}
	if (p->consumed + p->buf.len > INGEST_MAX_FILE)
		return too_big(p->err, p->name, INGEST_MAX_FILE);
	p->text = p->buf.buf;
	p->len = p->buf.len;
	return 0;
}

/* Past the whitespace at *pos, reading on when the text ends there. */
static int skip_ws(struct native_parser *p, size_t *pos)
{
	int ret;
	for (;;) {
		*pos = ingest_json_skip_ws(p->text, p->len, *pos);
		if (*pos < p->len || p->eof)
			return 0;
		if ((ret = read_more(p, pos)))
			return ret;
	}
}

/* Makes sure the text holds the whole value at *pos (or all there is), then parses it. */
static int next_record(struct native_parser *p, size_t *pos)
{
	int ret;
	while (!p->eof && !value_end(p->text, p->len, *pos))
		if ((ret = read_more(p, pos)))
			return ret;
	return parse_one(p, pos);
}

/* Parses every record of the text, one at a time. */
static int parse_all(struct native_parser *p)
{
	size_t pos = 0, open;
	int ret;

	/* a UTF-8 byte order mark is skipped, and not counted as a column */
	while (!p->eof && p->len < 3 && !(ret = read_more(p, &pos)))
		;
	if (ret)
		return ret;
	if (p->len >= 3 && !memcmp(p->text, "\xEF\xBB\xBF", 3))
		p->cur.offset = pos = 3;
	if ((ret = skip_ws(p, &pos)))
		return ret;
	if (pos == p->len)
		return fail_offset(p, pos, "no records");
	if (p->text[pos] != '[') {
		/* one object, or one after another (JSON lines) */
		while (pos < p->len) {
			if ((ret = next_record(p, &pos)) || (ret = skip_ws(p, &pos)))
				return ret;
		}
		return 0;
	}
	/* an array of records, read one element at a time */
	open = pos;
	pos++;
	if ((ret = skip_ws(p, &pos)))
		return ret;
	if (pos < p->len && p->text[pos] == ']')
		return fail_offset(p, open, "no records");
	for (;;) {
		if (pos == p->len)
			return fail_offset(p, pos, "']' expected near end of file");
		if ((ret = next_record(p, &pos)) || (ret = skip_ws(p, &pos)))
			return ret;
		if (pos == p->len)
			return fail_offset(p, pos, "']' expected near end of file");
		if (p->text[pos] == ']')
			break;
		if (p->text[pos] != ',')
			return fail_offset(p, pos, "',' or ']' expected");
		pos++;
		if ((ret = skip_ws(p, &pos)))
			return ret;
	}
	pos++;
	if ((ret = skip_ws(p, &pos)))
		return ret;
	if (pos != p->len)
		return fail_offset(p, pos, "end of file expected");
	return 0;
}

/* Runs the parser over its text, then says whether a NUL byte is to blame (an error found
 * before the NUL stands, anything else is the NUL's fault). */
static int run_parser(struct native_parser *p)
{
	int ret = parse_all(p);
	if (p->nul && (!ret || p->err_stop >= p->len))
		ret = fail_offset(p, p->len, "nul byte in file");
	free(p->path);
	strbuf_release(&p->buf);
	return ret;
}

static void parser_init(struct native_parser *p, const char *name, ingest_record_fn *fn, void *data,
			struct bl_error *err)
{
	memset(p, 0, sizeof(*p));
	p->name = name;
	p->fd = -1;
	p->err = err;
	p->fn = fn;
	p->fn_data = data;
	strbuf_init(&p->buf, 0);
	ingest_json_cursor_init(&p->cur);
}

int adapters_parse_native_fd(const char *name, int fd, const char *start, size_t start_len,
			     ingest_record_fn *fn, void *data, struct bl_error *err)
{
	struct native_parser p;

	parser_init(&p, name, fn, data, err);
	p.fd = fd;
	strbuf_add(&p.buf, start, start_len);
	p.text = p.buf.buf;
	p.len = p.buf.len;
	{
		const char *nul = memchr(p.text, '\0', p.len);
		if (nul) {
			strbuf_setlen(&p.buf, (size_t)(nul - p.text));
			p.len = p.buf.len;
			p.eof = p.nul = 1;
		}
	}
	return run_parser(&p);
}

/* adapters_parse_native's sink: each record appended to the batch. */
static int add_to_batch(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct ingest_batch *batch = data;
	(void)err;
	ALLOC_GROW(batch->records, batch->nr, batch->alloc);
	batch->records[batch->nr++] = *rec;
	memset(rec, 0, sizeof(*rec));
	return 0;
}

int adapters_parse_native(struct ingest_batch *out, const char *name, const char *text, size_t len,
			  struct bl_error *err)
{
	struct ingest_batch local = {NULL, 0, 0};
	struct native_parser p;
	const char *nul;
	int ret;

	if (len > INGEST_MAX_FILE)
		return bl_error_set(err, BL_ETOOBIG, "%s: over %zu bytes", name,
				    (size_t)INGEST_MAX_FILE);
	parser_init(&p, name, add_to_batch, &local, err);
	p.text = text;
	p.len = len;
	p.eof = 1;
	/* jansson cannot be given a NUL byte (it ends its saved tokens), so the text ends there */
	nul = memchr(text, '\0', len);
	if (nul) {
		p.len = (size_t)(nul - text);
		p.nul = 1;
	}
	if ((ret = run_parser(&p)))
		goto done;
	if (!out->nr) {
		free(out->records);
		*out = local;
		memset(&local, 0, sizeof(local));
	} else {
		for (size_t i = 0; i < local.nr; i++) {
			ALLOC_GROW(out->records, out->nr, out->alloc);
			out->records[out->nr++] = local.records[i];
		}
		local.nr = 0;
	}
done:
	ingest_batch_release(&local);
	return ret;
}
