/*
 * benchline's own reader of the callgrind format (valgrind's "Callgrind Format Specification",
 * version 1): what the counters of §9.6 total and the profiles of §9.7 rank. It keeps, per
 * function, the cost of the first event (Ir: instructions executed) spent in its own code
 * (self) and with what it called (inclusive), summed over every part of the file.
 *
 * What it reads: `key: value` header lines (`events:` names the columns, `positions:` how many
 * subpositions lead a cost line, `totals:` or `summary:` the whole run's costs); position lines
 * `ob=`, `fl=`, `fi=`, `fe=`, `fn=` (where the following costs belong), `cob=`, `cfi=`, `cfl=`,
 * `cfn=`, `calls=` (a call: the cost line after it is what the call cost, the callee's
 * inclusive cost, counted in the caller's inclusive cost and not its self cost), `jump=` and
 * `jcnd=` (followed by a position line, no costs); names compressed as `(N) name` the first
 * time and `(N)` after, one table for objects, one for files, one for functions; subpositions
 * as numbers, hex (`0x...`), relative (`+N`, `-N`) or `*` (the same). Costs missing at the end
 * of a line are 0. Anything else is refused with its line number.
 */
#include <ctype.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ingest/bench/bench.h"

/* The most subpositions a cost line may have (callgrind writes "instr line" at the most). */
#define MAX_POSITIONS 4

/* A table of compressed names: (N) to a name. */
struct names {
	char **name; /* by id; NULL where no name was given */
	size_t alloc;
};

static void names_release(struct names *t)
{
	for (size_t i = 0; i < t->alloc; i++)
		free(t->name[i]);
	free(t->name);
	memset(t, 0, sizeof(*t));
}

struct reader {
	struct bench_profile *out;
	const char *file; /* for messages */
	size_t line;
	struct bl_error *err;
	struct names objects, files, fns;
	struct intern plain; /* names given without compression */
	size_t npositions;
	int have_events;
	/* Where the costs go: the current function, by index into out->fns (-1: none yet). */
	const char *ob, *fl;
	long fn;
	const char *cfl, *cob; /* a call's target file and object, for the callee's entry */
	long cfn;
	/* A calls= line was read: the next cost line is that call's cost. */
	int in_call;
	/* A jump= or jcnd= line was read: the next line is a position, with no costs. */
	int in_jump;
	struct hashmap index; /* "FILE\nNAME" to an index into out->fns */
	char **keys;	      /* the map's keys */
	size_t nkeys, keys_alloc;
	uint64_t summed; /* every self cost, for a file without totals */
};

static int fail(struct reader *r, const char *what, const char *detail)
{
	if (detail)
		return bl_error_set(r->err, BL_EINVALID, "%s:%zu: %s: '%.60s'", r->file, r->line,
				    what, detail);
	return bl_error_set(r->err, BL_EINVALID, "%s:%zu: %s", r->file, r->line, what);
}

/* The name a `(N) name`, `(N)` or plain `name` value gives, from or into table t. */
static int name_of(const char **out, struct reader *r, struct names *t, const char *v)
{
	char *end;
	unsigned long id;
	*out = NULL;
	if (*v != '(') {
		uint32_t i = intern_add(&r->plain, v);
		*out = r->plain.strings[i];
		return 0;
	}
	errno = 0;
	id = strtoul(v + 1, &end, 10);
	if (end == v + 1 || *end != ')' || errno || id > 100000000UL)
		return fail(r, "a compressed name's id is not a number in parentheses", v);
	end++;
	while (*end == ' ' || *end == '\t')
		end++;
	if (!*end) {
		if (id >= t->alloc || !t->name[id])
			return fail(r, "a compressed name is used before it is given", v);
		*out = t->name[id];
		return 0;
	}
	if (id >= t->alloc) {
		size_t grown = t->alloc ? 2 * t->alloc : 64;
		while (grown <= id)
			grown *= 2;
		t->name = xrealloc(t->name, grown * sizeof(*t->name));
		memset(t->name + t->alloc, 0, (grown - t->alloc) * sizeof(*t->name));
		t->alloc = grown;
	}
	if (t->name[id]) {
		/* Given again: the same name is fine; another would change what came before. */
		if (strcmp(t->name[id], end))
			return fail(r, "a compressed name's id is given twice", v);
	} else {
		t->name[id] = xstrdup(end);
	}
	*out = t->name[id];
	return 0;
}

/* The function (file, name) in out->fns, added when new. */
static long function_at(struct reader *r, const char *file, const char *object, const char *name)
{
	struct bench_profile *p = r->out;
	struct strbuf key = STRBUF_INIT;
	int64_t i;
	strbuf_addf(&key, "%s\n%s", file ? file : "???", name);
	if (hashmap_get(&r->index, key.buf, &i)) {
		strbuf_release(&key);
		return (long)i;
	}
	ALLOC_GROW(p->fns, p->nfns, p->fns_alloc);
	memset(&p->fns[p->nfns], 0, sizeof(p->fns[0]));
	p->fns[p->nfns].name = xstrdup(name);
	p->fns[p->nfns].file = xstrdup(file ? file : "???");
	p->fns[p->nfns].object = xstrdup(object ? object : "???");
	ALLOC_GROW(r->keys, r->nkeys, r->keys_alloc);
	r->keys[r->nkeys] = strbuf_detach(&key, NULL);
	hashmap_put(&r->index, r->keys[r->nkeys++], (int64_t)p->nfns);
	return (long)p->nfns++;
}

/* One unsigned 64-bit number; *end past it. */
static int number(uint64_t *out, const char *s, const char **end)
{
	char *e;
	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	*out = strtoull(s, &e, s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10);
	if (errno)
		return -1;
	*end = e;
	return 0;
}

/* A cost line: npositions subpositions, then up to nevents costs. *first the first event's. */
static int cost_line(uint64_t *first, struct reader *r, const char *s)
{
	size_t n = 0;
	*first = 0;
	for (size_t k = 0; k < r->npositions; k++) {
		uint64_t v;
		if (*s == '*') {
			s++;
		} else if (*s == '+' || *s == '-') {
			if (number(&v, s + 1, &s))
				return fail(r, "a subposition is not a number", s);
		} else if (number(&v, s, &s)) {
			return fail(r, "a cost line does not start with its position", s);
		}
		if (*s && *s != ' ' && *s != '\t')
			return fail(r, "a subposition is not a number", s);
		while (*s == ' ' || *s == '\t')
			s++;
	}
	while (*s) {
		uint64_t v;
		if (number(&v, s, &s) || (*s && *s != ' ' && *s != '\t'))
			return fail(r, "a cost is not a number", s);
		if (n++ == 0)
			*first = v;
		while (*s == ' ' || *s == '\t')
			s++;
	}
	if (n > r->out->nevents)
		return fail(r, "a cost line has more costs than events", NULL);
	return 0;
}

static int header_events(struct reader *r, const char *v)
{
	struct bench_profile *p = r->out;
	if (r->have_events)
		return fail(r, "events: is given twice", NULL);
	r->have_events = 1;
	while (*v) {
		const char *start = v;
		while (*v && *v != ' ' && *v != '\t')
			v++;
		ALLOC_GROW(p->events, p->nevents, p->events_alloc);
		p->events[p->nevents++] = xstrndup(start, (size_t)(v - start));
		while (*v == ' ' || *v == '\t')
			v++;
	}
	if (!p->nevents)
		return fail(r, "events: names no event", NULL);
	return 0;
}

static int header_positions(struct reader *r, const char *v)
{
	r->npositions = 0;
	while (*v) {
		const char *start = v;
		while (*v && *v != ' ' && *v != '\t')
			v++;
		if (!((v - start == 4 && !strncmp(start, "line", 4)) ||
		      (v - start == 5 && !strncmp(start, "instr", 5))))
			return fail(r, "positions: names an unknown position", start);
		if (++r->npositions > MAX_POSITIONS)
			return fail(r, "positions: names too many positions", NULL);
		while (*v == ' ' || *v == '\t')
			v++;
	}
	if (!r->npositions)
		return fail(r, "positions: names no position", NULL);
	return 0;
}

/* A `totals:` or `summary:` line: the first event's total. */
static int header_total(struct reader *r, const char *v)
{
	uint64_t first;
	size_t save = r->npositions;
	int ret;
	r->npositions = 0;
	ret = cost_line(&first, r, v);
	r->npositions = save;
	if (ret)
		return ret;
	r->out->total = first;
	r->out->has_total = 1;
	return 0;
}

/* A `key=value` position line. */
static int position_line(struct reader *r, const char *key, size_t klen, const char *v)
{
	const char *name;
	int ret;
#define IS(k) (klen == sizeof(k) - 1 && !strncmp(key, k, klen))
	if (IS("ob") || IS("cob")) {
		if ((ret = name_of(&name, r, &r->objects, v)))
			return ret;
		if (IS("ob"))
			r->ob = name;
		else
			r->cob = name;
	} else if (IS("fl") || IS("fi") || IS("fe") || IS("cfi") || IS("cfl")) {
		if ((ret = name_of(&name, r, &r->files, v)))
			return ret;
		if (IS("fl"))
			r->fl = r->cfl = name;
		else if (IS("cfi") || IS("cfl"))
			r->cfl = name;
		/* fi= and fe= name an inlined file: the costs still belong to fn= */
	} else if (IS("fn")) {
		if ((ret = name_of(&name, r, &r->fns, v)))
			return ret;
		r->fn = function_at(r, r->fl, r->ob, name);
		r->cfl = r->fl;
		r->cob = r->ob;
	} else if (IS("cfn")) {
		if ((ret = name_of(&name, r, &r->fns, v)))
			return ret;
		r->cfn = function_at(r, r->cfl, r->cob, name);
	} else if (IS("calls")) {
		uint64_t count;
		const char *end;
		if (number(&count, v, &end))
			return fail(r, "calls= does not start with a count", v);
		if (r->fn < 0 || r->cfn < 0)
			return fail(r, "calls= before fn= and cfn=", NULL);
		r->in_call = 1;
	} else if (IS("jump") || IS("jcnd")) {
		r->in_jump = 1;
	} else {
		return fail(r, "an unknown position line", key);
	}
#undef IS
	return 0;
}

static int read_line(struct reader *r, char *s)
{
	char *eq, *colon;
	size_t n = strlen(s);
	while (n && (s[n - 1] == '\r' || s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	if (!n || s[0] == '#')
		return 0;
	if (r->in_jump) {
		r->in_jump = 0;
		return 0; /* the jump's source position */
	}
	if (isdigit((unsigned char)s[0]) || s[0] == '+' || s[0] == '-' || s[0] == '*') {
		uint64_t first;
		int ret;
		if (!r->have_events)
			return fail(r, "a cost line before events:", NULL);
		if (r->fn < 0)
			return fail(r, "a cost line before fn=", NULL);
		if ((ret = cost_line(&first, r, s)))
			return ret;
		if (r->in_call) {
			r->out->fns[r->fn].inclusive += first;
			r->in_call = 0;
		} else {
			r->out->fns[r->fn].self += first;
			r->out->fns[r->fn].inclusive += first;
			r->summed += first;
		}
		return 0;
	}
	if (r->in_call)
		return fail(r, "calls= is not followed by its cost line", NULL);
	eq = strchr(s, '=');
	colon = strchr(s, ':');
	if (eq && (!colon || eq < colon))
		return position_line(r, s, (size_t)(eq - s), eq + 1);
	if (colon) {
		char *v = colon + 1;
		size_t klen = (size_t)(colon - s);
		while (*v == ' ' || *v == '\t')
			v++;
		if (klen == 6 && !strncmp(s, "events", 6))
			return header_events(r, v);
		if (klen == 9 && !strncmp(s, "positions", 9))
			return header_positions(r, v);
		if ((klen == 6 && !strncmp(s, "totals", 6)) ||
		    (klen == 7 && !strncmp(s, "summary", 7)))
			return header_total(r, v);
		if (klen == 3 && !strncmp(s, "cmd", 3)) {
			free(r->out->cmd);
			r->out->cmd = xstrdup(v);
		}
		return 0; /* version, creator, pid, part, desc, event, ...: nothing to keep */
	}
	return fail(r, "not a callgrind line", s);
}

void bench_profile_init(struct bench_profile *p)
{
	memset(p, 0, sizeof(*p));
}

void bench_profile_release(struct bench_profile *p)
{
	for (size_t i = 0; i < p->nfns; i++) {
		free(p->fns[i].name);
		free(p->fns[i].file);
		free(p->fns[i].object);
	}
	free(p->fns);
	for (size_t i = 0; i < p->nevents; i++)
		free(p->events[i]);
	free(p->events);
	free(p->cmd);
	bench_profile_init(p);
}

int bench_profile_parse(struct bench_profile *out, const char *file, const char *data, size_t len,
			struct bl_error *err)
{
	struct reader r;
	struct strbuf line = STRBUF_INIT;
	size_t i = 0;
	int ret = 0;

	bench_profile_init(out);
	memset(&r, 0, sizeof(r));
	r.out = out;
	r.file = file;
	r.err = err;
	r.npositions = 1; /* "positions: line", the default */
	r.fn = r.cfn = -1;
	intern_init(&r.plain);
	while (i < len) {
		size_t start = i;
		while (i < len && data[i] != '\n')
			i++;
		r.line++;
		if (memchr(data + start, '\0', i - start)) {
			ret = fail(&r, "a NUL byte", NULL);
			break;
		}
		strbuf_reset(&line);
		strbuf_add(&line, data + start, i - start);
		if ((ret = read_line(&r, line.buf)))
			break;
		i++;
	}
	if (!ret && r.in_call) {
		r.line++;
		ret = fail(&r, "calls= is not followed by its cost line", NULL);
	}
	if (!ret && !r.have_events)
		ret = bl_error_set(err, BL_EINVALID, "%s: not a callgrind file (no events: line)",
				   file);
	if (!ret && !out->has_total)
		out->total = r.summed;
	strbuf_release(&line);
	names_release(&r.objects);
	names_release(&r.files);
	names_release(&r.fns);
	intern_release(&r.plain);
	hashmap_release(&r.index);
	for (size_t k = 0; k < r.nkeys; k++)
		free(r.keys[k]);
	free(r.keys);
	if (ret)
		bench_profile_release(out);
	return ret;
}
