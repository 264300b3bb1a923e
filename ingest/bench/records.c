/*
 * One run of a benchmark and its records (bench.h): the one way `benchline run` and the sweep
 * measure, so a run's records are checked, parsed and annotated the same way whichever of them
 * made it.
 */
#include <jansson.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "ingest/bench/bench.h"

void bench_records_init(struct bench_records *r)
{
	memset(r, 0, sizeof(*r));
	bench_run_init(&r->run);
	preflight_init(&r->pf);
}

void bench_records_release(struct bench_records *r)
{
	ingest_batch_release(&r->batch);
	bench_run_release(&r->run);
	preflight_release(&r->pf);
	bench_records_init(r);
}

/* The preflight before the command: retried while the machine is busy, up to wait_quiet_s. */
static int check_quiet(struct preflight *pf, const struct bench_records_request *req,
		       struct bl_error *err)
{
	time_t until = time(NULL) + (time_t)req->wait_quiet_s;
	int ret;
	for (;;) {
		preflight_release(pf);
		preflight_init(pf);
		if ((ret = preflight_check(pf, &req->in->cfg, err)) || pf->quiet ||
		    time(NULL) >= until)
			return ret;
		bl_note(req->note, req->data, "the machine is busy (%s): waiting to measure",
			pf->nfailures ? pf->failures[0] : "preflight");
		sleep(1);
	}
}

/* The process figures every record of the run carries under "process". */
static json_t *process_json(const char *const *argv, const struct bench_run *run)
{
	json_t *o = json_object(), *args = json_array();
	for (size_t i = 0; argv[i]; i++)
		json_array_append_new(args, json_string(argv[i]));
	json_object_set_new(o, "argv", args);
	json_object_set_new(o, "exit", json_integer(run->exit_code));
	json_object_set_new(o, "wall_s", json_real(run->wall_s));
	json_object_set_new(o, "cpu_s", json_real(run->cpu_s));
	json_object_set_new(o, "peak_rss_kib", json_integer(run->peak_rss_kib));
	return o;
}

static int annotate(struct bench_records *out, const char *const *argv, struct bl_error *err)
{
	for (size_t i = 0; i < out->batch.nr; i++) {
		struct ingest_record *rec = &out->batch.records[i];
		if (out->preflighted) {
			rec->has_preflight = 1;
			rec->preflight_quiet = out->pf.quiet;
			if (ingest_record_annotate(rec, "preflight", preflight_to_json(&out->pf),
						   err))
				return BL_EINVALID;
		}
		if (ingest_record_annotate(rec, "process", process_json(argv, &out->run), err))
			return BL_EINVALID;
	}
	return 0;
}

int bench_records(struct bench_records *out, const struct bench_records_request *req,
		  struct bl_error *err)
{
	const struct config *cfg = &req->in->cfg;
	/* bench.run is run with /bin/sh -c: the process's argv says so. */
	const char *shell[] = {"/bin/sh", "-c", cfg->bench_run ? cfg->bench_run : "", NULL};
	const char *const *argv = req->argv ? req->argv : shell;
	double started;
	int ret;

	if (!req->no_preflight) {
		if ((ret = check_quiet(&out->pf, req, err)))
			return ret;
		out->preflighted = 1;
		if (req->preflight)
			req->preflight(&out->pf, req->data);
	}
	started = (double)time(NULL);
	if ((ret = req->argv ? bench_run_command(&out->run, req->argv, err)
			     : bench_run_once(&out->run, cfg, req->dir, err)))
		return ret;
	if (req->results)
		ret = ingest_intake_read(req->in, &out->batch, req->results, err);
	else
		ret = ingest_intake_parse(req->in, &out->batch, req->name, out->run.out.buf,
					  out->run.out.len, started, err);
	if (ret)
		return ret;
	return annotate(out, argv, err);
}
