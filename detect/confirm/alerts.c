/*
 * `benchline confirm` as a use case (§9.4): each alert's commit re-benched against its
 * reference commit, once for the whole alert; not slower, the alert is cleared; slower, it is
 * confirmed and each of its Series that the re-bench found slower is bisected between the two,
 * every pinned commit a Regression that covers the alert. What was found is kept with the
 * alert, so a second run takes up nothing it already decided. docs/confirm.md has the state
 * machine and a worked example.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "ingest/config/config.h"
#include "ingest/push/push.h"
#include "store/store.h"

/* A Series of the alert, as bisection and the re-bench's keys name it. */
struct alert_series {
	char *benchmark, *config, *metric;
	struct strbuf key; /* "benchmark[ [config]] metric", as the re-bench keys its metrics */
};

struct series_ctx {
	struct alert_series *v;
	size_t n, alloc;
};

static int collect_series(const struct store_suspect *s, void *data)
{
	struct series_ctx *c = data;
	struct alert_series *x;
	ALLOC_GROW(c->v, c->n, c->alloc);
	x = &c->v[c->n++];
	x->benchmark = xstrdup(s->benchmark);
	x->config = xstrdup(s->config);
	x->metric = xstrdup(s->metric);
	strbuf_init(&x->key, 0);
	strbuf_addstr(&x->key, s->benchmark);
	if (s->config[0])
		strbuf_addf(&x->key, " [%s]", s->config);
	strbuf_addf(&x->key, " %s", s->metric);
	return 0;
}

static void series_release(struct series_ctx *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->v[i].benchmark);
		free(c->v[i].config);
		free(c->v[i].metric);
		strbuf_release(&c->v[i].key);
	}
	free(c->v);
}

/* The alerts a request takes up, copied out of the store's walk. */
struct picked {
	int64_t id;
	char *commit, *reference, *machine;
	enum suspect_state state;
	enum alert_outcome outcome;
	enum suspect_side side;
	struct series_ctx series; /* the Series of its Suspects */
};

struct pick_ctx {
	struct picked *v;
	size_t n, alloc;
	int all;	/* the default selection: open, slower, no outcome yet */
	int pending;	/* with all: pending ones too */
	size_t skipped; /* with all, not pending: the pending slower ones left for later */
};

/* Whether confirm may measure an alert in this state: open, or pending (taken up only when
 * asked for: --pending or its id). */
static int measurable(enum suspect_state state)
{
	return state == SUSPECT_OPEN || state == SUSPECT_PENDING;
}

static int pick(const struct store_alert *a, void *data)
{
	struct pick_ctx *p = data;
	struct picked *x;
	if (p->all && a->state == SUSPECT_PENDING && !p->pending && a->side == SUSPECT_SLOWER &&
	    a->outcome == ALERT_NO_OUTCOME)
		p->skipped++;
	if (p->all && (!(a->state == SUSPECT_OPEN || (p->pending && a->state == SUSPECT_PENDING)) ||
		       a->side != SUSPECT_SLOWER || a->outcome != ALERT_NO_OUTCOME))
		return 0;
	ALLOC_GROW(p->v, p->n, p->alloc);
	x = &p->v[p->n++];
	x->id = a->id;
	x->commit = xstrdup(a->commit);
	x->reference = xstrdup_or_null(a->reference_commit);
	x->machine = xstrdup(a->machine);
	x->state = a->state;
	x->outcome = a->outcome;
	x->side = a->side;
	memset(&x->series, 0, sizeof(x->series));
	return 0;
}

static void series_release(struct series_ctx *c);

static void picked_release(struct pick_ctx *p)
{
	for (size_t i = 0; i < p->n; i++) {
		free(p->v[i].commit);
		free(p->v[i].reference);
		free(p->v[i].machine);
		series_release(&p->v[i].series);
	}
	free(p->v);
}

/* Whether benchline.json judges the metric: one its `metrics` names, every one when it names
 * none (detection then judges every timed metric, so every Suspect's is). */
static int judged_metric(const struct config *cfg, const char *metric)
{
	if (!cfg->judged_metrics || !strcmp(metric, METRIC_INSTRUCTIONS))
		return 1; /* §9.6: instruction counts are judged whatever `metrics` says */
	for (size_t i = 0; i < cfg->n_judged_metrics; i++)
		if (!strcmp(cfg->judged_metrics[i], metric))
			return 1;
	return 0;
}

/* The re-bench's verdict on one of the alert's Series; NONE when it measured no such key. */
static enum gate_verdict series_verdict(const struct confirm_rebench_report *r,
					const struct alert_series *s)
{
	for (size_t i = 0; i < r->result.n; i++)
		if (!strcmp(r->result.metrics[i].key, s->key.buf))
			return r->result.metrics[i].verdict;
	return GATE_VERDICT_NONE;
}

/*
 * Where what confirm found goes: an outcome document (confirm_apply_outcome's) applied to the
 * local store, or posted to a server, which applies it the same way. out receives what was
 * stored (the Regressions' ids among it).
 */
struct sink {
	int (*apply)(struct confirm_alert_result *out, int64_t alert_id, const json_t *doc,
		     void *data, struct bl_error *err);
	/* An alert decided before: what it holds (NULL: nothing to say). */
	int (*decided)(struct confirm_alert_result *out, int64_t alert_id, void *data,
		       struct bl_error *err);
	void *data;
};

/* {"outcome", "rebench", "note", "regressions"}: rebench is borrowed, regressions (an array,
 * NULL for none) taken. */
static json_t *outcome_doc(enum alert_outcome o, json_t *rebench, const char *note,
			   json_t *regressions)
{
	json_t *doc = json_object();
	json_object_set_new(doc, "outcome", json_string(alert_outcome_name(o)));
	json_object_set_new(doc, "rebench", rebench ? json_incref(rebench) : json_null());
	json_object_set_new(doc, "note", json_string_or_null(note));
	json_object_set_new(doc, "regressions", regressions ? regressions : json_array());
	return doc;
}

/* Applies the document; res becomes what was stored. */
static int apply(struct confirm_alert_result *res, const struct sink *sk, int64_t alert_id,
		 json_t *doc, struct bl_error *err)
{
	int ret;
	confirm_alert_result_release(res);
	ret = sk->apply(res, alert_id, doc, sk->data, err);
	res->alert = alert_id;
	json_decref(doc);
	return ret;
}

/* Bisects each Series of the alert that the re-bench found slower: each pinned bisection goes
 * into regs ({"benchmark", "config", "metric", "bisect"}); *undecided counts those that pinned
 * nothing, why says what they left. */
static int bisect_series(json_t *regs, size_t *undecided, struct strbuf *why,
			 const struct picked *a, const struct series_ctx *series,
			 const struct confirm_rebench_report *rb, const struct config *cfg,
			 const struct confirm_alerts_request *req, struct bl_error *err)
{
	*undecided = 0;
	for (size_t i = 0; i < series->n; i++) {
		const struct alert_series *s = &series->v[i];
		struct confirm_bisect_request breq;
		struct confirm_bisect_report rep;
		if (!judged_metric(cfg, s->metric) || series_verdict(rb, s) != GATE_VERDICT_SLOWER)
			continue;
		/* Only this Series judges each probe: its benchmark, config and metric. */
		memset(&breq, 0, sizeof(breq));
		breq.repo = req->repo;
		breq.good = a->reference;
		breq.bad = a->commit;
		breq.benchmark = s->benchmark;
		breq.config = s->config;
		breq.metric = s->metric;
		breq.limit = req->limit;
		breq.counters_only = req->counters_only;
		breq.progress = req->progress;
		breq.progress_data = req->progress_data;
		bl_note(req->note, req->note_data,
			"alert %lld: bisecting %s between %.12s and %.12s", (long long)a->id,
			s->key.buf, a->reference, a->commit);
		memset(&rep, 0, sizeof(rep));
		if (confirm_bisect(&rep, &breq, err)) {
			confirm_bisect_report_release(&rep);
			return err->code ? err->code : BL_EINVALID;
		}
		if (rep.outcome == CONFIRM_PINNED) {
			json_array_append_new(regs, json_pack("{s:s, s:s, s:s, s:o}", "benchmark",
							      s->benchmark, "config", s->config,
							      "metric", s->metric, "bisect",
							      confirm_bisect_json(&rep)));
			bl_note(req->note, req->note_data, "alert %lld: %s pinned at %.12s",
				(long long)a->id, s->key.buf, rep.pinned.sha);
		} else {
			(*undecided)++;
			if (why->len)
				strbuf_addstr(why, "; ");
			if (rep.outcome == CONFIRM_INCONCLUSIVE)
				strbuf_addf(why, "%s: bisection left %.12s..%.12s", s->key.buf,
					    rep.range_first.sha, rep.range_last.sha);
			else
				strbuf_addf(why, "%s: bisection did not reproduce the slowdown",
					    s->key.buf);
		}
		confirm_bisect_report_release(&rep);
	}
	return 0;
}

/* A line saying what the alert's re-bench found, the long step's summary: "alert 3: re-bench
 * same after 20 pairs (2 measurements): of its 1 Series 0 slower, 0 undecided; 5 other metrics
 * measured, not waited for". */
static void rebench_note(const struct picked *a, const struct confirm_rebench_report *rb,
			 size_t nasked, size_t slower, size_t unsettled,
			 const struct confirm_alerts_request *req)
{
	size_t others = 0;
	if (rb->identical) {
		bl_note(req->note, req->note_data,
			"alert %lld: re-bench same: the artifacts are byte-identical, nothing "
			"measured",
			(long long)a->id);
		return;
	}
	for (size_t i = 0; i < rb->result.n; i++)
		others += !rb->result.metrics[i].asked;
	bl_note(req->note, req->note_data,
		"alert %lld: re-bench %s after %zu pairs (%zu measurement%s): of its %zu "
		"Series %zu slower, %zu undecided; %zu other metric%s measured, not waited "
		"for",
		(long long)a->id, gate_verdict_name(rb->result.verdict), rb->result.pairs,
		rb->result.measurements, rb->result.measurements == 1 ? "" : "s", nasked, slower,
		unsettled, others, others == 1 ? "" : "s");
}

/* Takes one alert up: re-bench, and bisection when it holds; what it finds goes to sk. Only
 * the alert's own Series whose metric benchline.json judges (cfg) are asked about: they alone
 * decide how long the re-bench measures and what the alert becomes. */
static int confirm_one(struct confirm_alert_result *res, const struct sink *sk,
		       const struct picked *a, const struct config *cfg,
		       const struct confirm_alerts_request *req, struct bl_error *err)
{
	struct confirm_rebench_request rreq;
	struct confirm_rebench_report rb;
	struct strbuf why = STRBUF_INIT;
	json_t *rebench = NULL, *regs = NULL;
	const char **asked = NULL;
	size_t slower = 0, unsettled = 0, undecided = 0, nasked = 0;
	int timed = 0; /* a Series of the alert is timed: the timing rounds run */
	int ret;

	memset(&rb, 0, sizeof(rb));
	res->alert = a->id;
	if (a->state == SUSPECT_TRANSIENT) {
		/* Asked for by id: a transient alert is cleared without measuring (§9.1). */
		ret = apply(res, sk, a->id, outcome_doc(ALERT_TRANSIENT, NULL, NULL, NULL), err);
		goto done;
	}
	if (!measurable(a->state) || a->outcome != ALERT_NO_OUTCOME) {
		/* Decided before: nothing to do again but say what was found. */
		res->outcome = a->outcome;
		res->already = 1;
		ret = sk->decided ? sk->decided(res, a->id, sk->data, err) : 0;
		goto done;
	}
	if (!a->reference) {
		ret =
		    apply(res, sk, a->id,
			  outcome_doc(ALERT_INCONCLUSIVE, NULL,
				      "none of its Suspects has a record inside its band before it",
				      NULL),
			  err);
		goto done;
	}
	asked = xcalloc(a->series.n + 1, sizeof(*asked));
	for (size_t i = 0; i < a->series.n; i++)
		if (judged_metric(cfg, a->series.v[i].metric)) {
			asked[nasked++] = a->series.v[i].key.buf;
			timed |= strcmp(a->series.v[i].metric, METRIC_INSTRUCTIONS) != 0;
		}
	if (!nasked) {
		ret = apply(res, sk, a->id,
			    outcome_doc(ALERT_INCONCLUSIVE, NULL,
					"none of its Series is on a metric benchline.json's "
					"metrics judges",
					NULL),
			    err);
		goto done;
	}
	memset(&rreq, 0, sizeof(rreq));
	rreq.repo = req->repo;
	rreq.cfg = cfg;
	rreq.a = a->reference;
	rreq.b = a->commit;
	rreq.limit = req->limit;
	/* counts alone when asked, or when every Series is an instruction count (§9.6) */
	rreq.counters_only = req->counters_only || !timed;
	rreq.asked = asked;
	rreq.nasked = nasked;
	rreq.progress = req->progress;
	rreq.progress_data = req->progress_data;
	bl_note(req->note, req->note_data,
		"alert %lld: re-benching %.12s against its reference %.12s", (long long)a->id,
		a->commit, a->reference);
	ret = confirm_rebench_revs(&rb, &rreq, err);
	if (ret == BL_EBUILD) {
		char *msg = xstrdup(err->msg.buf);
		bl_error_release(err);
		ret = apply(res, sk, a->id, outcome_doc(ALERT_UNBUILDABLE, NULL, msg, NULL), err);
		free(msg);
		goto done;
	}
	if (ret)
		goto done;
	rebench = confirm_rebench_json(&rb);
	for (size_t i = 0; i < a->series.n; i++) {
		const struct alert_series *s = &a->series.v[i];
		enum gate_verdict v = series_verdict(&rb, s);
		if (!judged_metric(cfg, s->metric))
			continue;
		slower += v == GATE_VERDICT_SLOWER;
		unsettled += v == GATE_VERDICT_UNDECIDED;
		if (v == GATE_VERDICT_NONE && !rb.identical) {
			/* Not measured (bench.run no longer prints it, or not under that config):
			 * nothing says it is not slower. */
			unsettled++;
			strbuf_addf(&why, "%s'%s'", why.len ? ", " : "the re-bench measured no ",
				    s->key.buf);
		}
	}
	rebench_note(a, &rb, nasked, slower, unsettled, req);
	if (!slower) {
		ret = apply(res, sk, a->id,
			    outcome_doc(unsettled ? ALERT_INCONCLUSIVE : ALERT_CLEARED, rebench,
					why.len	    ? why.buf
					: unsettled ? "the re-bench stayed undecided"
						    : NULL,
					NULL),
			    err);
		goto done;
	}
	strbuf_reset(&why);
	/* Confirmed: kept before bisecting, so an interrupted bisection leaves it confirmed. */
	if ((ret = apply(res, sk, a->id, outcome_doc(ALERT_CONFIRMED, rebench, NULL, NULL), err)))
		goto done;
	regs = json_array();
	if ((ret = bisect_series(regs, &undecided, &why, a, &a->series, &rb, cfg, req, err)))
		goto done;
	ret = apply(
	    res, sk, a->id,
	    outcome_doc(json_array_size(regs) || !undecided ? ALERT_CONFIRMED : ALERT_INCONCLUSIVE,
			rebench, why.len ? why.buf : NULL, json_incref(regs)),
	    err);
	for (size_t i = 0; !ret && i < res->nregressions; i++)
		bl_note(req->note, req->note_data, "alert %lld: Regression %lld stored",
			(long long)a->id, (long long)res->regressions[i]);
done:
	free(asked);
	json_decref(rebench);
	json_decref(regs);
	confirm_rebench_report_release(&rb);
	strbuf_release(&why);
	return ret;
}

/* The local sink: the store, through confirm_apply_outcome. */
static int local_apply(struct confirm_alert_result *out, int64_t alert_id, const json_t *doc,
		       void *data, struct bl_error *err)
{
	return confirm_apply_outcome(out, data, alert_id, doc, err);
}

static int collect_regression(const struct store_regression *r, void *data)
{
	struct confirm_alert_result *res = data;
	ALLOC_GROW(res->regressions, res->nregressions, res->regressions_alloc);
	res->regressions[res->nregressions++] = r->id;
	return 0;
}

static int local_decided(struct confirm_alert_result *out, int64_t alert_id, void *data,
			 struct bl_error *err)
{
	return store_each_regression(data, alert_id, collect_regression, out, err);
}

static int by_id(const void *x, const void *y)
{
	const struct picked *a = x, *b = y;
	return a->id < b->id ? -1 : a->id > b->id;
}

/* Takes up every picked alert in turn (the default selection oldest first); *out gets one
 * result each. benchline.json is req->cfg, else read from the repository once, when there is
 * an alert to take up. */
static int take_up(struct confirm_alert_result **out, size_t *nr, struct pick_ctx *p,
		   const struct sink *sk, const struct confirm_alerts_request *req,
		   struct bl_error *err)
{
	struct confirm_alert_result *res = xcalloc(p->n ? p->n : 1, sizeof(*res));
	struct config own;
	struct strbuf root = STRBUF_INIT;
	const struct config *cfg = req->cfg ? req->cfg : &own;
	int ret = 0;

	config_init(&own);
	if (p->skipped)
		bl_note(req->note, req->note_data,
			"%zu pending slower alert%s left for later (fewer records after %s "
			"than quiet.transient_records): --pending or %s id takes %s up",
			p->skipped, p->skipped == 1 ? "" : "s", p->skipped == 1 ? "it" : "them",
			p->skipped == 1 ? "its" : "their", p->skipped == 1 ? "it" : "them");
	if (p->all && p->n > 1)
		qsort(p->v, p->n, sizeof(*p->v), by_id);
	if (p->n && !req->cfg &&
	    ((ret = repo_toplevel(&root, req->repo ? req->repo : ".", err)) ||
	     (ret = config_load(&own, root.buf, err)))) {
		free(res);
		goto done;
	}
	for (size_t i = 0; i < p->n; i++) {
		if ((ret = confirm_one(&res[i], sk, &p->v[i], cfg, req, err))) {
			bl_error_prefix(err, "alert %lld", (long long)p->v[i].id);
			confirm_alert_results_free(res, i + 1);
			goto done;
		}
	}
	*out = res;
	*nr = p->n;
done:
	config_release(&own);
	strbuf_release(&root);
	return ret;
}

int confirm_alerts(struct confirm_alert_result **out, size_t *nr, struct store *st,
		   const struct confirm_alerts_request *req, struct bl_error *err)
{
	struct pick_ctx p;
	int ret = 0;

	*out = NULL;
	*nr = 0;
	memset(&p, 0, sizeof(p));
	if (!req->nids) {
		struct store_alert_filter f;
		memset(&f, 0, sizeof(f));
		f.machine = req->machine;
		p.all = 1;
		p.pending = req->pending;
		ret = store_each_alert(st, &f, pick, &p, err);
	}
	for (size_t i = 0; !ret && i < req->nids; i++) {
		struct store_alert_filter f;
		size_t before = p.n;
		memset(&f, 0, sizeof(f));
		f.id = req->ids[i];
		if ((ret = store_each_alert(st, &f, pick, &p, err)))
			break;
		if (p.n == before)
			ret = bl_error_set(err, BL_ENOTFOUND, "no alert %lld",
					   (long long)req->ids[i]);
	}
	for (size_t i = 0; !ret && i < p.n; i++)
		ret = store_alert_suspects(st, p.v[i].id, collect_series, &p.v[i].series, err);
	if (!ret) {
		struct sink sk = {local_apply, local_decided, st};
		ret = take_up(out, nr, &p, &sk, req, err);
	}
	picked_release(&p);
	return ret;
}

void confirm_alert_results_free(struct confirm_alert_result *r, size_t n)
{
	for (size_t i = 0; r && i < n; i++)
		confirm_alert_result_release(&r[i]);
	free(r);
}

json_t *confirm_alert_result_json(const struct confirm_alert_result *r)
{
	json_t *o = json_object(), *ids = json_array();
	for (size_t i = 0; i < r->nregressions; i++)
		json_array_append_new(ids, json_integer(r->regressions[i]));
	json_object_set_new(o, "alert", json_integer(r->alert));
	json_object_set_new(o, "outcome", json_string_or_null(alert_outcome_name(r->outcome)));
	json_object_set_new(o, "already", json_boolean(r->already));
	json_object_set_new(o, "rebench", r->rebench ? json_incref(r->rebench) : json_null());
	json_object_set_new(o, "regressions", ids);
	json_object_set_new(o, "note", json_string_or_null(r->note));
	return o;
}

/* --- Confirm from a sweep machine (§10's fleet): the alerts come from a server, and what is
 * found goes back to it as the same outcome document --- */

/* A GET of a JSON array from the server; *out a new reference. */
static int server_get_array(json_t **out, struct push_server *srv, const char *path,
			    struct bl_error *err)
{
	struct push_response res;
	json_error_t jerr;
	int ret;
	*out = NULL;
	push_response_init(&res);
	if ((ret = push_request(&res, srv, "GET", path, NULL, 0, NULL, err)))
		goto done;
	if (res.status != 200) {
		ret = bl_error_set(err, BL_EIO, "GET %s: the server answered %ld: %.200s", path,
				   res.status, res.body.buf);
		goto done;
	}
	*out = json_loadb(res.body.buf, res.body.len, 0, &jerr);
	if (!*out || !json_is_array(*out)) {
		json_decref(*out);
		*out = NULL;
		ret =
		    bl_error_set(err, BL_EINVALID, "GET %s: the answer is not a JSON array", path);
	}
done:
	push_response_release(&res);
	return ret;
}

/* An alert of GET /api/alerts, with its Suspects' Series from GET /api/suspects. */
static int remote_pick(struct pick_ctx *p, const json_t *alert, const json_t *suspects,
		       struct bl_error *err)
{
	struct store_alert a;
	const char *side = json_string_value(json_object_get(alert, "side"));
	const char *state = json_string_value(json_object_get(alert, "state"));
	const char *outcome = json_string_value(json_object_get(alert, "outcome"));
	const json_t *ids = json_object_get(alert, "suspects"), *id;
	size_t i, before = p->n;

	memset(&a, 0, sizeof(a));
	a.id = json_integer_value(json_object_get(alert, "id"));
	a.machine = json_string_value(json_object_get(alert, "machine"));
	a.commit = json_string_value(json_object_get(alert, "commit"));
	a.reference_commit = json_string_value(json_object_get(alert, "reference_commit"));
	if (a.id <= 0 || !a.machine || !a.commit || !side || !state || !json_is_array(ids) ||
	    suspect_side_parse(&a.side, side) || suspect_state_parse(&a.state, state) ||
	    (outcome && alert_outcome_parse(&a.outcome, outcome)))
		return bl_error_set(err, BL_EINVALID,
				    "GET /api/alerts: an alert the server sent is "
				    "not one (id, machine, commit, side, state)");
	pick(&a, p);
	if (p->n == before)
		return 0;
	json_array_foreach (ids, i, id) {
		size_t k;
		const json_t *s;
		json_array_foreach (suspects, k, s) {
			struct store_suspect x;
			if (json_integer_value(json_object_get(s, "id")) != json_integer_value(id))
				continue;
			memset(&x, 0, sizeof(x));
			x.benchmark = json_string_value(json_object_get(s, "benchmark"));
			x.config = json_string_value(json_object_get(s, "config"));
			x.metric = json_string_value(json_object_get(s, "metric"));
			if (x.benchmark && x.config && x.metric)
				collect_series(&x, &p->v[p->n - 1].series);
			break;
		}
	}
	return 0;
}

/* The remote sink: POST /api/alerts/{id}/outcome; the answer says what the server stored. */
static int remote_apply(struct confirm_alert_result *out, int64_t alert_id, const json_t *doc,
			void *data, struct bl_error *err)
{
	struct push_server *srv = data;
	struct push_response res;
	struct strbuf path = STRBUF_INIT;
	char *body = json_write_text(doc, 0);
	json_t *answer = NULL, *ids, *id;
	json_error_t jerr;
	size_t i;
	int ret;

	push_response_init(&res);
	strbuf_addf(&path, "/api/alerts/%lld/outcome", (long long)alert_id);
	if ((ret = push_request(&res, srv, "POST", path.buf, body, strlen(body), NULL, err)))
		goto done;
	if (res.status != 200) {
		ret = bl_error_set(err, res.status >= 400 && res.status < 500 ? BL_EDENIED : BL_EIO,
				   "POST %s: the server answered %ld: %.300s", path.buf, res.status,
				   res.body.buf);
		goto done;
	}
	answer = json_loadb(res.body.buf, res.body.len, 0, &jerr);
	ids = json_object_get(answer, "regressions");
	alert_outcome_parse(&out->outcome, json_string_value(json_object_get(doc, "outcome")));
	out->alert = alert_id;
	if (json_is_object(json_object_get(doc, "rebench")))
		out->rebench = json_incref(json_object_get(doc, "rebench"));
	if (json_is_string(json_object_get(doc, "note")))
		out->note = xstrdup(json_string_value(json_object_get(doc, "note")));
	json_array_foreach (ids, i, id) {
		ALLOC_GROW(out->regressions, out->nregressions, out->regressions_alloc);
		out->regressions[out->nregressions++] = json_integer_value(id);
	}
done:
	json_decref(answer);
	free(body);
	strbuf_release(&path);
	push_response_release(&res);
	return ret;
}

int confirm_alerts_remote(struct confirm_alert_result **out, size_t *nr, struct push_server *srv,
			  const struct confirm_alerts_request *req, struct bl_error *err)
{
	struct pick_ctx p;
	struct strbuf path = STRBUF_INIT;
	json_t *alerts = NULL, *suspects = NULL, *a;
	size_t i;
	int ret;

	*out = NULL;
	*nr = 0;
	memset(&p, 0, sizeof(p));
	p.all = !req->nids;
	p.pending = req->pending;
	/* By id, any state: every alert of the machine is read and the ids picked. By default
	 * the open ones, and with req->pending the pending ones too (asked for only then, so a
	 * server that predates the state is not asked about it). */
	strbuf_addf(&path, "/api/alerts?machine=%s%s", req->machine,
		    req->nids ? "" : "&state=open");
	if ((ret = server_get_array(&alerts, srv, path.buf, err)))
		goto done;
	if (!req->nids && req->pending) {
		json_t *more = NULL;
		strbuf_reset(&path);
		strbuf_addf(&path, "/api/alerts?machine=%s&state=pending", req->machine);
		if ((ret = server_get_array(&more, srv, path.buf, err)))
			goto done;
		json_array_extend(alerts, more);
		json_decref(more);
	}
	if ((ret = server_get_array(&suspects, srv, "/api/suspects", err)))
		goto done;
	json_array_foreach (alerts, i, a) {
		int64_t id = json_integer_value(json_object_get(a, "id"));
		int wanted = !req->nids;
		for (size_t k = 0; k < req->nids && !wanted; k++)
			wanted = req->ids[k] == id;
		if (wanted && (ret = remote_pick(&p, a, suspects, err)))
			goto done;
	}
	for (size_t k = 0; k < req->nids; k++) {
		int found = 0;
		for (size_t j = 0; j < p.n && !found; j++)
			found = p.v[j].id == req->ids[k];
		if (!found) {
			ret = bl_error_set(err, BL_ENOTFOUND, "no alert %lld of '%s' on the server",
					   (long long)req->ids[k], req->machine);
			goto done;
		}
	}
	{
		struct sink sk = {remote_apply, NULL, srv};
		ret = take_up(out, nr, &p, &sk, req, err);
	}
done:
	json_decref(alerts);
	json_decref(suspects);
	strbuf_release(&path);
	picked_release(&p);
	return ret;
}
