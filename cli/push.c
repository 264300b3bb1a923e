/*
 * The pushing commands' side of ingest/push/ (§10's fleet): which server, the spool pushed
 * first, and the server's outcomes printed exactly as a local ingest prints its own.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/push/push.h"
#include "cli/cli.h"

/* Most retries --retries takes: 10 doublings of 0.2 s already wait 205 s in all. */
#define CLI_MAX_RETRIES 10
/* Longest --timeout, in seconds (a day). */
#define CLI_MAX_TIMEOUT 86400

void cli_push_init(struct cli_push *p)
{
	memset(p, 0, sizeof(*p));
	p->retries = -1;
}

void cli_push_release(struct cli_push *p)
{
	if (p->session) {
		push_server_free(p->session->srv);
		push_spool_free(p->session->spool);
		free(p->session);
	}
	p->session = NULL;
}

static const char *env(const char *name)
{
	const char *v = getenv(name);
	return v && *v ? v : NULL;
}

int cli_push_wanted(const struct cli_push *p, const struct cli_ctx *ctx, const struct config *cfg)
{
	if (p->server)
		return 1;
	if (ctx->db_given)
		return 0;
	if (env("BENCHLINE_SERVER"))
		return 1;
	if (env("BENCHLINE_DB"))
		return 0;
	return cfg && cfg->server;
}

int cli_push_connect(struct cli_push *p, const struct config *cfg, struct bl_error *err)
{
	const char *url = p->server, *token_file = p->token_file;
	struct push_session *s;
	int ret;

	if (!url)
		url = env("BENCHLINE_SERVER");
	if (!url && cfg)
		url = cfg->server;
	if (!token_file)
		token_file = env("BENCHLINE_TOKEN_FILE");
	if (!token_file && cfg)
		token_file = cfg->token_file;
	if (!url)
		return bl_error_set(err, BL_EINVALID,
				    "no server to push to: give --server URL (or "
				    "$BENCHLINE_SERVER, or \"server\" in benchline.json)");
	if (!token_file) {
		struct strbuf shown = STRBUF_INIT;
		strbuf_add_url_redacted(&shown, url);
		ret = bl_error_set(err, BL_EINVALID,
				   "no token for '%s': give --token-file F (or "
				   "$BENCHLINE_TOKEN_FILE, or \"token_file\" in benchline.json)",
				   shown.buf);
		strbuf_release(&shown);
		return ret;
	}
	if (p->retries > CLI_MAX_RETRIES)
		return bl_error_set(err, BL_EINVALID, "--retries must be 0 to %d", CLI_MAX_RETRIES);
	if (p->retries < -1)
		return bl_error_set(err, BL_EINVALID, "--retries must be 0 to %d", CLI_MAX_RETRIES);
	if (p->timeout < 0 || p->timeout > CLI_MAX_TIMEOUT)
		return bl_error_set(err, BL_EINVALID, "--timeout must be 0 to %d seconds",
				    CLI_MAX_TIMEOUT);
	s = xcalloc(1, sizeof(*s));
	push_retry_init(&s->retry);
	if (p->retries >= 0)
		s->retry.retries = (int)p->retries;
	if ((ret = push_server_open(&s->srv, url, token_file, err)) ||
	    (ret = push_spool_open(&s->spool, p->spool_dir, err))) {
		push_server_free(s->srv);
		free(s);
		return ret;
	}
	if (p->timeout > 0) {
		s->srv->timeout_ms = p->timeout * 1000 < 1 ? 1 : (long)(p->timeout * 1000);
		if (s->srv->connect_timeout_ms > s->srv->timeout_ms)
			s->srv->connect_timeout_ms = s->srv->timeout_ms;
	}
	p->session = s;
	return 0;
}

int cli_push_status(const struct cli_push *p)
{
	if (p->failed)
		return 2;
	return p->spooled ? EXIT_SPOOLED : 0;
}

/* Prints (or appends to json_out) the server's outcome of each record of an acknowledged
 * body named name (push_records checked the answer, one outcome per record). */
static int report_answer(const char *name, const struct push_response *answer, json_t *json_out,
			 struct bl_error *err)
{
	json_t *rows, *row;
	size_t i;
	int ret;

	if ((ret = push_answer_outcomes(&rows, answer->body.buf, answer->body.len, err))) {
		bl_error_prefix(err, "%s", name);
		return ret;
	}
	json_array_foreach (rows, i, row) {
		if (json_out) {
			/* The row of `ingest --json`: the file first, then the server's keys. */
			json_t *out = json_object();
			json_object_set_new(out, "file", json_string(name));
			json_object_update(out, row);
			json_array_append_new(json_out, out);
			continue;
		}
		cli_intake_say(name, row);
	}
	json_decref(rows);
	return 0;
}

struct flush_report {
	struct cli_push *p;
	json_t *json_out;
};

static void flushed_one(const struct push_flushed *f, void *data)
{
	struct flush_report *r = data;
	struct bl_error err = BL_ERROR_INIT;

	if (f->skipped) {
		/* Not a body: said, left for a person to remove; the exit status stays. */
		cli_error("%s", f->why->msg.buf);
		return;
	}
	r->p->flushed_bodies++;
	if (f->kept) {
		cli_error("%s", f->why->msg.buf);
	} else if (f->stuck) {
		cli_error("%s", f->why->msg.buf);
		r->p->failed = 1;
	} else if (f->moved_to) {
		cli_error("%s; moved to '%s'", f->why->msg.buf, f->moved_to);
		r->p->failed = 1;
	} else if (report_answer(f->path, f->answer, r->json_out, &err)) {
		cli_fail(&err);
		r->p->failed = 1;
	}
	bl_error_release(&err);
}

void cli_push_flush(struct cli_push *p, json_t *json_out)
{
	struct flush_report r = {p, json_out};
	struct bl_error err = BL_ERROR_INIT;
	size_t left = 0;

	if (p->flushed || !p->session)
		return;
	p->flushed = 1;
	if (push_session_flush(&left, p->session, flushed_one, &r, &err)) {
		cli_fail(&err);
		p->failed = 1;
	}
	if (left) {
		cli_error("%zu bod%s wait%s in the spool '%s'", left, left == 1 ? "y" : "ies",
			  left == 1 ? "s" : "", p->session->spool->dir);
		p->spooled = 1;
	}
	bl_error_release(&err);
}

int cli_push_body(struct cli_push *p, const char *name, const char *body, size_t len,
		  json_t *json_out, struct bl_error *err)
{
	struct push_response answer;
	struct strbuf spooled = STRBUF_INIT;
	int ret;

	cli_push_flush(p, json_out);
	push_response_init(&answer);
	ret = push_session_send(&answer, &spooled, p->session, name, body, len, err);
	if (ret) {
		p->failed = 1;
	} else if (spooled.len) {
		cli_error("%s; kept in the spool as '%s'", err->msg.buf, spooled.buf);
		p->spooled = 1;
		p->bodies_spooled++;
	} else if ((ret = report_answer(name, &answer, json_out, err))) {
		p->failed = 1;
	}
	push_response_release(&answer);
	strbuf_release(&spooled);
	return ret;
}
