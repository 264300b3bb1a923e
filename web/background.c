/*
 * The server's background work (§11): incremental detection after every accepted push, and,
 * with --repo, main's history synced at start and every --sync-interval seconds. One thread
 * with its own store connection does it all, one run at a time, so no request ever waits for
 * it: a push only marks that detection is wanted, and pushes that arrive while a run is going
 * make exactly one more run after it. The same use cases as `benchline sync` and `benchline
 * detect` (repo_sync, detect_run); what they did goes to the server's log callback.
 */
#include <jansson.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "detect/detect.h"
#include "ingest/config/config.h"
#include "ingest/repo/repo.h"
#include "web/web.h"

struct web_background {
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct store *st;
	const struct web_options *opts; /* the server's (it outlives this thread) */
	char *repo_dir;			/* NULL: nothing to sync */
	unsigned sync_interval_s;
	void (*log)(const char *line, void *data);
	void *log_data;
	/* Under lock: */
	int stop, pending, running;
	/* A detection waits for pushes to pause (BACKGROUND_QUIET_MS after the last), or at most
	 * BACKGROUND_MAX_WAIT_MS after the first it serves: a burst of pushes (a fleet's night,
	 * a bulk upload) is one detection, not one per body holding the write lock between them. */
	struct timespec first_poke, last_poke; /* CLOCK_MONOTONIC, while pending */
	struct timespec next_sync;	       /* CLOCK_MONOTONIC */
	int64_t detect_runs, detect_failures, new_suspects;
	int64_t sync_runs, sync_failures;
	size_t commits;
	char tip[41];
	char *detect_error, *sync_error; /* the last run's, NULL when it succeeded */
};

static void say(struct web_background *bg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void say(struct web_background *bg, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!bg->log)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	bg->log(sb.buf, bg->log_data);
	strbuf_release(&sb);
}

static int due(const struct timespec *now, const struct timespec *at)
{
	return now->tv_sec > at->tv_sec ||
	       (now->tv_sec == at->tv_sec && now->tv_nsec >= at->tv_nsec);
}

#define BACKGROUND_QUIET_MS    300
#define BACKGROUND_MAX_WAIT_MS 3000

static struct timespec after_ms(const struct timespec *t, long ms)
{
	struct timespec r = *t;
	r.tv_sec += ms / 1000;
	r.tv_nsec += (ms % 1000) * 1000000L;
	if (r.tv_nsec >= 1000000000L) {
		r.tv_sec++;
		r.tv_nsec -= 1000000000L;
	}
	return r;
}

/* When the pending detection may start: the pushes paused, or it waited long enough. */
static struct timespec detect_due(const struct web_background *bg)
{
	struct timespec quiet = after_ms(&bg->last_poke, BACKGROUND_QUIET_MS);
	struct timespec most = after_ms(&bg->first_poke, BACKGROUND_MAX_WAIT_MS);
	return due(&quiet, &most) ? most : quiet;
}

/* Records a step's error (NULL: it succeeded), as GET /api/status may show it: without the
 * server's paths (the log has it whole). */
static void set_error(struct web_background *bg, char **slot, const struct bl_error *err)
{
	struct strbuf shown = STRBUF_INIT;
	free(*slot);
	*slot = NULL;
	if (!err)
		return;
	web_scrub(&shown, bg->opts, err->msg.len ? err->msg.buf : "unknown error");
	*slot = strbuf_detach(&shown, NULL);
}

/* main's new commits; *stored 1 when any were stored or some dropped. cfg is the repository's
 * benchline.json, read for this run. */
static void sync_main(int *stored, struct web_background *bg, const struct config *cfg)
{
	struct repo_sync_result res;
	struct bl_error err = BL_ERROR_INIT;
	int ret;

	*stored = 0;
	memset(&res, 0, sizeof(res));
	ret = repo_sync(&res, bg->st, bg->repo_dir, cfg, &err);
	pthread_mutex_lock(&bg->lock);
	bg->sync_runs++;
	if (ret) {
		bg->sync_failures++;
		set_error(bg, &bg->sync_error, &err);
	} else {
		set_error(bg, &bg->sync_error, NULL);
		bg->commits = res.total;
		memcpy(bg->tip, res.tip, sizeof(bg->tip));
	}
	pthread_mutex_unlock(&bg->lock);
	if (ret) {
		say(bg, "sync failed: %s", err.msg.buf);
	} else if (res.walked || res.rewritten) {
		*stored = 1;
		say(bg, "sync: %zu new commit%s of %s (%zu in all), tip %.12s%s", res.walked,
		    res.walked == 1 ? "" : "s", res.branch, res.total, res.tip,
		    res.rewritten ? "; it was rewritten: commits no longer on it were dropped"
				  : "");
	}
	bl_error_release(&err);
}

/* Incremental detection with the judged metrics the server knows: cfg's (--repo's
 * benchline.json) when there is one, else the set the last detect used. */
static void detect(struct web_background *bg, const struct config *cfg)
{
	struct detect_options opts;
	struct detect_result res;
	struct bl_error err = BL_ERROR_INIT;
	int claimed = 0, ret;

	/* Servers sharing a PostgreSQL database detect one at a time. One that finds another
	 * detecting tries again after its next quiet wait: what it was poked for stays in the
	 * change log, so every change is judged once, by whichever server gets to it. */
	if (store_detect_claim(&claimed, bg->st, &err) || !claimed) {
		pthread_mutex_lock(&bg->lock);
		clock_gettime(CLOCK_MONOTONIC, &bg->last_poke);
		if (!bg->pending)
			bg->first_poke = bg->last_poke;
		bg->pending = 1;
		pthread_mutex_unlock(&bg->lock);
		if (err.msg.len)
			say(bg, "detect postponed: %s", err.msg.buf);
		bl_error_release(&err);
		return;
	}
	memset(&opts, 0, sizeof(opts));
	if (cfg)
		detect_options_from_config(&opts, cfg);
	ret = detect_run(&res, bg->st, &opts, &err);
	store_detect_release(bg->st);
	pthread_mutex_lock(&bg->lock);
	bg->detect_runs++;
	if (ret) {
		bg->detect_failures++;
		set_error(bg, &bg->detect_error, &err);
	} else {
		set_error(bg, &bg->detect_error, NULL);
		bg->new_suspects += res.new_suspects;
	}
	pthread_mutex_unlock(&bg->lock);
	if (ret)
		say(bg, "detect failed: %s", err.msg.buf);
	else if (res.new_suspects || res.lines_recomputed)
		say(bg, "detect: %lld new Suspect%s, %lld line%s recomputed%s",
		    (long long)res.new_suspects, res.new_suspects == 1 ? "" : "s",
		    (long long)res.lines_recomputed, res.lines_recomputed == 1 ? "" : "s",
		    res.full ? " (every Series read)" : "");
	bl_error_release(&err);
}

static void *background_main(void *arg)
{
	struct web_background *bg = arg;
	for (;;) {
		struct config cfg;
		struct bl_error err = BL_ERROR_INIT;
		struct timespec now;
		int do_sync, do_detect, have_cfg = 0;

		pthread_mutex_lock(&bg->lock);
		for (;;) {
			struct timespec wake, ready;
			int timed = 0;
			clock_gettime(CLOCK_MONOTONIC, &now);
			if (bg->pending)
				ready = detect_due(bg);
			if (bg->stop || (bg->pending && due(&now, &ready)) ||
			    (bg->repo_dir && due(&now, &bg->next_sync)))
				break;
			if (bg->pending) {
				wake = ready;
				timed = 1;
			}
			if (bg->repo_dir && (!timed || due(&wake, &bg->next_sync))) {
				wake = bg->next_sync;
				timed = 1;
			}
			if (timed)
				pthread_cond_timedwait(&bg->cond, &bg->lock, &wake);
			else
				pthread_cond_wait(&bg->cond, &bg->lock);
		}
		if (bg->stop) {
			pthread_mutex_unlock(&bg->lock);
			break;
		}
		do_sync = bg->repo_dir && due(&now, &bg->next_sync);
		do_detect = bg->pending;
		bg->pending = 0;
		bg->running = 1;
		pthread_mutex_unlock(&bg->lock);

		/* benchline.json is read again for every run, as every push reads it. */
		config_init(&cfg);
		if (bg->repo_dir) {
			if (config_load(&cfg, bg->repo_dir, &err)) {
				say(bg, "cannot read benchline.json: %s", err.msg.buf);
				pthread_mutex_lock(&bg->lock);
				if (do_sync)
					set_error(bg, &bg->sync_error, &err);
				if (do_detect)
					set_error(bg, &bg->detect_error, &err);
				pthread_mutex_unlock(&bg->lock);
				do_sync = do_detect = 0;
			} else {
				have_cfg = 1;
			}
		}
		if (do_sync) {
			int stored;
			sync_main(&stored, bg, &cfg);
			do_detect |= stored;
		}
		if (bg->repo_dir && due(&now, &bg->next_sync)) {
			/* The next sync an interval after this one ended (or failed to start), so a
			 * sync slower than the interval does not run back to back. */
			clock_gettime(CLOCK_MONOTONIC, &now);
			pthread_mutex_lock(&bg->lock);
			bg->next_sync = now;
			bg->next_sync.tv_sec += bg->sync_interval_s;
			pthread_mutex_unlock(&bg->lock);
		}
		if (do_detect)
			detect(bg, have_cfg ? &cfg : NULL);
		config_release(&cfg);
		bl_error_release(&err);

		pthread_mutex_lock(&bg->lock);
		bg->running = 0;
		pthread_cond_broadcast(&bg->cond);
		pthread_mutex_unlock(&bg->lock);
	}
	return NULL;
}

static void background_free(struct web_background *bg)
{
	store_free(bg->st);
	free(bg->repo_dir);
	free(bg->detect_error);
	free(bg->sync_error);
	pthread_mutex_destroy(&bg->lock);
	pthread_cond_destroy(&bg->cond);
	free(bg);
}

int web_background_start(struct web_background **out, const struct web_options *opts,
			 struct bl_error *err)
{
	struct web_background *bg = xcalloc(1, sizeof(*bg));
	pthread_condattr_t attr;
	int ret;

	*out = NULL;
	pthread_mutex_init(&bg->lock, NULL);
	pthread_condattr_init(&attr);
	pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	pthread_cond_init(&bg->cond, &attr);
	pthread_condattr_destroy(&attr);
	bg->opts = opts;
	bg->repo_dir = xstrdup_or_null(opts->repo_dir);
	bg->sync_interval_s = opts->sync_interval_s ? opts->sync_interval_s : WEB_SYNC_INTERVAL;
	bg->log = opts->log;
	bg->log_data = opts->log_data;
	if ((ret = store_open(&bg->st, opts->db_path, 0, err)))
		goto fail;
	/* With a repository: sync, then detect, at once. */
	clock_gettime(CLOCK_MONOTONIC, &bg->next_sync);
	bg->pending = bg->repo_dir != NULL;
	if (pthread_create(&bg->thread, NULL, background_main, bg)) {
		ret = bl_error_set(err, BL_EIO, "cannot start the background thread");
		goto fail;
	}
	*out = bg;
	return 0;
fail:
	background_free(bg);
	return ret;
}

void web_background_poke(struct web_background *bg)
{
	if (!bg)
		return;
	pthread_mutex_lock(&bg->lock);
	clock_gettime(CLOCK_MONOTONIC, &bg->last_poke);
	if (!bg->pending)
		bg->first_poke = bg->last_poke;
	bg->pending = 1;
	pthread_cond_broadcast(&bg->cond);
	pthread_mutex_unlock(&bg->lock);
}

void web_background_stop(struct web_background *bg)
{
	if (!bg)
		return;
	pthread_mutex_lock(&bg->lock);
	bg->stop = 1;
	pthread_cond_broadcast(&bg->cond);
	pthread_mutex_unlock(&bg->lock);
	/* A run in progress finishes (its one transaction commits); one only wanted is left to
	 * the next start: the change log keeps what it would read. */
	pthread_join(bg->thread, NULL);
	background_free(bg);
}

json_t *web_background_status(struct web_background *bg)
{
	json_t *o = json_object(), *sync = json_null();
	pthread_mutex_lock(&bg->lock);
	json_object_set_new(o, "state",
			    json_string(bg->running   ? "running"
					: bg->pending ? "queued"
						      : "idle"));
	json_object_set_new(o, "detect",
			    json_pack("{s:I, s:I, s:I, s:o}", "runs", (json_int_t)bg->detect_runs,
				      "failures", (json_int_t)bg->detect_failures, "new_suspects",
				      (json_int_t)bg->new_suspects, "last_error",
				      json_string_or_null(bg->detect_error)));
	if (bg->repo_dir)
		sync = json_pack("{s:I, s:I, s:I, s:o, s:o, s:o}", "interval",
				 (json_int_t)bg->sync_interval_s, "runs", (json_int_t)bg->sync_runs,
				 "failures", (json_int_t)bg->sync_failures, "tip",
				 bg->tip[0] ? json_string(bg->tip) : json_null(), "commits",
				 bg->tip[0] ? json_integer((json_int_t)bg->commits) : json_null(),
				 "last_error", json_string_or_null(bg->sync_error));
	pthread_mutex_unlock(&bg->lock);
	json_object_set_new(o, "sync", sync);
	return o;
}
