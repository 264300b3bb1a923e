/*
 * A confirm outcome from elsewhere (§11, POST /api/alerts/{id}/outcome): a sweep machine
 * re-benched and bisected an alert and sends what it found as one JSON document; it is checked
 * field by field and stored exactly as `benchline confirm` stores its own findings: the
 * alert's state and outcome, the re-bench report and note with it, and each pinned bisection
 * as a Regression of the alert. docs/confirm.md ("Remote confirm: the server side") has the
 * document.
 */
#include <ctype.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "store/store.h"

/* The longest note kept. */
#define OUTCOME_MAX_NOTE ((size_t)64 << 10)
/* The longest name of a benchmark, config or metric (as a record's strings, §2). */
#define OUTCOME_MAX_NAME 4096

/* The alert the document is for, copied out of the store's walk. */
struct outcome_alert {
	int found;
	char *machine;
	enum suspect_state state;
};

static int find_alert(const struct store_alert *a, void *data)
{
	struct outcome_alert *x = data;
	x->found = 1;
	x->machine = xstrdup(a->machine);
	x->state = a->state;
	return 1;
}

/* The Series of the alert's Suspects, by their re-bench keys. */
struct outcome_series {
	char **keys;
	size_t n, alloc;
};

static int collect_key(const struct store_suspect *s, void *data)
{
	struct outcome_series *c = data;
	struct strbuf key = STRBUF_INIT;
	confirm_metric_key(&key, s->benchmark, s->config, s->metric);
	ALLOC_GROW(c->keys, c->n, c->alloc);
	c->keys[c->n++] = strbuf_detach(&key, NULL);
	return 0;
}

static int has_key(const struct outcome_series *c, const char *key)
{
	for (size_t i = 0; i < c->n; i++)
		if (!strcmp(c->keys[i], key))
			return 1;
	return 0;
}

static int count_regression(const struct store_regression *r, void *data)
{
	(void)r;
	(*(size_t *)data)++;
	return 0;
}

/* One regressions[] entry, checked. Strings point into the document. */
struct outcome_regression {
	const char *benchmark, *config, *metric, *subject;
	char commit[41], source_hash[41], reference[41]; /* lowercase */
	int64_t pr;
	double ratio, lo, hi;
	char *probes; /* the probe log as JSON text */
	char *key;
};

/* BL_EINVALID with "WHERE: message". */
static int fail(struct bl_error *err, const char *where, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail(struct bl_error *err, const char *where, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	int ret;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	ret = bl_error_set(err, BL_EINVALID, "%s: %s", where, sb.buf);
	strbuf_release(&sb);
	return ret;
}

/* Keys of an object that are not in names (a NULL-terminated list). */
static int only_keys(const json_t *o, const char *const *names, const char *where,
		     struct bl_error *err)
{
	const char *key;
	json_t *v;
	json_object_foreach ((json_t *)o, key, v) {
		int known = 0;
		(void)v;
		for (size_t i = 0; names[i]; i++)
			known |= !strcmp(key, names[i]);
		if (!known) {
			struct strbuf list = STRBUF_INIT;
			int ret;
			for (size_t i = 0; names[i]; i++)
				strbuf_addf(&list, "%s%s", i ? ", " : "", names[i]);
			ret = bl_error_set(err, BL_EINVALID, "%s: unknown key '%s' (%s)", where,
					   key, list.buf);
			strbuf_release(&list);
			return ret;
		}
	}
	return 0;
}

/* A string member: *out NULL when absent or null and !required. */
static int get_string(const char **out, const json_t *o, const char *key, int required, size_t max,
		      const char *where, struct bl_error *err)
{
	json_t *v = json_object_get(o, key);
	struct strbuf at = STRBUF_INIT;
	int ret = 0;
	*out = NULL;
	strbuf_addf(&at, "%s%s%s", where, *where ? "." : "", key);
	if (!v || json_is_null(v)) {
		if (required)
			ret = fail(err, at.buf, "%s", "missing");
	} else if (!json_is_string(v)) {
		ret = fail(err, at.buf, "%s", "expected a string");
	} else if (json_string_length(v) > max) {
		ret = bl_error_set(err, BL_EINVALID, "%s: longer than %zu bytes", at.buf, max);
	} else if (strlen(json_string_value(v)) != json_string_length(v)) {
		ret = fail(err, at.buf, "%s", "holds a NUL byte");
	} else {
		*out = json_string_value(v);
	}
	strbuf_release(&at);
	return ret;
}

/* A commit or source hash: 40 hex digits, kept in lowercase as the store keeps them. */
static int get_hex40(char out[41], const json_t *o, const char *key, const char *where,
		     struct bl_error *err)
{
	const char *s;
	int ret = get_string(&s, o, key, 1, 40, where, err);
	if (!ret && !is_hex40(s)) {
		struct strbuf at = STRBUF_INIT;
		strbuf_addf(&at, "%s.%s", where, key);
		ret = fail(err, at.buf, "'%s' is not 40 hex digits", s);
		strbuf_release(&at);
	}
	for (size_t i = 0; !ret && i < 41; i++)
		out[i] = (char)tolower((unsigned char)s[i]);
	return ret;
}

/* A ratio: a positive finite number, or null (NAN). */
static int get_ratio(double *out, const json_t *v, const char *where, struct bl_error *err)
{
	*out = NAN;
	if (!v || json_is_null(v))
		return 0;
	if (!json_is_number(v) || !isfinite(json_number_value(v)) || json_number_value(v) <= 0)
		return fail(err, where, "%s", "expected a positive number or null");
	*out = json_number_value(v);
	return 0;
}

static int parse_bisect(struct outcome_regression *g, const json_t *b, const char *where,
			struct bl_error *err)
{
	struct strbuf at = STRBUF_INIT;
	const json_t *pinned, *good, *interval, *probes, *pr;
	const char *status;
	int ret;

	if (!json_is_object(b)) {
		ret = fail(err, where, "%s", "expected the `bisect --json` report (an object)");
		goto done;
	}
	/* The report's "outcome" is the older name of "status"; either will do. */
	if ((ret = get_string(&status, b, "status", 0, 64, where, err)))
		goto done;
	if (!status && (ret = get_string(&status, b, "outcome", 0, 64, where, err)))
		goto done;
	if (!status) {
		ret = fail(err, where, "%s", "status: missing");
		goto done;
	}
	if (strcmp(status, "pinned")) {
		strbuf_addf(&at, "%s.status", where);
		ret = fail(err, at.buf,
			   "'%s', not 'pinned': only a bisection that pinned a commit "
			   "is a Regression",
			   status);
		goto done;
	}
	pinned = json_object_get(b, "pinned");
	strbuf_addf(&at, "%s.pinned", where);
	if (!json_is_object(pinned)) {
		ret = fail(err, at.buf, "%s", "expected an object");
		goto done;
	}
	if ((ret = get_hex40(g->commit, pinned, "commit", at.buf, err)) ||
	    (ret = get_hex40(g->source_hash, pinned, "source_hash", at.buf, err)) ||
	    (ret = get_string(&g->subject, pinned, "subject", 0, 1 << 16, at.buf, err)))
		goto done;
	pr = json_object_get(pinned, "pull_request");
	if (pr && !json_is_null(pr)) {
		if (!json_is_integer(pr) || json_integer_value(pr) <= 0) {
			strbuf_addstr(&at, ".pull_request");
			ret = fail(err, at.buf, "%s", "expected a positive integer or null");
			goto done;
		}
		g->pr = json_integer_value(pr);
	}
	good = json_object_get(b, "good");
	strbuf_reset(&at);
	strbuf_addf(&at, "%s.good", where);
	if (!json_is_object(good)) {
		ret = fail(err, at.buf, "%s", "expected an object");
		goto done;
	}
	if ((ret = get_hex40(g->reference, good, "commit", at.buf, err)))
		goto done;
	strbuf_reset(&at);
	strbuf_addf(&at, "%s.ratio", where);
	if ((ret = get_ratio(&g->ratio, json_object_get(b, "ratio"), at.buf, err)))
		goto done;
	interval = json_object_get(b, "interval");
	strbuf_reset(&at);
	strbuf_addf(&at, "%s.interval", where);
	if (interval && !json_is_null(interval)) {
		if (!json_is_array(interval) || json_array_size(interval) != 2 ||
		    get_ratio(&g->lo, json_array_get(interval, 0), at.buf, err) ||
		    get_ratio(&g->hi, json_array_get(interval, 1), at.buf, err) || isnan(g->lo) ||
		    isnan(g->hi) || g->lo > g->hi) {
			ret = fail(err, at.buf, "%s",
				   "expected [low, high] (positive numbers) or null");
			goto done;
		}
	}
	probes = json_object_get(b, "probes");
	strbuf_reset(&at);
	strbuf_addf(&at, "%s.probes", where);
	if (!json_is_array(probes)) {
		ret = fail(err, at.buf, "%s", "expected the probe log (an array)");
		goto done;
	}
	for (size_t i = 0; i < json_array_size(probes); i++) {
		if (!json_is_object(json_array_get(probes, i))) {
			strbuf_addf(&at, "[%zu]", i);
			ret = fail(err, at.buf, "%s", "expected an object");
			goto done;
		}
	}
	g->probes = json_write_text(probes, 0);
done:
	strbuf_release(&at);
	return ret;
}

static int parse_regression(struct outcome_regression *g, const json_t *o, size_t index,
			    struct bl_error *err)
{
	static const char *const keys[] = {"benchmark", "config", "metric", "bisect", NULL};
	struct strbuf where = STRBUF_INIT, key = STRBUF_INIT;
	int ret;

	memset(g, 0, sizeof(*g));
	g->ratio = g->lo = g->hi = NAN;
	strbuf_addf(&where, "regressions[%zu]", index);
	if (!json_is_object(o)) {
		ret = fail(err, where.buf, "%s", "expected an object");
		goto done;
	}
	if ((ret = only_keys(o, keys, where.buf, err)) ||
	    (ret =
		 get_string(&g->benchmark, o, "benchmark", 1, OUTCOME_MAX_NAME, where.buf, err)) ||
	    (ret = get_string(&g->config, o, "config", 0, OUTCOME_MAX_NAME, where.buf, err)) ||
	    (ret = get_string(&g->metric, o, "metric", 1, OUTCOME_MAX_NAME, where.buf, err)))
		goto done;
	if (!g->config)
		g->config = "";
	if (!*g->benchmark || !*g->metric) {
		ret = fail(err, where.buf, "%s", "benchmark and metric must not be empty");
		goto done;
	}
	strbuf_addstr(&where, ".bisect");
	if ((ret = parse_bisect(g, json_object_get(o, "bisect"), where.buf, err)))
		goto done;
	confirm_metric_key(&key, g->benchmark, g->config, g->metric);
	g->key = strbuf_detach(&key, NULL);
done:
	strbuf_release(&where);
	strbuf_release(&key);
	return ret;
}

/* The re-bench report: an object whose "status" is a string and whose "metrics", when there,
 * are objects with a string "key" and "verdict", as `rebench --json` prints them. */
static int check_rebench(const json_t *rb, struct bl_error *err)
{
	const json_t *metrics = json_object_get(rb, "metrics");
	const char *status;
	int ret;
	if (!json_is_object(rb))
		return fail(err, "rebench", "%s", "expected the `rebench --json` report or null");
	if ((ret = get_string(&status, rb, "status", 1, 64, "rebench", err)))
		return ret;
	if (!metrics || json_is_null(metrics))
		return 0;
	if (!json_is_array(metrics))
		return fail(err, "rebench.metrics", "%s", "expected an array");
	for (size_t i = 0; i < json_array_size(metrics); i++) {
		const json_t *m = json_array_get(metrics, i);
		struct strbuf at = STRBUF_INIT;
		const char *s;
		strbuf_addf(&at, "rebench.metrics[%zu]", i);
		if (!json_is_object(m))
			ret = fail(err, at.buf, "%s", "expected an object");
		else if (!(ret = get_string(&s, m, "key", 1, 3 * OUTCOME_MAX_NAME, at.buf, err)))
			ret = get_string(&s, m, "verdict", 0, 64, at.buf, err);
		strbuf_release(&at);
		if (ret)
			return ret;
	}
	return 0;
}

/* Whether the re-bench found one of the alert's Series slower (the verdict confirm judges an
 * alert by: its own Series', not the whole report's). */
static int rebench_slower(const json_t *rb, const struct outcome_series *series)
{
	const json_t *metrics = json_object_get(rb, "metrics");
	for (size_t i = 0; i < json_array_size(metrics); i++) {
		const json_t *m = json_array_get(metrics, i);
		const char *key = json_string_value(json_object_get(m, "key"));
		const char *verdict = json_string_value(json_object_get(m, "verdict"));
		if (key && verdict && !strcmp(verdict, "slower") && has_key(series, key))
			return 1;
	}
	return 0;
}

int confirm_apply_outcome(struct confirm_alert_result *out, struct store *st, int64_t alert_id,
			  const json_t *doc, struct bl_error *err)
{
	static const char *const keys[] = {"outcome", "rebench", "note", "regressions", NULL};
	struct outcome_alert alert;
	struct outcome_series series;
	struct outcome_regression *regs = NULL;
	struct store_alert_filter f;
	const json_t *rebench, *list;
	const char *outcome_name, *note;
	enum alert_outcome outcome;
	enum suspect_state state, undecided;
	char *rebench_text = NULL;
	size_t nregs = 0, held = 0;
	int ret, began = 0;

	memset(out, 0, sizeof(*out));
	memset(&alert, 0, sizeof(alert));
	memset(&series, 0, sizeof(series));
	memset(&f, 0, sizeof(f));
	out->alert = alert_id;
	f.id = alert_id;
	if ((ret = store_each_alert(st, &f, find_alert, &alert, err)))
		goto done;
	if (!alert.found) {
		ret = bl_error_set(err, BL_ENOTFOUND, "no alert %lld", (long long)alert_id);
		goto done;
	}

	/* The document, every field. */
	if (!json_is_object(doc)) {
		ret = bl_error_set(err, BL_EINVALID,
				   "expected an object {\"outcome\", \"rebench\", \"note\", "
				   "\"regressions\"}");
		goto done;
	}
	if ((ret = only_keys(doc, keys, "outcome document", err)) ||
	    (ret = get_string(&outcome_name, doc, "outcome", 1, 64, "", err)))
		goto done;
	if (alert_outcome_parse(&outcome, outcome_name) || outcome == ALERT_NO_OUTCOME) {
		ret = fail(err, "outcome",
			   "'%s' is not one of cleared, confirmed, unbuildable, inconclusive, "
			   "transient",
			   outcome_name);
		goto done;
	}
	rebench = json_object_get(doc, "rebench");
	if (json_is_null(rebench))
		rebench = NULL;
	if (rebench && (ret = check_rebench(rebench, err)))
		goto done;
	if ((ret = get_string(&note, doc, "note", 0, OUTCOME_MAX_NOTE, "", err)))
		goto done;
	list = json_object_get(doc, "regressions");
	if (list && !json_is_null(list) && !json_is_array(list)) {
		ret = fail(err, "regressions", "%s", "expected an array or null");
		goto done;
	}
	nregs = json_is_array(list) ? json_array_size(list) : 0;
	regs = xcalloc(nregs ? nregs : 1, sizeof(*regs));
	for (size_t i = 0; i < nregs; i++)
		if ((ret = parse_regression(&regs[i], json_array_get(list, i), i, err)))
			goto done;
	/* What each outcome may carry. */
	if (nregs && outcome != ALERT_CONFIRMED) {
		ret = fail(err, "regressions", "only a confirmed outcome has Regressions, not '%s'",
			   outcome_name);
		goto done;
	}
	if (!rebench && (outcome == ALERT_CLEARED || outcome == ALERT_CONFIRMED)) {
		ret = fail(err, "rebench", "a %s outcome needs the re-bench report that decided it",
			   outcome_name);
		goto done;
	}
	if (rebench && outcome == ALERT_TRANSIENT) {
		ret = fail(err, "rebench", "%s",
			   "a transient outcome is decided without measuring: null");
		goto done;
	}

	/* The document against the alert. */
	if ((ret = store_alert_suspects(st, alert_id, collect_key, &series, err)))
		goto done;
	for (size_t i = 0; i < nregs; i++) {
		if (!has_key(&series, regs[i].key)) {
			struct strbuf sb = STRBUF_INIT;
			strbuf_addf(&sb, "regressions[%zu]", i);
			ret = bl_error_set(err, BL_EINVALID, "%s: alert %lld has no Suspect on %s",
					   sb.buf, (long long)alert_id, regs[i].key);
			strbuf_release(&sb);
			goto done;
		}
	}
	if (alert.state == SUSPECT_IGNORED) {
		ret = bl_error_set(err, BL_ECONFLICT, "alert %lld was ignored by a person",
				   (long long)alert_id);
		goto done;
	}
	if ((ret = store_each_regression(st, alert_id, count_regression, &held, err)))
		goto done;
	if (held && outcome != ALERT_CONFIRMED) {
		ret = bl_error_set(err, BL_ECONFLICT,
				   "alert %lld holds %zu Regression%s already: only a confirmed "
				   "outcome may follow",
				   (long long)alert_id, held, held == 1 ? "" : "s");
		goto done;
	}

	/* The state a local confirm leaves (alerts.c). An outcome that decides nothing leaves a
	 * pending alert pending (detection still owes it its followers), any other open. */
	undecided = alert.state == SUSPECT_PENDING ? SUSPECT_PENDING : SUSPECT_OPEN;
	switch (outcome) {
	case ALERT_CLEARED:
		state = SUSPECT_CLEARED;
		break;
	case ALERT_CONFIRMED:
		state = held || nregs ? SUSPECT_COVERED : SUSPECT_CONFIRMED;
		break;
	case ALERT_INCONCLUSIVE:
		/* slower, but bisection pinned nothing: confirmed; else still undecided */
		state = rebench && rebench_slower(rebench, &series) ? SUSPECT_CONFIRMED : undecided;
		break;
	case ALERT_TRANSIENT:
		state = SUSPECT_TRANSIENT;
		break;
	default: /* ALERT_UNBUILDABLE */
		state = undecided;
		break;
	}

	/* Stored together: the Regressions (the first of a Series and commit kept) and the
	 * outcome. */
	if (rebench)
		rebench_text = json_write_text(rebench, 0);
	if ((ret = store_begin(st, err)))
		goto done;
	began = 1;
	out->regressions = xcalloc(nregs ? nregs : 1, sizeof(*out->regressions));
	out->regressions_alloc = nregs ? nregs : 1;
	for (size_t i = 0; i < nregs; i++) {
		const struct outcome_regression *g = &regs[i];
		struct store_regression reg;
		memset(&reg, 0, sizeof(reg));
		reg.alert_id = alert_id;
		reg.machine = alert.machine;
		reg.benchmark = g->benchmark;
		reg.config = g->config;
		reg.metric = g->metric;
		reg.commit = g->commit;
		reg.source_hash = g->source_hash;
		reg.subject = g->subject;
		reg.pr = g->pr;
		reg.ratio = g->ratio;
		reg.lo = g->lo;
		reg.hi = g->hi;
		reg.reference_commit = g->reference;
		reg.probes = g->probes ? g->probes : "[]";
		if ((ret = store_regression_add(&out->regressions[i], NULL, st, &reg, err)))
			goto done;
		out->nregressions++;
	}
	if ((ret = store_alert_set_outcome(st, alert_id, state, outcome, rebench_text, note, err)))
		goto done;
	ret = store_commit(st, err);
	began = 0;
	if (ret)
		goto done;
	out->outcome = outcome;
	out->rebench = rebench ? json_incref((json_t *)rebench) : NULL;
	out->note = xstrdup_or_null(note);
done:
	if (began)
		store_rollback(st);
	if (ret) {
		free(out->regressions);
		out->regressions = NULL;
		out->nregressions = out->regressions_alloc = 0;
	}
	for (size_t i = 0; i < nregs; i++) {
		free(regs[i].probes);
		free(regs[i].key);
	}
	free(regs);
	for (size_t i = 0; i < series.n; i++)
		free(series.keys[i]);
	free(series.keys);
	free(alert.machine);
	free(rebench_text);
	return ret;
}

void confirm_alert_result_release(struct confirm_alert_result *r)
{
	json_decref(r->rebench);
	free(r->regressions);
	free(r->note);
	memset(r, 0, sizeof(*r));
}
