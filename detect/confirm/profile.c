/*
 * Where the extra instructions went (§9.7): two callgrind profiles of the same benchmark, the
 * base's and the head's, compared function by function. A function is known by its name and
 * its file relative to its side's worktree (the two worktrees are different directories, the
 * same sources). It is ranked by the self instructions it added, as a share of the base's
 * total when the work is fixed (the counter command: both sides do the same iterations), else
 * as the change of its share of each side's own total (bench.run: a time-bound loop runs more
 * iterations of faster code). The top CONFIRM_PROFILE_TOP that added at least
 * CONFIRM_PROFILE_MIN_SHARE are kept: below it are a libc routine that formatted another
 * number, a startup path that took another branch, which explain nothing.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "ingest/bench/bench.h"

/* A function on either side. */
struct pair {
	const char *name, *file; /* the file relative to its worktree */
	uint64_t base_self, head_self, base_inclusive, head_inclusive;
	double self_share, inclusive_share;
};

/* file without the worktree root (and the slash after it) when it starts with it. */
static const char *relative(const char *file, const char *root)
{
	size_t n = root ? strlen(root) : 0;
	while (n && root[n - 1] == '/')
		n--;
	if (n && !strncmp(file, root, n) && file[n] == '/')
		return file + n + 1;
	return file;
}

struct pairing {
	struct pair *v;
	size_t n, alloc;
	struct hashmap index; /* "FILE\nNAME" to an index into v */
	char **keys;
	size_t nkeys, keys_alloc;
};

static struct pair *pair_of(struct pairing *p, const char *file, const char *name)
{
	struct strbuf key = STRBUF_INIT;
	int64_t i;
	strbuf_addf(&key, "%s\n%s", file, name);
	if (hashmap_get(&p->index, key.buf, &i)) {
		strbuf_release(&key);
		return &p->v[i];
	}
	ALLOC_GROW(p->v, p->n, p->alloc);
	memset(&p->v[p->n], 0, sizeof(p->v[0]));
	p->v[p->n].name = name;
	p->v[p->n].file = file;
	ALLOC_GROW(p->keys, p->nkeys, p->keys_alloc);
	p->keys[p->nkeys] = strbuf_detach(&key, NULL);
	hashmap_put(&p->index, p->keys[p->nkeys++], (int64_t)p->n);
	return &p->v[p->n++];
}

static int by_added(const void *x, const void *y)
{
	const struct pair *a = x, *b = y;
	int c;
	if (a->self_share != b->self_share)
		return a->self_share > b->self_share ? -1 : 1;
	if ((c = strcmp(a->name, b->name)))
		return c;
	return strcmp(a->file, b->file);
}

static double share(uint64_t part, uint64_t total)
{
	return total ? (double)part / (double)total : 0;
}

void confirm_profile_compare(struct confirm_profile *out, const struct bench_profile *base,
			     const struct bench_profile *head, int fixed_work,
			     const char *base_root, const char *head_root)
{
	struct pairing p;
	memset(out, 0, sizeof(*out));
	memset(&p, 0, sizeof(p));
	out->fixed_work = fixed_work;
	out->base_total = base->total;
	out->head_total = head->total;
	for (size_t i = 0; i < base->nfns; i++) {
		struct pair *x =
		    pair_of(&p, relative(base->fns[i].file, base_root), base->fns[i].name);
		x->base_self += base->fns[i].self;
		x->base_inclusive += base->fns[i].inclusive;
	}
	for (size_t i = 0; i < head->nfns; i++) {
		struct pair *x =
		    pair_of(&p, relative(head->fns[i].file, head_root), head->fns[i].name);
		x->head_self += head->fns[i].self;
		x->head_inclusive += head->fns[i].inclusive;
	}
	for (size_t i = 0; i < p.n; i++) {
		struct pair *x = &p.v[i];
		if (fixed_work) {
			x->self_share = ((double)x->head_self - (double)x->base_self) /
					(double)(base->total ? base->total : 1);
			x->inclusive_share =
			    ((double)x->head_inclusive - (double)x->base_inclusive) /
			    (double)(base->total ? base->total : 1);
		} else {
			x->self_share =
			    share(x->head_self, head->total) - share(x->base_self, base->total);
			x->inclusive_share = share(x->head_inclusive, head->total) -
					     share(x->base_inclusive, base->total);
		}
	}
	if (p.n > 1)
		qsort(p.v, p.n, sizeof(*p.v), by_added);
	for (size_t i = 0; i < p.n && out->nfunctions < CONFIRM_PROFILE_TOP; i++) {
		struct confirm_profile_fn *f;
		if (!(p.v[i].self_share >= CONFIRM_PROFILE_MIN_SHARE))
			break;
		f = &out->functions[out->nfunctions++];
		f->function = xstrdup(p.v[i].name);
		f->file = xstrdup(p.v[i].file);
		f->base_self = p.v[i].base_self;
		f->head_self = p.v[i].head_self;
		f->self_share = p.v[i].self_share;
		f->inclusive_share = p.v[i].inclusive_share;
	}
	for (size_t i = 0; i < p.nkeys; i++)
		free(p.keys[i]);
	free(p.keys);
	free(p.v);
	hashmap_release(&p.index);
}

void confirm_profile_release(struct confirm_profile *p)
{
	for (size_t i = 0; i < p->nfunctions; i++) {
		free(p->functions[i].function);
		free(p->functions[i].file);
	}
	free(p->benchmark);
	free(p->metric);
	memset(p, 0, sizeof(*p));
}

json_t *confirm_profile_json(const struct confirm_profile *p)
{
	json_t *fns = json_array();
	for (size_t i = 0; i < p->nfunctions; i++) {
		const struct confirm_profile_fn *f = &p->functions[i];
		json_array_append_new(
		    fns, json_pack("{s:s, s:s, s:I, s:I, s:f, s:f}", "function", f->function,
				   "file", f->file, "base_self", (json_int_t)f->base_self,
				   "head_self", (json_int_t)f->head_self, "self_share",
				   f->self_share, "inclusive_share", f->inclusive_share));
	}
	return json_pack("{s:s?, s:s?, s:b, s:I, s:I, s:o}", "benchmark", p->benchmark, "metric",
			 p->metric, "fixed_work", p->fixed_work, "base_total",
			 (json_int_t)p->base_total, "head_total", (json_int_t)p->head_total,
			 "functions", fns);
}

void confirm_profile_line(struct strbuf *out, const struct confirm_profile *p)
{
	const struct confirm_profile_fn *top = p->nfunctions ? &p->functions[0] : NULL;
	strbuf_addf(
	    out, "where the extra instructions went in '%s': ", p->benchmark ? p->benchmark : "?");
	if (!top) {
		strbuf_addstr(out, "no function executes more at the head");
		return;
	}
	strbuf_addf(out, "%+.2f%% self, %+.2f%% with callees in %s", 100 * top->self_share,
		    100 * top->inclusive_share, top->function);
	if (strcmp(top->file, "???"))
		strbuf_addf(out, " (%s)", top->file);
	if (!p->fixed_work)
		strbuf_addstr(out,
			      ", as shares of each side's own total (bench.run: the work is not "
			      "fixed)");
}

void confirm_profile_markdown(struct strbuf *out, const struct confirm_profile *p)
{
	strbuf_addstr(out, "<details><summary>where the extra instructions went");
	if (p->benchmark) {
		strbuf_addstr(out, ": ");
		strbuf_add_markdown(out, p->benchmark);
	}
	strbuf_addstr(out, "</summary>\n\n");
	if (!p->nfunctions) {
		strbuf_addstr(out, "No function executes more instructions at the head.\n");
	} else {
		strbuf_addf(out, "| function | file | self | with callees |\n|---|---|---|---|\n");
		for (size_t i = 0; i < p->nfunctions; i++) {
			const struct confirm_profile_fn *f = &p->functions[i];
			strbuf_addstr(out, "| ");
			strbuf_add_markdown(out, f->function);
			strbuf_addstr(out, " | ");
			strbuf_add_markdown(out, f->file);
			strbuf_addf(out, " | %+.2f%% | %+.2f%% |\n", 100 * f->self_share,
				    100 * f->inclusive_share);
		}
	}
	strbuf_addf(out,
		    "\n%s: %llu instructions at the base, %llu at the head (callgrind; %s).\n\n"
		    "</details>\n",
		    p->fixed_work ? "Shares of the base's total" : "Changes of each side's share",
		    (unsigned long long)p->base_total, (unsigned long long)p->head_total,
		    p->fixed_work ? "the counter command: fixed work"
				  : "bench.run: the work is not fixed, so each side's own total");
}

/* A string member of j as a new string, "" when missing. */
static char *member_text(const json_t *j, const char *key)
{
	const char *s = json_string_value(json_object_get(j, key));
	return xstrdup(s ? s : "");
}

int confirm_profile_from_json(struct confirm_profile *out, const json_t *j, struct bl_error *err)
{
	json_t *fns = json_object_get(j, "functions"), *f;
	size_t i;
	memset(out, 0, sizeof(*out));
	if (!json_is_object(j) || !json_is_array(fns))
		return bl_error_set(err, BL_EINVALID,
				    "not a profile comparison: expected an object with functions");
	if (json_is_string(json_object_get(j, "benchmark")))
		out->benchmark = member_text(j, "benchmark");
	if (json_is_string(json_object_get(j, "metric")))
		out->metric = member_text(j, "metric");
	out->fixed_work = json_is_true(json_object_get(j, "fixed_work"));
	out->base_total = (uint64_t)json_integer_value(json_object_get(j, "base_total"));
	out->head_total = (uint64_t)json_integer_value(json_object_get(j, "head_total"));
	json_array_foreach (fns, i, f) {
		struct confirm_profile_fn *fn;
		if (out->nfunctions == CONFIRM_PROFILE_TOP)
			break;
		fn = &out->functions[out->nfunctions++];
		fn->function = member_text(f, "function");
		fn->file = member_text(f, "file");
		fn->base_self = (uint64_t)json_integer_value(json_object_get(f, "base_self"));
		fn->head_self = (uint64_t)json_integer_value(json_object_get(f, "head_self"));
		fn->self_share = json_number_value(json_object_get(f, "self_share"));
		fn->inclusive_share = json_number_value(json_object_get(f, "inclusive_share"));
	}
	return 0;
}
