/*
 * Two revisions side by side (bench.h): the re-bench's repository, its worktrees a and b, each
 * side built once at the commit it is asked for, and one process's output there parsed for a
 * sample.
 */
#include <string.h>

#include "ingest/adapters/adapters.h"
#include "ingest/bench/bench.h"

int bench_open(struct bench *b, const char *repo, const struct config *cfg, struct bl_error *err)
{
	int ret;
	memset(b, 0, sizeof(*b));
	strbuf_init(&b->root, 0);
	strbuf_init(&b->wt[0], 0);
	strbuf_init(&b->wt[1], 0);
	config_init(&b->own_cfg);
	b->cfg = cfg ? cfg : &b->own_cfg;
	b->label[0] = "side a";
	b->label[1] = "side b";
	if ((ret = repo_toplevel(&b->root, repo ? repo : ".", err)) ||
	    (!cfg && (ret = config_load(&b->own_cfg, b->root.buf, err))))
		return ret;
	if (!b->cfg->bench_run)
		return bl_error_set(err, BL_ECONFIG,
				    "%s: bench.run: not set (the command that prints the results)",
				    b->cfg->path ? b->cfg->path : "benchline.json");
	return repo_open(&b->r, b->root.buf, b->cfg, err);
}

void bench_close(struct bench *b)
{
	repo_free(b->r);
	config_release(&b->own_cfg);
	strbuf_release(&b->root);
	strbuf_release(&b->wt[0]);
	strbuf_release(&b->wt[1]);
}

int bench_side(struct bench *b, enum repo_side side, const char *sha, double *build_s,
	       struct bl_error *err)
{
	int ret;
	if (!strcmp(b->built[side], sha))
		return 0;
	b->built[side][0] = '\0';
	strbuf_reset(&b->wt[side]);
	if ((ret = repo_worktree(&b->wt[side], b->r, sha, side, err)) ||
	    (ret = bench_build(build_s, b->cfg, b->wt[side].buf, err))) {
		bl_error_prefix(err, "%s (%.12s)", b->label[side], sha);
		return ret;
	}
	memcpy(b->built[side], sha, 41);
	return 0;
}

int bench_side_run(struct ingest_batch *out, struct bench_run *run, struct bench *b,
		   enum repo_side side, const struct ingest_defaults *d, struct bl_error *err)
{
	int ret;
	if ((ret = bench_run_once(run, b->cfg, b->wt[side].buf, err)))
		return ret;
	return adapters_parse(out, NULL, b->cfg->bench_format, "bench.run's output", run->out.buf,
			      run->out.len, d, err);
}
