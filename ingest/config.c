/* placeholder: replaced by the benchline.json reader */
#include <stdlib.h>
#include <string.h>

#include "ingest.h"

void ingest_config_init(struct ingest_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->noisy_limit = INGEST_NOISY_LIMIT;
	cfg->cpu_load_pct = 10;
	cfg->gpu_load_pct = 10;
}

void ingest_config_release(struct ingest_config *cfg)
{
	ingest_config_init(cfg);
}

int ingest_config_load(struct ingest_config *cfg, const char *repo_dir, struct bl_error *err)
{
	(void)err, (void)repo_dir;
	ingest_config_init(cfg);
	return 0;
}

int ingest_config_parse(struct ingest_config *cfg, const char *name, const char *text, size_t len,
			struct bl_error *err)
{
	(void)cfg, (void)text, (void)len;
	return bl_error_set(err, BL_ECONFIG, "%s: not built yet", name);
}
