/*
 * Series (§14): GET /api/series, exactly `benchline series --json` (with each Series' open
 * Suspects once detect has run), and GET /api/series/{id}/records, the records of one Series
 * as `records --json` prints them; a Series found by its names, for these and its page.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "detect/detect.h"
#include "web/web.h"

int web_open_detect(struct store_detect **d, struct store *st, struct bl_error *err)
{
	int ran, ret;
	*d = NULL;
	if ((ret = store_detect_ran(&ran, st, err)))
		return ret;
	return ran ? store_detect_open(d, st, err) : 0;
}

static int series_one(const struct store_series *s, void *data)
{
	struct web_json_list *l = data;
	json_t *o;
	if (detect_series_json_read(&o, l->data, s, l->err)) {
		l->failed = 1;
		return 1;
	}
	web_json_list_add(l, o);
	return 0;
}

static int series_each(struct web_json_list *l)
{
	struct store_detect *detect;
	int ret = web_open_detect(&detect, l->st, l->err);
	if (ret)
		return ret;
	l->data = detect;
	ret = store_each_series(l->st, NULL, series_one, l, l->err);
	store_detect_close(detect);
	return ret;
}

int web_api_series(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	return web_json_list(r, req->st, NULL, series_each, err);
}

/* Finding a Series by its decoded names. */

static int find_series_one(const struct store_series *s, void *data)
{
	struct web_series_copy *c = data;
	if (strcmp(s->config, c->config) || strcmp(s->metric, c->metric))
		return 0;
	c->found = 1;
	c->kind = s->kind;
	c->unit = xstrdup(s->unit);
	c->better_higher = s->better_higher;
	c->id = xstrdup(s->id);
	c->records = s->records;
	c->last_value = s->last_value;
	c->nlines = s->nlines;
	return 1;
}

void web_series_copy_release(struct web_series_copy *c)
{
	free(c->unit);
	free(c->id);
}

int web_find_series(struct web_series_copy *c, struct store *st, const char *const names[4],
		    struct bl_error *err)
{
	struct store_series_filter f = {names[0], names[1]};
	memset(c, 0, sizeof(*c));
	c->config = names[2];
	c->metric = names[3];
	return store_each_series(st, &f, find_series_one, c, err);
}

int web_split_series_id(struct strbuf parts[4], const char **rest, const char *path)
{
	for (int i = 0; i < 4; i++) {
		const char *end = strchr(path, '/');
		size_t n = end ? (size_t)(end - path) : strlen(path);
		if (i < 3 && !end)
			return BL_EINVALID;
		if (web_percent_decode(&parts[i], path, n, 0) ||
		    !utf8_valid(parts[i].buf, parts[i].len))
			return BL_EINVALID;
		path += n;
		if (i < 3)
			path++;
	}
	*rest = path;
	return 0;
}

/* The records of one Series: the records of its (machine, benchmark) of its config that have
 * its metric. */
struct series_records {
	struct store_record_filter f;
	const char *config, *metric;
};

static int records_one(const struct store_record_row *row, void *data)
{
	struct web_json_list *l = data;
	const struct series_records *sr = l->filter;
	int has_metric = 0;
	if (strcmp(row->config, sr->config))
		return 0;
	for (size_t i = 0; i < row->nmetrics; i++)
		if (!strcmp(row->metrics[i].name, sr->metric))
			has_metric = 1;
	if (!has_metric)
		return 0;
	web_json_list_add(l, detect_record_json(row));
	return 0;
}

static int records_each(struct web_json_list *l)
{
	const struct series_records *sr = l->filter;
	return store_each_record(l->st, &sr->f, records_one, l, l->err);
}

/* GET /api/series/{id}/records, or /api/series/records?id=ID (a part that is "." or ".."). */
int web_api_series_records(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct strbuf parts[4] = {STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT};
	int by_query = !strcmp(req->path, "/api/series/records");
	const char *names[4], *rest = NULL, *id = by_query ? req->q.id : req->rest;
	struct web_series_copy c;
	int ret = 0;

	memset(&c, 0, sizeof(c));
	if (!id || web_split_series_id(parts, &rest, id) ||
	    strcmp(rest, by_query ? "" : "/records")) {
		web_reply_json_error(r, 404, by_query ? "no such series" : "no such route");
		goto done;
	}
	for (int i = 0; i < 4; i++)
		names[i] = parts[i].buf;
	if ((ret = web_find_series(&c, req->st, names, err)))
		goto done;
	if (!c.found) {
		web_reply_json_error(r, 404, "no such series");
	} else {
		struct series_records sr = {{names[0], names[1], 0}, names[2], names[3]};
		ret = web_json_list(r, req->st, &sr, records_each, err);
	}
done:
	web_series_copy_release(&c);
	for (int i = 0; i < 4; i++)
		strbuf_release(&parts[i]);
	return ret;
}
