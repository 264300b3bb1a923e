/*
 * bench.artifacts (§9): when both sides built byte-identical artifacts, no measurement can
 * tell them apart, so the re-bench measures nothing. The globs are matched by glob(3) under
 * each worktree (its own path escaped, so only the pattern's metacharacters count).
 */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ingest/config/config.h"
#include "ingest/bench/bench.h"

/* The most files one side's globs may match. */
#define ARTIFACTS_MAX_FILES 100000
/* Bytes compared at a time. */
#define ARTIFACTS_CHUNK 65536

struct path_list {
	char **items;
	size_t nr, alloc;
};

static void path_list_release(struct path_list *l)
{
	strings_free(l->items, l->nr);
	memset(l, 0, sizeof(*l));
}

/* root with glob's metacharacters escaped, then "/" and the pattern. */
static void add_pattern(struct strbuf *sb, const char *root, const char *glob)
{
	for (const char *p = root; *p; p++) {
		if (strchr("*?[]\\", *p))
			strbuf_addch(sb, '\\');
		strbuf_addch(sb, *p);
	}
	strbuf_addch(sb, '/');
	strbuf_addstr(sb, glob);
}

/* The sorted, distinct root-relative paths of the regular files the globs match. */
static int collect(struct path_list *out, const char *root, char *const *globs, size_t nglobs,
		   struct bl_error *err)
{
	struct strbuf pattern = STRBUF_INIT;
	size_t skip = strlen(root) + 1, n = 0;
	glob_t g;
	int ret = 0, have_glob = 0;

	memset(&g, 0, sizeof(g));
	for (size_t i = 0; i < nglobs; i++) {
		int rc;
		strbuf_reset(&pattern);
		add_pattern(&pattern, root, globs[i]);
		rc = glob(pattern.buf, have_glob ? GLOB_APPEND : 0, NULL, &g);
		if (rc && rc != GLOB_NOMATCH) {
			ret =
			    bl_error_set(err, BL_EIO, "cannot match '%s' in '%s'", globs[i], root);
			goto done;
		}
		have_glob = 1;
		if (g.gl_pathc > ARTIFACTS_MAX_FILES) {
			ret = bl_error_set(err, BL_ETOOBIG,
					   "bench.artifacts match more than %d files in '%s'",
					   ARTIFACTS_MAX_FILES, root);
			goto done;
		}
	}
	for (size_t i = 0; have_glob && i < g.gl_pathc; i++) {
		struct stat st;
		const char *path = g.gl_pathv[i];
		if (strlen(path) <= skip || stat(path, &st) < 0 || !S_ISREG(st.st_mode))
			continue;
		ALLOC_GROW(out->items, out->nr + 1, out->alloc);
		out->items[out->nr++] = xstrdup(path + skip);
		out->items[out->nr] = NULL;
	}
	if (out->nr > 1)
		qsort(out->items, out->nr, sizeof(*out->items), cmp_strp);
	/* Two globs may match one file. */
	for (size_t i = 0; i < out->nr; i++) {
		if (n && !strcmp(out->items[n - 1], out->items[i])) {
			free(out->items[i]);
			continue;
		}
		out->items[n++] = out->items[i];
	}
	if (out->items)
		out->items[n] = NULL;
	out->nr = n;
done:
	if (have_glob)
		globfree(&g);
	strbuf_release(&pattern);
	return ret;
}

static int open_file(int *fd, const char *root, const char *rel, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	strbuf_addf(&path, "%s/%s", root, rel);
	if ((*fd = open(path.buf, O_RDONLY | O_CLOEXEC)) < 0)
		ret = bl_error_set(err, BL_EIO, "cannot read '%s': %s", path.buf, strerror(errno));
	strbuf_release(&path);
	return ret;
}

/* Reads up to len bytes (fewer only at the end of the file). */
static ssize_t read_full(int fd, char *buf, size_t len)
{
	size_t got = 0;
	while (got < len) {
		ssize_t n = read(fd, buf + got, len - got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -1;
		if (n == 0)
			break;
		got += (size_t)n;
	}
	return (ssize_t)got;
}

/* *same is 1 when rel has the same bytes under both roots. */
static int same_bytes(int *same, const char *root_a, const char *root_b, const char *rel,
		      struct bl_error *err)
{
	int fa = -1, fb = -1, ret;
	char *ba = xmalloc(ARTIFACTS_CHUNK), *bb = xmalloc(ARTIFACTS_CHUNK);
	struct stat sa, sb;
	*same = 0;
	if ((ret = open_file(&fa, root_a, rel, err)) || (ret = open_file(&fb, root_b, rel, err)))
		goto done;
	if (fstat(fa, &sa) < 0 || fstat(fb, &sb) < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot read '%s': %s", rel, strerror(errno));
		goto done;
	}
	if (sa.st_size != sb.st_size)
		goto done;
	for (;;) {
		ssize_t na = read_full(fa, ba, ARTIFACTS_CHUNK),
			nb = read_full(fb, bb, ARTIFACTS_CHUNK);
		if (na < 0 || nb < 0) {
			ret =
			    bl_error_set(err, BL_EIO, "cannot read '%s': %s", rel, strerror(errno));
			goto done;
		}
		if (na != nb || memcmp(ba, bb, (size_t)na))
			goto done;
		if (na == 0)
			break;
	}
	*same = 1;
done:
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	free(ba);
	free(bb);
	return ret;
}

/* Drops trailing slashes, so a root-relative path starts right after root and one '/'. */
static void add_root(struct strbuf *sb, const char *dir)
{
	size_t len = strlen(dir);
	while (len > 1 && dir[len - 1] == '/')
		len--;
	strbuf_add(sb, dir, len);
}

int bench_artifacts_identical(int *identical, struct strbuf *why, size_t *files,
			      const struct config *cfg, const char *worktree_a,
			      const char *worktree_b, struct bl_error *err)
{
	struct strbuf root_a = STRBUF_INIT, root_b = STRBUF_INIT, reason = STRBUF_INIT;
	struct path_list a = {0}, b = {0};
	int ret = 0, same = 0;
	size_t i;

	*identical = 0;
	if (files)
		*files = 0;
	if (!cfg->n_bench_artifacts) {
		strbuf_addstr(&reason, "no bench.artifacts in benchline.json");
		goto done;
	}
	add_root(&root_a, worktree_a);
	add_root(&root_b, worktree_b);
	if ((ret = collect(&a, root_a.buf, cfg->bench_artifacts, cfg->n_bench_artifacts, err)) ||
	    (ret = collect(&b, root_b.buf, cfg->bench_artifacts, cfg->n_bench_artifacts, err)))
		goto done;
	if (!a.nr || !b.nr) {
		strbuf_addf(&reason, "no artifact matches in %s",
			    !a.nr && !b.nr ? "either side"
			    : !a.nr	   ? "a"
					   : "b");
		goto done;
	}
	/* The same set of paths, walked in step. */
	for (i = 0; i < a.nr && i < b.nr; i++) {
		int cmp = strcmp(a.items[i], b.items[i]);
		if (cmp) {
			strbuf_addf(&reason, "'%s' is only in %s",
				    cmp < 0 ? a.items[i] : b.items[i], cmp < 0 ? "a" : "b");
			goto done;
		}
	}
	if (a.nr != b.nr) {
		strbuf_addf(&reason, "'%s' is only in %s", a.nr > b.nr ? a.items[i] : b.items[i],
			    a.nr > b.nr ? "a" : "b");
		goto done;
	}
	for (i = 0; i < a.nr; i++) {
		if ((ret = same_bytes(&same, root_a.buf, root_b.buf, a.items[i], err)))
			goto done;
		if (!same) {
			strbuf_addf(&reason, "'%s' differs", a.items[i]);
			goto done;
		}
	}
	*identical = 1;
	if (files)
		*files = a.nr;
done:
	if (why && !ret && !*identical)
		strbuf_addstr(why, reason.buf);
	path_list_release(&a);
	path_list_release(&b);
	strbuf_release(&root_a);
	strbuf_release(&root_b);
	strbuf_release(&reason);
	return ret;
}
