/*
 * The request deadline's watch (§11, slowloris): every open connection is watched from its
 * start to its close, and one thread shuts down the connection of a client that takes longer
 * than the deadline to send its request (a header byte every few seconds keeps
 * libmicrohttpd's idle timeout from ever firing), which ends it in its own thread.
 */
#include <pthread.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#include "web/web.h"

/* An open connection as the watch sees it. */
struct web_watched {
	struct web_watched *prev, *next;
	int fd;
	int receiving;	/* a request is coming in (or the next one may) */
	int in_request; /* its request line has arrived and its answer is not sent */
	int dropped;	/* shut down by the watch */
	double since;	/* monotonic_s(): accepted, or the last answer sent */
};

struct web_watch {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct web_watched *list;
	pthread_t thread;
	int64_t deadline_ms;
	int stop;
};

struct web_watched *web_watch_open(struct web_watch *w, int fd)
{
	struct web_watched *c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->receiving = 1;
	c->since = monotonic_s();
	pthread_mutex_lock(&w->lock);
	c->next = w->list;
	if (c->next)
		c->next->prev = c;
	w->list = c;
	pthread_mutex_unlock(&w->lock);
	return c;
}

void web_watch_close(struct web_watch *w, struct web_watched *c)
{
	pthread_mutex_lock(&w->lock);
	if (c->prev)
		c->prev->next = c->next;
	else
		w->list = c->next;
	if (c->next)
		c->next->prev = c->prev;
	pthread_mutex_unlock(&w->lock);
	free(c);
}

void web_watch_mark(struct web_watch *w, struct web_watched *c, int receiving)
{
	pthread_mutex_lock(&w->lock);
	c->receiving = receiving;
	if (receiving) {
		c->since = monotonic_s();
		c->in_request = 0;
	}
	pthread_mutex_unlock(&w->lock);
}

void web_watch_request(struct web_watch *w, struct web_watched *c)
{
	pthread_mutex_lock(&w->lock);
	c->in_request = 1;
	pthread_mutex_unlock(&w->lock);
}

void web_watch_close_idle(struct web_watch *w)
{
	pthread_mutex_lock(&w->lock);
	for (struct web_watched *c = w->list; c; c = c->next) {
		if (c->receiving && !c->in_request && !c->dropped && c->fd >= 0) {
			shutdown(c->fd, SHUT_RDWR);
			c->dropped = 1;
		}
	}
	pthread_mutex_unlock(&w->lock);
}

static void *watch_run(void *data)
{
	struct web_watch *w = data;
	pthread_mutex_lock(&w->lock);
	while (!w->stop) {
		double now = monotonic_s();
		struct timespec wake;
		for (struct web_watched *c = w->list; c; c = c->next) {
			double waited_ms = (now - c->since) * 1000;
			if (!c->receiving || c->dropped || c->fd < 0 || waited_ms < w->deadline_ms)
				continue;
			shutdown(c->fd, SHUT_RDWR);
			c->dropped = 1;
		}
		clock_gettime(CLOCK_REALTIME, &wake);
		wake.tv_nsec += WEB_WATCH_PERIOD_MS * 1000000L;
		if (wake.tv_nsec >= 1000000000L) {
			wake.tv_sec++;
			wake.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&w->cond, &w->lock, &wake);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int web_watch_start(struct web_watch **out, unsigned deadline_s, struct bl_error *err)
{
	struct web_watch *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->cond, NULL);
	w->deadline_ms = (int64_t)deadline_s * 1000;
	if (pthread_create(&w->thread, NULL, watch_run, w)) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
		free(w);
		*out = NULL;
		return bl_error_set(err, BL_EIO, "cannot start the request deadline's thread");
	}
	*out = w;
	return 0;
}

void web_watch_stop(struct web_watch *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->lock);
	w->stop = 1;
	pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	pthread_join(w->thread, NULL);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cond);
	free(w);
}
