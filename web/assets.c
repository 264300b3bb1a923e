/*
 * The static assets, GET /assets/NAME: the stylesheet and the scripts of web/assets/, carried
 * in the binary (web/embed-assets.sh), so no request can reach a file.
 */
#include "web/web.h"

int web_route_asset(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	const struct web_asset *a = web_asset_find(req->rest);
	(void)err;
	if (!a) {
		web_reply_text(r, 404, "not found");
		return 0;
	}
	strbuf_add(&r->body, a->data, a->len);
	r->status = 200;
	r->type = a->type;
	r->etag = web_hash(WEB_HASH_INIT, a->data, a->len);
	r->has_etag = 1;
	return 0;
}
