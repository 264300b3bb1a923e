/*
 * The gate (§7) over HTTP: GET /api/gate?head=REV&base=REF[&ratchet=REF][&undecided=fail],
 * the JSON of `gate --json`, by the same use case (gate_options_build, gate_run); the query
 * and the run are shared with the gate's page. Never cached: the repository moves under the
 * server.
 */
#include <string.h>
#include <time.h>

#include "detect/gate/gate.h"
#include "ingest/repo/repo.h"
#include "web/web.h"

/* A 400 of the gate's routes: JSON for the API, else a page. */
static int gate_bad(struct web_reply *r, const struct web_ctx *ctx, int api, const char *msg)
{
	web_reply_message(r, ctx, api, 400, msg);
	return BL_EINVALID;
}

/* 0 when the gate's revisions of a request are plain (repo_rev_is_plain), else BL_EINVALID
 * with a 400 naming the first that is not. */
static int gate_revs_plain(struct web_reply *r, const struct web_ctx *ctx, int api,
			   const struct web_gate_query *q)
{
	const char *const keys[] = {"head", "base", "ratchet"};
	const char *const revs[] = {q->head, q->base, q->ratchet};
	for (size_t i = 0; i < 3; i++) {
		struct strbuf msg = STRBUF_INIT;
		if (!revs[i] || !*revs[i] || repo_rev_is_plain(revs[i]))
			continue;
		strbuf_addf(&msg,
			    "%s: '%s' is not a ref name or a commit id (4 to 40 hex digits); "
			    "the server takes no revision expressions",
			    keys[i], revs[i]);
		gate_bad(r, ctx, api, msg.buf);
		strbuf_release(&msg);
		return BL_EINVALID;
	}
	return 0;
}

int web_gate_query_read(struct web_gate_query *q, struct web_reply *r,
			const struct web_request *req, int api)
{
	const char *undecided;
	for (int i = 0; i < 4; i++)
		strbuf_init(&q->bufs[i], 0);
	q->head = web_page_arg(&q->bufs[0], req->conn, "head");
	q->base = web_page_arg(&q->bufs[1], req->conn, "base");
	q->ratchet = web_page_arg(&q->bufs[2], req->conn, "ratchet");
	undecided = web_page_arg(&q->bufs[3], req->conn, "undecided");
	q->undecided_fail = undecided && !strcmp(undecided, "fail");
	if (q->base && !*q->base)
		q->base = NULL;
	if (q->ratchet && !*q->ratchet)
		q->ratchet = NULL;
	if (api && (!q->head || !*q->head))
		return gate_bad(r, req->ctx, api,
				"/api/gate needs ?head=REV (and optionally base=REF)");
	if (undecided && *undecided && strcmp(undecided, "pass") && strcmp(undecided, "fail"))
		return gate_bad(r, req->ctx, api,
				"undecided: pass or fail (whether UNDECIDED rows fail the gate)");
	if (gate_revs_plain(r, req->ctx, api, q))
		return BL_EINVALID;
	if (!q->head || !*q->head)
		q->head = "HEAD";
	return 0;
}

void web_gate_query_release(struct web_gate_query *q)
{
	for (int i = 0; i < 4; i++)
		strbuf_release(&q->bufs[i]);
}

int web_gate_run(struct gate_report *report, int *status, const struct web_ctx *ctx,
		 struct store *st, const struct web_gate_query *q, struct bl_error *err)
{
	struct gate_request req;
	struct gate_options opts;
	struct timespec now;
	int ret;
	*status = 200;
	memset(report, 0, sizeof(*report));
	clock_gettime(CLOCK_REALTIME, &now);
	memset(&req, 0, sizeof(req));
	req.repo = ctx->repo_dir;
	req.head = q->head;
	req.base = q->base;
	req.ratchet = q->ratchet;
	req.undecided_fail = q->undecided_fail;
	req.now = (int64_t)now.tv_sec;
	if ((ret = gate_options_build(&opts, &req, err))) {
		*status = 500;
		return ret;
	}
	ret = gate_run(report, st, &opts, err);
	if (ret == BL_ENOTFOUND || ret == BL_EINVALID)
		*status = 400;
	else if (ret)
		*status = 500;
	gate_options_release(&opts);
	return ret;
}

int web_api_gate(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct web_gate_query q;
	struct gate_report report;
	int status, ret = 0;
	if (web_gate_query_read(&q, r, req, 1))
		goto done;
	ret = web_gate_run(&report, &status, req->ctx, req->st, &q, err);
	if (!ret) {
		gate_json_text(&r->body, &report);
		r->status = 200;
		r->type = "application/json";
	} else if (status == 400) {
		/* the request's mistake: said as web_reply_error says any client's */
		err->code = BL_EINVALID;
		web_reply_error(r, req->ctx, 1, err);
		ret = 0;
	}
	gate_report_release(&report);
done:
	web_gate_query_release(&q);
	return ret;
}
