/*
 * Unit tests for the chart's frame (web/chart.c, §11): always finite and ordered, whatever
 * finite values a Series holds (D7: values near DBL_MAX once padded the range to inf, and
 * gnuplot failed), the y range from the Series' own points only, a single value still a
 * range.
 */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "web/web.h"

static void point(struct web_point *p, double x, double value, const char *tags)
{
	memset(p, 0, sizeof(*p));
	p->place = p->x = x;
	p->value = value;
	p->tags = (char *)tags;
}

static void assert_sane(const struct web_chart_frame *f)
{
	assert_true(isfinite(f->x0) && isfinite(f->x1) && isfinite(f->y0) && isfinite(f->y1));
	assert_true(f->x0 < f->x1);
	assert_true(f->y0 < f->y1);
	assert_true(fabs(f->y0) <= WEB_CHART_YMAX && fabs(f->y1) <= WEB_CHART_YMAX);
}

static void frame_near_dbl_max(void **state)
{
	struct web_point p[3];
	struct web_chart_frame f;
	(void)state;
	point(&p[0], 1, DBL_MAX, "");
	point(&p[1], 2, -DBL_MAX, "");
	point(&p[2], 3, 1.7e308, "");
	web_chart_frame(&f, p, 3, WEB_AXIS_PLACE);
	assert_sane(&f);
	web_chart_frame(&f, p, 1, WEB_AXIS_PLACE); /* one value, at the very top */
	assert_sane(&f);
	point(&p[0], 1, -DBL_MAX, "");
	web_chart_frame(&f, p, 1, WEB_AXIS_PLACE);
	assert_sane(&f);
	point(&p[0], 1, DBL_MIN, "");
	web_chart_frame(&f, p, 1, WEB_AXIS_PLACE);
	assert_sane(&f);
}

static void frame_from_the_series_own_points(void **state)
{
	struct web_point p[4];
	struct web_chart_frame f;
	(void)state;
	point(&p[0], 10, 100, "");
	point(&p[1], 11, 110, "");
	point(&p[2], 12, 5000, "noisy");
	point(&p[3], 13, NAN, "");
	web_chart_frame(&f, p, 4, WEB_AXIS_PLACE);
	assert_sane(&f);
	assert_true(f.y0 < 100 && f.y0 > 90);
	assert_true(f.y1 > 110 && f.y1 < 120); /* the tagged 5000 is drawn at the edge */
	assert_true(f.x0 < 10 && f.x1 > 12);   /* but it has its place on the x axis */
	/* Only tagged points: their own range. */
	web_chart_frame(&f, p + 2, 1, WEB_AXIS_PLACE);
	assert_sane(&f);
	assert_true(f.y0 < 5000 && f.y1 > 5000);
	/* Nothing to draw: a unit frame. */
	web_chart_frame(&f, p + 3, 1, WEB_AXIS_PLACE);
	assert_sane(&f);
	web_chart_frame(&f, NULL, 0, WEB_AXIS_PLACE);
	assert_sane(&f);
}

static void frame_by_date(void **state)
{
	struct web_point p[2];
	struct web_chart_frame f;
	(void)state;
	point(&p[0], 1793592000, 5, "");
	web_chart_frame(&f, p, 1, WEB_AXIS_DATE); /* one date: an hour either side */
	assert_sane(&f);
	assert_true(f.x0 == 1793592000 - 3600 && f.x1 == 1793592000 + 3600);
	point(&p[1], 1793592000 + 100 * 86400, 6, "");
	web_chart_frame(&f, p, 2, WEB_AXIS_DATE); /* a hundred days: a day either side */
	assert_true(f.x0 == 1793592000 - 86400 && f.x1 == 1793592000 + 101 * 86400);
}

static void dates_in_utc(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	web_format_date(&sb, 1793592000);
	assert_string_equal(sb.buf, "2026-11-02 04:00");
	strbuf_reset(&sb);
	web_format_date(&sb, NAN);
	assert_string_equal(sb.buf, "unknown date");
	strbuf_release(&sb);
}

/* The chart cache finds a chart by its whole key: two keys with the same hash are two
 * charts. */
static void chart_cache_whole_key(void **state)
{
	struct web_chart_cache *c = web_chart_cache_new(2);
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	char *hit;
	(void)state;
	strbuf_addstr(&a, "plot a");
	strbuf_addstr(&b, "plot b");
	web_chart_cache_put(c, 42, &a, "<svg>A</svg>");
	assert_null(web_chart_cache_get(c, 42, &b));
	web_chart_cache_put(c, 42, &b, "<svg>B</svg>");
	hit = web_chart_cache_get(c, 42, &a);
	assert_string_equal(hit, "<svg>A</svg>");
	free(hit);
	hit = web_chart_cache_get(c, 42, &b);
	assert_string_equal(hit, "<svg>B</svg>");
	free(hit);
	assert_null(web_chart_cache_get(c, 43, &a));
	strbuf_release(&a);
	strbuf_release(&b);
	web_chart_cache_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(chart_cache_whole_key),
	    cmocka_unit_test(frame_near_dbl_max),
	    cmocka_unit_test(frame_from_the_series_own_points),
	    cmocka_unit_test(frame_by_date),
	    cmocka_unit_test(dates_in_utc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
