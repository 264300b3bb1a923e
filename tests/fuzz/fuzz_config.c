/*
 * libFuzzer target for benchline.json (§3, §13), with the gate's keys and the ladders it
 * names: any input is either settings or a message naming the file, never a crash or a leak.
 * The ladders a config carries go through ladder_set_from_json as the gate reads them.
 */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "detect/detect.h"
#include "ingest/config/config.h"
#include "detect/ladder/ladder.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	config_init(&cfg);
	if (!config_parse(&cfg, "benchline.json", (const char *)data, size, &err)) {
		if (cfg.ladders) {
			struct ladder_set set;
			ladder_set_init(&set);
			if (ladder_set_from_json(&set, cfg.ladders, "benchline.json", &err) &&
			    !strstr(err.msg.buf, "benchline.json"))
				__builtin_trap(); /* a rejection must name the file */
			ladder_set_release(&set);
		}
	} else if (!strstr(err.msg.buf, "benchline.json")) {
		__builtin_trap();
	}
	config_release(&cfg);
	bl_error_release(&err);
	return 0;
}
