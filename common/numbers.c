/*
 * Numbers as text and in order: the one shortest round-trip writer of doubles and the one
 * qsort comparison of doubles, for every module that prints or sorts them.
 */
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/common.h"

int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

const char *format_double(char *buf, double v, unsigned flags)
{
	char e[DOUBLE_TEXT_MAX], digits[20] = {0};
	size_t nd = 0, len = 0;
	int p, exp, sci;
	const char *s;

	if (isnan(v) || isinf(v)) {
		snprintf(buf, DOUBLE_TEXT_MAX, "%s", isnan(v) ? "nan" : (v > 0 ? "inf" : "-inf"));
		return buf;
	}
	if (v == 0) {
		snprintf(buf, DOUBLE_TEXT_MAX, "%s%s", signbit(v) ? "-0" : "0",
			 flags & DOUBLE_POINT_ZERO ? ".0" : "");
		return buf;
	}
	/* The fewest significant digits that read back as the same double (17 always do). A
	 * decimal of 15 digits or fewer that reads back as v is the nearest 15-digit decimal to it
	 * (15-digit decimals lie further apart than doubles), so 15 digits with their trailing
	 * zeros dropped are the shortest when any of 15 or fewer is; else 16, else 17. Three tries
	 * at most, not seventeen. */
	/* (A subnormal has fewer digits of precision: it is searched from 1.) */
	int first = fabs(v) < DBL_MIN ? 1 : 15;
	for (p = first; p <= 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, v);
		if (p == 17 || strtod(e, NULL) == v)
			break;
	}
	if (p == 15 && first == 15) {
		/* drop the mantissa's trailing zeros: "3.00000000000000e-01" is 3e-01 */
		char *x = strchr(e, 'e'), *m = x;
		while (m > e && m[-1] == '0')
			m--;
		if (m > e && m[-1] == '.')
			m--;
		memmove(m, x, strlen(x) + 1);
	}
	/* e is [-]D[.DDD]e[+-]XX: collect the digits and the decimal exponent. */
	s = e;
	if (*s == '-')
		buf[len++] = *s++;
	for (; *s && *s != 'e' && nd < sizeof(digits); s++)
		if (*s != '.')
			digits[nd++] = *s;
	exp = *s ? atoi(s + 1) : 0;
	/* printf's %g goes to an exponent once it is the digit count or more; repr() from 16. */
	sci = exp < -4 || exp >= (flags & DOUBLE_LAYOUT_G ? (int)nd : 16);
	if (sci) {
		buf[len++] = digits[0];
		if (nd > 1) {
			buf[len++] = '.';
			memcpy(buf + len, digits + 1, nd - 1);
			len += nd - 1;
		}
		snprintf(buf + len, DOUBLE_TEXT_MAX - len, "e%c%02d", exp < 0 ? '-' : '+',
			 exp < 0 ? -exp : exp);
		return buf;
	}
	if (exp < 0) {
		buf[len++] = '0';
		buf[len++] = '.';
		for (int i = -1; i > exp; i--)
			buf[len++] = '0';
		memcpy(buf + len, digits, nd);
		len += nd;
	} else {
		for (int i = 0; i <= exp; i++)
			buf[len++] = (size_t)i < nd ? digits[i] : '0';
		if (nd > (size_t)exp + 1) {
			buf[len++] = '.';
			memcpy(buf + len, digits + exp + 1, nd - (size_t)exp - 1);
			len += nd - (size_t)exp - 1;
		} else if (flags & DOUBLE_POINT_ZERO) {
			buf[len++] = '.';
			buf[len++] = '0';
		}
	}
	buf[len] = '\0';
	return buf;
}

void strbuf_add_double(struct strbuf *sb, double v, unsigned flags)
{
	char buf[DOUBLE_TEXT_MAX];
	strbuf_addstr(sb, format_double(buf, v, flags));
}

/*
 * The exact %.17g of v when 1e-4 <= |v| < 1e15, through integers: v is m * 2^-s exactly, so
 * its 17 significant digits are m * 10^k / 2^s rounded half to even (as printf rounds), with
 * k chosen so that the quotient has 17 digits. -1 outside that range, for snprintf to do it.
 * Most figures a benchmark reports fall inside, and printf's multi-precision path is the
 * costliest step of writing a record's canonical JSON.
 */
static int g17_fast(char *buf, double v)
{
	static const uint64_t p10[20] = {
	    1ull,
	    10ull,
	    100ull,
	    1000ull,
	    10000ull,
	    100000ull,
	    1000000ull,
	    10000000ull,
	    100000000ull,
	    1000000000ull,
	    10000000000ull,
	    100000000000ull,
	    1000000000000ull,
	    10000000000000ull,
	    100000000000000ull,
	    1000000000000000ull,
	    10000000000000000ull,
	    100000000000000000ull,
	    1000000000000000000ull,
	    10000000000000000000ull,
	};
	double a = fabs(v), fr;
	unsigned __int128 num, rem, half, scale;
	uint64_t m, q = 0;
	int e2, s, e10, len = 0, tries;
	char digits[17];

	if (!(a >= 1e-4 && a < 1e15))
		return -1;
	fr = frexp(a, &e2);
	m = (uint64_t)ldexp(fr, 53);
	s = 53 - e2; /* a = m / 2^s, 40 <= s <= 66 here */
	e10 = (int)floor(log10(a));
	for (tries = 0; tries < 3; tries++) {
		int k = 16 - e10; /* 2 <= k <= 20 */
		if (k < 0 || k > 20)
			return -1;
		scale = k == 20 ? (unsigned __int128)p10[19] * 10 : p10[k];
		num = (unsigned __int128)m * scale;
		q = (uint64_t)(num >> s);
		rem = num & ((((unsigned __int128)1) << s) - 1);
		half = ((unsigned __int128)1) << (s - 1);
		if (rem > half || (rem == half && (q & 1)))
			q++;
		if (q < p10[16])
			e10--;
		else if (q >= p10[17])
			e10++;
		else
			break;
	}
	if (tries == 3 || e10 < -4 || e10 >= 17)
		return -1;
	for (int i = 16; i >= 0; i--) {
		digits[i] = (char)('0' + q % 10);
		q /= 10;
	}
	if (v < 0)
		buf[len++] = '-';
	if (e10 < 0) {
		buf[len++] = '0';
		buf[len++] = '.';
		for (int i = -1; i > e10; i--)
			buf[len++] = '0';
		memcpy(buf + len, digits, 17);
		len += 17;
	} else {
		memcpy(buf + len, digits, (size_t)e10 + 1);
		len += e10 + 1;
		if (e10 < 16) {
			buf[len++] = '.';
			memcpy(buf + len, digits + e10 + 1, (size_t)(16 - e10));
			len += 16 - e10;
		}
	}
	/* %g drops trailing zeros, and the point when nothing follows it */
	if (memchr(buf, '.', (size_t)len)) {
		while (buf[len - 1] == '0')
			len--;
		if (buf[len - 1] == '.')
			len--;
	}
	buf[len] = '\0';
	return len;
}

int format_double_g17(char *buf, double v)
{
	int len = g17_fast(buf, v);
	if (len >= 0)
		return len;
	return snprintf(buf, DOUBLE_TEXT_MAX, "%.17g", v);
}

/* A family of units that scale into one another: each step's name and its size in the
 * family's base (seconds, bytes, bytes per second). */
struct unit_step {
	const char *name;
	double size;
};

static const struct unit_step time_steps[] = {
    {"ns", 1e-9}, {"µs", 1e-6}, {"ms", 1e-3}, {"s", 1}, {NULL, 0}};
static const struct unit_step byte_steps[] = {{"B", 1},	   {"kB", 1e3},	 {"MB", 1e6},
					      {"GB", 1e9}, {"TB", 1e12}, {NULL, 0}};
static const struct unit_step ibyte_steps[] = {
    {"B", 1}, {"KiB", 1024.0}, {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {NULL, 0}};
static const struct unit_step rate_steps[] = {{"B/s", 1},    {"kB/s", 1e3},  {"MB/s", 1e6},
					      {"GB/s", 1e9}, {"TB/s", 1e12}, {NULL, 0}};

/* The names a unit is written with, and what they mean: the unit's family and its size. */
static const struct {
	const char *spelling;
	const struct unit_step *family;
	double size;
} unit_spellings[] = {
    {"ns", time_steps, 1e-9},
    {"us", time_steps, 1e-6},
    {"µs", time_steps, 1e-6},
    {"ms", time_steps, 1e-3},
    {"s", time_steps, 1},
    {"B", byte_steps, 1},
    {"bytes", byte_steps, 1},
    {"kB", byte_steps, 1e3},
    {"KB", byte_steps, 1e3},
    {"MB", byte_steps, 1e6},
    {"GB", byte_steps, 1e9},
    {"KiB", ibyte_steps, 1024.0},
    {"MiB", ibyte_steps, 1048576.0},
    {"GiB", ibyte_steps, 1073741824.0},
    {"B/s", rate_steps, 1},
    {"kB/s", rate_steps, 1e3},
    {"KB/s", rate_steps, 1e3},
    {"MB/s", rate_steps, 1e6},
    {"GB/s", rate_steps, 1e9},
};

/* The unit's text, cut to what the scale holds without splitting a UTF-8 character. */
static void set_unit(struct unit_scale *out, const char *unit)
{
	size_t n = strlen(unit);
	if (n >= UNIT_TEXT_MAX) {
		n = UNIT_TEXT_MAX - 1;
		while (n && ((unsigned char)unit[n] & 0xC0) == 0x80)
			n--;
	}
	memcpy(out->unit, unit, n);
	out->unit[n] = '\0';
}

void unit_scale_choose(struct unit_scale *out, const char *unit, double typical)
{
	const struct unit_step *family = NULL;
	double size = 1, base;

	out->factor = 1;
	set_unit(out, unit ? unit : "");
	for (size_t i = 0; unit && i < sizeof(unit_spellings) / sizeof(*unit_spellings); i++) {
		if (!strcmp(unit, unit_spellings[i].spelling)) {
			family = unit_spellings[i].family;
			size = unit_spellings[i].size;
		}
	}
	if (!family || !isfinite(typical) || typical == 0)
		return;
	/* the largest step in which the typical value is 1 or more (else the smallest) */
	base = fabs(typical) * size;
	const struct unit_step *pick = &family[0];
	for (const struct unit_step *s = family; s->name; s++)
		if (base >= s->size * (1 - 1e-9))
			pick = s;
	out->factor = size / pick->size;
	set_unit(out, pick->name);
}

void strbuf_add_quantity(struct strbuf *sb, double v, const struct unit_scale *s)
{
	char buf[DOUBLE_TEXT_MAX];
	double x = v * s->factor, a = fabs(x);
	int decimals = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
	size_t len;

	if (!isfinite(x)) {
		strbuf_addstr(sb, format_double(buf, x, 0));
	} else if (a >= 1e15 || (a > 0 && a < 1e-3)) {
		/* beyond any step of its unit: three digits and an exponent */
		snprintf(buf, sizeof(buf), "%.3g", x);
		strbuf_addstr(sb, buf);
	} else if (s->factor == 1 && x == floor(x) && a < 1e15) {
		/* a whole number in its own unit (a count) is written as it is */
		strbuf_addf(sb, "%.0f", x);
	} else {
		/* three significant digits, no trailing zeros: 145, 28.3, 1.2, 0.125 */
		snprintf(buf, sizeof(buf), "%.*f", decimals, x);
		len = strlen(buf);
		if (memchr(buf, '.', len)) {
			while (buf[len - 1] == '0')
				len--;
			if (buf[len - 1] == '.')
				len--;
		}
		strbuf_add(sb, buf, len);
	}
	if (s->unit[0]) {
		strbuf_addch(sb, ' ');
		strbuf_addstr(sb, s->unit);
	}
}

void strbuf_add_value(struct strbuf *sb, double v, const char *unit)
{
	struct unit_scale scale;
	unit_scale_choose(&scale, unit, v);
	strbuf_add_quantity(sb, v, &scale);
}

void strbuf_add_change(struct strbuf *sb, double ratio, const char *unknown)
{
	double pct = 100 * (ratio - 1);
	if (!isfinite(pct))
		strbuf_addstr(sb, unknown);
	else if (fabs(pct) < 0.05)
		strbuf_addstr(sb, "0.0%");
	else
		strbuf_addf(sb, "%+.1f%%", pct);
}

void strbuf_add_change_interval(struct strbuf *sb, double lo, double hi, const char *unknown)
{
	if (!isfinite(lo) || !isfinite(hi)) {
		strbuf_addstr(sb, unknown);
		return;
	}
	strbuf_addch(sb, '[');
	strbuf_add_change(sb, lo, unknown);
	strbuf_addstr(sb, ", ");
	strbuf_add_change(sb, hi, unknown);
	strbuf_addch(sb, ']');
}
