/*
 * Records: GET /api/records, a page of runs by id (§14's record shape, keyset paging), and
 * POST /api/records, runs pushed by a sweep machine or a harness, stored by the intake use
 * case `benchline ingest` calls, with the served repository's benchline.json.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"
#include "web/web.h"

/* A page of GET /api/records: one row more than the page is read, to know whether another
 * page follows. */
struct api_page {
	json_t *records;
	size_t limit, count;
	int64_t last_id;
	int more;
};

static int api_page_one(const struct store_record_row *row, void *data)
{
	struct api_page *p = data;
	if (p->count == p->limit) {
		p->more = 1;
		return 1;
	}
	json_array_append_new(p->records, detect_record_json(row));
	p->count++;
	p->last_id = row->id;
	return 0;
}

/* {"records": [records as `records --json` prints them], "next": the last id of the page when
 * another page follows, else null}: q->limit rows at the most. */
static int records_page(struct web_reply *r, struct store *st, const struct store_record_page *q,
			struct bl_error *err)
{
	struct store_record_page page = *q;
	struct api_page p = {json_array(), q->limit, 0, 0, 0};
	json_t *o = NULL;
	int ret;
	page.limit = q->limit + 1;
	if ((ret = store_record_page(st, &page, api_page_one, &p, err))) {
		json_decref(p.records);
		return ret;
	}
	o = json_pack("{s:o, s:o}", "records", p.records, "next",
		      p.more ? json_integer(p.last_id) : json_null());
	web_reply_json(r, 200, o);
	return 0;
}

int web_api_records(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	static const char *const params[] = {"machine", "benchmark", "commit", "source_hash",
					     "all",	"limit",     "after",  NULL};
	struct strbuf b1 = STRBUF_INIT, b2 = STRBUF_INIT, b3 = STRBUF_INIT, b4 = STRBUF_INIT;
	struct store_record_page p;
	int64_t limit = WEB_PAGE_DEFAULT, after = 0;
	int ret = 0;

	memset(&p, 0, sizeof(p));
	if (web_check_params(r, req, params) ||
	    web_param_machine(&p.machine, &b1, r, req, "machine") ||
	    web_param_string(&p.benchmark, &b2, r, req, "benchmark") ||
	    web_param_hex_prefix(&p.commit, &b3, r, req, "commit") ||
	    web_param_hex_prefix(&p.source_hash, &b4, r, req, "source_hash") ||
	    web_param_bool(&p.all, r, req, "all") ||
	    web_param_int(&limit, r, req, "limit", 1, WEB_PAGE_MAX) ||
	    web_param_int(&after, r, req, "after", 0, INT64_MAX))
		goto done;
	p.limit = (size_t)limit;
	p.after = after;
	ret = records_page(r, req->st, &p, err);
done:
	strbuf_release(&b1);
	strbuf_release(&b2);
	strbuf_release(&b3);
	strbuf_release(&b4);
	return ret;
}

/* The parameters of POST /api/records: a harness's own output in format F, with what the
 * format lacks (as `benchline ingest --format F` takes it from flags). */
struct push_params {
	struct strbuf format, machine, commit, source_hash, config;
	const char *given_format;
};

/* The intake set up from the push's query: 0, or non-zero with the 400 in r. */
static int push_setup(struct ingest_intake *in, struct push_params *pp, struct web_reply *r,
		      const struct web_request *req)
{
	static const char *const params[] = {
	    "format", "machine", "harness_version", "commit", "source_hash", "config", NULL};
	int64_t harness = -1;
	const char *format = NULL;

	if (web_check_params(r, req, params) ||
	    web_param_string(&format, &pp->format, r, req, "format") ||
	    web_param_machine(&in->machine, &pp->machine, r, req, "machine") ||
	    web_param_int(&harness, r, req, "harness_version", 0, INT64_MAX) ||
	    web_param_string(&in->commit, &pp->commit, r, req, "commit") ||
	    web_param_string(&in->source_hash, &pp->source_hash, r, req, "source_hash") ||
	    web_param_string(&in->config, &pp->config, r, req, "config"))
		return -1;
	if (format && !*format)
		format = NULL;
	if (!format &&
	    (in->machine || harness >= 0 || in->commit || in->source_hash || in->config)) {
		web_reply_json_error(r, 400,
				     "machine=, harness_version=, commit=, source_hash= and "
				     "config= fill what a format lacks: give format= too (native "
				     "records carry their own)");
		return -1;
	}
	if (in->source_hash && !in->commit) {
		web_reply_json_error(r, 400, "source_hash= needs commit=");
		return -1;
	}
	pp->given_format = format;
	in->format = format ? format : "benchline";
	in->harness_version = (long)harness;
	in->settings_dir = req->ctx->repo_dir;
	in->machine_glob = req->token->glob;
	in->no_hash_hint = format ? "give source_hash= with commit=: the server cannot compute it"
				  : "the server cannot compute it";
	if (req->body->len == 0) {
		web_reply_json_error(r, 400, "request: empty body");
		return -1;
	}
	return 0;
}

/* A body the intake could not parse: a 400 with its message, and, when it lacks what a flag
 * would give a command, how a push gives it. */
static void push_parse_error(struct web_reply *r, const struct web_request *req,
			     const struct push_params *pp, struct bl_error *err)
{
	struct strbuf shown = STRBUF_INIT;
	if (pp->given_format && err->kind == BL_KIND_NEEDS_FLAG)
		strbuf_addstr(&err->msg, " (a push gives machine=, harness_version=, commit=, "
					 "source_hash= and config= in its query)");
	web_scrub(&shown, req->ctx->opts, err->msg.buf);
	web_reply_json_error(r, 400, shown.buf);
	strbuf_release(&shown);
}

/* What became of each record: 201 when any was stored, 200 when all were there already. */
static int push_reply(struct web_reply *r, const struct ingest_batch *batch,
		      const enum ingest_outcome *outcomes, const int64_t *ids,
		      const struct ingest_tagged *tagged)
{
	json_t *out = json_array();
	int stored = 0;
	for (size_t i = 0; i < batch->nr; i++) {
		json_t *row = ingest_outcome_json(NULL, i, &batch->records[i], ids[i], outcomes[i]);
		/* why it joins no Series, if it does not (§10) */
		ingest_outcome_add_tags(row, &batch->records[i], &tagged[i]);
		json_array_append_new(out, row);
		if (outcomes[i] != INGEST_DUPLICATE)
			stored = 1;
	}
	web_reply_json(r, stored ? 201 : 200, out);
	return stored;
}

/* POST /api/records with the whole body read: the intake use case, one transaction for the
 * body; native records unless ?format= names another format, parsed by the same adapters as
 * `benchline ingest --format`. */
int web_api_push(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct ingest_intake in;
	struct ingest_batch batch = {NULL, 0, 0};
	struct push_params pp = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT,
				 STRBUF_INIT, STRBUF_INIT, NULL};
	enum ingest_outcome *outcomes = NULL;
	struct ingest_tagged *tagged = NULL;
	int64_t *ids = NULL;
	struct web_pooled writer = {NULL, 0, NULL};
	int ret = 0;

	ingest_intake_init(&in, &adapters_parsers);
	if (push_setup(&in, &pp, r, req) || (ret = ingest_intake_setup(&in, err)))
		goto done;
	if (ingest_intake_parse(&in, &batch, "request", req->body->buf, req->body->len, NAN, err)) {
		push_parse_error(r, req, &pp, err);
		goto done;
	}
	outcomes = xcalloc(batch.nr ? batch.nr : 1, sizeof(*outcomes));
	ids = xcalloc(batch.nr ? batch.nr : 1, sizeof(*ids));
	tagged = xcalloc(batch.nr ? batch.nr : 1, sizeof(*tagged));
	in.tagged = tagged;
	/* The write lock only now: a push waiting for it holds no connection a read needs. */
	if ((ret = web_pool_take(&writer, NULL, req->srv, WEB_POOL_WRITE, err)) ||
	    (ret = ingest_intake_store(&in, writer.st, "request", &batch, outcomes, ids, err)))
		goto done;
	/* New records: detection runs in the background, never in this request. */
	if (push_reply(r, &batch, outcomes, ids, tagged))
		web_server_poke(req->srv);
done:
	/* Any push may have written: cached replies are dropped. */
	web_pool_give(req->srv, &writer, 1);
	free(outcomes);
	free(ids);
	free(tagged);
	strbuf_release(&pp.format);
	strbuf_release(&pp.machine);
	strbuf_release(&pp.commit);
	strbuf_release(&pp.source_hash);
	strbuf_release(&pp.config);
	ingest_batch_release(&batch);
	ingest_intake_release(&in);
	return ret;
}
