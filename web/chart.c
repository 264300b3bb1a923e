/*
 * Charts (§11): gnuplot draws the axes, the lines (joined only within a line), a dashed rule
 * at each harness-version change and a shaded band at other breaks; this file draws the rest
 * itself, so that every string in the SVG is its own and escaped, and hovering works without
 * gnuplot_svg.js: under gnuplot's layer, the §6 band each record was judged by as a light
 * area; over it, each record's spread as a whisker, the points, each with an SVG <title>
 * naming its commit, subject, date and value, Suspect rings with their shift written beside
 * them, Regression marks with their id and delta, and a label at each break. The plot area is
 * pinned with screen margins and explicit ranges, so a point's pixel position is known here;
 * the y range is the Series' own, and a tagged point outside it is drawn at the edge and
 * marked. All of it is part of the cache key, so a detect that adds, drops or moves a
 * Suspect, or a new Regression, changes the chart's ETag. gnuplot runs as a child
 * (child_process_run): script on stdin, SVG on stdout, killed after 5 s.
 */
#include <float.h>
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "web/web.h"

#define CHART_W	      960
#define CHART_H	      420
#define MARGIN_L      0.09
#define MARGIN_R      0.98
#define MARGIN_B      0.12
#define MARGIN_T      0.92
#define MAX_SVG_BYTES ((size_t)32 << 20)

/* A drawn chart, known by everything it was drawn from: the hash finds it, the whole key
 * (compared byte for byte) makes sure it is that chart and not one whose key collides. */
struct cache_entry {
	uint64_t key;
	struct strbuf text; /* the whole key */
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
	for (size_t i = 0; i < c->max; i++)
		strbuf_init(&c->entries[i].text, 0);
	return c;
}

void web_chart_cache_free(struct web_chart_cache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->max; i++) {
		free(c->entries[i].svg);
		strbuf_release(&c->entries[i].text);
	}
	free(c->entries);
	pthread_mutex_destroy(&c->lock);
	free(c);
}

char *web_chart_cache_get(struct web_chart_cache *c, uint64_t key, const struct strbuf *text)
{
	char *svg = NULL;
	pthread_mutex_lock(&c->lock);
	for (size_t i = 0; i < c->max; i++)
		if (c->entries[i].svg && c->entries[i].key == key &&
		    c->entries[i].text.len == text->len &&
		    !memcmp(c->entries[i].text.buf, text->buf, text->len)) {
			svg = xstrdup(c->entries[i].svg);
			break;
		}
	pthread_mutex_unlock(&c->lock);
	return svg;
}

void web_chart_cache_put(struct web_chart_cache *c, uint64_t key, const struct strbuf *text,
			 const char *svg)
{
	pthread_mutex_lock(&c->lock);
	free(c->entries[c->next].svg);
	c->entries[c->next].key = key;
	strbuf_reset(&c->entries[c->next].text);
	strbuf_add(&c->entries[c->next].text, text->buf, text->len);
	c->entries[c->next].svg = xstrdup(svg);
	c->next = (c->next + 1) % c->max;
	pthread_mutex_unlock(&c->lock);
}

/* Text gnuplot gets inside a quoted string (the y axis' unit): letters, digits, a few plain
 * marks and every character past ASCII that XML admits (µ, ñ, °: gnuplot writes them into the
 * SVG as they are); anything else, an ASCII mark gnuplot could read as markup or a byte that
 * is not UTF-8, as '?'. */
static void add_gnuplot_text(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (p && *p) {
		uint32_t cp;
		size_t n = web_utf8_char(p, &cp);
		if (n > 1 && cp >= 0xa0 && cp != 0xfffe && cp != 0xffff) {
			strbuf_add(sb, p, n);
			p += n;
			continue;
		}
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		    (*p >= '0' && *p <= '9') || strchr(" %/._-()", *p))
			strbuf_addch(sb, (char)*p);
		else
			strbuf_addch(sb, '?');
		p += n ? n : 1;
	}
}

void web_format_date(struct strbuf *out, double t)
{
	char buf[32];
	struct tm tm;
	time_t secs;
	if (!isfinite(t) || t < 0 || t > 253402300799.0) { /* past 9999-12-31 */
		strbuf_addstr(out, "unknown date");
		return;
	}
	secs = (time_t)t;
	gmtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", &tm);
	strbuf_addstr(out, buf);
}

static double clamp_y(double y)
{
	return y > WEB_CHART_YMAX ? WEB_CHART_YMAX : y < -WEB_CHART_YMAX ? -WEB_CHART_YMAX : y;
}

/* Where v falls between lo and hi, 0 to 1 (beyond when outside), computed on halves so that
 * no difference of two finite doubles overflows. */
static double fraction(double v, double lo, double hi)
{
	return (v / 2 - lo / 2) / (hi / 2 - lo / 2);
}

void web_chart_frame(struct web_chart_frame *f, const struct web_point *p, size_t n,
		     enum web_axis axis)
{
	int any_x = 0, any_y = 0, own = 0;
	double mid, half;
	/* The y range is the Series' own points; with none, every point's. */
	for (size_t i = 0; i < n && !own; i++)
		own = !p[i].tags[0] && isfinite(p[i].value);
	for (size_t i = 0; i < n; i++) {
		double y;
		if (!isfinite(p[i].value) || !isfinite(p[i].x))
			continue;
		if (!any_x || p[i].x < f->x0)
			f->x0 = p[i].x;
		if (!any_x || p[i].x > f->x1)
			f->x1 = p[i].x;
		any_x = 1;
		if (own && p[i].tags[0])
			continue;
		y = clamp_y(p[i].value);
		if (!any_y || y < f->y0)
			f->y0 = y;
		if (!any_y || y > f->y1)
			f->y1 = y;
		any_y = 1;
	}
	if (!any_x) {
		f->x0 = 0, f->x1 = 1, f->y0 = 0, f->y1 = 1;
		return;
	}
	/* Half a step on either side: a place is a commit, a date pads by 1% (an hour at least). */
	if (axis == WEB_AXIS_DATE) {
		double pad = fmax((f->x1 - f->x0) * 0.01, 3600);
		f->x0 -= pad;
		f->x1 += pad;
	} else {
		f->x0 -= 0.5;
		f->x1 += 0.5;
	}
	mid = f->y0 / 2 + f->y1 / 2;
	half = f->y1 / 2 - f->y0 / 2;
	if (half > fabs(mid) * 1e-9)
		half *= 1.08;
	else
		half = mid == 0 ? 1 : fabs(mid) * 0.05;
	f->y0 = clamp_y(mid - half);
	f->y1 = clamp_y(mid + half);
	if (!(f->y0 < f->y1)) { /* both at one edge */
		if (f->y1 > 0)
			f->y0 = f->y1 * 0.95;
		else
			f->y1 = f->y0 * 0.95;
	}
}

static double px_x(const struct web_chart_frame *f, double x)
{
	return CHART_W * (MARGIN_L + fraction(x, f->x0, f->x1) * (MARGIN_R - MARGIN_L));
}

/* Pixels of the plot area's edges. */
#define PLOT_TOP    (CHART_H * (1 - MARGIN_T))
#define PLOT_BOTTOM (CHART_H * (1 - MARGIN_B))

/* A value's pixel row, kept inside the plot area: *clamped (may be NULL) says which edge
 * it was held at (-1 the bottom, +1 the top, 0 none). */
static double px_y(const struct web_chart_frame *f, double y, int *clamped)
{
	double at = CHART_H * (1 - (MARGIN_B + fraction(y, f->y0, f->y1) * (MARGIN_T - MARGIN_B)));
	int edge = at < PLOT_TOP ? 1 : at > PLOT_BOTTOM ? -1 : 0;
	if (clamped)
		*clamped = edge;
	return edge > 0 ? PLOT_TOP : edge < 0 ? PLOT_BOTTOM : at;
}

/* Where a rule goes: halfway between the last point before the break and the first after. */
static double rule_x(double prev, double cur)
{
	return isnan(prev) ? cur - 0.5 : (prev + cur) / 2;
}

static int on_series(const struct web_point *p)
{
	return !p->tags[0] && isfinite(p->value);
}

/* Date ticks at round steps, at most 8 of them, as gnuplot's explicit tic list. */
static void add_date_tics(struct strbuf *sb, const struct web_chart_frame *f)
{
	static const double steps[] = {
	    3600,	3 * 3600,   6 * 3600,	12 * 3600,   86400,	  2 * 86400,	  7 * 86400,
	    14 * 86400, 30 * 86400, 91 * 86400, 182 * 86400, 365 * 86400, 5 * 365 * 86400};
	size_t nsteps = sizeof(steps) / sizeof(steps[0]), k = 0;
	double step, t;
	int first = 1;
	while (k + 1 < nsteps && (f->x1 - f->x0) / steps[k] > 8)
		k++;
	step = steps[k];
	strbuf_addstr(sb, "set xtics (");
	for (t = ceil(f->x0 / step) * step; t <= f->x1; t += step) {
		char buf[32];
		struct tm tm;
		time_t secs = (time_t)t;
		gmtime_r(&secs, &tm);
		strftime(buf, sizeof(buf), step < 86400 ? "%m-%d %H:%M" : "%Y-%m-%d", &tm);
		strbuf_addf(sb, "%s\"%s\" %.17g", first ? "" : ", ", buf, t);
		first = 0;
	}
	strbuf_addstr(sb, ")\n");
}

/* The unit a chart's values are shown in, one for the whole Series: the step the middle of its
 * frame calls for (28268.7 us as 28.3 ms). */
static void chart_scale(struct unit_scale *sc, const struct web_chart_frame *f,
			const struct web_chart *c)
{
	unit_scale_choose(sc, c->unit, fabs(f->y0 / 2 + f->y1 / 2));
}

/* A value in the chart's unit, with it: "28.3 ms". */
static void format_scaled(struct strbuf *sb, double v, const struct unit_scale *sc)
{
	strbuf_add_quantity(sb, v, sc);
}

/* The y axis' ticks at round values of the chart's unit (gnuplot would label the raw ones):
 * positions in the data's own unit, labels scaled. Left to gnuplot when the frame is too wide
 * or narrow to step through. */
static void add_y_tics(struct strbuf *sb, const struct web_chart_frame *f,
		       const struct unit_scale *sc)
{
	double span = f->y1 / 2 - f->y0 / 2, raw, mag, norm, step, shown;
	int first = 1, decimals;

	if (!(span > 0) || !isfinite(span) || sc->factor == 1)
		return;
	raw = span * 2 / 6;
	mag = pow(10, floor(log10(raw)));
	norm = raw / mag;
	step = (norm < 1.5 ? 1 : norm < 3.5 ? 2 : norm < 7.5 ? 5 : 10) * mag;
	if (!isfinite(step) || step <= 0 || span * 2 / step > 50)
		return;
	shown = step * sc->factor;
	decimals = shown >= 1 ? 0 : (int)ceil(-log10(shown) - 1e-9);
	if (decimals > 9)
		return;
	strbuf_addstr(sb, "set ytics (");
	for (double t = ceil(f->y0 / step) * step; t <= f->y1 + step * 1e-9; t += step) {
		strbuf_addf(sb, "%s\"%.*f\" %.17g", first ? "" : ", ", decimals,
			    fabs(t) < step * 1e-9 ? 0.0 : t * sc->factor, t);
		first = 0;
	}
	strbuf_addstr(sb, ")\n");
}

static void build_script(struct strbuf *sb, const struct web_chart_frame *f,
			 const struct web_chart *c)
{
	const struct web_point *p = c->points;
	size_t n = c->npoints;
	double prev_x = NAN;
	int objects = 0, lines = 0;
	struct unit_scale sc;
	strbuf_addf(sb,
		    "set terminal svg size %d,%d dynamic font 'sans,11'\n"
		    "unset key\n"
		    "set lmargin at screen %g\nset rmargin at screen %g\n"
		    "set bmargin at screen %g\nset tmargin at screen %g\n"
		    "set xrange [%.17g:%.17g]\nset yrange [%.17g:%.17g]\n"
		    "set grid ytics lc rgb '#e4e4e4'\nset border 3 lc rgb '#777777'\n"
		    "set xtics nomirror\nset ytics nomirror\n",
		    CHART_W, CHART_H, MARGIN_L, MARGIN_R, MARGIN_B, MARGIN_T, f->x0, f->x1, f->y0,
		    f->y1);
	if (c->axis == WEB_AXIS_DATE) {
		add_date_tics(sb, f);
		strbuf_addstr(sb, "set xlabel 'commit date (UTC)'\n");
	} else {
		strbuf_addstr(sb, "set xlabel 'commit (place on main)'\n");
	}
	chart_scale(&sc, f, c);
	add_y_tics(sb, f, &sc);
	strbuf_addstr(sb, "set ylabel '");
	add_gnuplot_text(sb, sc.unit);
	strbuf_addstr(sb, "'\n");
	for (size_t i = 0; i < n; i++) {
		if (!on_series(&p[i]))
			continue;
		if (p[i].brk == LINE_HARNESS) {
			strbuf_addf(sb,
				    "set arrow %d from %.17g, graph 0 to %.17g, graph 1 nohead "
				    "dt 2 lw 1.5 lc rgb '#b05000' back\n",
				    ++objects, rule_x(prev_x, p[i].x), rule_x(prev_x, p[i].x));
		} else if ((p[i].brk == LINE_CONTENT || p[i].brk == LINE_BASELINE) &&
			   !isnan(prev_x)) {
			/* Across the gap, and never thinner than 1% of the chart. */
			double lo = prev_x, hi = p[i].x, min = (f->x1 - f->x0) * 0.01;
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
		prev_x = p[i].x;
	}
	strbuf_addstr(sb, "$d << EOD\n");
	for (size_t i = 0; i < n; i++) {
		if (!on_series(&p[i]))
			continue;
		if (p[i].brk != LINE_CONTINUES && lines)
			strbuf_addstr(sb, "\n");
		strbuf_addf(sb, "%.17g %.17g\n", p[i].x, clamp_y(p[i].value));
		lines++;
	}
	strbuf_addstr(sb, "EOD\n");
	if (lines)
		strbuf_addstr(sb, "plot $d using 1:2 with lines lw 1.5 lc rgb '#3465a4' notitle\n");
	else
		strbuf_addstr(sb, "plot 1/0 notitle\n");
}

/* The §6 band under gnuplot's layer: one light polygon per run of judged records on a line,
 * through each record's center +/- tolerance. */
static void build_band(struct strbuf *sb, const struct web_chart_frame *f,
		       const struct web_chart *c)
{
	const struct web_point *p = c->points;
	size_t n = c->npoints, *run = xcalloc(n ? n : 1, sizeof(*run)), nrun = 0;
	strbuf_addf(sb, "<rect x=\"0\" y=\"0\" width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n",
		    CHART_W, CHART_H);
	strbuf_addstr(sb, "<g class=\"bands\">\n");
	for (size_t i = 0; i <= n; i++) {
		int judged = i < n && on_series(&p[i]) && isfinite(p[i].band_center) &&
			     isfinite(p[i].band_tolerance);
		int ends = i == n || (on_series(&p[i]) && (p[i].brk != LINE_CONTINUES || !judged));
		if (ends && nrun) {
			if (nrun > 1) {
				strbuf_addstr(sb, "<polygon class=\"band\" points=\"");
				for (size_t k = 0; k < nrun; k++) {
					const struct web_point *q = &p[run[k]];
					strbuf_addf(
					    sb, "%.1f,%.1f ", px_x(f, q->x),
					    px_y(f, q->band_center + q->band_tolerance, NULL));
				}
				for (size_t k = nrun; k-- > 0;) {
					const struct web_point *q = &p[run[k]];
					strbuf_addf(
					    sb, "%.1f,%.1f ", px_x(f, q->x),
					    px_y(f, q->band_center - q->band_tolerance, NULL));
				}
				strbuf_setlen(sb, sb->len - 1);
				strbuf_addstr(sb, "\" fill=\"#3465a4\" fill-opacity=\"0.10\" "
						  "stroke=\"none\"/>\n");
			}
			nrun = 0;
		}
		if (judged)
			run[nrun++] = i;
	}
	strbuf_addstr(sb, "</g>\n");
	free(run);
}

/* A Suspect's ring (§11): red around a slower one, green around a faster one, its shift
 * written above it. */
static void add_ring(struct strbuf *sb, double x, double y, const struct web_point *p)
{
	const char *side = suspect_side_name(p->suspect_side);
	const char *color = p->suspect_side == SUSPECT_SLOWER ? "#cc0000" : "#2e9a2e";
	struct strbuf label = STRBUF_INIT;
	strbuf_addstr(&label, side);
	if (isfinite(p->suspect_shift)) {
		strbuf_addch(&label, ' ');
		strbuf_add_change(&label, 1 + p->suspect_shift, "");
	}
	strbuf_addf(sb,
		    "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"7.5\" fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\" class=\"suspect %s\"><title>suspect: %s",
		    x, y, color, side, label.buf);
	if (p->suspect_state != SUSPECT_OPEN) {
		strbuf_addstr(sb, " (");
		web_html_escape(sb, suspect_state_name(p->suspect_state));
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "</title></circle>\n");
	strbuf_addf(sb,
		    "<text class=\"suspect-label %s\" x=\"%.1f\" y=\"%.1f\" font-size=\"11\" "
		    "font-family=\"sans-serif\" text-anchor=\"middle\" fill=\"%s\" "
		    "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">",
		    side, x, y > PLOT_TOP + 24 ? y - 11 : y + 20, color);
	strbuf_add_change(sb, 1 + p->suspect_shift, side); /* the side when the shift is unknown */
	strbuf_addstr(sb, "</text>\n");
	strbuf_release(&label);
}

/* A change point's ring (§6.1): a red diamond, a shape of its own beside the band's circles,
 * around the first record of a slower level the change-point search found; its shift (the
 * level after against the level before) written below it. */
static void add_change_ring(struct strbuf *sb, double x, double y, const struct web_point *p)
{
	const char *color = "#cc0000";
	strbuf_addf(sb,
		    "<path class=\"suspect change-point slower\" d=\"M%.1f %.1f L%.1f %.1f L%.1f "
		    "%.1f L%.1f %.1f Z\" fill=\"none\" stroke=\"%s\" stroke-width=\"2\">"
		    "<title>change point: slower",
		    x, y - 11, x + 11, y, x, y + 11, x - 11, y, color);
	if (isfinite(p->change_shift)) {
		strbuf_addch(sb, ' ');
		strbuf_add_change(sb, 1 + p->change_shift, "");
	}
	strbuf_addstr(sb, ", a level that held 8 records");
	if (p->change_state != SUSPECT_OPEN) {
		strbuf_addstr(sb, " (");
		web_html_escape(sb, suspect_state_name(p->change_state));
		strbuf_addch(sb, ')');
	}
	strbuf_addstr(sb, "</title></path>\n");
	strbuf_addf(sb,
		    "<text class=\"suspect-label change-point\" x=\"%.1f\" y=\"%.1f\" "
		    "font-size=\"11\" font-family=\"sans-serif\" text-anchor=\"middle\" "
		    "fill=\"%s\" stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\">",
		    x, y < PLOT_BOTTOM - 24 ? y + 24 : y - 16, color);
	strbuf_add_change(sb, 1 + p->change_shift, "change");
	strbuf_addstr(sb, "</text>\n");
}

/* A Regression's mark (§11): a red triangle on the top edge pointing down at its pinned
 * commit, a dashed rule under it through the plot, and its id and delta beside it. */
static void add_mark(struct strbuf *sb, const struct web_chart_frame *f, const struct web_mark *m)
{
	double x = px_x(f, m->x), top = PLOT_TOP, bottom = PLOT_BOTTOM;
	int right = x > CHART_W * 0.75;
	struct strbuf delta = STRBUF_INIT, title = STRBUF_INIT;
	strbuf_add_change(&delta, m->ratio, "");
	strbuf_addf(sb,
		    "<g class=\"regression\"><line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#cc0000\" stroke-width=\"1\" stroke-dasharray=\"3,3\" "
		    "opacity=\"0.6\"/><path d=\"M%.1f %.1f L%.1f %.1f L%.1f %.1f Z\" "
		    "fill=\"#cc0000\"/>",
		    x, top, x, bottom, x - 7, top - 12, x + 7, top - 12, x, top);
	strbuf_addf(sb,
		    "<text class=\"regression-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"12\" "
		    "font-family=\"sans-serif\" font-weight=\"bold\" fill=\"#b00000\" "
		    "text-anchor=\"%s\">Regression %lld%s%s</text>",
		    right ? x - 9 : x + 9, top - 16, right ? "end" : "start", (long long)m->id,
		    delta.len ? " " : "", delta.buf);
	strbuf_addf(&title, "Regression %lld: commit %.12s", (long long)m->id, m->commit);
	if (delta.len)
		strbuf_addf(&title, ", %s", delta.buf);
	strbuf_addstr(sb, "<title>");
	web_html_escape(sb, title.buf);
	strbuf_addstr(sb, "</title></g>\n");
	strbuf_release(&delta);
	strbuf_release(&title);
}

/* A label at each break of the Series, above the plot over its rule or band: "harness 9→10". */
static void add_break_labels(struct strbuf *sb, const struct web_chart_frame *f,
			     const struct web_chart *c)
{
	const struct web_point *p = c->points, *prev = NULL;
	for (size_t i = 0; i < c->npoints; i++) {
		double x;
		if (!on_series(&p[i]))
			continue;
		/* A pinned commit's break is labelled by its Regression's mark. */
		if (prev && p[i].brk != LINE_CONTINUES && p[i].brk != LINE_FIRST &&
		    p[i].brk != LINE_PINNED) {
			x = px_x(f, rule_x(prev->x, p[i].x));
			strbuf_addf(sb,
				    "<text class=\"break-label\" x=\"%.1f\" y=\"%.1f\" "
				    "font-size=\"11\" font-family=\"sans-serif\" fill=\"#8a4000\" "
				    "stroke=\"#ffffff\" stroke-width=\"3\" paint-order=\"stroke\" "
				    "text-anchor=\"%s\">",
				    x + (x > CHART_W * 0.8 ? -3 : 3), PLOT_TOP - 4,
				    x > CHART_W * 0.8 ? "end" : "start");
			if (p[i].brk == LINE_HARNESS)
				strbuf_addf(sb, "harness %lld→%lld",
					    (long long)prev->harness_version,
					    (long long)p[i].harness_version);
			else if (p[i].brk == LINE_CONTENT)
				strbuf_addstr(sb, "content changed");
			else
				strbuf_addstr(sb, "Baseline");
			strbuf_addstr(sb, "</text>\n");
		}
		prev = &p[i];
	}
}

/* A point's hover text: its commit, subject, date and value, then what else is known. */
static void point_title(struct strbuf *t, const struct web_point *p, const struct unit_scale *sc)
{
	strbuf_addf(t, "commit %.12s", p->commit);
	if (p->seq >= 0)
		strbuf_addf(t, " (seq %lld)", (long long)p->seq);
	strbuf_addstr(t, ", ");
	web_format_date(t, p->date);
	strbuf_addstr(t, " UTC");
	if (p->subject && *p->subject)
		strbuf_addf(t, "\n%s", p->subject);
	strbuf_addch(t, '\n');
	format_scaled(t, p->value, sc);
	if (p->spread == STORE_SPREAD_SAMPLES) {
		strbuf_addstr(t, ", samples ");
		format_scaled(t, p->spread_lo, sc);
		strbuf_addstr(t, "–");
		format_scaled(t, p->spread_hi, sc);
	} else if (p->spread == STORE_SPREAD_P95) {
		strbuf_addstr(t, ", p95 ");
		format_scaled(t, p->spread_hi, sc);
	}
	if (p->baseline)
		strbuf_addstr(t, ", imported Baseline");
	if (p->tags[0])
		strbuf_addf(t, ", tagged %s", p->tags);
}

/* A whisker from the spread's low to its high end, with caps, kept inside the plot. */
static void add_whisker(struct strbuf *sb, const struct web_chart_frame *f, double x,
			const struct web_point *p)
{
	double lo = px_y(f, p->spread_lo, NULL), hi = px_y(f, p->spread_hi, NULL);
	if (p->spread == STORE_SPREAD_NONE || !isfinite(p->spread_lo) || !isfinite(p->spread_hi) ||
	    fabs(lo - hi) < 1)
		return;
	strbuf_addf(sb,
		    "<path class=\"whisker\" d=\"M%.1f %.1f V%.1f M%.1f %.1f H%.1f M%.1f %.1f "
		    "H%.1f\" stroke=\"#7f9cc8\" stroke-width=\"1\" stroke-opacity=\"0.5\" "
		    "fill=\"none\"/>\n",
		    x, lo, hi, x - 2, lo, x + 2, x - 2, hi, x + 2);
}

static void build_overlay(struct strbuf *sb, const struct web_chart_frame *f,
			  const struct web_chart *c)
{
	const struct web_point *p = c->points;
	struct strbuf t = STRBUF_INIT;
	struct unit_scale sc;
	chart_scale(&sc, f, c);
	add_break_labels(sb, f, c);
	for (size_t i = 0; i < c->nmarks; i++)
		if (c->marks[i].x >= f->x0 && c->marks[i].x <= f->x1)
			add_mark(sb, f, &c->marks[i]);
	strbuf_addstr(sb, "<g class=\"whiskers\">\n");
	for (size_t i = 0; i < c->npoints; i++)
		if (on_series(&p[i]))
			add_whisker(sb, f, px_x(f, p[i].x), &p[i]);
	strbuf_addstr(sb, "</g>\n<g class=\"bl-points\">\n");
	for (size_t i = 0; i < c->npoints; i++) {
		double x, y;
		int clamped;
		if (!isfinite(p[i].value))
			continue;
		x = px_x(f, p[i].x);
		y = px_y(f, p[i].value, &clamped);
		strbuf_reset(&t);
		point_title(&t, &p[i], &sc);
		if (clamped)
			strbuf_addstr(&t,
				      clamped > 0 ? " (above the chart)" : " (below the chart)");
		if (c->repo_url) {
			strbuf_addstr(sb, "<a href=\"");
			web_html_escape(sb, c->repo_url);
			strbuf_addstr(sb, "/commit/");
			web_html_escape(sb, p[i].commit);
			strbuf_addstr(sb, "\">");
		}
		if (clamped)
			/* An arrowhead at the edge, pointing the way to the value. */
			strbuf_addf(
			    sb,
			    "<path class=\"clamped%s\" d=\"M%.1f %.1f L%.1f %.1f L%.1f "
			    "%.1f Z\" fill=\"white\" stroke=\"#777777\" stroke-width=\"1.5\">",
			    p[i].tags[0] ? " tagged" : "", x - 5, y + 4 * clamped, x + 5,
			    y + 4 * clamped, x, y - 5 * clamped);
		else if (p[i].tags[0])
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
		strbuf_addstr(sb, clamped	  ? "</title></path>"
				  : p[i].tags[0]  ? "</title></circle>"
				  : p[i].baseline ? "</title></rect>"
						  : "</title></circle>");
		strbuf_addstr(sb, c->repo_url ? "</a>\n" : "\n");
		if (p[i].suspect)
			add_ring(sb, x, y, &p[i]);
		if (p[i].change_point)
			add_change_ring(sb, x, y, &p[i]);
	}
	strbuf_addstr(sb, "</g>\n");
	strbuf_release(&t);
}

/* gnuplot's SVG without what it names itself by: its <title>s ("Gnuplot", the plot's data
 * expression) and <desc>, so every hover text in the chart is the server's. */
static void add_gnuplot_svg(struct strbuf *out, const char *s, size_t len)
{
	static const char *const drop[][2] = {{"<title>", "</title>"}, {"<desc>", "</desc>"}};
	const char *end = s + len;
	while (s < end) {
		const char *next = end, *close = NULL;
		size_t which = 0;
		for (size_t k = 0; k < 2; k++) {
			const char *at = strstr(s, drop[k][0]);
			if (at && at < next) {
				next = at;
				which = k;
			}
		}
		strbuf_add(out, s, (size_t)(next - s));
		if (next == end)
			break;
		close = strstr(next, drop[which][1]);
		if (!close || close >= end)
			break;
		s = close + strlen(drop[which][1]);
	}
}

/* Bytes of gnuplot's standard error kept for the message when it fails. */
#define GNUPLOT_ERR_TAIL 4096

/* Runs gnuplot with script on stdin; *out receives its standard output, said (may be NULL)
 * what it printed on its standard error when it failed. Every failure is BL_EIO, as
 * web_chart_svg promises. */
static int run_gnuplot(struct strbuf *out, struct strbuf *said, const char *program,
		       const struct strbuf *script, struct bl_error *err)
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
		ret = bl_error_set(err, BL_EIO, "gnuplot failed");
		if (said)
			strbuf_addf(said, "%.200s",
				    cp.err_tail.len ? cp.err_tail.buf : "no message");
	} else {
		strbuf_add(out, cp.out.buf, cp.out.len);
	}
	child_process_release(&cp);
	return ret;
}

int web_chart_svg(char **svg_out, uint64_t *etag_out, struct strbuf *said,
		  struct web_chart_cache *cache, const char *gnuplot, const struct web_chart *chart,
		  struct bl_error *err)
{
	struct strbuf script = STRBUF_INIT, under = STRBUF_INIT, overlay = STRBUF_INIT;
	struct strbuf out = STRBUF_INIT, svg = STRBUF_INIT, keytext = STRBUF_INIT;
	struct web_chart_frame f = {0, 0, 0, 0};
	uint64_t key;
	const char *start, *open_end, *end;
	char *hit;
	int ret = 0;

	*svg_out = NULL;
	web_chart_frame(&f, chart->points, chart->npoints, chart->axis);
	build_script(&script, &f, chart);
	build_band(&under, &f, chart);
	build_overlay(&overlay, &f, chart);
	strbuf_add(&keytext, script.buf, script.len + 1);
	strbuf_add(&keytext, under.buf, under.len + 1);
	strbuf_add(&keytext, overlay.buf, overlay.len + 1);
	strbuf_addstr(&keytext, chart->title);
	key = web_hash(WEB_HASH_INIT, keytext.buf, keytext.len);
	*etag_out = key;
	if ((hit = web_chart_cache_get(cache, key, &keytext))) {
		*svg_out = hit;
		goto done;
	}
	if ((ret = run_gnuplot(&out, said, gnuplot ? gnuplot : "gnuplot", &script, err)))
		goto done;
	start = strstr(out.buf, "<svg");
	open_end = start ? strchr(start, '>') : NULL;
	end = NULL;
	for (const char *q = out.buf; (q = strstr(q, "</svg>")); q++)
		end = q;
	if (!open_end || !end || end < open_end) {
		ret = bl_error_set(err, BL_EIO, "gnuplot wrote no SVG");
		goto done;
	}
	strbuf_add(&svg, start, (size_t)(open_end + 1 - start));
	strbuf_addstr(&svg, "\n<title>");
	web_html_escape(&svg, chart->title);
	strbuf_addstr(&svg, "</title>\n");
	strbuf_add(&svg, under.buf, under.len);
	add_gnuplot_svg(&svg, open_end + 1, (size_t)(end - open_end - 1));
	strbuf_add(&svg, overlay.buf, overlay.len);
	strbuf_addstr(&svg, "</svg>\n");
	web_chart_cache_put(cache, key, &keytext, svg.buf);
	*svg_out = strbuf_detach(&svg, NULL);
done:
	strbuf_release(&script);
	strbuf_release(&under);
	strbuf_release(&overlay);
	strbuf_release(&out);
	strbuf_release(&svg);
	strbuf_release(&keytext);
	return ret;
}
