/*
 * libFuzzer target for benchline-gate.lock (§7.6, §13): a lock is either its entries, each
 * with the fields the gate reads, or a message naming the file.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "detect/detect.h"
#include "detect/gate/gate.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct bl_error err = BL_ERROR_INIT;
	json_t *entries = NULL;
	if (!gate_lock_parse(&entries, (const char *)data, size, "benchline-gate.lock", &err)) {
		size_t i;
		json_t *e;
		json_array_foreach (entries, i, e) {
			json_t *ref = json_object_get(e, "reference");
			if (!json_string_value(json_object_get(e, "metric")) ||
			    !json_is_number(json_object_get(ref, "value")))
				__builtin_trap();
		}
		json_decref(entries);
	} else if (!strstr(err.msg.buf, "benchline-gate.lock")) {
		__builtin_trap();
	}
	bl_error_release(&err);
	return 0;
}
