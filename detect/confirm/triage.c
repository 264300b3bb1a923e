/*
 * Triage (§9.5): one needs-triage issue per confirmed alert not yet filed, written for a bot
 * to file as it is (docs/confirm.md shows the loop). The title names the largest Regression;
 * the Markdown body the commit, its subject and pull request, every Series with its delta and
 * interval, chart links, and each bisection's probe log. Everything taken from the database
 * is escaped for Markdown, so a benchmark name or a subject cannot break the table, open a
 * link or mention someone.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "store/store.h"

const char *const confirm_triage_labels[2] = {"performance", "needs-triage"};

void confirm_triage_issue_init(struct confirm_triage_issue *is, const struct store_triage_alert *a)
{
	memset(is, 0, sizeof(*is));
	is->alert_id = a->id;
	is->machine = xstrdup(a->machine);
	is->alert_commit = xstrdup(a->commit);
	is->state = a->state;
	is->series = a->series;
	is->by_band = a->by_band;
	is->by_change_point = a->by_change_point;
	strbuf_init(&is->title, 0);
	strbuf_init(&is->body, 0);
}

void confirm_triage_issue_add(struct confirm_triage_issue *is, const struct store_regression *r)
{
	struct confirm_triage_regression *c;
	ALLOC_GROW(is->regs, is->nregs, is->regs_alloc);
	c = &is->regs[is->nregs++];
	c->id = r->id;
	c->machine = xstrdup(r->machine);
	c->benchmark = xstrdup(r->benchmark);
	c->config = xstrdup(r->config ? r->config : "");
	c->metric = xstrdup(r->metric);
	c->commit = xstrdup(r->commit);
	c->source_hash = xstrdup(r->source_hash);
	c->reference_commit = xstrdup(r->reference_commit);
	c->subject = xstrdup_or_null(r->subject);
	c->pr = r->pr;
	c->ratio = r->ratio;
	c->lo = r->lo;
	c->hi = r->hi;
	c->probes = xstrdup(r->probes ? r->probes : "[]");
	c->profile = xstrdup_or_null(r->profile);
}

static void regression_release(struct confirm_triage_regression *c)
{
	free(c->machine);
	free(c->benchmark);
	free(c->config);
	free(c->metric);
	free(c->commit);
	free(c->source_hash);
	free(c->reference_commit);
	free(c->subject);
	free(c->probes);
	free(c->profile);
}

void confirm_triage_issue_release(struct confirm_triage_issue *is)
{
	for (size_t i = 0; i < is->nregs; i++)
		regression_release(&is->regs[i]);
	free(is->regs);
	free(is->machine);
	free(is->alert_commit);
	strbuf_release(&is->title);
	strbuf_release(&is->body);
	memset(is, 0, sizeof(*is));
}

void confirm_triage_issues_free(struct confirm_triage_issue *is, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		confirm_triage_issue_release(&is[i]);
	free(is);
}

/* How far a ratio is from 1 either way (1.15 and 1 / 1.15 alike); unknown ones count least. */
static double magnitude(double ratio)
{
	return isfinite(ratio) && ratio > 0 ? fabs(log(ratio)) : -1;
}

/* The largest Regression first, then by id. */
static int by_size(const void *a, const void *b)
{
	const struct confirm_triage_regression *x = a, *y = b;
	double mx = magnitude(x->ratio), my = magnitude(y->ratio);
	if (mx != my)
		return mx > my ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Text for a title: control characters (a newline would end it) become blanks. */
static void add_plain(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++)
		strbuf_addch(sb, (unsigned char)*s < 0x20 || *s == 0x7f ? ' ' : *s);
}

/* A commit in a code span: only its hex digits can be in it. */
static void add_md_commit(struct strbuf *sb, const char *sha, size_t max)
{
	size_t n = 0;
	strbuf_addch(sb, '`');
	for (; sha && *sha && n < max; sha++, n++)
		if ((*sha >= '0' && *sha <= '9') || (*sha >= 'a' && *sha <= 'f'))
			strbuf_addch(sb, *sha);
	strbuf_addch(sb, '`');
}

/* "benchmark [config] metric", as the Series is named in a title or a cell. */
static void add_series_name(struct strbuf *sb, const struct confirm_triage_regression *r, int md)
{
	void (*add)(struct strbuf *, const char *) = md ? strbuf_add_markdown : add_plain;
	add(sb, r->benchmark);
	if (r->config[0]) {
		strbuf_addstr(sb, md ? " \\[" : " [");
		add(sb, r->config);
		strbuf_addstr(sb, md ? "\\]" : "]");
	}
	strbuf_addch(sb, ' ');
	add(sb, r->metric);
}

static void write_title(struct confirm_triage_issue *is)
{
	const struct confirm_triage_regression *top = &is->regs[0];
	struct strbuf *t = &is->title;
	strbuf_reset(t);
	add_series_name(t, top, 0);
	strbuf_addch(t, ' ');
	strbuf_add_change(t, top->ratio, "?");
	strbuf_addstr(t, " on ");
	add_plain(t, is->machine);
	strbuf_addf(t, " at %.12s", top->commit);
	if (top->pr > 0)
		strbuf_addf(t, " (#%lld)", (long long)top->pr);
	if (is->nregs > 1)
		strbuf_addf(t, " +%zu more", is->nregs - 1);
}

/* A figure of a probe, "–" when it has none. */
static void add_probe_number(struct strbuf *sb, json_t *v)
{
	if (json_is_number(v))
		strbuf_addf(sb, "%.4f", json_number_value(v));
	else
		strbuf_addstr(sb, "–");
}

/* One bisection's probe log (the JSON text bisect stored) as a table. */
/* §9.7: where the extra instructions went, as bisection profiled the pinned commit; nothing
 * when it was not (or the text is not a profile). */
static void write_profile(struct strbuf *sb, const char *profile)
{
	json_t *j = profile ? json_loads(profile, 0, NULL) : NULL;
	struct confirm_profile p;
	if (j && !confirm_profile_from_json(&p, j, NULL)) {
		strbuf_addch(sb, '\n');
		confirm_profile_markdown(sb, &p);
		confirm_profile_release(&p);
	}
	json_decref(j);
}

static void write_probes(struct strbuf *sb, const char *probes)
{
	json_t *arr = json_loads(probes, JSON_DECODE_ANY, NULL), *p;
	size_t i;
	if (!json_is_array(arr) || !json_array_size(arr)) {
		strbuf_addstr(sb, "No probe log was stored.\n");
		json_decref(arr);
		return;
	}
	strbuf_addstr(sb, "| probe | verdict | metric | ratio | 99% interval | pairs |\n"
			  "|---|---|---|---:|---|---:|\n");
	json_array_foreach (arr, i, p) {
		json_t *skipped = json_object_get(p, "skipped");
		json_t *lo = json_object_get(p, "ci_low"), *hi = json_object_get(p, "ci_high");
		strbuf_addstr(sb, "| ");
		add_md_commit(sb, json_string_value(json_object_get(p, "commit")), 12);
		strbuf_addstr(sb, " | ");
		if (json_is_string(skipped)) {
			strbuf_addstr(sb, "skipped: ");
			strbuf_add_markdown(sb, json_string_value(skipped));
		} else {
			strbuf_add_markdown(sb, json_string_value(json_object_get(p, "verdict")));
			if (json_is_true(json_object_get(p, "identical_artifacts")))
				strbuf_addstr(sb, " (artifacts identical to good's)");
		}
		strbuf_addstr(sb, " | ");
		strbuf_add_markdown(sb, json_string_value(json_object_get(p, "metric")));
		strbuf_addstr(sb, " | ");
		add_probe_number(sb, json_object_get(p, "ratio"));
		strbuf_addstr(sb, " | ");
		if (json_is_number(lo) && json_is_number(hi))
			strbuf_addf(sb, "[%.4f, %.4f]", json_number_value(lo),
				    json_number_value(hi));
		else
			strbuf_addstr(sb, "–");
		strbuf_addf(sb, " | %lld |\n",
			    (long long)json_integer_value(json_object_get(p, "pairs")));
	}
	json_decref(arr);
}

static void write_body(struct confirm_triage_issue *is, const char *base_url, size_t base_len)
{
	const struct confirm_triage_regression *top = &is->regs[0];
	struct strbuf *b = &is->body;
	struct strbuf id = STRBUF_INIT;

	strbuf_reset(b);
	strbuf_addstr(b, "benchline confirmed a slowdown on ");
	strbuf_add_markdown(b, is->machine);
	strbuf_addstr(b, " by measuring again, and bisection pinned it to a commit.\n\n");
	strbuf_addstr(b, "- **Commit:** ");
	add_md_commit(b, top->commit, 40);
	if (top->subject && *top->subject) {
		strbuf_addstr(b, " ");
		strbuf_add_markdown(b, top->subject);
	}
	strbuf_addstr(b, "\n- **Pull request:** ");
	if (top->pr > 0)
		strbuf_addf(b, "#%lld\n", (long long)top->pr);
	else
		strbuf_addstr(b, "none named in the commit's subject\n");
	strbuf_addf(b, "- **Alert:** %lld (%s), %lld Series, from the records of ",
		    (long long)is->alert_id, suspect_state_name(is->state), (long long)is->series);
	add_md_commit(b, is->alert_commit, 12);
	/* Which opinion marked it: the band sees a step at once, the change-point search a level
	 * that held 8 records (staircases, returns the band's window spans). */
	if (is->by_band || is->by_change_point)
		strbuf_addstr(b, "\n- **Found by:** ");
	if (is->by_band)
		strbuf_addstr(b, "the band (§6): a record outside the band of the 8 before it");
	if (is->by_band && is->by_change_point)
		strbuf_addstr(b, "; and ");
	if (is->by_change_point)
		strbuf_addstr(b, "the change-point search (§6.1): a slower level that held 8 "
				 "records, which the band's window did not see");
	strbuf_addstr(b, "\n\n");

	strbuf_addf(b, "### %s\n\n", is->nregs == 1 ? "Regression" : "Regressions");
	strbuf_addstr(b, "| Series | delta | 99% interval | commit | pull request | reference |");
	strbuf_addstr(b, base_url ? " chart |\n|---|---:|---|---|---|---|---|\n"
				  : "\n|---|---:|---|---|---|---|\n");
	for (size_t i = 0; i < is->nregs; i++) {
		const struct confirm_triage_regression *r = &is->regs[i];
		strbuf_addstr(b, "| ");
		add_series_name(b, r, 1);
		strbuf_addstr(b, " | ");
		strbuf_add_change(b, r->ratio, "?");
		strbuf_addstr(b, " | ");
		strbuf_add_change_interval(b, r->lo, r->hi, "none");
		strbuf_addstr(b, " | ");
		add_md_commit(b, r->commit, 12);
		strbuf_addstr(b, " | ");
		if (r->pr > 0)
			strbuf_addf(b, "#%lld", (long long)r->pr);
		strbuf_addstr(b, " | ");
		add_md_commit(b, r->reference_commit, 12);
		strbuf_addstr(b, " |");
		if (base_url) {
			/* The id is percent-encoded: nothing in it can end the link. */
			strbuf_reset(&id);
			store_series_id(&id, r->machine, r->benchmark, r->config, r->metric);
			strbuf_addstr(b, " [chart](");
			strbuf_add(b, base_url, base_len);
			store_series_page_path(b, id.buf);
			strbuf_addstr(b, ") |");
		}
		strbuf_addch(b, '\n');
	}

	strbuf_addstr(b, "\n### Bisection\n");
	for (size_t i = 0; i < is->nregs; i++) {
		const struct confirm_triage_regression *r = &is->regs[i];
		int shown = 0;
		/* Series pinned by one bisection share its log: it is shown once. */
		for (size_t k = 0; k < i && !shown; k++)
			shown = !strcmp(is->regs[k].probes, r->probes) &&
				!strcmp(is->regs[k].reference_commit, r->reference_commit);
		if (shown)
			continue;
		strbuf_addstr(b, "\n**");
		add_series_name(b, r, 1);
		for (size_t k = i + 1; k < is->nregs; k++)
			if (!strcmp(is->regs[k].probes, r->probes) &&
			    !strcmp(is->regs[k].reference_commit, r->reference_commit)) {
				strbuf_addstr(b, ", ");
				add_series_name(b, &is->regs[k], 1);
			}
		strbuf_addstr(b, "**: each probe measured against good ");
		add_md_commit(b, r->reference_commit, 12);
		strbuf_addstr(b, ", the ends first.\n\n");
		write_probes(b, r->probes);
		write_profile(b, r->profile);
	}
	strbuf_release(&id);
}

void confirm_triage_issue_write(struct confirm_triage_issue *is, const char *base_url)
{
	size_t base_len = base_url ? strlen(base_url) : 0;
	while (base_len && base_url[base_len - 1] == '/')
		base_len--;
	strbuf_reset(&is->title);
	strbuf_reset(&is->body);
	if (!is->nregs)
		return;
	qsort(is->regs, is->nregs, sizeof(*is->regs), by_size);
	write_title(is);
	write_body(is, base_url, base_len);
}

void confirm_triage_markdown(struct strbuf *out, const struct confirm_triage_issue *is)
{
	strbuf_addstr(out, "# ");
	strbuf_add_markdown(out, is->title.buf);
	strbuf_addstr(out, "\n\n");
	strbuf_addstr(out, is->body.buf);
}

json_t *confirm_triage_json(const struct confirm_triage_issue *is)
{
	json_t *o = json_object(), *labels = json_array(), *ids = json_array();
	for (size_t i = 0; i < sizeof(confirm_triage_labels) / sizeof(confirm_triage_labels[0]);
	     i++)
		json_array_append_new(labels, json_string(confirm_triage_labels[i]));
	for (size_t i = 0; i < is->nregs; i++)
		json_array_append_new(ids, json_integer(is->regs[i].id));
	json_object_set_new(o, "id", json_integer(is->alert_id));
	json_object_set_new(o, "title", json_string(is->title.buf));
	json_object_set_new(o, "body", json_string(is->body.buf));
	json_object_set_new(o, "labels", labels);
	json_object_set_new(o, "regressions", ids);
	return o;
}

struct triage_walk {
	struct store *st;
	const char *base_url;
	struct confirm_triage_issue *issues;
	size_t n, alloc;
	struct bl_error *err;
	int failed;
};

static int add_regression(const struct store_regression *r, void *data)
{
	confirm_triage_issue_add(data, r);
	return 0;
}

static int add_alert(const struct store_triage_alert *a, void *data)
{
	struct triage_walk *w = data;
	struct confirm_triage_issue *is;
	ALLOC_GROW(w->issues, w->n, w->alloc);
	is = &w->issues[w->n++];
	confirm_triage_issue_init(is, a);
	if (store_each_regression(w->st, a->id, add_regression, is, w->err)) {
		w->failed = 1;
		return 1;
	}
	confirm_triage_issue_write(is, w->base_url);
	return 0;
}

int confirm_triage_list(struct confirm_triage_issue **out, size_t *nr, struct store *st,
			const char *base_url, struct bl_error *err)
{
	struct triage_walk w = {st, base_url, NULL, 0, 0, err, 0};
	int ret = store_each_triage_alert(st, add_alert, &w, err);
	if (!ret && w.failed)
		ret = err && err->code ? err->code : BL_EDB;
	if (ret) {
		confirm_triage_issues_free(w.issues, w.n);
		w.issues = NULL;
		w.n = 0;
	}
	*out = w.issues;
	*nr = w.n;
	return ret;
}

int confirm_triage_parse_filed(int64_t *id, const char **url, const char *arg, struct bl_error *err)
{
	const char *eq = strchr(arg, '=');
	int64_t v = 0;
	const char *p;

	*id = 0;
	*url = NULL;
	if (!eq || eq == arg)
		goto bad;
	for (p = arg; p < eq; p++) {
		if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10)
			goto bad;
		v = v * 10 + (*p - '0');
	}
	if (!v || !eq[1])
		goto bad;
	for (p = eq + 1; *p; p++)
		if ((unsigned char)*p <= ' ' || *p == 0x7f)
			goto bad;
	*id = v;
	*url = eq + 1;
	return 0;
bad:
	return bl_error_set(err, BL_EINVALID,
			    "--mark-filed wants ALERT=URL (an alert id, then where its issue is), "
			    "not '%s'",
			    arg);
}

int confirm_triage_mark_filed(struct store *st, const int64_t *ids, const char *const *urls,
			      size_t n, struct bl_error *err)
{
	int ret;
	if ((ret = store_begin(st, err)))
		return ret;
	for (size_t i = 0; i < n; i++)
		if ((ret = store_alert_set_filed(st, ids[i], urls[i], err))) {
			store_rollback(st);
			return ret;
		}
	return store_commit(st, err);
}
