#include <jansson.h>

#include "ingest.h"

int ingest_parse_native(struct ingest_batch *out, const char *name, const char *text, size_t len,
			struct bl_error *err)
{
	(void)out;
	(void)text;
	(void)len;
	return bl_error_set(err, BL_EINVALID, "%s: the native parser is not built yet", name);
}
