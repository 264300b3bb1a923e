/*
 * The adapters' dispatch (`--format`), content detection (`--format auto`), and what the
 * adapters share: resolving the flags over a file's own fields, building records, loading
 * JSON and naming the line and column of a bad value the way the native parser does.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

/* How much of a key a message quotes. */
#define KEY_QUOTE_MAX 60

/* --- positions and messages --- */

int adapters_fail_at(struct bl_error *err, const char *name, const char *text, size_t off,
		     const char *fmt, ...)
{
	struct ingest_json_cursor cur;
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int ret;

	ingest_json_cursor_init(&cur);
	if (text)
		ingest_json_cursor_advance(&cur, text, off);
	strbuf_addf(&sb, "%s:%d:%d: ", name, cur.line, cur.column);
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ret = bl_error_set(err, BL_EINVALID, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

int adapters_load_json_any(json_t **out, const char *name, const char *text, size_t len,
			   struct bl_error *err)
{
	const char *nul = memchr(text, '\0', len);
	json_error_t je;
	size_t start = ingest_json_skip_ws(text, len, 0);
	json_t *doc;

	*out = NULL;
	if (nul)
		return adapters_fail_at(err, name, text, (size_t)(nul - text), "nul byte in file");
	if (start == len)
		return adapters_fail_at(err, name, text, start, "empty file");
	doc = json_loadb(text, len, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &je);
	if (!doc) {
		size_t stop = je.position > 0 ? (size_t)je.position : 0, off = stop;
		const char *near = strstr(je.text, " near '");
		size_t tlen = strlen(je.text);
		static const char eof[] = " near end of file";

		if (stop > len)
			stop = off = len;
		if (json_error_code(&je) == json_error_invalid_utf8) {
			off = stop; /* jansson stopped on the bad byte itself */
		} else if (near) {
			/* jansson stopped just past the token it quotes */
			size_t tok = strlen(near + 7);
			tok = tok ? tok - 1 : 0;
			off = stop >= tok ? stop - tok : 0;
		} else if (tlen < sizeof(eof) - 1 ||
			   strcmp(je.text + tlen - (sizeof(eof) - 1), eof)) {
			/* a token too long for jansson to quote */
			off = ingest_json_token_start(text, len, 0, stop);
		}
		return adapters_fail_at(err, name, text, off, "%s", je.text);
	}
	*out = doc;
	return 0;
}

int adapters_load_json(json_t **out, const char *name, const char *text, size_t len,
		       struct bl_error *err)
{
	int ret = adapters_load_json_any(out, name, text, len, err);

	if (!ret && !json_is_object(*out)) {
		json_decref(*out);
		*out = NULL;
		return adapters_fail_at(err, name, text, ingest_json_skip_ws(text, len, 0),
					"expected an object");
	}
	return ret;
}

void adapters_path_key(struct adapters_path *p, const char *key)
{
	if (p->n < INGEST_ADAPT_MAX_DEPTH) {
		p->seg[p->n].key = key;
		p->seg[p->n].index = 0;
	}
	p->n++;
}

void adapters_path_index(struct adapters_path *p, size_t index)
{
	if (p->n < INGEST_ADAPT_MAX_DEPTH) {
		p->seg[p->n].key = NULL;
		p->seg[p->n].index = index;
	}
	p->n++;
}

void adapters_path_pop(struct adapters_path *p)
{
	if (p->n)
		p->n--;
}

/* A key for a message: control characters as '?', cut after KEY_QUOTE_MAX bytes. */
static void add_key(struct strbuf *sb, const char *key)
{
	size_t n = strlen(key), cut = n;

	if (n > KEY_QUOTE_MAX) {
		for (cut = KEY_QUOTE_MAX; cut && ((unsigned char)key[cut] & 0xC0) == 0x80; cut--)
			;
	}
	for (size_t i = 0; i < cut; i++)
		strbuf_addch(sb, (unsigned char)key[i] < 0x20 ? '?' : key[i]);
	if (cut < n)
		strbuf_addstr(sb, "...");
}

/* The dotted name of the first n steps: benchmarks[3].real_time. */
static void add_path(struct strbuf *sb, const struct adapters_path *p, size_t n)
{
	if (n > INGEST_ADAPT_MAX_DEPTH)
		n = INGEST_ADAPT_MAX_DEPTH;
	for (size_t i = 0; i < n; i++) {
		if (!p->seg[i].key) {
			strbuf_addf(sb, "[%zu]", p->seg[i].index);
			continue;
		}
		if (i)
			strbuf_addch(sb, '.');
		add_key(sb, p->seg[i].key);
	}
}

static size_t locate(const struct adapters_input *a, const struct adapters_path *p, size_t n,
		     int want_key)
{
	size_t off;

	if (n > INGEST_ADAPT_MAX_DEPTH)
		n = INGEST_ADAPT_MAX_DEPTH;
	off = ingest_json_locate(a->text, a->len, 0, p->seg, n, want_key);
	if (off == INGEST_JSON_NOT_FOUND)
		off = ingest_json_skip_ws(a->text, a->len, 0);
	return off;
}

void adapters_walk_start(struct adapters_walk *w, const struct adapters_input *a,
			 const struct adapters_path *p)
{
	size_t off =
	    ingest_json_locate(a->text, a->len, 0, p->seg,
			       p->n > INGEST_ADAPT_MAX_DEPTH ? INGEST_ADAPT_MAX_DEPTH : p->n, 0);

	ingest_json_cursor_init(&w->cur);
	w->next = INGEST_JSON_NOT_FOUND;
	if (off == INGEST_JSON_NOT_FOUND || (a->text[off] != '{' && a->text[off] != '['))
		return;
	off = ingest_json_skip_ws(a->text, a->len, off + 1);
	if (off < a->len && a->text[off] != '}' && a->text[off] != ']')
		w->next = off;
}

void adapters_walk_next(struct adapters_walk *w, const struct adapters_input *a, int *line,
			int *column)
{
	size_t i = w->next;

	*line = *column = 1;
	if (i == INGEST_JSON_NOT_FOUND || i >= a->len)
		return;
	ingest_json_cursor_advance(&w->cur, a->text, i);
	*line = w->cur.line;
	*column = w->cur.column;
	if (a->text[i] == '"') {
		/* an object member's key, or an array element that is a string */
		i = ingest_json_skip_ws(a->text, a->len,
					ingest_json_skip_string(a->text, a->len, i));
		if (i < a->len && a->text[i] == ':')
			i = ingest_json_skip_value(a->text, a->len,
						   ingest_json_skip_ws(a->text, a->len, i + 1));
	} else {
		i = ingest_json_skip_value(a->text, a->len, i);
	}
	i = ingest_json_skip_ws(a->text, a->len, i);
	if (i < a->len && a->text[i] == ',')
		w->next = ingest_json_skip_ws(a->text, a->len, i + 1);
	else
		w->next = INGEST_JSON_NOT_FOUND;
}

int adapters_each_element(struct ingest_batch *out, const struct adapters_input *a,
			  const struct adapters_common *common, struct adapters_path *p,
			  json_t *array, adapters_element_fn fn)
{
	struct adapters_walk walk;
	json_t *element;
	size_t i;
	int ret = 0, line, column;

	adapters_walk_start(&walk, a, p);
	json_array_foreach (array, i, element) {
		adapters_walk_next(&walk, a, &line, &column);
		adapters_path_index(p, i);
		ret = fn(out, a, common, p, element, line, column);
		adapters_path_pop(p);
		if (ret)
			break;
	}
	return ret;
}

int adapters_json_fail(const struct adapters_input *a, const struct adapters_path *p,
		       enum adapters_at at, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = p->n, off;
	va_list ap;
	int ret;

	if (at == INGEST_AT_PARENT && n)
		n--;
	off = locate(a, p, n, at == INGEST_AT_KEY);
	if (p->n) {
		add_path(&sb, p, p->n);
		strbuf_addstr(&sb, ": ");
	}
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ret = adapters_fail_at(a->err, a->name, a->text, off, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

static int fail_member(const struct adapters_input *a, struct adapters_path *p, const char *key,
		       enum adapters_at at, const char *what)
{
	int ret;

	adapters_path_key(p, key);
	ret = adapters_json_fail(a, p, at, "%s", what);
	adapters_path_pop(p);
	return ret;
}

int adapters_get_string(const struct adapters_input *a, struct adapters_path *p, json_t *obj,
			const char *key, int required, const char **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return required ? fail_member(a, p, key, INGEST_AT_PARENT, "missing required field")
				: 0;
	if (!json_is_string(v))
		return fail_member(a, p, key, INGEST_AT_VALUE, "expected a string");
	if (json_string_length(v) > INGEST_MAX_STRING)
		return fail_member(a, p, key, INGEST_AT_VALUE, "string longer than 4096 bytes");
	*out = json_string_value(v);
	return 0;
}

int adapters_number_value(const struct adapters_input *a, struct adapters_path *p, json_t *v,
			  double *out)
{
	double d;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (!json_is_number(v))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected a number");
	d = json_number_value(v);
	if (!isfinite(d))
		return adapters_json_fail(a, p, INGEST_AT_VALUE, "expected a finite number");
	if (d < 0) {
		strbuf_add_double(&sb, d, DOUBLE_LAYOUT_G);
		ret = adapters_json_fail(a, p, INGEST_AT_VALUE, "negative value %s", sb.buf);
		strbuf_release(&sb);
		return ret;
	}
	*out = d;
	return 0;
}

int adapters_get_number(const struct adapters_input *a, struct adapters_path *p, json_t *obj,
			const char *key, int required, double *out)
{
	json_t *v = json_object_get(obj, key);
	int ret;

	if (!v)
		return required ? fail_member(a, p, key, INGEST_AT_PARENT, "missing required field")
				: 0;
	adapters_path_key(p, key);
	ret = adapters_number_value(a, p, v, out);
	adapters_path_pop(p);
	return ret;
}

int adapters_get_object(const struct adapters_input *a, struct adapters_path *p, json_t *obj,
			const char *key, int required, json_t **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return required ? fail_member(a, p, key, INGEST_AT_PARENT, "missing required field")
				: 0;
	if (!json_is_object(v))
		return fail_member(a, p, key, INGEST_AT_VALUE, "expected an object");
	*out = v;
	return 0;
}

int adapters_get_array(const struct adapters_input *a, struct adapters_path *p, json_t *obj,
		       const char *key, int required, json_t **out)
{
	json_t *v = json_object_get(obj, key);

	if (!v)
		return required ? fail_member(a, p, key, INGEST_AT_PARENT, "missing required field")
				: 0;
	if (!json_is_array(v))
		return fail_member(a, p, key, INGEST_AT_VALUE, "expected an array");
	*out = v;
	return 0;
}

int adapters_get_samples(const struct adapters_input *a, struct adapters_path *p, json_t *arr,
			 double **out, size_t *n)
{
	size_t count = json_array_size(arr);
	double *values;
	int ret = 0;

	*out = NULL;
	*n = 0;
	if (count > INGEST_MAX_SAMPLES)
		return adapters_json_fail(a, p, INGEST_AT_VALUE,
					  "%zu samples, over the limit of %d", count,
					  INGEST_MAX_SAMPLES);
	if (!count)
		return 0;
	values = xmalloc(count * sizeof(*values));
	for (size_t i = 0; i < count; i++) {
		adapters_path_index(p, i);
		ret = adapters_number_value(a, p, json_array_get(arr, i), &values[i]);
		adapters_path_pop(p);
		if (ret) {
			free(values);
			return ret;
		}
	}
	*out = values;
	*n = count;
	return 0;
}

/* --- timestamps and names --- */

static int two_digits(const char *s, int *out)
{
	if (s[0] < '0' || s[0] > '9' || s[1] < '0' || s[1] > '9')
		return -1;
	*out = (s[0] - '0') * 10 + (s[1] - '0');
	return 0;
}

int adapters_parse_time(const char *s, double *out)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = strlen(s), i;
	int offset = 0, oh, om, ret = BL_EINVALID;
	double t;

	/* "YYYY-MM-DD" then 'T' or ' ' then "HH:MM:SS" */
	if (n < 19 || (s[10] != 'T' && s[10] != 't' && s[10] != ' '))
		return BL_EINVALID;
	strbuf_add(&sb, s, 10);
	strbuf_addch(&sb, 'T');
	strbuf_add(&sb, s + 11, 8);
	i = 19;
	if (i < n && s[i] == '.') {
		size_t start = i++;
		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == start + 1)
			goto done;
		strbuf_add(&sb, s + start, i - start);
	}
	if (i == n) {
		/* no offset: taken as UTC */
	} else if ((s[i] == 'Z' || s[i] == 'z') && i + 1 == n) {
	} else if (s[i] == '+' || s[i] == '-') {
		const char *z = s + i + 1;
		size_t rest = n - i - 1;
		if (rest == 5 && z[2] == ':' && !two_digits(z, &oh) && !two_digits(z + 3, &om)) {
		} else if (rest == 4 && !two_digits(z, &oh) && !two_digits(z + 2, &om)) {
		} else if (rest == 2 && !two_digits(z, &oh)) {
			om = 0;
		} else {
			goto done;
		}
		if (oh > 23 || om > 59)
			goto done;
		offset = (oh * 60 + om) * 60 * (s[i] == '-' ? -1 : 1);
	} else {
		goto done;
	}
	strbuf_addch(&sb, 'Z');
	/* before 1970 or past 9999 could not be written back as RFC 3339 in the record */
	if (parse_rfc3339_utc(sb.buf, &t) || t - offset < 0 || t - offset >= 253402300800.0)
		goto done;
	*out = t - offset;
	ret = 0;
done:
	strbuf_release(&sb);
	return ret;
}

/* --- records --- */

void adapters_file_info_init(struct adapters_file_info *fi)
{
	memset(fi, 0, sizeof(*fi));
	fi->started_at = NAN;
	fi->committed_at = NAN;
}

void adapters_file_info_release(struct adapters_file_info *fi)
{
	free(fi->machine_info);
	adapters_file_info_init(fi);
}

static void lower_hex40(char *dst, const char *src)
{
	for (int i = 0; i < 40; i++)
		dst[i] = (char)(src[i] >= 'A' && src[i] <= 'F' ? src[i] - 'A' + 'a' : src[i]);
	dst[40] = '\0';
}

int adapters_resolve(struct adapters_common *common, const struct adapters_input *a,
		     const struct adapters_file_info *fi)
{
	const struct ingest_defaults *d = a->defaults;

	memset(common, 0, sizeof(*common));
	common->committed_at = NAN;
	if (d->machine) {
		if (!machine_name_valid(d->machine))
			return bl_error_set(a->err, BL_EINVALID,
					    "%s: --machine: invalid machine name (expected "
					    "[A-Za-z0-9._-]{1,64})",
					    a->name);
		snprintf(common->machine, sizeof(common->machine), "%s", d->machine);
	} else if (fi->machine) {
		if (!machine_name_valid(fi->machine)) {
			struct strbuf q = STRBUF_INIT;
			int ret;
			add_key(&q, fi->machine);
			ret = bl_error_set_kind(
			    a->err, BL_KIND_NEEDS_FLAG, BL_EINVALID,
			    "%s: the %s \"%s\" is not a valid machine name: give "
			    "--machine",
			    a->name, fi->machine_what ? fi->machine_what : "machine", q.buf);
			strbuf_release(&q);
			return ret;
		}
		snprintf(common->machine, sizeof(common->machine), "%s", fi->machine);
	} else {
		return bl_error_set_kind(a->err, BL_KIND_NEEDS_FLAG, BL_EINVALID,
					 "%s: no machine: give --machine", a->name);
	}
	if (d->harness_version < 0)
		return bl_error_set_kind(a->err, BL_KIND_NEEDS_FLAG, BL_EINVALID,
					 "%s: no harness version: give --harness-version", a->name);
	common->harness_version = d->harness_version;
	common->config = d->config ? d->config : "";
	if (strlen(common->config) > INGEST_MAX_STRING ||
	    !utf8_valid(common->config, strlen(common->config)))
		return bl_error_set(a->err, BL_EINVALID,
				    "%s: --config: longer than 4096 bytes or not utf-8", a->name);
	if (d->commit) {
		if (!is_hex40(d->commit))
			return bl_error_set(a->err, BL_EINVALID,
					    "%s: the commit is not 40 hex digits", a->name);
		lower_hex40(common->commit, d->commit);
		if (d->source_hash && *d->source_hash) {
			if (!is_hex40(d->source_hash))
				return bl_error_set(a->err, BL_EINVALID,
						    "%s: the source hash is not 40 hex digits",
						    a->name);
			lower_hex40(common->source_hash, d->source_hash);
		}
		common->branch = d->branch;
		common->dirty = d->dirty;
		common->committed_at = d->committed_at;
	} else if (fi->commit && is_hex40(fi->commit)) {
		lower_hex40(common->commit, fi->commit);
		common->branch = fi->branch;
		common->dirty = fi->dirty;
		common->committed_at = fi->committed_at;
	} else {
		return bl_error_set_kind(a->err, BL_KIND_NEEDS_FLAG, BL_EINVALID,
					 "%s: no commit: give --repo", a->name);
	}
	if (common->branch && (strlen(common->branch) > INGEST_MAX_STRING ||
			       !utf8_valid(common->branch, strlen(common->branch))))
		common->branch = NULL;
	common->machine_info = fi->machine_info;
	if (!isnan(d->started_at))
		common->started_at = d->started_at;
	else if (!isnan(fi->started_at))
		common->started_at = fi->started_at;
	else
		common->started_at = a->fallback_time;
	return 0;
}

int adapters_record_init(struct ingest_record *rec, const struct adapters_common *common,
			 const char *benchmark, int line, int column, const char *name,
			 struct bl_error *err)
{
	size_t n = strlen(benchmark);

	memset(rec, 0, sizeof(*rec));
	rec->committed_at = NAN;
	if (!n)
		return bl_error_set(err, BL_EINVALID, "%s:%d:%d: empty benchmark name", name, line,
				    column);
	if (n > INGEST_MAX_STRING)
		return bl_error_set(err, BL_EINVALID,
				    "%s:%d:%d: benchmark name longer than %d bytes (%zu)", name,
				    line, column, INGEST_MAX_STRING, n);
	if (!utf8_valid(benchmark, n))
		return bl_error_set(err, BL_EINVALID, "%s:%d:%d: benchmark name is not utf-8", name,
				    line, column);
	rec->machine = xstrdup(common->machine);
	rec->machine_info = xstrdup_or_null(common->machine_info);
	rec->benchmark = xstrdup(benchmark);
	rec->config = xstrdup(common->config);
	rec->harness_version = common->harness_version;
	memcpy(rec->commit, common->commit, sizeof(rec->commit));
	memcpy(rec->source_hash, common->source_hash, sizeof(rec->source_hash));
	rec->branch = xstrdup_or_null(common->branch);
	rec->committed_at = common->committed_at;
	rec->dirty = common->dirty;
	rec->started_at = common->started_at;
	rec->line = line;
	rec->column = column;
	return 0;
}

struct ingest_metric *adapters_add_metric(struct ingest_record *rec, const char *name,
					  enum metric_kind kind, const char *unit,
					  int better_higher)
{
	struct ingest_metric *m;

	rec->metrics = xrealloc(rec->metrics, (rec->nmetrics + 1) * sizeof(*rec->metrics));
	m = &rec->metrics[rec->nmetrics++];
	memset(m, 0, sizeof(*m));
	m->name = xstrdup(name);
	m->kind = kind;
	m->unit = xstrdup(unit);
	m->better_higher = better_higher;
	m->median = m->p95 = m->value = NAN;
	m->n = -1;
	return m;
}

void adapters_take_samples(struct ingest_metric *m, double *samples, size_t n)
{
	double *sorted;

	free(m->samples);
	m->samples = samples;
	m->nsamples = n;
	if (!n) {
		free(samples);
		m->samples = NULL;
		return;
	}
	sorted = xmalloc(n * sizeof(*sorted));
	memcpy(sorted, samples, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp_double);
	m->median = nearest_rank_sorted(sorted, n, 50);
	m->p95 = nearest_rank_sorted(sorted, n, 95);
	m->n = (int64_t)n;
	free(sorted);
}

double adapters_median(const double *values, size_t n)
{
	return nearest_rank(values, n, 50);
}

int adapters_push(struct ingest_batch *batch, struct ingest_record *rec, const char *name,
		  struct bl_error *err)
{
	int ret;

	if (!rec->nmetrics) {
		ret = bl_error_set(err, BL_EINVALID, "%s:%d:%d: %s: no metrics", name, rec->line,
				   rec->column, rec->benchmark);
		ingest_record_release(rec);
		return ret;
	}
	if ((ret = ingest_record_finish(rec, NULL, err))) {
		bl_error_prefix(err, "%s:%d:%d", name, rec->line, rec->column);
		ingest_record_release(rec);
		return ret;
	}
	ALLOC_GROW(batch->records, batch->nr, batch->alloc);
	batch->records[batch->nr++] = *rec;
	memset(rec, 0, sizeof(*rec));
	return 0;
}

void adapters_append(struct ingest_batch *to, struct ingest_batch *from)
{
	if (!to->nr) {
		free(to->records);
		*to = *from;
	} else {
		for (size_t i = 0; i < from->nr; i++) {
			ALLOC_GROW(to->records, to->nr, to->alloc);
			to->records[to->nr++] = from->records[i];
		}
		free(from->records);
	}
	memset(from, 0, sizeof(*from));
}

/* --- detection --- */

static int is_ws(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The offset of member key's value in the object at start, or INGEST_JSON_NOT_FOUND. */
static size_t member(const char *text, size_t len, size_t start, const char *key)
{
	struct ingest_json_seg seg = {key, 0};
	return ingest_json_locate(text, len, start, &seg, 1, 0);
}

static int member_is(const char *text, size_t len, size_t start, const char *key, char open)
{
	size_t off = member(text, len, start, key);
	return off != INGEST_JSON_NOT_FOUND && text[off] == open;
}

/* The offset of the first member's value of the object at start (text[start] == '{'). */
static size_t first_member_value(const char *text, size_t len, size_t start)
{
	size_t i = ingest_json_skip_ws(text, len, start + 1);

	if (i >= len || text[i] != '"')
		return INGEST_JSON_NOT_FOUND;
	for (i++; i < len && text[i] != '"'; i++)
		if (text[i] == '\\')
			i++;
	if (i >= len)
		return INGEST_JSON_NOT_FOUND;
	i = ingest_json_skip_ws(text, len, i + 1);
	if (i >= len || text[i] != ':')
		return INGEST_JSON_NOT_FOUND;
	i = ingest_json_skip_ws(text, len, i + 1);
	return i < len ? i : INGEST_JSON_NOT_FOUND;
}

/* A native record: a "schema" key, or (when it lacks one, for the native parser to say so)
 * both "benchmark" and "metrics". */
static int native_record(const char *text, size_t len, size_t i)
{
	size_t off = member(text, len, i, "schema");

	if (off != INGEST_JSON_NOT_FOUND && text[off] != '{' && text[off] != '[')
		return 1;
	return member(text, len, i, "benchmark") != INGEST_JSON_NOT_FOUND &&
	       member_is(text, len, i, "metrics", '{');
}

static const char *detect_json(const char *text, size_t len, size_t i)
{
	size_t off, first;

	if (text[i] == '[') {
		struct ingest_json_seg seg = {NULL, 0};
		off = ingest_json_locate(text, len, i, &seg, 1, 0);
		if (off == INGEST_JSON_NOT_FOUND || text[off] != '{')
			return NULL;
		if (native_record(text, len, off))
			return "benchline";
		if (member(text, len, off, "jmhVersion") != INGEST_JSON_NOT_FOUND ||
		    (member(text, len, off, "benchmark") != INGEST_JSON_NOT_FOUND &&
		     member_is(text, len, off, "primaryMetric", '{')))
			return "jmh";
		return NULL;
	}
	if (native_record(text, len, i))
		return "benchline";
	if (member_is(text, len, i, "benchmarks", '[')) {
		struct ingest_json_seg path[2] = {{"benchmarks", 0}, {NULL, 0}};
		if (member_is(text, len, i, "context", '{'))
			return "gbench";
		if (member(text, len, i, "machine_info") != INGEST_JSON_NOT_FOUND ||
		    member(text, len, i, "commit_info") != INGEST_JSON_NOT_FOUND ||
		    member(text, len, i, "datetime") != INGEST_JSON_NOT_FOUND)
			return "pytest";
		first = ingest_json_locate(text, len, i, path, 2, 0);
		if (first != INGEST_JSON_NOT_FOUND && text[first] == '{') {
			if (member(text, len, first, "stats") != INGEST_JSON_NOT_FOUND)
				return "pytest";
			if (member(text, len, first, "real_time") != INGEST_JSON_NOT_FOUND ||
			    member(text, len, first, "run_name") != INGEST_JSON_NOT_FOUND)
				return "gbench";
		}
	}
	if (member_is(text, len, i, "results", '[')) {
		struct ingest_json_seg path[2] = {{"results", 0}, {NULL, 0}};
		first = ingest_json_locate(text, len, i, path, 2, 0);
		if (first != INGEST_JSON_NOT_FOUND && text[first] == '{' &&
		    member(text, len, first, "command") != INGEST_JSON_NOT_FOUND)
			return "hyperfine";
	}
	/* {"bench": {"measure": {"value": ...}}} */
	first = first_member_value(text, len, i);
	if (first != INGEST_JSON_NOT_FOUND && text[first] == '{') {
		off = first_member_value(text, len, first);
		if (off != INGEST_JSON_NOT_FOUND && text[off] == '{' &&
		    member(text, len, off, "value") != INGEST_JSON_NOT_FOUND)
			return "bmf";
	}
	return NULL;
}

/* Whether the line [s, end) is a `go test -bench` result: "BenchmarkX-8 <ws> 123 <ws> ...". */
static int gotest_result_line(const char *s, const char *end)
{
	const char *p = s + 9;

	if (end - s < 10 || memcmp(s, "Benchmark", 9))
		return 0;
	while (p < end && !is_ws(*p))
		p++;
	if (p == end || (*p != ' ' && *p != '\t'))
		return 0;
	while (p < end && (*p == ' ' || *p == '\t'))
		p++;
	if (p == end || *p < '0' || *p > '9')
		return 0;
	while (p < end && *p >= '0' && *p <= '9')
		p++;
	return p < end && (*p == ' ' || *p == '\t');
}

static const char *detect_text(const char *text, size_t len)
{
	const char *p = text, *end = text + len;
	int header = 0, bench = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		if (gotest_result_line(p, eol))
			return "gotest";
		if ((eol - p >= 6 && !memcmp(p, "goos: ", 6)) ||
		    (eol - p >= 8 && !memcmp(p, "goarch: ", 8)) ||
		    (eol - p >= 5 && !memcmp(p, "pkg: ", 5)))
			header = 1;
		if (eol - p >= 9 && !memcmp(p, "Benchmark", 9))
			bench = 1;
		p = eol + 1;
	}
	return header && bench ? "gotest" : NULL;
}

/* Past the XML declaration, comments and processing instructions before the root element:
 * the offset of its '<', or len. */
static size_t xml_root(const char *text, size_t len, size_t i)
{
	for (;;) {
		i = ingest_json_skip_ws(text, len, i);
		if (i + 1 >= len || text[i] != '<')
			return len;
		if (text[i + 1] == '?' || !strncmp(text + i, "<!--", len - i < 4 ? len - i : 4)) {
			const char *end = text[i + 1] == '?' ? "?>" : "-->";
			const char *at = NULL;
			for (size_t k = i + 2; k + strlen(end) <= len; k++)
				if (!memcmp(text + k, end, strlen(end))) {
					at = text + k;
					break;
				}
			if (!at)
				return len;
			i = (size_t)(at - text) + strlen(end);
			continue;
		}
		return i;
	}
}

/* Catch2's XML: a root element <Catch2TestRun> (Catch2 3) or <Catch> (Catch2 2). */
static const char *detect_xml(const char *text, size_t len, size_t i)
{
	static const char *const roots[] = {"Catch2TestRun", "Catch"};

	i = xml_root(text, len, i);
	if (i >= len)
		return NULL;
	for (size_t k = 0; k < sizeof(roots) / sizeof(roots[0]); k++) {
		size_t n = strlen(roots[k]);
		if (len - i > n + 1 && !memcmp(text + i + 1, roots[k], n) &&
		    (is_ws(text[i + 1 + n]) || text[i + 1 + n] == '>' || text[i + 1 + n] == '/'))
			return "catch2";
	}
	return NULL;
}

#define GAB_PREFIX "window.BENCHMARK_DATA"

int adapters_detect_history(const char *text, size_t len)
{
	size_t i, first;

	if (!text || memchr(text, '\0', len))
		return -1;
	i = ingest_json_skip_ws(text, len, len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0);
	if (len - i >= strlen(GAB_PREFIX) && !memcmp(text + i, GAB_PREFIX, strlen(GAB_PREFIX)))
		return HISTORY_GAB;
	if (i >= len || text[i] != '{')
		return -1;
	if (member_is(text, len, i, "entries", '{') &&
	    (member(text, len, i, "lastUpdate") != INGEST_JSON_NOT_FOUND ||
	     member(text, len, i, "repoUrl") != INGEST_JSON_NOT_FOUND))
		return HISTORY_GAB;
	if (member_is(text, len, i, "revision_to_hash", '{'))
		return HISTORY_ASV_HTML;
	if (member_is(text, len, i, "result_columns", '[') ||
	    (member(text, len, i, "commit_hash") != INGEST_JSON_NOT_FOUND &&
	     member_is(text, len, i, "results", '{')))
		return HISTORY_ASV;
	if (member_is(text, len, i, "results", '[')) {
		struct ingest_json_seg path[2] = {{"results", 0}, {NULL, 0}};
		first = ingest_json_locate(text, len, i, path, 2, 0);
		if (first != INGEST_JSON_NOT_FOUND && text[first] == '{' &&
		    (member(text, len, first, "testbed") != INGEST_JSON_NOT_FOUND ||
		     member(text, len, first, "metric_kind") != INGEST_JSON_NOT_FOUND))
			return HISTORY_BENCHER;
		if ((first == INGEST_JSON_NOT_FOUND || text[first] == ']') &&
		    member_is(text, len, i, "project", '{'))
			return HISTORY_BENCHER;
	}
	return -1;
}

/* The console outputs of tools whose files benchline reads: how a line of them starts and
 * what it must hold, and what to run instead. */
static const struct {
	const char *starts;
	const char *holds[4];
	const char *phrase;
} consoles[] = {
    {"Benchmark ",
     {"Time", "CPU", "Iterations", NULL},
     "Google Benchmark's console output (run it with --benchmark_format=json, or "
     "--benchmark_out=FILE --benchmark_out_format=json, and ingest that)"},
    {"benchmark name",
     {"samples", "iterations", NULL},
     "Catch2's console output (run it with --reporter xml, or --reporter xml::out=FILE, and "
     "ingest that with --format catch2)"},
    {"Benchmark ",
     {"Mode", "Score", "Units", NULL},
     "JMH's console output (run it with -rf json, or -rf json -rff FILE, and ingest that)"},
    {"Name (time in ",
     {"Min", "Max", NULL},
     "pytest-benchmark's console output (run pytest with --benchmark-json=FILE and ingest "
     "that)"},
    {"  Time (mean \xc2\xb1 ",
     {NULL},
     "hyperfine's console output (run it with --export-json FILE and ingest that)"},
    {"Benchmark 1: ",
     {NULL},
     "hyperfine's console output (run it with --export-json FILE and ingest that)"},
};

/* Whether the line [p, end) is a line of console output i. */
static int console_line(size_t i, const char *p, const char *end)
{
	size_t n = strlen(consoles[i].starts);
	char *line;
	int ok = 1;

	if ((size_t)(end - p) < n || memcmp(p, consoles[i].starts, n))
		return 0;
	line = xstrndup(p, (size_t)(end - p));
	for (size_t k = 0; ok && k < 4 && consoles[i].holds[k]; k++)
		ok = strstr(line + n, consoles[i].holds[k]) != NULL;
	free(line);
	return ok;
}

/* A console output's phrase, *off its line, or NULL. */
static const char *detect_console(const char *text, size_t len, size_t *off)
{
	const char *p = text, *end = text + len;
	size_t lines = 0;

	/* the first 200 lines are enough: a header comes first */
	while (p < end && lines++ < 200) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		if (!eol)
			eol = end;
		for (size_t i = 0; i < sizeof(consoles) / sizeof(consoles[0]); i++) {
			if (console_line(i, p, eol)) {
				*off = (size_t)(p - text);
				return consoles[i].phrase;
			}
		}
		p = eol + 1;
	}
	return NULL;
}

/* Each format as a message names it, with how benchline reads it. */
static const struct {
	const char *what, *phrase;
} format_words[RESULT_NFORMATS] = {
    [RESULT_NATIVE] = {"benchline records", "benchline records (benchline ingest)"},
    [RESULT_BMF] = {"Bencher Metric Format JSON",
		    "Bencher Metric Format JSON (benchline ingest --format bmf)"},
    [RESULT_GBENCH] = {"Google Benchmark JSON",
		       "Google Benchmark JSON (benchline ingest --format gbench)"},
    [RESULT_HYPERFINE] = {"hyperfine JSON", "hyperfine JSON (benchline ingest --format hyperfine)"},
    [RESULT_PYTEST] = {"pytest-benchmark JSON",
		       "pytest-benchmark JSON (benchline ingest --format pytest)"},
    [RESULT_GOTEST] = {"go test -bench output",
		       "go test -bench output (benchline ingest --format gotest)"},
    [RESULT_CRITERION] = {"a target/criterion directory",
			  "a target/criterion directory (benchline ingest --format criterion)"},
    [RESULT_CATCH2] = {"Catch2's XML", "Catch2's XML (benchline ingest --format catch2)"},
    [RESULT_JMH] = {"JMH JSON", "JMH JSON (benchline ingest --format jmh)"},
};

static const char *const history_words[HISTORY_NFORMATS] = {
    [HISTORY_ASV] = "an asv results file (benchline import --from asv, given asv's results "
		    "directory)",
    [HISTORY_ASV_HTML] = "asv's index.json (benchline import --from asv-html, given the site's "
			 "directory)",
    [HISTORY_GAB] = "github-action-benchmark's data.js (benchline import --from gab)",
    [HISTORY_BENCHER] = "Bencher's perf JSON (benchline import --from bencher)",
};

const char *adapters_looks_like(const char *text, size_t len, size_t *off)
{
	const char *format, *console;
	size_t start, at = 0;
	enum result_format f;
	int h;

	if (!text || memchr(text, '\0', len))
		return NULL;
	start =
	    ingest_json_skip_ws(text, len, len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0);
	if (off)
		*off = start;
	if ((h = adapters_detect_history(text, len)) >= 0)
		return history_words[h];
	format = adapters_detect_format(NULL, text, len);
	if (format && !result_format_parse(&f, format) && format_words[f].phrase)
		return format_words[f].phrase;
	if ((console = detect_console(text, len, &at))) {
		if (off)
			*off = at;
		return console;
	}
	return NULL;
}

const char *adapters_detect_format(const char *path, const char *text, size_t len)
{
	struct stat st;
	size_t i;

	if (!text)
		return path && !stat(path, &st) && S_ISDIR(st.st_mode) ? "criterion" : NULL;
	if (memchr(text, '\0', len))
		return NULL;
	/* a UTF-8 byte order mark is no part of the content (the native parser skips it too) */
	i = ingest_json_skip_ws(text, len, len >= 3 && !memcmp(text, "\xEF\xBB\xBF", 3) ? 3 : 0);
	if (i == len)
		return NULL;
	if (text[i] == '{' || text[i] == '[')
		return detect_json(text, len, i);
	if (text[i] == '<')
		return detect_xml(text, len, i);
	return detect_text(text, len);
}

/* --- dispatch --- */

typedef int (*adapter_fn)(struct ingest_batch *, const struct adapters_input *);

/* Each adapter's format (common/'s names); the native format and "auto" have none. */
static const adapter_fn adapters[RESULT_NFORMATS] = {
    [RESULT_BMF] = adapters_bmf,
    [RESULT_GBENCH] = adapters_gbench,
    [RESULT_HYPERFINE] = adapters_hyperfine,
    [RESULT_PYTEST] = adapters_pytest,
    [RESULT_GOTEST] = adapters_gotest,
    [RESULT_CRITERION] = adapters_criterion,
    [RESULT_CATCH2] = adapters_catch2,
    [RESULT_JMH] = adapters_jmh,
};

/* started_at when neither the flag nor the file gives one: the file's mtime, else now. */
static double file_time(const char *path)
{
	struct stat st;

	if (path && !stat(path, &st))
		return (double)st.st_mtime;
	return (double)time(NULL);
}

int adapters_format_names_commit(enum result_format f)
{
	return f == RESULT_AUTO || f == RESULT_NATIVE || f == RESULT_PYTEST;
}

/* What auto says of a file it cannot tell: what the file is, when benchline knows the tool
 * (its console output, a history), and how to get a file it reads. */
static int cannot_tell(struct bl_error *err, const char *path, const char *text, size_t len)
{
	size_t off = 0;
	const char *looks = text ? adapters_looks_like(text, len, &off) : NULL;

	if (!looks)
		return bl_error_set(err, BL_EINVALID, "%s: cannot tell the format (give --format)",
				    path);
	return adapters_fail_at(err, path, text, off, "cannot tell the format: it looks like %s",
				looks);
}

/* When format f failed on a file that is something else benchline knows, that is the error:
 * "not hyperfine JSON: it looks like Google Benchmark JSON (benchline ingest --format
 * gbench)", positioned where the file starts (or at the console line that gave it away). */
static void hint_instead(struct bl_error *err, enum result_format f, const char *path,
			 const char *text, size_t len)
{
	const char *detected = adapters_detect_format(NULL, text, len), *looks;
	enum result_format d;
	size_t off = 0;

	if (detected && !result_format_parse(&d, detected) && d == f)
		return; /* it is what it says: the adapter's own error stands */
	if (!(looks = adapters_looks_like(text, len, &off)))
		return;
	bl_error_clear(err);
	adapters_fail_at(err, path, text, off, "not %s: it looks like %s", format_words[f].what,
			 looks);
}

int adapters_parse(struct ingest_batch *out, const char **chosen, const char *format,
		   const char *path, const char *text, size_t len,
		   const struct ingest_defaults *defaults, struct bl_error *err)
{
	struct ingest_batch local = {NULL, 0, 0};
	struct ingest_defaults none;
	struct adapters_input a;
	enum result_format f;
	adapter_fn fn;
	int ret;

	if (chosen)
		*chosen = NULL;
	if (!defaults) {
		ingest_defaults_init(&none);
		defaults = &none;
	}
	if (!format || !strcmp(format, "auto")) {
		format = adapters_detect_format(path, text, len);
		if (!format)
			return cannot_tell(err, path, text, len);
	}
	if (result_format_parse(&f, format) || f == RESULT_AUTO) {
		struct strbuf list = STRBUF_INIT;
		result_format_list(&list);
		ret = bl_error_set(err, BL_EINVALID, "unknown format \"%s\" (expected %s)", format,
				   list.buf);
		strbuf_release(&list);
		return ret;
	}
	if (f == RESULT_NATIVE) {
		if (chosen)
			*chosen = result_format_name(f);
		if (!text)
			return bl_error_set(err, BL_EINVALID,
					    "%s: is a directory (only criterion reads one)", path);
		if ((ret = adapters_parse_native(out, path, text, len, err)) == BL_EINVALID)
			hint_instead(err, f, path, text, len);
		return ret;
	}
	fn = adapters[f];
	if (chosen)
		*chosen = result_format_name(f);
	if (fn == adapters_criterion && text)
		return bl_error_set(err, BL_EINVALID,
				    "%s: criterion reads a target/criterion directory, not a file",
				    path);
	if (fn != adapters_criterion && !text)
		return bl_error_set(err, BL_EINVALID,
				    "%s: is a directory (only criterion reads one)", path);
	if (text && len > INGEST_MAX_FILE)
		return bl_error_set(err, BL_ETOOBIG, "%s: over %zu bytes", path,
				    (size_t)INGEST_MAX_FILE);
	a.name = path;
	a.text = text;
	a.len = text ? len : 0;
	a.defaults = defaults;
	a.fallback_time = isnan(defaults->started_at) ? file_time(path) : defaults->started_at;
	a.err = err;
	if ((ret = fn(&local, &a))) {
		if (ret == BL_EINVALID && text)
			hint_instead(err, f, path, text, len);
		goto done;
	}
	adapters_append(out, &local);
done:
	ingest_batch_release(&local);
	return ret;
}

const struct ingest_parsers adapters_parsers = {
    .parse = adapters_parse,
    .detect = adapters_detect_format,
    .native = adapters_parse_native,
    .native_fd = adapters_parse_native_fd,
    .history = adapters_history,
};
