/*
 * The README badge, GET /badge.svg (§11): "benchmarks | 2 regressions" while Regressions stand
 * open (bisection pinned them, and nobody has ignored the alert they were bisected for), else
 * "benchmarks | 3 open alerts" while slower alerts wait to be measured or bisected, else
 * "benchmarks | no regressions". A plain SVG, drawn here: no script, no font or image from
 * anywhere.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

/* What the badge counts. */
struct badge_counts {
	int64_t *ignored; /* ids of the alerts a person ignored: their Regressions are closed */
	size_t nignored, alloc;
	int64_t open_alerts, regressions;
};

static int badge_alert_one(const struct store_alert *a, void *data)
{
	struct badge_counts *b = data;
	if (a->state == SUSPECT_IGNORED) {
		ALLOC_GROW(b->ignored, b->nignored, b->alloc);
		b->ignored[b->nignored++] = a->id;
	} else if (a->side == SUSPECT_SLOWER &&
		   (a->state == SUSPECT_OPEN || a->state == SUSPECT_CONFIRMED)) {
		b->open_alerts++;
	}
	return 0;
}

static int badge_regression_one(const struct store_regression *g, void *data)
{
	struct badge_counts *b = data;
	int open = 1;
	for (size_t i = 0; i < b->nignored && open; i++)
		open = b->ignored[i] != g->alert_id;
	b->regressions += open;
	return 0;
}

/* The badge itself: a grey label and a coloured message, each as wide as its text (Verdana at
 * 11 px is about 7 px a character). */
static void badge_svg(struct strbuf *sb, const char *label, const char *msg, const char *color)
{
	int lw = (int)strlen(label) * 7 + 10, mw = (int)strlen(msg) * 7 + 10, w = lw + mw;
	strbuf_addf(sb,
		    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"20\" "
		    "role=\"img\" aria-label=\"%s: %s\">\n<title>%s: %s</title>\n"
		    "<linearGradient id=\"s\" x2=\"0\" y2=\"100%%\"><stop offset=\"0\" "
		    "stop-color=\"#bbb\" stop-opacity=\".1\"/><stop offset=\"1\" "
		    "stop-opacity=\".1\"/></linearGradient>\n"
		    "<clipPath id=\"r\"><rect width=\"%d\" height=\"20\" rx=\"3\" "
		    "fill=\"#fff\"/></clipPath>\n"
		    "<g clip-path=\"url(#r)\"><rect width=\"%d\" height=\"20\" fill=\"#555\"/>"
		    "<rect x=\"%d\" width=\"%d\" height=\"20\" fill=\"%s\"/><rect width=\"%d\" "
		    "height=\"20\" fill=\"url(#s)\"/></g>\n"
		    "<g fill=\"#fff\" text-anchor=\"middle\" font-family=\"Verdana,Geneva,DejaVu "
		    "Sans,sans-serif\" font-size=\"11\"><text x=\"%d\" y=\"14\">%s</text><text "
		    "x=\"%d\" y=\"14\">%s</text></g>\n</svg>\n",
		    w, label, msg, label, msg, w, lw, lw, mw, color, w, lw / 2, label, lw + mw / 2,
		    msg);
}

int web_route_badge(struct web_reply *r, const struct web_request *req, struct bl_error *err)
{
	struct badge_counts b = {NULL, 0, 0, 0, 0};
	struct store_alert_filter every;
	char msg[64];
	const char *color = "#4c1";
	int ret;

	memset(&every, 0, sizeof(every));
	if ((ret = store_each_alert(req->st, &every, badge_alert_one, &b, err)) ||
	    (ret = store_each_regression(req->st, 0, badge_regression_one, &b, err)))
		goto done;
	if (b.regressions) {
		snprintf(msg, sizeof(msg), "%lld regression%s", (long long)b.regressions,
			 b.regressions == 1 ? "" : "s");
		color = "#e05d44";
	} else if (b.open_alerts) {
		snprintf(msg, sizeof(msg), "%lld open alert%s", (long long)b.open_alerts,
			 b.open_alerts == 1 ? "" : "s");
		color = "#fe7d37";
	} else {
		snprintf(msg, sizeof(msg), "no regressions");
	}
	badge_svg(&r->body, "benchmarks", msg, color);
	r->status = 200;
	r->type = "image/svg+xml";
	r->etag = web_hash(WEB_HASH_INIT, r->body.buf, r->body.len);
	r->has_etag = 1;
done:
	free(b.ignored);
	return ret;
}
