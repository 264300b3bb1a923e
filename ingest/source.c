/* placeholder: replaced by the source hash / sync implementation */
#include <git2.h>
#include <stdlib.h>
#include <string.h>

#include "../store/store.h"
#include "ingest.h"

int ingest_source_hash_revs(char (*out_hashes)[41], char (*out_commits)[41], const char *repo_dir,
			    const struct ingest_config *cfg, const char *const *revs, size_t nrevs,
			    struct bl_error *err)
{
	(void)out_hashes, (void)out_commits, (void)cfg, (void)revs, (void)nrevs;
	return bl_error_set(err, BL_EGIT, "'%s': source hash not built yet", repo_dir);
}

int ingest_paths_unclassified(char ***out, size_t *nr, const char *repo_dir,
			      const struct ingest_config *cfg, struct bl_error *err)
{
	(void)out, (void)nr, (void)cfg;
	return bl_error_set(err, BL_EGIT, "'%s': not built yet", repo_dir);
}

void ingest_free_strings(char **strings, size_t nr)
{
	for (size_t i = 0; i < nr; i++)
		free(strings[i]);
	free(strings);
}

int ingest_sync(struct ingest_sync_result *out, struct store *st, const char *repo_dir,
		const struct ingest_config *cfg, struct bl_error *err)
{
	(void)out, (void)st, (void)cfg;
	return bl_error_set(err, BL_EGIT, "'%s': sync not built yet", repo_dir);
}

long ingest_pr_from_subject(const char *subject)
{
	(void)subject;
	return 0;
}
