/*
 * Suspects (§6): GET /api/suspects, exactly `benchline suspects --json`.
 */
#include "detect/detect.h"
#include "web/web.h"

static int suspects_one(const struct store_suspect *s, void *data)
{
	web_json_list_add(data, detect_suspect_json(s));
	return 0;
}

static int suspects_each(struct web_json_list *l)
{
	return store_each_suspect(l->st, 0, suspects_one, l, l->err);
}

int web_api_suspects(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	return web_json_list(r, req->st, NULL, suspects_each, err);
}
