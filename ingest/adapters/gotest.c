/*
 * `go test -bench . -benchmem -count N` text. A result line is
 *   BenchmarkName-8   	 1000	      1234 ns/op	  56 B/op	       2 allocs/op
 * (name, iteration count, then value-unit pairs). The -count repeats of one name are one
 * record; each unit is a metric named as printed: ns/op (timed, unit ns) and other x/op
 * figures (timed, unit x) take the repeats as samples, as do MB/s and other x/s rates (timed,
 * higher better); B/op and allocs/op are counted, valued at the median of the repeats. The
 * benchmark is "PKG.NAME" after a `pkg:` header (NAME as printed, -GOMAXPROCS suffix kept),
 * and the `cpu:`, `goos:` and `goarch:` headers become machine_info. Lines that are not
 * results are ignored; a line that starts like a result but is malformed is an error at its
 * line and column. docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

struct go_unit {
	char *unit;
	double *values;
	size_t nr, alloc;
};

struct go_bench {
	char *name;
	int line, column;
	struct go_unit *units;
	size_t nunits, units_alloc;
};

struct go_parse {
	const struct adapters_input *a;
	struct go_bench *list;
	size_t nr, alloc;
	json_t *index; /* name -> position in list */
	char *pkg, *cpu, *goos, *goarch;
};

static void go_parse_release(struct go_parse *g)
{
	for (size_t i = 0; i < g->nr; i++) {
		for (size_t k = 0; k < g->list[i].nunits; k++) {
			free(g->list[i].units[k].unit);
			free(g->list[i].units[k].values);
		}
		free(g->list[i].units);
		free(g->list[i].name);
	}
	free(g->list);
	json_decref(g->index);
	free(g->pkg);
	free(g->cpu);
	free(g->goos);
	free(g->goarch);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

/* A token of a line: [start, end). */
struct token {
	const char *start, *end;
};

static const char *skip_space(const char *p, const char *end)
{
	while (p < end && is_space(*p))
		p++;
	return p;
}

static struct token next_token(const char **p, const char *end)
{
	struct token t;

	t.start = skip_space(*p, end);
	t.end = t.start;
	while (t.end < end && !is_space(*t.end))
		t.end++;
	*p = t.end;
	return t;
}

/* Fails at the byte s of the text. */
__attribute__((format(printf, 3, 4))) static int fail(struct go_parse *g, const char *at,
						      const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ret = adapters_fail_at(g->a->err, g->a->name, g->a->text, (size_t)(at - g->a->text), "%s",
			       sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* A token quoted for a message: at most 40 bytes, control bytes as '?'. */
static void quote(struct strbuf *sb, struct token t)
{
	size_t n = (size_t)(t.end - t.start), cut = n > 40 ? 40 : n;

	while (cut < n && cut && ((unsigned char)t.start[cut] & 0xC0) == 0x80)
		cut--;
	strbuf_addch(sb, '"');
	for (size_t i = 0; i < cut; i++) {
		unsigned char c = (unsigned char)t.start[i];
		strbuf_addch(sb, c < 0x20 || c == '"' || c == 0x7f ? '?' : (char)c);
	}
	strbuf_addstr(sb, cut < n ? "...\"" : "\"");
}

/* Fails at token t with "BEFORE \"TOKEN\"AFTER". */
static int fail_token(struct go_parse *g, struct token t, const char *before, const char *after)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, before);
	quote(&sb, t);
	strbuf_addstr(&sb, after);
	ret = fail(g, t.start, "%s", sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* A value as Go prints it: digits, a point, an exponent; finite and not negative. */
static int parse_value(struct token t, double *out)
{
	char buf[64];
	size_t n = (size_t)(t.end - t.start);
	char *stop;

	if (!n || n >= sizeof(buf))
		return -1;
	for (size_t i = 0; i < n; i++) {
		char c = t.start[i];
		if (!((c >= '0' && c <= '9') || c == '.' || c == 'e' || c == 'E' || c == '+' ||
		      c == '-'))
			return -1;
	}
	if (t.start[0] == '-' || t.start[0] == '+' || t.start[0] == 'e' || t.start[0] == 'E')
		return -1;
	memcpy(buf, t.start, n);
	buf[n] = '\0';
	*out = strtod(buf, &stop);
	if (*stop || !isfinite(*out) || *out < 0)
		return -1;
	return 0;
}

/* The value of a header line "KEY: value", trimmed. */
static char *header_value(const char *p, const char *end)
{
	p = skip_space(p, end);
	while (end > p && is_space(end[-1]))
		end--;
	return utf8_valid(p, (size_t)(end - p)) ? xstrndup(p, (size_t)(end - p)) : NULL;
}

static int header(const char *line, const char *end, const char *key, char **slot, int first_only)
{
	size_t n = strlen(key);

	if ((size_t)(end - line) < n || memcmp(line, key, n))
		return 0;
	if (!first_only || !*slot) {
		free(*slot);
		*slot = header_value(line + n, end);
	}
	return 1;
}

static struct go_bench *bench_get(struct go_parse *g, const char *name, int line, int column)
{
	json_t *known = json_object_get(g->index, name);
	struct go_bench *b;

	if (known)
		return &g->list[json_integer_value(known)];
	ALLOC_GROW(g->list, g->nr, g->alloc);
	json_object_set_new(g->index, name, json_integer((json_int_t)g->nr));
	b = &g->list[g->nr++];
	memset(b, 0, sizeof(*b));
	b->name = xstrdup(name);
	b->line = line;
	b->column = column;
	return b;
}

static struct go_unit *unit_get(struct go_bench *b, struct token t)
{
	size_t n = (size_t)(t.end - t.start);
	struct go_unit *u;

	for (size_t i = 0; i < b->nunits; i++)
		if (strlen(b->units[i].unit) == n && !memcmp(b->units[i].unit, t.start, n))
			return &b->units[i];
	ALLOC_GROW(b->units, b->nunits, b->units_alloc);
	u = &b->units[b->nunits++];
	memset(u, 0, sizeof(*u));
	u->unit = xstrndup(t.start, n);
	return u;
}

/* One line that starts with "Benchmark". */
static int result_line(struct go_parse *g, const char *line, const char *end, int lineno)
{
	const char *p = line;
	struct token name = next_token(&p, end), iters, value, unit;
	struct strbuf full = STRBUF_INIT;
	struct go_bench *b;
	size_t pairs = 0;
	int ret = 0;

	/* Go's rule: "Benchmark" followed by anything but a lowercase letter */
	if (name.end - name.start > 9 && name.start[9] >= 'a' && name.start[9] <= 'z')
		return 0;
	iters = next_token(&p, end);
	if (iters.start == iters.end)
		return 0; /* the name alone: printed before the result with -v */
	for (const char *c = iters.start; c < iters.end; c++) {
		if (*c < '0' || *c > '9')
			return fail_token(g, iters, "expected an iteration count, got ", "");
	}
	if ((size_t)(name.end - name.start) > INGEST_MAX_STRING ||
	    !utf8_valid(name.start, (size_t)(name.end - name.start)))
		return fail(g, name.start, "benchmark name longer than %d bytes or not utf-8",
			    INGEST_MAX_STRING);
	if (g->pkg && *g->pkg)
		strbuf_addf(&full, "%s.", g->pkg);
	strbuf_add(&full, name.start, (size_t)(name.end - name.start));
	if (full.len > INGEST_MAX_STRING) {
		ret = fail(g, name.start, "benchmark name longer than %d bytes", INGEST_MAX_STRING);
		goto done;
	}
	b = bench_get(g, full.buf, lineno, 1);
	for (;;) {
		struct go_unit *u;
		double v;
		value = next_token(&p, end);
		if (value.start == value.end)
			break;
		unit = next_token(&p, end);
		if (parse_value(value, &v)) {
			ret = fail_token(g, value, "expected a number, got ", "");
			goto done;
		}
		if (unit.start == unit.end) {
			ret = fail_token(g, value, "value ", " has no unit");
			goto done;
		}
		if ((size_t)(unit.end - unit.start) > 256 ||
		    !utf8_valid(unit.start, (size_t)(unit.end - unit.start))) {
			ret = fail(g, unit.start, "unit longer than 256 bytes or not utf-8");
			goto done;
		}
		u = unit_get(b, unit);
		if (u->nr >= INGEST_MAX_SAMPLES) {
			ret = fail(g, value.start, "over %d samples", INGEST_MAX_SAMPLES);
			goto done;
		}
		ALLOC_GROW(u->values, u->nr, u->alloc);
		u->values[u->nr++] = v;
		pairs++;
	}
	if (!pairs)
		ret = fail(g, iters.end, "no measurements after the iteration count");
done:
	strbuf_release(&full);
	return ret;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n >= k && !strcmp(s + n - k, suffix);
}

static void add_unit_metric(struct ingest_record *rec, struct go_unit *u)
{
	struct ingest_metric *m;
	char *unit;

	if (!strcmp(u->unit, "B/op") || !strcmp(u->unit, "allocs/op")) {
		m = adapters_add_metric(rec, u->unit, METRIC_COUNTED,
					!strcmp(u->unit, "B/op") ? "B" : "allocs", 0);
		m->value = adapters_median(u->values, u->nr);
		return;
	}
	if (ends_with(u->unit, "/op") && strlen(u->unit) > 3) {
		unit = xstrndup(u->unit, strlen(u->unit) - 3);
		m = adapters_add_metric(rec, u->unit, METRIC_TIMED, unit, 0);
		free(unit);
	} else {
		m = adapters_add_metric(rec, u->unit, METRIC_TIMED, u->unit,
					ends_with(u->unit, "/s"));
	}
	adapters_take_samples(m, u->values, u->nr);
	u->values = NULL;
	u->nr = u->alloc = 0;
}

static void machine_info(struct adapters_file_info *fi, const struct go_parse *g)
{
	json_t *info = json_object();
	char *dump;

	if (g->cpu && *g->cpu)
		json_object_set_new(info, "cpu", json_string(g->cpu));
	if (g->goos && *g->goos) {
		struct strbuf os = STRBUF_INIT;
		strbuf_addstr(&os, g->goos);
		if (g->goarch && *g->goarch)
			strbuf_addf(&os, "/%s", g->goarch);
		json_object_set_new(info, "os", json_string(os.buf));
		strbuf_release(&os);
	}
	if (json_object_size(info)) {
		dump = json_write_text(info, JSON_WRITE_SORT_KEYS);
		fi->machine_info = dump && strlen(dump) <= INGEST_MAX_STRING ? xstrdup(dump) : NULL;
		free(dump);
	}
	json_decref(info);
}

int adapters_gotest(struct ingest_batch *out, const struct adapters_input *a)
{
	struct go_parse g;
	struct adapters_file_info fi;
	struct adapters_common common;
	const char *p = a->text, *end = a->text + a->len, *nul = memchr(a->text, '\0', a->len);
	int lineno = 0, ret = 0;

	memset(&g, 0, sizeof(g));
	g.a = a;
	g.index = json_object();
	adapters_file_info_init(&fi);
	if (nul) {
		ret = adapters_fail_at(a->err, a->name, a->text, (size_t)(nul - a->text),
				       "nul byte in file");
		goto done;
	}
	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p)), *line_end;
		if (!eol)
			eol = end;
		line_end = eol;
		lineno++;
		if (header(p, line_end, "pkg:", &g.pkg, 0) ||
		    header(p, line_end, "cpu:", &g.cpu, 1) ||
		    header(p, line_end, "goos:", &g.goos, 1) ||
		    header(p, line_end, "goarch:", &g.goarch, 1)) {
			/* a header */
		} else if (line_end - p >= 9 && !memcmp(p, "Benchmark", 9)) {
			if ((ret = result_line(&g, p, line_end, lineno)))
				goto done;
		}
		p = eol + 1;
	}
	if (!g.nr) {
		ret = bl_error_set(a->err, BL_EINVALID, "%s: no benchmark results", a->name);
		goto done;
	}
	machine_info(&fi, &g);
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	for (size_t i = 0; i < g.nr; i++) {
		struct go_bench *b = &g.list[i];
		struct ingest_record rec;
		if ((ret = adapters_record_init(&rec, &common, b->name, b->line, b->column, a->name,
						a->err))) {
			ingest_record_release(&rec);
			goto done;
		}
		for (size_t k = 0; k < b->nunits; k++)
			add_unit_metric(&rec, &b->units[k]);
		for (size_t k = 0; k < rec.nmetrics; k++)
			if (!strcmp(rec.metrics[k].name, "ns/op"))
				rec.primary = xstrdup("ns/op");
		if ((ret = adapters_push(out, &rec, a->name, a->err)))
			goto done;
	}
done:
	go_parse_release(&g);
	adapters_file_info_release(&fi);
	return ret;
}
