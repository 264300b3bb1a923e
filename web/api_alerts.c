/*
 * Alerts (§9.1): GET /api/alerts, as `benchline alerts --json` lists them, and what sweep
 * machines post about one: a confirm outcome (POST /api/alerts/{id}/outcome, stored by the
 * use case a local confirm shares, confirm_apply_outcome) and an ignore (POST
 * /api/alerts/{id}/ignore, confirm_ignore_alert, as `benchline suspects ignore`).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "detect/detect.h"
#include "web/web.h"

static int alerts_one(const struct store_alert *al, void *data)
{
	struct web_json_list *l = data;
	json_t *o;
	if (detect_alert_json_read(&o, l->st, al, l->err)) {
		l->failed = 1;
		return 1;
	}
	web_json_list_add(l, o);
	return 0;
}

static int alerts_each(struct web_json_list *l)
{
	return store_each_alert(l->st, l->filter, alerts_one, l, l->err);
}

/* GET /api/alerts?machine=&state=: `benchline alerts --json` with the filter's machine and
 * state. Never cached: each answer is for its own query. */
int web_api_alerts(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const params[] = {"machine", "state", NULL};
	struct strbuf b1 = STRBUF_INIT, b2 = STRBUF_INIT;
	struct store_alert_filter f;
	const char *state;
	int ret = 0;

	memset(&f, 0, sizeof(f));
	if (web_check_params(r, req, params) ||
	    web_param_machine(&f.machine, &b1, r, req, "machine") ||
	    web_param_string(&state, &b2, r, req, "state"))
		goto done;
	if (state && *state) {
		if (suspect_state_parse(&f.state, state)) {
			web_param_bad(r, "state", state,
				      "a state (pending, open, transient, cleared, confirmed, "
				      "covered, ignored)");
			goto done;
		}
		f.state_given = 1;
	}
	ret = web_json_list(r, req->st, &f, alerts_each, err);
done:
	strbuf_release(&b1);
	strbuf_release(&b2);
	return ret;
}

/* The alert a POST is about: its machine and state, or *found 0. */
struct post_alert {
	int found;
	struct strbuf machine;
	enum suspect_state state;
	enum alert_outcome outcome;
};

static int post_alert_one(const struct store_alert *a, void *data)
{
	struct post_alert *x = data;
	x->found = 1;
	strbuf_reset(&x->machine);
	strbuf_addstr(&x->machine, a->machine);
	x->state = a->state;
	x->outcome = a->outcome;
	return 1;
}

static int find_alert(struct post_alert *out, struct store *st, int64_t id, struct bl_error *err)
{
	struct store_alert_filter f;
	memset(&f, 0, sizeof(f));
	f.id = id;
	out->found = 0;
	return store_each_alert(st, &f, post_alert_one, out, err);
}

/* A POST's body as JSON, or NULL with a 400 saying where it does not parse
 * ("request:1:8: ..."). */
static json_t *body_json(struct web_reply *r, const struct web_request *req)
{
	json_error_t jerr;
	json_t *doc = json_loadb(req->body->buf, req->body->len, JSON_REJECT_DUPLICATES, &jerr);
	struct strbuf msg = STRBUF_INIT;
	if (doc)
		return doc;
	strbuf_addf(&msg, "request:%d:%d: %s", jerr.line, jerr.column, jerr.text);
	web_reply_json_error(r, 400, msg.buf);
	strbuf_release(&msg);
	return NULL;
}

/* The first steps of a POST on an alert: the writer's connection, then the alert, which must
 * exist and be of a machine the token may VERB (confirm, ignore). */
static int writer_alert(struct web_pooled *writer, struct post_alert *alert,
			const struct web_request *req, const char *verb, struct bl_error *err)
{
	int ret;
	if ((ret = web_pool_take(writer, NULL, req->srv, WEB_POOL_WRITE, err)) ||
	    (ret = find_alert(alert, writer->st, req->id, err)))
		return ret;
	if (!alert->found)
		return bl_error_set(err, BL_ENOTFOUND, "no alert %lld", (long long)req->id);
	if (req->token->glob && !glob_match(req->token->glob, alert->machine.buf))
		return bl_error_set(err, BL_EDENIED, "this token may not %s alerts of machine %s",
				    verb, alert->machine.buf);
	return 0;
}

/* POST /api/alerts/{id}/outcome with the whole body read: the outcome document stored by the
 * use case a local confirm would share (confirm_apply_outcome), for an alert of a machine the
 * token may confirm. */
int web_api_alert_outcome(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const no_params[] = {NULL};
	struct confirm_alert_result res;
	struct post_alert alert = {0, STRBUF_INIT, SUSPECT_OPEN, ALERT_NO_OUTCOME};
	json_t *doc = NULL, *ids, *o;
	struct web_pooled writer = {NULL, 0, NULL};
	int ret = 0;

	memset(&res, 0, sizeof(res));
	if (web_check_params(r, req, no_params) || !(doc = body_json(r, req)))
		goto done;
	if ((ret = writer_alert(&writer, &alert, req, "confirm", err)) ||
	    (ret = confirm_apply_outcome(&res, writer.st, req->id, doc, err)) ||
	    (ret = find_alert(&alert, writer.st, req->id, err)))
		goto done;
	ids = json_array();
	for (size_t i = 0; i < res.nregressions; i++)
		json_array_append_new(ids, json_integer(res.regressions[i]));
	o = json_pack("{s:I, s:s, s:s, s:o}", "alert", (json_int_t)req->id, "state",
		      suspect_state_name(alert.state), "outcome", alert_outcome_name(res.outcome),
		      "regressions", ids);
	web_reply_json(r, 200, o);
	/* A Regression starts a pinned line: the next detection reads every Series. */
	if (res.nregressions)
		web_server_poke(req->srv);
done:
	web_pool_give(req->srv, &writer, 1);
	confirm_alert_result_release(&res);
	json_decref(doc);
	strbuf_release(&alert.machine);
	return ret;
}

/* POST /api/alerts/{id}/ignore with the whole body read, {"why": TEXT}: the alert ignored by
 * the use case `benchline suspects ignore` calls (confirm_ignore_alert), for an alert of a
 * machine the token may confirm. The audit names the token by the first 12 digits of its
 * digest, never by the token itself. */
int web_api_alert_ignore(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const no_params[] = {NULL};
	struct post_alert alert = {0, STRBUF_INIT, SUSPECT_OPEN, ALERT_NO_OUTCOME};
	struct strbuf who = STRBUF_INIT;
	enum suspect_state was;
	json_t *doc = NULL, *o;
	const char *why;
	char digest[41];
	struct web_pooled writer = {NULL, 0, NULL};
	int ret = 0;

	if (web_check_params(r, req, no_params) || !(doc = body_json(r, req)))
		goto done;
	why = json_string_value(json_object_get(doc, "why"));
	if (!json_is_object(doc) || json_object_size(doc) != 1 || !why) {
		web_reply_json_error(r, 400,
				     "the body is {\"why\": TEXT}, the reason to ignore it");
		goto done;
	}
	if ((ret = writer_alert(&writer, &alert, req, "ignore", err)))
		goto done;
	if (digest_blob(digest, req->token->token, strlen(req->token->token)))
		digest[0] = '\0';
	strbuf_addf(&who, "token %.12s", digest);
	if ((ret = confirm_ignore_alert(&was, writer.st, req->id, who.buf, why, err)))
		goto done;
	o = json_pack("{s:I, s:s, s:s}", "alert", (json_int_t)req->id, "state",
		      suspect_state_name(SUSPECT_IGNORED), "was", suspect_state_name(was));
	web_reply_json(r, 200, o);
done:
	web_pool_give(req->srv, &writer, 1);
	json_decref(doc);
	strbuf_release(&alert.machine);
	strbuf_release(&who);
	return ret;
}
