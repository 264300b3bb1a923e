/* placeholder: replaced by the demo history generator */
#include "ingest.h"

int ingest_demo(struct ingest_demo_summary *out, struct store *st, unsigned long seed,
		struct bl_error *err)
{
	(void)out, (void)st, (void)seed;
	return bl_error_set(err, BL_EINVALID, "demo not built yet");
}
