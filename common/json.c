/*
 * The JSON values every report needs and jansson lacks: a number or a string that may be
 * missing, written as null then (NAN and the infinities are not JSON numbers).
 */
#include <jansson.h>
#include <math.h>

#include "common/common.h"

json_t *json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_string_or_null(const char *s)
{
	return s ? json_string(s) : json_null();
}
