#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "detect/detect.h"
#include "ingest/ingest.h"
#include "cli/cli.h"

/* The text table's columns. */
enum { COL_MACHINE, COL_BENCHMARK, COL_CONFIG, COL_METRIC, COL_RECORDS, COL_LINES, COL_LAST, NCOL };

static const char *const col_names[NCOL] = {"machine", "benchmark", "config",	 "metric",
					    "records", "lines",	    "last value"};

struct series_out {
	int json;
	size_t count;
	/* Open Suspects per Series once detect has run (NULL before: nothing is known). */
	struct store_detect *detect;
	struct bl_error *err;
	int failed;
	struct cli_table table;	     /* text mode */
	struct cli_json_array array; /* --json */
	struct tagged_runs *tagged;  /* text mode: the tagged runs of each Series */
};

/*
 * The runs a Series leaves out because they carry a tag, counted per Series key (machine,
 * benchmark, config and metric, joined by \x1f) and per tag: the listing says how many each
 * Series left out and why, and which Series left out every run (those the Series listing cannot
 * show). A run with several tags is counted under the first in ingest_tag_name's order, where
 * superseded comes last: a run is "superseded" only when nothing else keeps it off.
 */
struct tagged_runs {
	struct intern keys;
	int64_t *count; /* per key number and tag: count[key * INGEST_NTAGS + tag] */
	int *listed;	/* per key number: the key is a Series the listing showed */
	size_t alloc;
};

/* The tag a run is counted under: the first of its tags in ingest_tag_name's order. */
static unsigned first_tag(const struct store_record_row *row)
{
	unsigned best = INGEST_NTAGS - 1;
	for (size_t k = 0; k < row->ntags; k++)
		for (unsigned t = 0; t < best; t++)
			if (!strcmp(row->tags[k], ingest_tag_name(t)))
				best = t;
	return best;
}

static void series_key(struct strbuf *key, const char *machine, const char *benchmark,
		       const char *config, const char *metric)
{
	strbuf_reset(key);
	strbuf_addf(key, "%s\x1f%s\x1f%s\x1f%s", machine, benchmark, config, metric);
}

static int count_tagged(const struct store_record_row *row, void *data)
{
	struct tagged_runs *t = data;
	struct strbuf key = STRBUF_INIT;
	unsigned tag;
	if (!row->ntags)
		return 0;
	tag = first_tag(row);
	for (size_t i = 0; i < row->nmetrics; i++) {
		uint32_t n;
		series_key(&key, row->machine, row->benchmark, row->config, row->metrics[i].name);
		n = intern_add(&t->keys, key.buf);
		if (n >= t->alloc) {
			size_t old = t->alloc;
			t->alloc = (n + 1) * 2;
			t->count = xrealloc(t->count, t->alloc * INGEST_NTAGS * sizeof(*t->count));
			t->listed = xrealloc(t->listed, t->alloc * sizeof(*t->listed));
			memset(t->count + old * INGEST_NTAGS, 0,
			       (t->alloc - old) * INGEST_NTAGS * sizeof(*t->count));
			memset(t->listed + old, 0, (t->alloc - old) * sizeof(*t->listed));
		}
		t->count[n * INGEST_NTAGS + tag]++;
	}
	strbuf_release(&key);
	return 0;
}

/* "+18 superseded, +2 noisy" (with plus "+"): the tagged runs of key n, by tag; 0 when none. */
static int add_tagged(struct strbuf *out, const struct tagged_runs *t, size_t n, const char *plus)
{
	int any = 0;
	for (unsigned tag = 0; tag < INGEST_NTAGS; tag++) {
		int64_t c = t->count[n * INGEST_NTAGS + tag];
		if (!c)
			continue;
		strbuf_addf(out, "%s%s%lld %s", any ? ", " : "", plus, (long long)c,
			    ingest_tag_name(tag));
		any = 1;
	}
	return any;
}

/* The tagged runs of s by tag, as add_tagged words them (nothing when none), and s marked as
 * listed. */
static void tagged_of(struct strbuf *out, struct tagged_runs *t, const struct store_series *s)
{
	struct strbuf key = STRBUF_INIT;
	int64_t n;
	series_key(&key, s->machine, s->benchmark, s->config, s->metric);
	n = intern_find(&t->keys, key.buf);
	strbuf_release(&key);
	if (n < 0)
		return;
	t->listed[n] = 1;
	add_tagged(out, t, (size_t)n, "+");
}

/* The Series every run of which is tagged, after the listing: none of them is on a Series. */
static void print_all_tagged(const struct tagged_runs *t, int after_table)
{
	static const char *const header[] = {"machine", "benchmark", "config", "metric",
					     "tagged runs"};
	struct cli_table table;
	struct strbuf why = STRBUF_INIT;
	size_t shown = 0;
	cli_table_init(&table, header, 5, ".....");
	for (size_t i = 0; i < t->keys.nr; i++) {
		const char *p = t->keys.strings[i];
		if (t->listed[i])
			continue;
		cli_table_row(&table);
		for (int f = 0; f < 4; f++) {
			size_t len = strcspn(p, "\x1f");
			if (f == 2 && !len)
				cli_table_add(&table, "-");
			else
				cli_table_add(&table, "%.*s", (int)len, p);
			p += len + (p[len] != 0);
		}
		strbuf_reset(&why);
		add_tagged(&why, t, i, "");
		cli_table_add(&table, "%s", why.buf);
		shown++;
	}
	strbuf_release(&why);
	if (shown) {
		printf("%sSeries whose every run is tagged ('benchline records --all' shows the "
		       "tags):\n",
		       after_table ? "\n" : "");
		cli_table_print(&table, stdout);
	}
	cli_table_release(&table);
}

/* A value as a person reads it, in the unit its size calls for (28.3 ms, not 28268.7 us). */
static void format_value(struct strbuf *sb, double v, const char *unit)
{
	if (isnan(v))
		strbuf_addch(sb, '-');
	else
		strbuf_add_value(sb, v, unit);
}

static int each_series(const struct store_series *s, void *data)
{
	struct series_out *out = data;
	struct strbuf sb = STRBUF_INIT;
	if (out->json) {
		json_t *o;
		if (detect_series_json_read(&o, out->detect, s, out->err)) {
			out->failed = 1;
			return 1;
		}
		cli_json_array_add(&out->array, o);
		out->count++;
		return 0;
	}
	cli_table_row(&out->table);
	cli_table_add(&out->table, "%s", s->machine);
	cli_table_add(&out->table, "%s", s->benchmark);
	cli_table_add(&out->table, "%s", s->config[0] ? s->config : "-");
	cli_table_add(&out->table, "%s", s->metric);
	if (out->tagged)
		tagged_of(&sb, out->tagged, s);
	if (sb.len)
		cli_table_add(&out->table, "%lld (%s)", (long long)s->records, sb.buf);
	else
		cli_table_add(&out->table, "%lld", (long long)s->records);
	strbuf_reset(&sb);
	cli_table_add(&out->table, "%zu", s->nlines);
	format_value(&sb, s->last_value, s->unit);
	cli_table_add(&out->table, "%s", sb.buf);
	strbuf_release(&sb);
	out->count++;
	return 0;
}

int cmd_series(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct store_series_filter filter = {NULL, NULL};
	struct series_out out;
	struct tagged_runs tagged;
	struct bl_error err = BL_ERROR_INIT;
	int ret;
	const struct cli_option opts[] = {
	    {OPT_BOOL, "json", &out.json, NULL, "print one JSON array"},
	    {OPT_STRING, "machine", &filter.machine, "M", "only this machine"},
	    {OPT_STRING, "benchmark", &filter.benchmark, "B", "only this benchmark"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&out, 0, sizeof(out));
	memset(&tagged, 0, sizeof(tagged));
	/* Counts and ids align right, text left. */
	cli_table_init(&out.table, col_names, NCOL, "....rr.");
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "series takes no arguments");
	out.err = &err;
	if (out.json) {
		int ran;
		if (store_detect_ran(&ran, ctx->store, &err) ||
		    (ran && store_detect_open(&out.detect, ctx->store, &err))) {
			ret = cli_fail(&err);
			bl_error_release(&err);
			return ret;
		}
		cli_json_array_start(&out.array);
	} else {
		struct store_record_filter runs = {filter.machine, filter.benchmark, 1};
		intern_init(&tagged.keys);
		out.tagged = &tagged;
		if (store_each_record(ctx->store, &runs, count_tagged, &tagged, &err)) {
			ret = cli_fail(&err);
			goto done;
		}
	}
	ret = store_each_series(ctx->store, &filter, each_series, &out, &err);
	if (out.failed)
		ret = BL_EDB;
	if (out.json)
		cli_json_array_end(&out.array);
	else if (!ret && out.count)
		cli_table_print(&out.table, stdout);
	else if (!ret && !tagged.keys.nr)
		fputs("no series yet (ingest records, or try 'benchline demo')\n", stderr);
	if (!ret && !out.json)
		print_all_tagged(&tagged, out.count > 0);
	if (ret)
		ret = cli_fail(&err);
done:
	if (out.tagged) {
		intern_release(&tagged.keys);
		free(tagged.count);
		free(tagged.listed);
	}
	cli_table_release(&out.table);
	store_detect_close(out.detect);
	bl_error_release(&err);
	return ret;
}
