#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

#include "fixtures/demo/demo.h"
#include "ingest/ingest.h"
#include "cli/cli.h"

static json_t *step_json(const struct demo_step *s)
{
	json_t *o = json_object();
	json_object_set_new(o, "machine", json_string(s->machine));
	json_object_set_new(o, "benchmark", json_string(s->benchmark));
	json_object_set_new(o, "config", json_string(s->config));
	json_object_set_new(o, "metric", json_string(s->metric));
	json_object_set_new(o, "commit", json_string(s->commit));
	json_object_set_new(o, "seq", json_integer(s->seq));
	json_object_set_new(o, "side", json_string(suspect_side_name(s->side)));
	json_object_set_new(o, "shift", json_real(s->shift));
	return o;
}

static void print_json(const struct demo_summary *sum, unsigned long seed,
		       const struct demo_step *steps, size_t nsteps)
{
	json_t *o = json_object(), *planted = json_array();
	json_object_set_new(o, "seed", json_integer((json_int_t)seed));
	json_object_set_new(o, "commits", json_integer((json_int_t)sum->commits));
	json_object_set_new(o, "runs", json_integer((json_int_t)sum->runs));
	json_object_set_new(o, "machines", json_integer((json_int_t)sum->machines));
	json_object_set_new(o, "benchmarks", json_integer((json_int_t)sum->benchmarks));
	for (size_t i = 0; i < nsteps; i++)
		json_array_append_new(planted, step_json(&steps[i]));
	json_object_set_new(o, "planted", planted);
	cli_json_print(o);
}

static void print_text(const struct demo_summary *sum, unsigned long seed,
		       const struct demo_step *steps, size_t nsteps)
{
	printf("demo history (seed %lu): %zu commits of main, %zu runs, %zu machines, "
	       "%zu benchmarks\n",
	       seed, sum->commits, sum->runs, sum->machines, sum->benchmarks);
	printf("planted steps (what 'benchline detect' should find):\n");
	for (size_t i = 0; i < nsteps; i++) {
		const struct demo_step *s = &steps[i];
		printf("  seq %3lld  %.10s  %-14s %-7s %-16s %-13s %-6s %+.0f%%\n",
		       (long long)s->seq, s->commit, s->machine, s->benchmark, s->config, s->metric,
		       suspect_side_name(s->side), s->shift * 100);
	}
}

int cmd_demo(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct demo_summary sum;
	struct demo_step *steps = NULL;
	struct bl_error err = BL_ERROR_INIT;
	long seed = DEMO_DEFAULT_SEED;
	size_t nsteps;
	int json = 0, ret = 0;
	const struct cli_option opts[] = {
	    {OPT_INT, "seed", &seed, "N", "the PRNG seed (default 42): same seed, same history"},
	    {OPT_BOOL, "json", &json, NULL, "print the summary and planted steps as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "demo takes no arguments");
	if (seed < 0)
		cli_usage_error(ctx->cmd, opts, "--seed wants a number >= 0, not %ld", seed);
	if (demo_generate(&sum, ctx->store, (unsigned long)seed, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	nsteps = demo_planted(NULL, 0, (unsigned long)seed);
	steps = xcalloc(nsteps, sizeof(*steps));
	demo_planted(steps, nsteps, (unsigned long)seed);
	if (json)
		print_json(&sum, (unsigned long)seed, steps, nsteps);
	else
		print_text(&sum, (unsigned long)seed, steps, nsteps);
done:
	free(steps);
	bl_error_release(&err);
	return ret;
}
