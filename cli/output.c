/*
 * What the listing commands print: text tables (series, suspects, ladder), whose cells are kept
 * until the end so each column can be as wide as its widest cell, and JSON arrays written one
 * element at a time (records, series, suspects), so a long listing is never held whole.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "detect/detect.h"
#include "ingest/config/config.h"
#include "detect/confirm/confirm.h"

void cli_table_init(struct cli_table *t, const char *const *header, size_t ncols, const char *align)
{
	memset(t, 0, sizeof(*t));
	t->ncols = ncols;
	t->align = align ? align : "";
	if (!header)
		return;
	cli_table_row(t);
	for (size_t c = 0; c < ncols; c++)
		cli_table_add(t, "%s", header[c]);
}

void cli_table_row(struct cli_table *t)
{
	ALLOC_GROW(t->ncells, t->nrows, t->alloc);
	t->cells = xrealloc(t->cells, t->alloc * t->ncols * sizeof(*t->cells));
	t->ncells[t->nrows] = 0;
	for (size_t c = 0; c < t->ncols; c++)
		strbuf_init(&t->cells[t->nrows * t->ncols + c], 0);
	t->nrows++;
}

/* The length of the UTF-8 sequence at s (at most len bytes), 0 when it is not one. */
static size_t utf8_sequence(const unsigned char *s, size_t len, unsigned *code)
{
	size_t n = s[0] >= 0xf0 ? 4 : s[0] >= 0xe0 ? 3 : 2;
	unsigned c = s[0] & (0x7f >> n);
	static const unsigned least[] = {0, 0, 0x80, 0x800, 0x10000};
	if (s[0] < 0xc2 || s[0] > 0xf4 || n > len)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = (c << 6) | (s[i] & 0x3f);
	}
	if (c < least[n] || c > 0x10ffff || (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*code = c;
	return n;
}

void cli_escape_text(struct strbuf *out, const char *s, size_t len, int keep_lines)
{
	const unsigned char *p = (const unsigned char *)s, *end = p + len;
	while (p < end) {
		unsigned code;
		size_t n;
		if (*p >= 0x20 && *p < 0x7f) {
			strbuf_addch(out, (char)*p++);
		} else if (*p < 0x80) {
			if (keep_lines && (*p == '\n' || *p == '\t'))
				strbuf_addch(out, (char)*p);
			else
				strbuf_addf(out, "\\x%02x", *p);
			p++;
		} else if (!(n = utf8_sequence(p, (size_t)(end - p), &code))) {
			strbuf_addf(out, "\\x%02x", *p++);
		} else {
			if (code < 0xa0)
				strbuf_addf(out, "\\u%04x", code);
			else
				strbuf_add(out, p, n);
			p += n;
		}
	}
}

void cli_printf(FILE *f, const char *fmt, ...)
{
	struct strbuf raw = STRBUF_INIT, safe = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	cli_escape_text(&safe, raw.buf, raw.len, 1);
	fwrite(safe.buf, 1, safe.len, f);
	strbuf_release(&raw);
	strbuf_release(&safe);
}

void cli_table_add(struct cli_table *t, const char *fmt, ...)
{
	size_t r = t->nrows - 1;
	struct strbuf raw = STRBUF_INIT;
	va_list ap;
	if (t->ncells[r] >= t->ncols)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&raw, fmt, ap);
	va_end(ap);
	/* a cell is one line: a newline in a name would break the table too */
	cli_escape_text(&t->cells[r * t->ncols + t->ncells[r]++], raw.buf, raw.len, 0);
	strbuf_release(&raw);
}

static int right_aligned(const struct cli_table *t, size_t c)
{
	return c < strlen(t->align) && t->align[c] == 'r';
}

/* The columns a cell takes on a terminal: its characters, not its bytes (µs is 2 bytes). */
static size_t cell_width(const struct strbuf *cell)
{
	size_t w = 0;
	for (size_t i = 0; i < cell->len; i++)
		w += ((unsigned char)cell->buf[i] & 0xC0) != 0x80;
	return w;
}

static void pad(FILE *f, size_t n)
{
	while (n--)
		fputc(' ', f);
}

void cli_table_print(const struct cli_table *t, FILE *f)
{
	size_t *width = xcalloc(t->ncols ? t->ncols : 1, sizeof(*width));
	/* A row's last cell is padded only when its column aligns right. */
	for (size_t r = 0; r < t->nrows; r++)
		for (size_t c = 0; c < t->ncells[r]; c++)
			if ((c + 1 < t->ncells[r] || right_aligned(t, c)) &&
			    cell_width(&t->cells[r * t->ncols + c]) > width[c])
				width[c] = cell_width(&t->cells[r * t->ncols + c]);
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t c = 0; c < t->ncells[r]; c++) {
			const struct strbuf *cell = &t->cells[r * t->ncols + c];
			size_t w = cell_width(cell), gap = width[c] > w ? width[c] - w : 0;
			int last = c + 1 == t->ncells[r];
			if (right_aligned(t, c))
				pad(f, gap);
			fputs(cell->buf, f);
			if (last) {
				fputc('\n', f);
			} else {
				if (!right_aligned(t, c))
					pad(f, gap);
				fputs("  ", f);
			}
		}
	}
	free(width);
}

void cli_table_release(struct cli_table *t)
{
	for (size_t i = 0; i < t->nrows * t->ncols; i++)
		strbuf_release(&t->cells[i]);
	free(t->cells);
	free(t->ncells);
	memset(t, 0, sizeof(*t));
}

void cli_json_array_start(struct cli_json_array *a)
{
	a->count = 0;
	fputc('[', stdout);
}

void cli_json_array_add(struct cli_json_array *a, struct json_t *element)
{
	struct strbuf sb = STRBUF_INIT;
	json_write(&sb, element, 0);
	fputs(a->count++ ? ",\n" : "\n", stdout);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	json_decref(element);
}

void cli_json_array_end(struct cli_json_array *a)
{
	fputs(a->count ? "\n]\n" : "]\n", stdout);
}

void cli_json_print(struct json_t *o)
{
	struct strbuf sb = STRBUF_INIT;
	json_write(&sb, o, JSON_WRITE_INDENT);
	strbuf_addch(&sb, '\n');
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	json_decref(o);
}

/* A time left, rounded up: "45 s", "5m50s", "2h05m". */
static void add_time_left(struct strbuf *sb, double s)
{
	long t = (long)ceil(s);
	if (t < 60)
		strbuf_addf(sb, "%ld s", t);
	else if (t < 3600)
		strbuf_addf(sb, "%ldm%02lds", t / 60, t % 60);
	else
		strbuf_addf(sb, "%ldh%02ldm", t / 3600, t % 3600 / 60);
}

void cli_measure_progress(const struct confirm_progress *pr, void *data)
{
	struct cli_progress *p = data;
	struct strbuf line = STRBUF_INIT;
	size_t shown = 0, others = 0;

	if (!pr->measurement) {
		/* Before the first pair (the builds are done): the pace counts from here. */
		p->started = monotonic_s();
		return;
	}
	strbuf_addf(&line, "%s: measurement %d, pair %zu/%zu (pairs %zu of at most %zu", p->prefix,
		    pr->measurement, pr->pairs, pr->max_pairs, pr->done, pr->most);
	if (pr->done && pr->most > pr->done) {
		/* The pace so far, over what may be left at the most. */
		double pace = (monotonic_s() - p->started) / (double)pr->done;
		strbuf_addstr(&line, ", at most ");
		add_time_left(&line, pace * (double)(pr->most - pr->done));
		strbuf_addstr(&line, " left");
	}
	strbuf_addstr(&line, "):");
	for (size_t i = 0; i < pr->n; i++) {
		const struct confirm_metric *m = &pr->metrics[i];
		if (!m->asked) {
			others++;
			continue;
		}
		strbuf_addf(&line, "%s %s ", shown++ ? ";" : "", m->key);
		if (isnan(m->ratio))
			strbuf_addstr(&line, "-");
		else
			strbuf_addf(&line, "%.4f [%.4f, %.4f]", m->ratio, m->lo, m->hi);
	}
	if (others)
		strbuf_addf(&line, "%s %zu more measured, not waited for", shown ? ";" : "",
			    others);
	if (p->tty)
		fprintf(stderr, "\r\033[K%s", line.buf);
	else
		fprintf(stderr, "%s\n", line.buf);
	p->shown = 1;
	strbuf_release(&line);
}

void cli_progress_done(struct cli_progress *p)
{
	if (p->shown && p->tty)
		fputc('\n', stderr);
	p->shown = 0;
}
