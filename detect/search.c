/*
 * The change-point searches of one detect (§6.1), beside its walk: the walk hands over each
 * judged timed line as it finishes it, a worker thread searches them while the walk reads on,
 * and the walk takes the results back in the order it gave the lines, so what it stores does
 * not depend on which thread searched what. On a machine with one processor, or when the
 * thread cannot be started, the walk searches each line itself when it takes it back. A line
 * waiting for the worker is searched by the walk itself once too many wait, so memory stays
 * bounded when the worker falls behind. docs/performance.md has what it saves.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "detect/detect.h"

/* Lines given and not yet searched beyond which the walk searches one itself. */
#define MAX_WAITING 64

struct detect_search {
	struct detect_change_options opts;
	void (*free_line)(struct detect_search_line *l);
	pthread_mutex_t lock;
	pthread_cond_t wake; /* a line was given, or the worker is told to stop */
	pthread_cond_t done; /* a line was searched */
	int threaded, stopping;
	pthread_t worker;
	/* Lines in the order given: [taken, n) are not yet taken back; [claimed, n) not yet
	 * searched by anyone, and not being searched. */
	struct detect_search_line **lines;
	size_t taken, claimed, n, alloc;
};

static void search_line(const struct detect_change_options *o, struct detect_search_line *l)
{
	l->changes = xmalloc((l->v.n ? l->v.n : 1) * sizeof(*l->changes));
	l->nchanges = detect_changes_line(l->changes, &l->v, l->better_higher, o, &l->state);
}

static void *work(void *data)
{
	struct detect_search *s = data;
	pthread_mutex_lock(&s->lock);
	for (;;) {
		struct detect_search_line *l;
		while (!s->stopping && s->claimed == s->n)
			pthread_cond_wait(&s->wake, &s->lock);
		if (s->claimed == s->n)
			break;
		l = s->lines[s->claimed++];
		pthread_mutex_unlock(&s->lock);
		search_line(&s->opts, l);
		pthread_mutex_lock(&s->lock);
		l->searched = 1;
		pthread_cond_broadcast(&s->done);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct detect_search *detect_search_new(const struct detect_change_options *o,
					void (*free_line)(struct detect_search_line *l))
{
	struct detect_search *s = xcalloc(1, sizeof(*s));
	const char *env = getenv("BENCHLINE_DETECT_THREADS");
	s->opts = *o;
	s->free_line = free_line;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->wake, NULL);
	pthread_cond_init(&s->done, NULL);
	/* BENCHLINE_DETECT_THREADS=0: no worker (tests compare the two ways). */
	if (sysconf(_SC_NPROCESSORS_ONLN) > 1 && !(env && !strcmp(env, "0")))
		s->threaded = !pthread_create(&s->worker, NULL, work, s);
	return s;
}

void detect_search_add(struct detect_search *s, struct detect_search_line *l)
{
	struct detect_search_line *self = NULL;
	l->searched = 0;
	l->changes = NULL;
	l->nchanges = 0;
	pthread_mutex_lock(&s->lock);
	ALLOC_GROW(s->lines, s->n, s->alloc);
	s->lines[s->n++] = l;
	if (!s->threaded || s->n - s->claimed > MAX_WAITING)
		self = s->lines[s->claimed++];
	else
		pthread_cond_signal(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (self) {
		search_line(&s->opts, self);
		pthread_mutex_lock(&s->lock);
		self->searched = 1;
		pthread_mutex_unlock(&s->lock);
	}
}

struct detect_search_line *detect_search_next(struct detect_search *s, int wait)
{
	struct detect_search_line *l = NULL;
	pthread_mutex_lock(&s->lock);
	while (s->taken < s->n) {
		struct detect_search_line *head = s->lines[s->taken];
		if (head->searched) {
			l = head;
			s->taken++;
			break;
		}
		if (!wait)
			break;
		if (s->claimed == s->taken) {
			/* nobody has it yet: search it here rather than wait */
			s->claimed++;
			pthread_mutex_unlock(&s->lock);
			search_line(&s->opts, head);
			pthread_mutex_lock(&s->lock);
			head->searched = 1;
			continue;
		}
		pthread_cond_wait(&s->done, &s->lock);
	}
	if (s->taken == s->n) {
		/* every line given is back: the array starts again */
		s->taken = s->claimed = s->n = 0;
	}
	pthread_mutex_unlock(&s->lock);
	return l;
}

void detect_search_free(struct detect_search *s)
{
	struct detect_search_line *l;
	if (!s)
		return;
	pthread_mutex_lock(&s->lock);
	s->stopping = 1;
	/* lines nobody took back are not searched any more */
	while (s->claimed < s->n)
		s->lines[s->claimed++]->searched = 1;
	pthread_cond_broadcast(&s->wake);
	pthread_mutex_unlock(&s->lock);
	if (s->threaded)
		pthread_join(s->worker, NULL);
	while ((l = detect_search_next(s, 0)))
		s->free_line(l);
	free(s->lines);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->wake);
	pthread_cond_destroy(&s->done);
	free(s);
}
