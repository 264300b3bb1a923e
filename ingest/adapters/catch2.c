/*
 * Catch2's XML reporter (--reporter xml), Catch2 3 and Catch2 2:
 *   <Catch2TestRun ...>                     (Catch2 2: <Catch ...><Group ...>)
 *     <TestCase name="..." ...>
 *       <BenchmarkResults name="fib 20" samples="100" resamples="100000" iterations="2"
 *                         clockResolution="..." estimatedDuration="...">
 *         <!-- All values in nano seconds -->
 *         <mean value="..." lowerBound="..." upperBound="..." ci="0.95"/>
 *         <standardDeviation value="..." .../>
 *         <outliers .../>
 *       </BenchmarkResults>
 * One record per BenchmarkResults, named by its name (a name twice in a file is an error: the
 * records would share a key). The metric "mean" is timed, unit ns, with Catch2's mean as its
 * central figure and samples as n: Catch2's XML carries neither the samples nor a median. The
 * XML is read by the small reader below (elements, attributes, the five entities and
 * character references, comments, processing instructions, CDATA; no DTD), which checks that
 * tags nest. Catch2 names no machine and no date. docs/formats.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/adapters/adapters.h"

#define MAX_DEPTH 64
#define MAX_ATTRS 32
#define MAX_NAME  256

/* One attribute of the tag being read: its name and decoded value. */
struct attr {
	char name[MAX_NAME];
	struct strbuf value;
	size_t off; /* where its value starts, for messages */
};

struct xml {
	const struct adapters_input *a;
	const char *text;
	size_t len, i;
	/* the tag just read */
	char tag[MAX_NAME];
	size_t tag_off;
	int closing, empty; /* </tag>, <tag/> */
	struct attr attrs[MAX_ATTRS];
	size_t nattrs;
	/* the open elements */
	char stack[MAX_DEPTH][MAX_NAME];
	size_t depth;
};

__attribute__((format(printf, 3, 4))) static int fail(struct xml *x, size_t off, const char *fmt,
						      ...)
{
	struct strbuf msg = STRBUF_INIT;
	va_list ap;
	int ret;

	va_start(ap, fmt);
	strbuf_vaddf(&msg, fmt, ap);
	va_end(ap);
	ret = adapters_fail_at(x->a->err, x->a->name, x->text, off, "%s", msg.buf);
	strbuf_release(&msg);
	return ret;
}

static int is_name_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.' || c == ':' || ((unsigned char)c & 0x80);
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_space(struct xml *x)
{
	while (x->i < x->len && is_space(x->text[x->i]))
		x->i++;
}

/* A name at x->i into out. */
static int read_name(struct xml *x, char out[MAX_NAME])
{
	size_t start = x->i;

	while (x->i < x->len && is_name_char(x->text[x->i]))
		x->i++;
	if (x->i == start)
		return fail(x, start, "expected a name");
	if (x->i - start >= MAX_NAME)
		return fail(x, start, "name longer than 255 bytes");
	memcpy(out, x->text + start, x->i - start);
	out[x->i - start] = '\0';
	return 0;
}

/* Appends code point c as UTF-8. */
static void add_utf8(struct strbuf *sb, unsigned long c)
{
	if (c < 0x80) {
		strbuf_addch(sb, (char)c);
	} else if (c < 0x800) {
		strbuf_addch(sb, (char)(0xC0 | (c >> 6)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	} else if (c < 0x10000) {
		strbuf_addch(sb, (char)(0xE0 | (c >> 12)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	} else {
		strbuf_addch(sb, (char)(0xF0 | (c >> 18)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 12) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | ((c >> 6) & 0x3F)));
		strbuf_addch(sb, (char)(0x80 | (c & 0x3F)));
	}
}

/* An entity or character reference at x->i ('&'), decoded into out. */
static int read_reference(struct xml *x, struct strbuf *out)
{
	static const struct {
		const char *name;
		char c;
	} named[] = {{"lt", '<'}, {"gt", '>'}, {"amp", '&'}, {"quot", '"'}, {"apos", '\''}};
	size_t start = x->i, end = start + 1;

	while (end < x->len && end - start < 12 && x->text[end] != ';')
		end++;
	if (end >= x->len || x->text[end] != ';')
		return fail(x, start, "'&' that starts no reference (write &amp;)");
	if (x->text[start + 1] == '#') {
		int hex = x->text[start + 2] == 'x';
		unsigned long c = 0;
		size_t k = start + 2 + (size_t)hex;
		if (k == end)
			return fail(x, start, "empty character reference");
		for (; k < end; k++) {
			char d = x->text[k];
			int v = d >= '0' && d <= '9'	      ? d - '0'
				: hex && d >= 'a' && d <= 'f' ? d - 'a' + 10
				: hex && d >= 'A' && d <= 'F' ? d - 'A' + 10
							      : -1;
			if (v < 0)
				return fail(x, start, "malformed character reference");
			c = c * (hex ? 16 : 10) + (unsigned long)v;
			if (c > 0x10FFFF)
				return fail(x, start, "character reference out of range");
		}
		if (!c || (c >= 0xD800 && c <= 0xDFFF))
			return fail(x, start, "character reference to no character");
		add_utf8(out, c);
	} else {
		size_t n = end - start - 1, k;
		for (k = 0; k < sizeof(named) / sizeof(named[0]); k++) {
			if (strlen(named[k].name) == n &&
			    !memcmp(named[k].name, x->text + start + 1, n)) {
				strbuf_addch(out, named[k].c);
				break;
			}
		}
		if (k == sizeof(named) / sizeof(named[0]))
			return fail(x, start,
				    "unknown entity (XML knows lt, gt, amp, quot and apos)");
	}
	x->i = end + 1;
	return 0;
}

/* Skips to past the string end (not found: an error naming what is unterminated). */
static int skip_past(struct xml *x, const char *end, const char *what)
{
	size_t n = strlen(end), start = x->i;

	for (; x->i + n <= x->len; x->i++) {
		if (!memcmp(x->text + x->i, end, n)) {
			x->i += n;
			return 0;
		}
	}
	x->i = x->len;
	return fail(x, start, "unterminated %s", what);
}

/* The attributes of a start tag, up to its '>' or '/>'. */
static int read_attributes(struct xml *x)
{
	int ret;

	x->nattrs = 0;
	for (;;) {
		struct attr *at;
		char quote;
		size_t start;
		skip_space(x);
		if (x->i >= x->len)
			return fail(x, x->tag_off, "unterminated tag <%s>", x->tag);
		if (x->text[x->i] == '>') {
			x->i++;
			return 0;
		}
		if (x->text[x->i] == '/') {
			if (x->i + 1 >= x->len || x->text[x->i + 1] != '>')
				return fail(x, x->i, "expected '/>'");
			x->i += 2;
			x->empty = 1;
			return 0;
		}
		if (x->nattrs == MAX_ATTRS)
			return fail(x, x->i, "over 32 attributes in a tag");
		at = &x->attrs[x->nattrs];
		if ((ret = read_name(x, at->name)))
			return ret;
		for (size_t k = 0; k < x->nattrs; k++)
			if (!strcmp(x->attrs[k].name, at->name))
				return fail(x, x->i - strlen(at->name), "attribute %s given twice",
					    at->name);
		skip_space(x);
		if (x->i >= x->len || x->text[x->i] != '=')
			return fail(x, x->i, "expected '=' after the attribute %s", at->name);
		x->i++;
		skip_space(x);
		if (x->i >= x->len || (x->text[x->i] != '"' && x->text[x->i] != '\''))
			return fail(x, x->i, "expected a quoted attribute value");
		quote = x->text[x->i++];
		start = x->i;
		at->off = start;
		strbuf_reset(&at->value);
		while (x->i < x->len && x->text[x->i] != quote) {
			if (x->text[x->i] == '<')
				return fail(x, x->i, "'<' inside an attribute value");
			if (x->text[x->i] == '&') {
				if ((ret = read_reference(x, &at->value)))
					return ret;
				continue;
			}
			strbuf_addch(&at->value, x->text[x->i++]);
		}
		if (x->i >= x->len)
			return fail(x, start, "unterminated attribute value");
		x->i++;
		if (at->value.len > INGEST_MAX_STRING)
			return fail(x, start, "attribute value longer than 4096 bytes");
		if (!utf8_valid(at->value.buf, at->value.len))
			return fail(x, start, "attribute value is not utf-8");
		x->nattrs++;
	}
}

/*
 * The next tag into x (1), or 0 at the end of the text. Text between tags is checked (its
 * references) and skipped, as are comments, processing instructions, CDATA and the XML
 * declaration; end tags are matched against the open elements.
 */
static int next_tag(struct xml *x)
{
	struct strbuf scratch = STRBUF_INIT;
	int ret = 0;

	for (;;) {
		while (x->i < x->len && x->text[x->i] != '<') {
			if (x->text[x->i] == '&') {
				strbuf_reset(&scratch);
				if ((ret = read_reference(x, &scratch)))
					goto done;
				continue;
			}
			if (!is_space(x->text[x->i]) && !x->depth) {
				ret = fail(x, x->i, "text outside the root element");
				goto done;
			}
			x->i++;
		}
		if (x->i >= x->len) {
			if (x->depth)
				ret = fail(x, x->len, "unterminated element <%s>",
					   x->stack[x->depth - 1]);
			goto done;
		}
		if (x->len - x->i >= 4 && !memcmp(x->text + x->i, "<!--", 4)) {
			x->i += 4;
			if ((ret = skip_past(x, "-->", "comment")))
				goto done;
			continue;
		}
		if (x->len - x->i >= 9 && !memcmp(x->text + x->i, "<![CDATA[", 9)) {
			if (!x->depth) {
				ret = fail(x, x->i, "CDATA outside the root element");
				goto done;
			}
			x->i += 9;
			if ((ret = skip_past(x, "]]>", "CDATA section")))
				goto done;
			continue;
		}
		if (x->len - x->i >= 2 && x->text[x->i + 1] == '?') {
			x->i += 2;
			if ((ret = skip_past(x, "?>", "processing instruction")))
				goto done;
			continue;
		}
		if (x->len - x->i >= 2 && x->text[x->i + 1] == '!') {
			ret = fail(x, x->i, "a document type declaration (no DTD is read)");
			goto done;
		}
		x->tag_off = x->i++;
		x->closing = x->empty = 0;
		if (x->i < x->len && x->text[x->i] == '/') {
			x->closing = 1;
			x->i++;
		}
		if ((ret = read_name(x, x->tag)))
			goto done;
		if (x->closing) {
			skip_space(x);
			if (x->i >= x->len || x->text[x->i] != '>') {
				ret = fail(x, x->i, "expected '>'");
				goto done;
			}
			x->i++;
			if (!x->depth || strcmp(x->stack[x->depth - 1], x->tag)) {
				ret = x->depth
					  ? adapters_fail_at(x->a->err, x->a->name, x->text,
							     x->tag_off, "</%s> closes <%s>",
							     x->tag, x->stack[x->depth - 1])
					  : fail(x, x->tag_off, "</%s> closes nothing", x->tag);
				goto done;
			}
			x->depth--;
			ret = 1;
			goto done;
		}
		if ((ret = read_attributes(x)))
			goto done;
		if (!x->empty) {
			if (x->depth == MAX_DEPTH) {
				ret = fail(x, x->tag_off, "elements nested over 64 deep");
				goto done;
			}
			memcpy(x->stack[x->depth++], x->tag, MAX_NAME);
		}
		ret = 1;
		goto done;
	}
done:
	strbuf_release(&scratch);
	return ret;
}

static const struct attr *attr_of(const struct xml *x, const char *name)
{
	for (size_t i = 0; i < x->nattrs; i++)
		if (!strcmp(x->attrs[i].name, name))
			return &x->attrs[i];
	return NULL;
}

/* Attribute name of the tag just read as a finite number that is not negative. */
static int attr_number(struct xml *x, const char *name, int required, double *out)
{
	const struct attr *at = attr_of(x, name);
	char *end;
	double d;

	if (!at) {
		if (!required)
			return 0;
		return adapters_fail_at(x->a->err, x->a->name, x->text, x->tag_off,
					"<%s>: missing required attribute %s", x->tag, name);
	}
	d = strtod(at->value.buf, &end);
	if (!at->value.len || *end || !isfinite(d))
		return adapters_fail_at(x->a->err, x->a->name, x->text, at->off,
					"<%s %s>: expected a number, got \"%s\"", x->tag, name,
					at->value.buf);
	if (d < 0)
		return adapters_fail_at(x->a->err, x->a->name, x->text, at->off,
					"<%s %s>: negative value %s", x->tag, name, at->value.buf);
	*out = d;
	return 0;
}

/* A benchmark being read, from <BenchmarkResults> to its end. */
struct bench {
	int open;
	char *name, *test_case;
	size_t off;
	double samples, mean;
	int has_mean;
};

static void bench_release(struct bench *b)
{
	free(b->name);
	free(b->test_case);
	memset(b, 0, sizeof(*b));
}

static int finish_bench(struct ingest_batch *out, struct xml *x,
			const struct adapters_common *common, struct bench *b, json_t *seen)
{
	struct ingest_json_cursor cur;
	struct ingest_record rec;
	struct ingest_metric *m;
	json_t *first;
	int ret;

	if (!b->has_mean)
		return adapters_fail_at(x->a->err, x->a->name, x->text, b->off,
					"<BenchmarkResults name=\"%s\">: no <mean value=...>",
					b->name);
	if ((first = json_object_get(seen, b->name))) {
		return adapters_fail_at(
		    x->a->err, x->a->name, x->text, b->off,
		    "benchmark \"%s\" again (test cases \"%s\" and \"%s\"): give each benchmark of "
		    "a file its own name",
		    b->name, json_string_value(json_array_get(first, 0)),
		    b->test_case ? b->test_case : "");
	}
	json_object_set_new(seen, b->name, json_pack("[s]", b->test_case ? b->test_case : ""));
	ingest_json_cursor_init(&cur);
	ingest_json_cursor_advance(&cur, x->text, b->off);
	if ((ret = adapters_record_init(&rec, common, b->name, cur.line, cur.column, x->a->name,
					x->a->err)))
		return ret;
	m = adapters_add_metric(&rec, "mean", METRIC_TIMED, "ns", 0);
	m->median = b->mean;
	if (b->samples >= 1 && b->samples <= (double)INT64_MAX / 2)
		m->n = (int64_t)b->samples;
	rec.primary = xstrdup("mean");
	return adapters_push(out, &rec, x->a->name, x->a->err);
}

int adapters_catch2(struct ingest_batch *out, const struct adapters_input *a)
{
	struct adapters_file_info fi;
	struct adapters_common common;
	struct xml *x = xcalloc(1, sizeof(*x));
	struct bench b;
	char *test_case = NULL;
	json_t *seen = json_object();
	int ret, root = 0, nbench = 0;

	memset(&b, 0, sizeof(b));
	adapters_file_info_init(&fi);
	x->a = a;
	x->text = a->text;
	x->len = a->len;
	for (size_t i = 0; i < MAX_ATTRS; i++)
		strbuf_init(&x->attrs[i].value, 0);
	if (memchr(a->text, '\0', a->len)) {
		ret = adapters_fail_at(
		    a->err, a->name, a->text,
		    (size_t)((const char *)memchr(a->text, '\0', a->len) - a->text),
		    "nul byte in file");
		goto done;
	}
	if (a->len >= 3 && !memcmp(a->text, "\xEF\xBB\xBF", 3))
		x->i = 3;
	if ((ret = adapters_resolve(&common, a, &fi)))
		goto done;
	while ((ret = next_tag(x)) > 0) {
		if (!root) {
			if (x->closing ||
			    (strcmp(x->tag, "Catch2TestRun") && strcmp(x->tag, "Catch"))) {
				ret = fail(x, x->tag_off,
					   "not Catch2's XML: the root element is <%s>, expected "
					   "<Catch2TestRun> (Catch2 3) or <Catch> (Catch2 2)",
					   x->tag);
				goto done;
			}
			root = x->empty ? 2 : 1;
			continue;
		}
		if (root == 2 && !x->closing) {
			ret = fail(x, x->tag_off, "a second root element <%s>", x->tag);
			goto done;
		}
		if (!strcmp(x->tag, "TestCase") && !x->closing) {
			const struct attr *at = attr_of(x, "name");
			free(test_case);
			test_case = at ? xstrdup(at->value.buf) : NULL;
		} else if (!strcmp(x->tag, "BenchmarkResults")) {
			const struct attr *at;
			if (!x->closing) {
				if (b.open) {
					ret = fail(x, x->tag_off,
						   "<BenchmarkResults> inside another");
					goto done;
				}
				if (!(at = attr_of(x, "name"))) {
					ret = fail(x, x->tag_off,
						   "<BenchmarkResults>: missing required attribute "
						   "name");
					goto done;
				}
				b.open = 1;
				b.name = xstrdup(at->value.buf);
				b.test_case = xstrdup_or_null(test_case);
				b.off = x->tag_off;
				if ((ret = attr_number(x, "samples", 0, &b.samples)))
					goto done;
			}
			/* it ends here (closed, or empty): its record */
			if (x->closing || x->empty) {
				ret = finish_bench(out, x, &common, &b, seen);
				bench_release(&b);
				nbench++;
				if (ret)
					goto done;
			}
		} else if (!strcmp(x->tag, "mean") && !x->closing && b.open) {
			if ((ret = attr_number(x, "value", 1, &b.mean)))
				goto done;
			b.has_mean = 1;
		}
		if (x->closing && !x->depth)
			root = 2; /* the root element ended: only comments may follow */
	}
	if (ret < 0)
		goto done;
	if (!root) {
		ret = fail(x, x->len, "not Catch2's XML: no root element");
		goto done;
	}
	if (!nbench) {
		ret = bl_error_set(a->err, BL_EINVALID,
				   "%s: no benchmark results (run the benchmarks: a test case with "
				   "BENCHMARK, and --reporter xml without --skip-benchmarks)",
				   a->name);
		goto done;
	}
	ret = 0;
done:
	bench_release(&b);
	free(test_case);
	json_decref(seen);
	for (size_t i = 0; i < MAX_ATTRS; i++)
		strbuf_release(&x->attrs[i].value);
	free(x);
	adapters_file_info_release(&fi);
	return ret;
}
