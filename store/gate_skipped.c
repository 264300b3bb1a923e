/*
 * Why the gate found no reference for a group (§7.2; the statement is in sql/gate-skipped.sql):
 * the tagged standing records at the source hashes its search looked at.
 */
#include <stdlib.h>
#include <string.h>

#include "store/internal.h"
#include "sql_embed.h"

int store_gate_skipped(size_t *runs_out, size_t *by_tag, const char *const *tag_names, size_t ntags,
		       struct store *st, int64_t machine_id, int64_t benchmark_id,
		       const char *config, const char *const *source_hashes, size_t nhashes,
		       struct bl_error *err)
{
	struct store_stmt *s = store_stmt(st, SQL_GATE_GROUP_SKIPPED, err);
	struct strbuf hashes = STRBUF_INIT;
	int64_t last_run = 0;
	int rc, ret = 0;

	*runs_out = 0;
	memset(by_tag, 0, ntags * sizeof(*by_tag));
	if (!s)
		return BL_EDB;
	store_bind_group_hashes(s, &hashes, machine_id, benchmark_id, config, source_hashes,
				nhashes);
	while ((rc = store_step(s)) == STORE_ROW) {
		int64_t run = store_column_int64(s, 0, 0);
		const char *tag = store_column_text(s, 1, NULL);
		if (run != last_run)
			(*runs_out)++;
		last_run = run;
		for (size_t i = 0; tag && i < ntags; i++)
			if (!strcmp(tag_names[i], tag))
				by_tag[i]++;
	}
	store_reset(s);
	if (rc != STORE_DONE)
		ret = store_db_error(err, st, "cannot read a group's tagged records");
	strbuf_release(&hashes);
	return ret;
}
