/*
 * Charts (§11): gnuplot draws the axes, the lines (joined only within a line), a dashed rule
 * at each harness-version change and a shaded band at other breaks; this file then draws the
 * points itself on top, each with an SVG <title> naming its commit and value, so hovering
 * works without gnuplot_svg.js and nothing loads from the network, and rings each Suspect
 * (red: slower, green: faster) and marks each Regression with a triangle on the top edge. The
 * overlay is part of the cache key, so a detect that adds, drops or moves a Suspect, or a new
 * Regression, changes the chart's ETag. The plot area is pinned with screen
 * margins and explicit ranges, so a point's pixel position is known here. gnuplot runs as a
 * child (child_process_run): script on stdin, SVG on stdout, killed after 5 s.
 */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "web/web.h"

#define CHART_W	      960
#define CHART_H	      420
#define MARGIN_L      0.09
#define MARGIN_R      0.98
#define MARGIN_B      0.12
#define MARGIN_T      0.95
#define MAX_SVG_BYTES ((size_t)32 << 20)

struct cache_entry {
	uint64_t key;
	char *svg;
};

struct web_chart_cache {
	pthread_mutex_t lock;
	struct cache_entry *entries;
	size_t max, next;
};

struct web_chart_cache *web_chart_cache_new(size_t max_entries)
{
	struct web_chart_cache *c = xcalloc(1, sizeof(*c));
	pthread_mutex_init(&c->lock, NULL);
	c->max = max_entries ? max_entries : 1;
	c->entries = xcalloc(c->max, sizeof(*c->entries));
	return c;
}

void web_chart_cache_free(struct web_chart_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->max; i++)
		free(c->entries[i].svg);
	free(c->entries);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

static char *cache_get(struct web_chart_cache *c, uint64_t key)
{
	char *svg = NULL;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->max; i++)
		if (c->entries[i].svg && c->entries[i].key == key) {
			svg = xstrdup(c->entries[i].svg);
			break;
		}
	pthread_mutex_unlock(&c->lock);
	return svg;
}

static void cache_put(struct web_chart_cache *c, uint64_t key, const char *svg)
{
	pthread_mutex_lock(&c->lock);
	free(c->entries[c->next].svg);
	c->entries[c->next].key = key;
	c->entries[c->next].svg = xstrdup(svg);
	c->next = (c->next + 1) % c->max;
	pthread_mutex_unlock(&c->lock);
}

/* Text gnuplot gets inside a double-quoted string: only plain characters. */
static void add_gnuplot_text(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		unsigned char ch = (unsigned char)*s;
		if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		    (ch >= '0' && ch <= '9') || strchr(" %/._-()", ch))
			strbuf_addch(sb, (char)ch);
		else
			strbuf_addch(sb, '?');
	}
}

struct frame {
	double x0, x1, y0, y1;
};

static double px_x(const struct frame *f, double x)
{
	return CHART_W * (MARGIN_L + (x - f->x0) / (f->x1 - f->x0) * (MARGIN_R - MARGIN_L));
}

static double px_y(const struct frame *f, double y)
{
	return CHART_H * (1 - (MARGIN_B + (y - f->y0) / (f->y1 - f->y0) * (MARGIN_T - MARGIN_B)));
}

static void compute_frame(struct frame *f, const struct web_point *p, size_t n)
{
	int any = 0;
	for (size_t i = 0; i < n; i++) {
		if (isnan(p[i].value))
			continue;
		if (!any || p[i].place < f->x0)
			f->x0 = p[i].place;
		if (!any || p[i].place > f->x1)
			f->x1 = p[i].place;
		if (!any || p[i].value < f->y0)
			f->y0 = p[i].value;
		if (!any || p[i].value > f->y1)
			f->y1 = p[i].value;
		any = 1;
	}
	if (!any) {
		f->x0 = 0, f->x1 = 1, f->y0 = 0, f->y1 = 1;
		return;
	}
	f->x0 -= 0.5;
	f->x1 += 0.5;
	if (f->y1 - f->y0 > 0) {
		double pad = (f->y1 - f->y0) * 0.08;
		f->y0 -= pad;
		f->y1 += pad;
	} else {
		double pad = fabs(f->y0) * 0.05 + (f->y0 == 0 ? 1 : 0);
		f->y0 -= pad;
		f->y1 += pad;
	}
}

/* Where a rule goes: halfway between the last point before the break and the first after. */
static double rule_x(double prev, double cur)
{
	return isnan(prev) ? cur - 0.5 : (prev + cur) / 2;
}

static void build_script(struct strbuf *sb, const struct frame *f, const struct web_point *p,
			 size_t n, const char *unit)
{
	double prev_place = NAN;
	int objects = 0, lines = 0;
	strbuf_addf(sb,
		    "set terminal svg size %d,%d dynamic font 'sans,11' background rgb 'white'\n"
		    "unset key\n"
		    "set lmargin at screen %g\nset rmargin at screen %g\n"
		    "set bmargin at screen %g\nset tmargin at screen %g\n"
		    "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n"
		    "set grid ytics lc rgb '#e4e4e4'\nset border 3 lc rgb '#777777'\n"
		    "set xtics nomirror\nset ytics nomirror\n"
		    "set xlabel 'commit (place on main)'\n",
		    CHART_W, CHART_H, MARGIN_L, MARGIN_R, MARGIN_B, MARGIN_T, f->x0, f->x1, f->y0,
		    f->y1);
	strbuf_addstr(sb, "set ylabel '");
	add_gnuplot_text(sb, unit);
	strbuf_addstr(sb, "'\n");
	for (size_t i = 0; i < n; i++) {
		if (p[i].tags[0] || isnan(p[i].value))
			continue;
		if (p[i].brk == LINE_HARNESS) {
			strbuf_addf(sb,
				    "set arrow %d from %.17g, graph 0 to %.17g, graph 1 nohead "
				    "dt 2 lw 1.5 lc rgb '#b05000' back\n",
				    ++objects, rule_x(prev_place, p[i].place),
				    rule_x(prev_place, p[i].place));
		} else if ((p[i].brk == LINE_CONTENT || p[i].brk == LINE_BASELINE) &&
			   !isnan(prev_place)) {
			/* Across the gap, and never thinner than 1% of the chart. */
			double lo = prev_place, hi = p[i].place, min = (f->x1 - f->x0) * 0.01;
			if (hi - lo < min) {
				double mid = (lo + hi) / 2;
				lo = mid - min / 2;
				hi = mid + min / 2;
			}
			strbuf_addf(sb,
				    "set object %d rect from %.17g, graph 0 to %.17g, graph 1 "
				    "behind fc rgb '#f0e2b6' fs solid 0.7 noborder\n",
				    ++objects, lo, hi);
		}
		prev_place = p[i].place;
	}
	strbuf_addstr(sb, "$d << EOD\n");
	for (size_t i = 0; i < n; i++) {
		if (p[i].tags[0] || isnan(p[i].value))
			continue;
		if (p[i].brk != LINE_CONTINUES && lines)
			strbuf_addstr(sb, "\n");
		strbuf_addf(sb, "%.17g %.17g\n", p[i].place, p[i].value);
		lines++;
	}
	strbuf_addstr(sb, "EOD\n");
	if (lines)
		strbuf_addstr(sb, "plot $d using 1:2 with lines lw 1.5 lc rgb '#3465a4'\n");
	else
		strbuf_addstr(sb, "plot 1/0 notitle\n");
}

static void format_num(struct strbuf *sb, double v)
{
	if (v == floor(v) && fabs(v) < 1e15)
		strbuf_addf(sb, "%.0f", v);
	else
		strbuf_addf(sb, "%.6g", v);
}

/* A Suspect's ring (§11): red around a slower one, green around a faster one. */
static void add_ring(struct strbuf *sb, double x, double y, const struct web_point *p)
{
	const char *side = suspect_side_name(p->suspect_side);
	strbuf_addf(sb,
		    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7.5\" fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" class=\"suspect %s\"><title>suspect: %s",
		    x, y, p->suspect_side == SUSPECT_SLOWER ? "#cc0000" : "#2e9a2e", side, side);
	if (!isnan(p->suspect_shift))
		strbuf_addf(sb, " %+.1f%%", p->suspect_shift * 100);
	if (p->suspect_state != SUSPECT_OPEN) {
		strbuf_addstr(sb, " (");
		web_html_escape(sb, suspect_state_name(p->suspect_state));
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "</title></circle>\n");
}

/* A Regression's mark (§11): a red triangle on the top edge pointing down at its pinned
 * commit, a dashed rule under it through the plot, and its delta beside it. */
static void add_mark(struct strbuf *sb, const struct frame *f, const struct web_mark *m)
{
	double x = px_x(f, m->place), top = CHART_H * (1 - MARGIN_T),
	       bottom = CHART_H * (1 - MARGIN_B);
	struct strbuf delta = STRBUF_INIT, title = STRBUF_INIT;
	if (isfinite(m->ratio))
		strbuf_addf(&delta, "%+.1f%%", 100 * (m->ratio - 1));
	strbuf_addf(sb,
		    "<g class=\"regression\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#cc0000\" stroke-width=\"1\" stroke-dasharray=\"3,3\" "
		    "opacity=\"0.6\"/><path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" "
		    "fill=\"#cc0000\"/>",
		    x, top, x, bottom, x - 7, top - 12, x + 7, top - 12, x, top);
	if (delta.len)
		strbuf_addf(
		    sb,
		    "<text x=\"%.1f\" y=\"%.1f\" font-size=\"12\" font-family=\"sans-serif\" "
		    "fill=\"#b00000\">%s</text>",
		    x + 9, top - 2, delta.buf);
	strbuf_addf(&title, "Regression %lld: commit %.12s", (long long)m->id, m->commit);
	if (delta.len)
		strbuf_addf(&title, ", %s", delta.buf);
	strbuf_addstr(sb, "<title>");
	web_html_escape(sb, title.buf);
	strbuf_addstr(sb, "</title></g>\n");
	strbuf_release(&delta);
	strbuf_release(&title);
}

static void build_overlay(struct strbuf *sb, const struct frame *f, const struct web_point *p,
			  size_t n, const struct web_mark *marks, size_t nmarks, const char *unit)
{
	struct strbuf t = STRBUF_INIT;
	for (size_t i = 0; i < nmarks; i++)
		if (marks[i].place >= f->x0 && marks[i].place <= f->x1)
			add_mark(sb, f, &marks[i]);
	strbuf_addstr(sb, "<g class=\"bl-points\">\n");
	for (size_t i = 0; i < n; i++) {
		double x, y;
		if (isnan(p[i].value))
			continue;
		x = px_x(f, p[i].place);
		y = px_y(f, p[i].value);
		strbuf_reset(&t);
		strbuf_addf(&t, "commit %.12s", p[i].commit);
		if (p[i].seq >= 0)
			strbuf_addf(&t, " (seq %lld)", (long long)p[i].seq);
		strbuf_addstr(&t, ": ");
		format_num(&t, p[i].value);
		if (unit && *unit)
			strbuf_addf(&t, " %s", unit);
		if (p[i].baseline)
			strbuf_addstr(&t, ", imported Baseline");
		if (p[i].tags[0])
			strbuf_addf(&t, ", tagged %s", p[i].tags);
		if (p[i].tags[0])
			strbuf_addf(sb,
				    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"white\" "
				    "stroke=\"#999999\" stroke-width=\"1.5\" class=\"tagged\">",
				    x, y);
		else if (p[i].baseline)
			strbuf_addf(sb,
				    "<rect x=\"%.1f\" y=\"%.1f\" width=\"9\" height=\"9\" "
				    "fill=\"#204a87\" class=\"baseline\">",
				    x - 4.5, y - 4.5);
		else
			strbuf_addf(sb,
				    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3.5\" fill=\"#3465a4\" "
				    "class=\"point\">",
				    x, y);
		strbuf_addstr(sb, "<title>");
		web_html_escape(sb, t.buf);
		strbuf_addstr(sb, p[i].tags[0]	  ? "</title></circle>\n"
				  : p[i].baseline ? "</title></rect>\n"
						  : "</title></circle>\n");
		if (p[i].suspect)
			add_ring(sb, x, y, &p[i]);
	}
	strbuf_addstr(sb, "</g>\n");
	strbuf_release(&t);
}

/* Bytes of gnuplot's standard error kept for the message when it fails. */
#define GNUPLOT_ERR_TAIL 4096

/* Runs gnuplot with script on stdin; *out receives its standard output. Every failure is
 * BL_EIO, as web_chart_svg promises. */
static int run_gnuplot(struct strbuf *out, const char *program, const struct strbuf *script,
		       struct bl_error *err)
{
	/* The script still comes on stdin, but named as a file gnuplot reads it buffered: given
	 * a pipe as its terminal input it reads one byte per system call. */
	const char *argv[] = {program, "/dev/stdin", NULL};
	struct child_process cp;
	int ret;

	child_process_init(&cp);
	cp.argv = argv;
	cp.in = script->buf;
	cp.in_len = script->len;
	cp.out_max = MAX_SVG_BYTES;
	cp.err_tail_max = GNUPLOT_ERR_TAIL;
	cp.timeout_ms = WEB_GNUPLOT_TIMEOUT_MS;
	ret = child_process_run(&cp, err);
	if (ret == BL_ETOOBIG) {
		ret = bl_error_set(err, BL_EIO, "gnuplot wrote more than %zu bytes", MAX_SVG_BYTES);
	} else if (ret) {
		/* It could not be started: the message says why. */
		if (err)
			err->code = BL_EIO;
		ret = BL_EIO;
	} else if (cp.timed_out) {
		ret = bl_error_set(err, BL_EIO, "gnuplot did not finish within %d s and was killed",
				   WEB_GNUPLOT_TIMEOUT_MS / 1000);
	} else if (cp.exit_code) {
		ret = bl_error_set(err, BL_EIO, "gnuplot failed: %.200s",
				   cp.err_tail.len ? cp.err_tail.buf : "no message");
	} else {
		strbuf_add(out, cp.out.buf, cp.out.len);
	}
	child_process_release(&cp);
	return ret;
}

int web_chart_svg(char **svg_out, uint64_t *etag_out, struct web_chart_cache *cache,
		  const char *gnuplot, const struct web_point *points, size_t npoints,
		  const struct web_mark *marks, size_t nmarks, const char *title, const char *unit,
		  struct bl_error *err)
{
	struct strbuf script = STRBUF_INIT, overlay = STRBUF_INIT, out = STRBUF_INIT;
	struct strbuf svg = STRBUF_INIT;
	struct frame f = {0, 0, 0, 0};
	uint64_t key;
	const char *start, *end;
	char *hit;
	int ret = 0;

	*svg_out = NULL;
	compute_frame(&f, points, npoints);
	build_script(&script, &f, points, npoints, unit);
	build_overlay(&overlay, &f, points, npoints, marks, nmarks, unit);
	key = web_hash(WEB_HASH_INIT, script.buf, script.len);
	key = web_hash(key, overlay.buf, overlay.len);
	key = web_hash(key, title, strlen(title));
	*etag_out = key;
	if ((hit = cache_get(cache, key))) {
		*svg_out = hit;
		goto done;
	}
	if ((ret = run_gnuplot(&out, gnuplot ? gnuplot : "gnuplot", &script, err)))
		goto done;
	start = strstr(out.buf, "<svg");
	end = NULL;
	for (const char *q = out.buf; (q = strstr(q, "</svg>")); q++)
		end = q;
	if (!start || !end || end < start) {
		ret = bl_error_set(err, BL_EIO, "gnuplot wrote no SVG");
		goto done;
	}
	strbuf_add(&svg, start, (size_t)(end - start));
	strbuf_addstr(&svg, "<title>");
	web_html_escape(&svg, title);
	strbuf_addstr(&svg, "</title>\n");
	strbuf_addstr(&svg, overlay.buf);
	strbuf_addstr(&svg, "</svg>\n");
	cache_put(cache, key, svg.buf);
	*svg_out = strbuf_detach(&svg, NULL);
done:
	strbuf_release(&script);
	strbuf_release(&overlay);
	strbuf_release(&out);
	strbuf_release(&svg);
	return ret;
}
