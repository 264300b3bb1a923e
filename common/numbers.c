/*
 * Numbers as text and in order: the one shortest round-trip writer of doubles and the one
 * qsort comparison of doubles, for every module that prints or sorts them.
 */
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
	/* The fewest significant digits that read back as the same double (17 always do). Their
	 * last digit is never 0: one digit fewer would then name the same decimal. */
	for (p = 1; p <= 17; p++) {
		snprintf(e, sizeof(e), "%.*e", p - 1, v);
		if (p == 17 || strtod(e, NULL) == v)
			break;
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
