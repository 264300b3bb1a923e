/*
 * The source hash of a revision, path classification, and main's first-parent history (§3).
 * Every git operation goes through libgit2, and the repository is only ever read (the source
 * hash is the id of a tree object that is hashed in memory, git_odb_hash, never written), but
 * for the re-bench's worktrees at the end.
 */
#include <errno.h>
#include <fcntl.h>
#include <git2.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store/store.h"
#include "ingest/config/config.h"
#include "ingest/repo/repo.h"

/* Sets err from libgit2's last error: "WHAT: DETAIL". */
static int git_fail(struct bl_error *err, int code, const char *what)
{
	const git_error *e = git_error_last();
	return bl_error_set(err, code, "%s: %s", what, e && e->message ? e->message : "failed");
}

/*
 * A shallow clone lacks the commits a walk, a merge base or a revision like HEAD~1 needs, and
 * libgit2 says only "object not found": when repo is shallow, say that instead ("WHAT: the
 * repository is shallow: ..."), else as git_fail.
 */
static int git_fail_shallow(struct bl_error *err, git_repository *repo, int code, const char *what)
{
	if (git_repository_is_shallow(repo) == 1)
		return bl_error_set(err, BL_EGIT,
				    "%s: the repository is shallow: fetch the full history "
				    "(actions/checkout: fetch-depth: 0)",
				    what);
	return git_fail(err, code, what);
}

static int open_repo(git_repository **out, const char *dir, struct bl_error *err)
{
	struct strbuf what = STRBUF_INIT;
	int rc;

	libgit2_start();
	rc = git_repository_open_ext(out, dir, 0, NULL);
	if (rc == GIT_ENOTFOUND)
		return bl_error_set(err, BL_ENOTFOUND, "'%s' is not a git repository", dir);
	if (rc < 0) {
		strbuf_addf(&what, "cannot open '%s'", dir);
		git_fail(err, BL_EGIT, what.buf);
		strbuf_release(&what);
		return BL_EGIT;
	}
	return 0;
}

/* One measured entry of a root tree. */
struct source_entry {
	const char *name;
	size_t len;
	git_filemode_t mode;
	const git_oid *id;
};

/*
 * Computes source hashes for one configuration. Consecutive commits often share a root tree
 * (empty commits, reverts), so the last tree's answer is kept.
 */
struct source_hasher {
	git_repository *repo;
	const struct config *cfg;
	struct source_entry *entries; /* n_measured slots */
	struct strbuf buf;
	int have_last;
	git_oid last_tree, last_hash;
};

static void hasher_init(struct source_hasher *h, git_repository *repo, const struct config *cfg)
{
	memset(h, 0, sizeof(*h));
	h->repo = repo;
	h->cfg = cfg;
	h->entries = xcalloc(cfg->n_measured + 1, sizeof(*h->entries));
	strbuf_init(&h->buf, 0);
}

static void hasher_release(struct source_hasher *h)
{
	free(h->entries);
	strbuf_release(&h->buf);
}

/* git's tree order: names compare bytewise, a tree's name as if it ended in '/'. */
static int entry_cmp(const void *va, const void *vb)
{
	const struct source_entry *a = va, *b = vb;
	size_t n = a->len < b->len ? a->len : b->len;
	int cmp = memcmp(a->name, b->name, n), ca, cb;
	if (cmp)
		return cmp;
	ca = a->len > n ? (unsigned char)a->name[n] : (a->mode == GIT_FILEMODE_TREE ? '/' : 0);
	cb = b->len > n ? (unsigned char)b->name[n] : (b->mode == GIT_FILEMODE_TREE ? '/' : 0);
	return ca - cb;
}

/* The source hash of the commit whose root tree is tree_id. */
static int hasher_tree(git_oid *out, struct source_hasher *h, const git_oid *tree_id,
		       struct bl_error *err)
{
	git_tree *tree = NULL;
	size_t n = 0;
	char hex[GIT_OID_HEXSZ + 1];

	if (!h->cfg->measured_paths) {
		git_oid_cpy(out, tree_id); /* every top-level path is measured */
		return 0;
	}
	if (h->have_last && git_oid_equal(&h->last_tree, tree_id)) {
		git_oid_cpy(out, &h->last_hash);
		return 0;
	}
	if (git_tree_lookup(&tree, h->repo, tree_id) < 0) {
		struct strbuf what = STRBUF_INIT;
		strbuf_addf(&what, "cannot read tree %s", git_oid_tostr(hex, sizeof(hex), tree_id));
		git_fail(err, BL_EGIT, what.buf);
		strbuf_release(&what);
		return BL_EGIT;
	}
	for (size_t i = 0; i < h->cfg->n_measured; i++) {
		const git_tree_entry *e = git_tree_entry_byname(tree, h->cfg->measured_paths[i]);
		if (!e)
			continue;
		h->entries[n].name = git_tree_entry_name(e);
		h->entries[n].len = strlen(h->entries[n].name);
		h->entries[n].mode = git_tree_entry_filemode(e);
		h->entries[n].id = git_tree_entry_id(e);
		n++;
	}
	if (n > 1)
		qsort(h->entries, n, sizeof(*h->entries), entry_cmp);
	/* The raw tree object: "MODE NAME\0" and the 20-byte id, per entry. */
	strbuf_reset(&h->buf);
	for (size_t i = 0; i < n; i++) {
		strbuf_addf(&h->buf, "%o ", (unsigned)h->entries[i].mode);
		strbuf_add(&h->buf, h->entries[i].name, h->entries[i].len + 1);
		strbuf_add(&h->buf, h->entries[i].id->id, GIT_OID_RAWSZ);
	}
	git_odb_hash(out, h->buf.buf, h->buf.len, GIT_OBJECT_TREE);
	git_tree_free(tree);
	git_oid_cpy(&h->last_tree, tree_id);
	git_oid_cpy(&h->last_hash, out);
	h->have_last = 1;
	return 0;
}

int repo_source_hash_revs(char (*out_hashes)[41], char (*out_commits)[41], const char *repo_dir,
			  const struct config *cfg, const char *const *revs, size_t nrevs,
			  struct bl_error *err)
{
	git_repository *repo = NULL;
	struct source_hasher h;
	int ret;

	if ((ret = open_repo(&repo, repo_dir, err)))
		return ret;
	hasher_init(&h, repo, cfg);
	for (size_t i = 0; i < nrevs; i++) {
		git_object *obj = NULL, *commit = NULL;
		git_oid hash;
		int rc = git_revparse_single(&obj, repo, revs[i]);
		if (rc == GIT_EAMBIGUOUS) {
			ret = bl_error_set(err, BL_EINVALID,
					   "cannot resolve '%s' in '%s': ambiguous short id",
					   revs[i], repo_dir);
			goto done;
		}
		if (rc < 0 && git_repository_is_shallow(repo) == 1) {
			struct strbuf what = STRBUF_INIT;
			strbuf_addf(&what, "cannot resolve '%s' in '%s'", revs[i], repo_dir);
			ret = git_fail_shallow(err, repo, BL_ENOTFOUND, what.buf);
			strbuf_release(&what);
			goto done;
		}
		if (rc < 0) {
			ret = bl_error_set(err, BL_ENOTFOUND, "cannot resolve '%s' in '%s'",
					   revs[i], repo_dir);
			goto done;
		}
		rc = git_object_peel(&commit, obj, GIT_OBJECT_COMMIT);
		git_object_free(obj);
		if (rc < 0) {
			ret = bl_error_set(err, BL_EINVALID, "'%s' in '%s' is not a commit",
					   revs[i], repo_dir);
			goto done;
		}
		ret = hasher_tree(&hash, &h, git_commit_tree_id((git_commit *)commit), err);
		git_oid_tostr(out_commits[i], 41, git_object_id(commit));
		git_object_free(commit);
		if (ret) {
			bl_error_prefix(err, "'%s' in '%s'", revs[i], repo_dir);
			goto done;
		}
		git_oid_tostr(out_hashes[i], 41, &hash);
	}
done:
	hasher_release(&h);
	git_repository_free(repo);
	return ret;
}

static int listed(char *const *list, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], s))
			return 1;
	return 0;
}

int repo_paths_unclassified(char ***out, size_t *nr, const char *repo_dir, const struct config *cfg,
			    struct bl_error *err)
{
	git_repository *repo = NULL;
	git_object *obj = NULL;
	char **list = NULL;
	size_t n = 0, alloc = 0;
	int ret;

	*out = NULL;
	*nr = 0;
	if ((ret = open_repo(&repo, repo_dir, err)))
		return ret;
	/* Without a list every path is measured; an unborn HEAD has no paths yet. */
	if (!cfg->measured_paths || git_repository_head_unborn(repo) == 1)
		goto done;
	if (git_revparse_single(&obj, repo, "HEAD^{tree}") < 0) {
		ret = bl_error_set(err, BL_ENOTFOUND, "cannot resolve 'HEAD' in '%s'", repo_dir);
		goto done;
	}
	for (size_t i = 0; i < git_tree_entrycount((git_tree *)obj); i++) {
		const char *name = git_tree_entry_name(git_tree_entry_byindex((git_tree *)obj, i));
		if (listed(cfg->measured_paths, cfg->n_measured, name) ||
		    listed(cfg->unmeasured_paths, cfg->n_unmeasured, name))
			continue;
		ALLOC_GROW(list, n + 1, alloc);
		list[n++] = xstrdup(name);
	}
done:
	if (!ret) {
		if (!list)
			list = xcalloc(1, sizeof(*list));
		list[n] = NULL;
		*out = list;
		*nr = n;
	} else {
		strings_free(list, n);
	}
	git_object_free(obj);
	git_repository_free(repo);
	return ret;
}

/* Finds refs/heads/NAME, else refs/remotes/origin/NAME. */
static int lookup_branch(git_reference **out, git_repository *repo, const char *name)
{
	struct strbuf ref = STRBUF_INIT;
	int rc;
	strbuf_addf(&ref, "refs/heads/%s", name);
	rc = git_reference_lookup(out, repo, ref.buf);
	if (rc == GIT_ENOTFOUND || rc == GIT_EINVALIDSPEC) {
		strbuf_reset(&ref);
		strbuf_addf(&ref, "refs/remotes/origin/%s", name);
		rc = git_reference_lookup(out, repo, ref.buf);
	}
	strbuf_release(&ref);
	return rc;
}

/* The branch origin/HEAD names, in name_out; 0 when there is none. */
static int origin_head(struct strbuf *name_out, git_repository *repo)
{
	static const char prefix[] = "refs/remotes/origin/";
	git_reference *ref = NULL;
	const char *target;
	int found = 0;
	if (git_reference_lookup(&ref, repo, "refs/remotes/origin/HEAD") < 0)
		return 0;
	target = git_reference_symbolic_target(ref);
	if (target && !strncmp(target, prefix, strlen(prefix)) && target[strlen(prefix)] &&
	    strcmp(target + strlen(prefix), "HEAD")) {
		strbuf_addstr(name_out, target + strlen(prefix));
		found = 1;
	}
	git_reference_free(ref);
	return found;
}

/*
 * Main's branch (§3): benchline.json's main_branch, else the branch origin/HEAD names, else
 * main, else master; each as a local branch, else origin's remote-tracking one.
 */
static int resolve_main(git_oid *tip_out, struct strbuf *name_out, git_repository *repo,
			const char *repo_dir, const struct config *cfg, struct bl_error *err)
{
	struct strbuf origin = STRBUF_INIT;
	const char *candidates[3];
	size_t n = 0;
	git_reference *ref = NULL;
	git_object *commit = NULL;
	int rc = GIT_ENOTFOUND, ret = 0;

	if (cfg->main_branch) {
		candidates[n++] = cfg->main_branch;
	} else {
		if (origin_head(&origin, repo))
			candidates[n++] = origin.buf;
		candidates[n++] = "main";
		candidates[n++] = "master";
	}
	for (size_t i = 0; i < n; i++) {
		rc = lookup_branch(&ref, repo, candidates[i]);
		if (rc == 0) {
			strbuf_addstr(name_out, candidates[i]);
			break;
		}
		if (rc != GIT_ENOTFOUND && rc != GIT_EINVALIDSPEC) {
			ret = git_fail(err, BL_EGIT, "cannot read branches");
			bl_error_prefix(err, "'%s'", repo_dir);
			goto done;
		}
	}
	if (rc) {
		if (cfg->main_branch)
			ret = bl_error_set(
			    err, BL_ENOTFOUND, "no branch '%s' in '%s' (main_branch in %s)",
			    cfg->main_branch, repo_dir, cfg->path ? cfg->path : "benchline.json");
		else
			ret = bl_error_set(err, BL_ENOTFOUND,
					   "'%s' has no main branch: no origin/HEAD, 'main' or "
					   "'master' (set main_branch in benchline.json)",
					   repo_dir);
		goto done;
	}
	if (git_reference_peel(&commit, ref, GIT_OBJECT_COMMIT) < 0) {
		ret = bl_error_set(err, BL_EGIT, "branch '%s' in '%s' does not name a commit",
				   name_out->buf, repo_dir);
		goto done;
	}
	git_oid_cpy(tip_out, git_object_id(commit));
done:
	git_object_free(commit);
	git_reference_free(ref);
	strbuf_release(&origin);
	return ret;
}

long repo_pr_from_subject(const char *subject)
{
	static const char merge[] = "Merge pull request #";
	const char *p, *end;
	long pr = 0;
	int digits = 0;

	if (!subject)
		return 0;
	if (!strncmp(subject, merge, strlen(merge))) {
		for (p = subject + strlen(merge); *p >= '0' && *p <= '9' && digits < 10;
		     p++, digits++)
			pr = pr * 10 + (*p - '0');
		if (digits && digits < 10 && (!*p || *p == ' '))
			return pr;
		return 0;
	}
	/* A squash merge: "Subject (#123)", maybe with trailing blanks. */
	end = subject + strlen(subject);
	while (end > subject && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - subject < 4 || end[-1] != ')')
		return 0;
	p = end - 1;
	while (p > subject && p[-1] >= '0' && p[-1] <= '9')
		p--;
	digits = (int)(end - 1 - p);
	if (!digits || digits > 9 || p - subject < 2 || p[-1] != '#' || p[-2] != '(')
		return 0;
	for (; p < end - 1; p++)
		pr = pr * 10 + (*p - '0');
	return pr;
}

/* One commit read from git, waiting to be stored. */
struct walked_commit {
	struct store_commit c;
	char *subject;
};

static void walked_release(struct walked_commit *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i].subject);
	free(list);
}

/* The measured list as stored in meta (so a changed list recomputes every source hash). */
static char *measured_key(const struct config *cfg)
{
	json_t *arr;
	char **sorted;
	char *out;
	if (!cfg->measured_paths)
		return xstrdup("null");
	sorted = xcalloc(cfg->n_measured + 1, sizeof(*sorted));
	memcpy(sorted, cfg->measured_paths, cfg->n_measured * sizeof(*sorted));
	qsort(sorted, cfg->n_measured, sizeof(*sorted), cmp_strp);
	arr = json_array();
	for (size_t i = 0; i < cfg->n_measured; i++)
		json_array_append_new(arr, json_string(sorted[i]));
	out = json_write_text(arr, 0);
	json_decref(arr);
	free(sorted);
	return out;
}

/* Reads one commit into w: sha, parent, source hash, time, subject, pull request. */
static int load_commit(struct walked_commit *w, git_commit **out, struct source_hasher *h,
		       const git_oid *id, const char *repo_dir, struct bl_error *err)
{
	char hex[GIT_OID_HEXSZ + 1];
	git_oid hash;
	const char *summary;
	int rc, ret;

	memset(w, 0, sizeof(*w));
	git_oid_tostr(hex, sizeof(hex), id);
	rc = git_commit_lookup(out, h->repo, id);
	if (rc == GIT_ENOTFOUND && git_repository_is_shallow(h->repo) == 1) {
		struct strbuf what = STRBUF_INIT;
		strbuf_addf(&what, "commit %s is missing from '%s'", hex, repo_dir);
		git_fail_shallow(err, h->repo, BL_EGIT, what.buf);
		strbuf_release(&what);
		return BL_EGIT;
	}
	if (rc == GIT_ENOTFOUND)
		return bl_error_set(err, BL_EGIT,
				    "commit %s is missing from '%s' (a shallow clone? fetch the "
				    "whole history)",
				    hex, repo_dir);
	if (rc < 0) {
		struct strbuf what = STRBUF_INIT;
		strbuf_addf(&what, "cannot read commit %s in '%s'", hex, repo_dir);
		git_fail(err, BL_EGIT, what.buf);
		strbuf_release(&what);
		return BL_EGIT;
	}
	if ((ret = hasher_tree(&hash, h, git_commit_tree_id(*out), err))) {
		bl_error_prefix(err, "commit %s in '%s'", hex, repo_dir);
		return ret;
	}
	memcpy(w->c.sha, hex, sizeof(hex));
	git_oid_tostr(w->c.source_hash, sizeof(w->c.source_hash), &hash);
	if (git_commit_parentcount(*out) > 0)
		git_oid_tostr(w->c.parent, sizeof(w->c.parent), git_commit_parent_id(*out, 0));
	w->c.committed_at = (int64_t)git_commit_time(*out);
	summary = git_commit_summary(*out);
	w->subject = xstrdup(summary ? summary : "");
	w->c.subject = w->subject;
	w->c.pr = repo_pr_from_subject(w->subject);
	return 0;
}

/*
 * Walks first parents from the tip until a stored commit (its seq in *met_seq) or the root
 * (*met_seq -1). The commits read are in *list, newest first. known 0 skips the store lookups
 * (nothing stored, or everything is to be recomputed).
 */
static int walk_new(struct walked_commit **list, size_t *nr, int64_t *met_seq,
		    struct source_hasher *h, struct store *st, int known, const git_oid *tip,
		    const char *repo_dir, struct bl_error *err)
{
	size_t alloc = 0;
	git_oid id;
	int ret = 0;

	*list = NULL;
	*nr = 0;
	*met_seq = -1;
	git_oid_cpy(&id, tip);
	for (;;) {
		git_commit *commit = NULL;
		if (known) {
			char hex[GIT_OID_HEXSZ + 1];
			int64_t seq;
			git_oid_tostr(hex, sizeof(hex), &id);
			if ((ret = store_commit_seq(&seq, st, hex, err)))
				return ret;
			if (seq >= 0) {
				*met_seq = seq;
				return 0;
			}
		}
		ALLOC_GROW(*list, *nr, alloc);
		ret = load_commit(&(*list)[*nr], &commit, h, &id, repo_dir, err);
		if (ret) {
			git_commit_free(commit);
			return ret;
		}
		(*nr)++;
		if (git_commit_parentcount(commit) == 0) {
			git_commit_free(commit);
			return 0;
		}
		git_oid_cpy(&id, git_commit_parent_id(commit, 0));
		git_commit_free(commit);
	}
}

/* Whether the walked chain (newest first) holds sha at position seq: nothing was dropped. */
static int chain_holds(const struct walked_commit *list, size_t nr, const char *sha, int64_t seq)
{
	if (seq < 0 || (uint64_t)seq >= nr)
		return 0;
	return !strcmp(list[nr - 1 - (size_t)seq].c.sha, sha);
}

int repo_sync(struct repo_sync_result *out, struct store *st, const char *repo_dir,
	      const struct config *cfg, struct bl_error *err)
{
	git_repository *repo = NULL;
	struct source_hasher h;
	struct strbuf branch = STRBUF_INIT;
	struct walked_commit *list = NULL;
	size_t nr = 0;
	git_oid tip;
	char tip_hex[GIT_OID_HEXSZ + 1], stored_tip[41];
	char *measured = measured_key(cfg), *stored_measured = NULL;
	int64_t stored_seq = -1, met_seq, base, total;
	int found, known, in_tx = 0, ret;

	memset(out, 0, sizeof(*out));
	if ((ret = open_repo(&repo, repo_dir, err))) {
		free(measured);
		return ret;
	}
	hasher_init(&h, repo, cfg);
	if ((ret = resolve_main(&tip, &branch, repo, repo_dir, cfg, err)))
		goto done;
	git_oid_tostr(tip_hex, sizeof(tip_hex), &tip);

	if ((ret = store_begin(st, err)))
		goto done;
	in_tx = 1;
	if ((ret = store_commit_tip(&found, stored_tip, &stored_seq, st, err)) ||
	    (ret = store_get_meta(&stored_measured, st, "measured_paths", err)))
		goto done;
	/* Stored source hashes of another measured list are all stale: recompute them. */
	known = found && stored_measured && !strcmp(stored_measured, measured);
	if ((ret = walk_new(&list, &nr, &met_seq, &h, st, known, &tip, repo_dir, err)))
		goto done;
	out->walked = nr;

	if (met_seq >= 0) {
		base = met_seq;
		if (met_seq != stored_seq) {
			/* main was rewritten: what followed the fork is gone */
			if ((ret = store_delete_commits_after(st, met_seq, err)))
				goto done;
			out->rewritten = 1;
		}
	} else {
		base = -1;
		if (found) {
			if ((ret = store_delete_commits_after(st, -1, err)))
				goto done;
			out->rewritten = !chain_holds(list, nr, stored_tip, stored_seq);
		}
	}
	for (size_t i = nr; i-- > 0;) {
		list[i].c.seq = ++base;
		if ((ret = store_insert_commit(st, &list[i].c, err)))
			goto done;
	}
	if ((ret = store_set_meta(st, "main_branch", branch.buf, err)) ||
	    (ret = store_set_meta(st, "synced_tip", tip_hex, err)) ||
	    (ret = store_set_meta(st, "measured_paths", measured, err)))
		goto done;
	for (size_t i = 0; i < cfg->n_keep_first; i++)
		if ((ret = store_set_machine_keep(st, cfg->keep_first_machines[i], 1, err)))
			goto done;
	if ((ret = store_refresh_not_main(st, err)) || (ret = store_commit_count(&total, st, err)))
		goto done;
	in_tx = 0;
	if ((ret = store_commit(st, err)))
		goto done;
	out->total = (size_t)total;
	memcpy(out->tip, tip_hex, sizeof(out->tip));
	if (branch.len >= sizeof(out->branch))
		strbuf_setlen(&branch, sizeof(out->branch) - 1);
	memcpy(out->branch, branch.buf, branch.len + 1);
done:
	if (in_tx)
		store_rollback(st);
	if (ret) {
		out->walked = 0;
		out->rewritten = 0;
	}
	walked_release(list, nr);
	free(measured);
	free(stored_measured);
	strbuf_release(&branch);
	hasher_release(&h);
	git_repository_free(repo);
	return ret;
}

/* Whether the working tree or the index differs from HEAD in the measured paths (untracked
 * files there count: they can change a build; ignored files do not). */
static int measured_dirty(int *out, git_repository *repo, const struct config *cfg,
			  struct bl_error *err)
{
	git_status_options opts;
	git_status_list *list = NULL;
	int rc;

	*out = 0;
	git_status_options_init(&opts, GIT_STATUS_OPTIONS_VERSION);
	if (git_repository_is_bare(repo))
		return 0;
	opts.show = GIT_STATUS_SHOW_INDEX_AND_WORKDIR;
	opts.flags = GIT_STATUS_OPT_INCLUDE_UNTRACKED | GIT_STATUS_OPT_EXCLUDE_SUBMODULES;
	if (cfg->measured_paths) {
		opts.pathspec.strings = cfg->measured_paths;
		opts.pathspec.count = cfg->n_measured;
	}
	if ((rc = git_status_list_new(&list, repo, &opts)) < 0)
		return git_fail(err, BL_EGIT, "cannot read the working tree's status");
	*out = git_status_list_entrycount(list) > 0;
	git_status_list_free(list);
	return 0;
}

int repo_read_head(struct repo_head *out, const char *repo_dir, const struct config *cfg,
		   struct bl_error *err)
{
	git_repository *repo = NULL;
	git_reference *head = NULL;
	git_commit *commit = NULL;
	struct source_hasher h;
	git_oid hash;
	int ret;

	memset(out, 0, sizeof(*out));
	if ((ret = open_repo(&repo, repo_dir, err)))
		return ret;
	hasher_init(&h, repo, cfg);
	if (git_repository_head(&head, repo) < 0 ||
	    git_commit_lookup(&commit, repo, git_reference_target(head)) < 0) {
		ret = bl_error_set(err, BL_ENOTFOUND, "'%s' has no commit at HEAD", repo_dir);
		goto done;
	}
	if ((ret = hasher_tree(&hash, &h, git_commit_tree_id(commit), err)))
		goto done;
	git_oid_tostr(out->commit, sizeof(out->commit), git_commit_id(commit));
	git_oid_tostr(out->source_hash, sizeof(out->source_hash), &hash);
	out->committed_at = (double)git_commit_time(commit);
	if (git_reference_is_branch(head)) {
		const char *name = git_reference_shorthand(head);
		if (strlen(name) < sizeof(out->branch))
			memcpy(out->branch, name, strlen(name) + 1);
	}
	ret = measured_dirty(&out->dirty, repo, cfg, err);
done:
	git_commit_free(commit);
	git_reference_free(head);
	hasher_release(&h);
	git_repository_free(repo);
	return ret;
}

/* --- The gate's view of a repository (§7) --- */

struct repo {
	git_repository *repo;
	char *dir;
	struct source_hasher hasher;
	int worktree_lock; /* flock on .benchline/worktrees/.lock, -1 until repo_worktree */
};

int repo_open(struct repo **out, const char *repo_dir, const struct config *cfg,
	      struct bl_error *err)
{
	struct repo *r = xcalloc(1, sizeof(*r));
	int ret;
	*out = NULL;
	if ((ret = open_repo(&r->repo, repo_dir, err))) {
		free(r);
		return ret;
	}
	r->dir = xstrdup(repo_dir);
	r->worktree_lock = -1;
	hasher_init(&r->hasher, r->repo, cfg);
	*out = r;
	return 0;
}

void repo_free(struct repo *r)
{
	if (!r)
		return;
	if (r->worktree_lock >= 0)
		close(r->worktree_lock); /* releases the flock */
	hasher_release(&r->hasher);
	git_repository_free(r->repo);
	free(r->dir);
	free(r);
}

static int commit_source(char source_out[41], struct repo *r, const git_commit *c,
			 struct bl_error *err)
{
	git_oid hash;
	int ret = hasher_tree(&hash, &r->hasher, git_commit_tree_id(c), err);
	if (!ret)
		git_oid_tostr(source_out, 41, &hash);
	return ret;
}

int repo_resolve(char sha_out[41], char source_out[41], struct strbuf *name_out, struct repo *r,
		 const char *rev, struct bl_error *err)
{
	git_object *obj = NULL;
	git_commit *commit = NULL;
	git_oid oid;
	int ret = 0, rc;

	if (!rev) {
		struct strbuf name = STRBUF_INIT;
		ret = resolve_main(&oid, &name, r->repo, r->dir, r->hasher.cfg, err);
		if (!ret && name_out)
			strbuf_addstr(name_out, name.buf);
		strbuf_release(&name);
		if (ret)
			return ret;
	} else {
		rc = git_revparse_single(&obj, r->repo, rev);
		if (rc == GIT_EAMBIGUOUS)
			return bl_error_set(err, BL_EINVALID,
					    "cannot resolve '%s' in '%s': ambiguous short id", rev,
					    r->dir);
		if (rc < 0 && git_repository_is_shallow(r->repo) == 1) {
			struct strbuf what = STRBUF_INIT;
			strbuf_addf(&what, "cannot resolve '%s' in '%s'", rev, r->dir);
			git_fail_shallow(err, r->repo, BL_ENOTFOUND, what.buf);
			strbuf_release(&what);
			return BL_ENOTFOUND;
		}
		if (rc < 0)
			return bl_error_set(err, BL_ENOTFOUND, "cannot resolve '%s' in '%s'", rev,
					    r->dir);
		rc = git_object_peel((git_object **)&commit, obj, GIT_OBJECT_COMMIT);
		git_object_free(obj);
		if (rc < 0)
			return bl_error_set(err, BL_EINVALID, "'%s' in '%s' is not a commit", rev,
					    r->dir);
		git_oid_cpy(&oid, git_commit_id(commit));
		git_commit_free(commit);
		commit = NULL;
		if (name_out)
			strbuf_addstr(name_out, rev);
	}
	if (git_commit_lookup(&commit, r->repo, &oid) < 0)
		return git_fail(err, BL_EGIT, "cannot read a commit");
	git_oid_tostr(sha_out, 41, &oid);
	ret = commit_source(source_out, r, commit, err);
	git_commit_free(commit);
	return ret;
}

int repo_rev_is_plain(const char *rev)
{
	size_t n = rev ? strlen(rev) : 0;
	char normalized[256];
	if (!n)
		return 0;
	if (n >= 4 && n <= 40 && strspn(rev, "0123456789abcdefABCDEF") == n)
		return 1;
	/* The rule git applies to a new branch's name: no ~ ^ : ? * [ or backslash, no "..",
	 * no "@{", no control characters or spaces. */
	return git_reference_normalize_name(normalized, sizeof(normalized), rev,
					    GIT_REFERENCE_FORMAT_ALLOW_ONELEVEL |
						GIT_REFERENCE_FORMAT_REFSPEC_SHORTHAND) == 0 &&
	       !strcmp(normalized, rev);
}

int repo_commit_subject(struct strbuf *out, struct repo *r, const char *sha, struct bl_error *err)
{
	git_commit *commit = NULL;
	const char *summary;
	git_oid oid;
	if (git_oid_fromstr(&oid, sha) < 0)
		return bl_error_set(err, BL_EINVALID, "'%s' is not a commit id", sha);
	if (git_commit_lookup(&commit, r->repo, &oid) < 0)
		return bl_error_set(err, BL_ENOTFOUND, "no commit %s in '%s'", sha, r->dir);
	summary = git_commit_summary(commit);
	strbuf_addstr(out, summary ? summary : "");
	git_commit_free(commit);
	return 0;
}

int repo_merge_base(char sha_out[41], char source_out[41], struct repo *r, const char *a,
		    const char *b, struct bl_error *err)
{
	git_oid oa, ob, base;
	git_commit *commit = NULL;
	int rc, ret;
	if (git_oid_fromstr(&oa, a) < 0 || git_oid_fromstr(&ob, b) < 0)
		return bl_error_set(err, BL_EINVALID, "not a commit id: '%s' or '%s'", a, b);
	rc = git_merge_base(&base, r->repo, &oa, &ob);
	if (rc == GIT_ENOTFOUND)
		return bl_error_set(err, BL_ENOTFOUND, "%.12s and %.12s in '%s' share no history",
				    a, b, r->dir);
	if (rc < 0)
		return git_fail_shallow(err, r->repo, BL_EGIT, "cannot find the merge base");
	if (git_commit_lookup(&commit, r->repo, &base) < 0)
		return git_fail(err, BL_EGIT, "cannot read the merge base");
	git_oid_tostr(sha_out, 41, &base);
	ret = commit_source(source_out, r, commit, err);
	git_commit_free(commit);
	return ret;
}

int repo_checkout(char sha_out[41], struct repo *r)
{
	git_oid oid;
	sha_out[0] = 0;
	if (git_repository_is_bare(r->repo) || git_reference_name_to_id(&oid, r->repo, "HEAD") < 0)
		return 0;
	git_oid_tostr(sha_out, 41, &oid);
	return 1;
}

const char *repo_workdir(struct repo *r)
{
	return git_repository_workdir(r->repo);
}

int repo_read_file(struct strbuf *out, int *found, struct repo *r, const char *commit_sha,
		   const char *path, size_t cap, struct bl_error *err)
{
	git_oid oid;
	git_commit *commit = NULL;
	git_tree *tree = NULL;
	git_tree_entry *entry = NULL;
	git_blob *blob = NULL;
	int ret = 0;

	*found = 0;
	if (git_oid_fromstr(&oid, commit_sha) < 0 ||
	    git_commit_lookup(&commit, r->repo, &oid) < 0 || git_commit_tree(&tree, commit) < 0) {
		ret = git_fail(err, BL_EGIT, "cannot read a commit");
		goto done;
	}
	if (git_tree_entry_bypath(&entry, tree, path) < 0 ||
	    git_tree_entry_type(entry) != GIT_OBJECT_BLOB)
		goto done;
	if (git_blob_lookup(&blob, r->repo, git_tree_entry_id(entry)) < 0) {
		ret = git_fail(err, BL_EGIT, "cannot read a file");
		goto done;
	}
	if ((size_t)git_blob_rawsize(blob) > cap) {
		ret = bl_error_set(err, BL_ETOOBIG, "'%s' at %.12s is over %zu bytes", path,
				   commit_sha, cap);
		goto done;
	}
	strbuf_add(out, git_blob_rawcontent(blob), (size_t)git_blob_rawsize(blob));
	*found = 1;
done:
	git_blob_free(blob);
	git_tree_entry_free(entry);
	git_tree_free(tree);
	git_commit_free(commit);
	return ret;
}

/* One step of a first-parent history: a source hash not seen nearer the start. */
struct history_step {
	char source_hash[41];
	char commit[41]; /* the newest commit with that source hash */
};

struct repo_history {
	struct repo *repo;
	git_commit *next; /* the next commit to read, NULL at the root */
	struct history_step *steps;
	size_t nr, alloc;
	size_t walked, max_commits;
	/* Source hashes already taken, so a revert to an older tree is not counted twice. */
	char (*seen)[41];
	size_t nseen, seen_alloc;
};

int repo_history_open(struct repo_history **out, struct repo *r, const char *commit_sha,
		      size_t max_commits, struct bl_error *err)
{
	struct repo_history *h;
	git_oid oid;
	*out = NULL;
	if (git_oid_fromstr(&oid, commit_sha) < 0)
		return bl_error_set(err, BL_EINVALID, "not a commit id: '%s'", commit_sha);
	h = xcalloc(1, sizeof(*h));
	h->repo = r;
	h->max_commits = max_commits;
	if (git_commit_lookup(&h->next, r->repo, &oid) < 0) {
		free(h);
		return git_fail(err, BL_EGIT, "cannot read a commit");
	}
	*out = h;
	return 0;
}

void repo_history_free(struct repo_history *h)
{
	if (!h)
		return;
	git_commit_free(h->next);
	free(h->steps);
	free(h->seen);
	free(h);
}

static int history_seen(struct repo_history *h, const char *hash)
{
	for (size_t i = 0; i < h->nseen; i++)
		if (!memcmp(h->seen[i], hash, 40))
			return 1;
	return 0;
}

int repo_history_get(const char **source_out, const char **commit_out, struct repo_history *h,
		     size_t i, struct bl_error *err)
{
	while (h->nr <= i) {
		char hash[41];
		git_commit *parent = NULL;
		int ret;
		if (!h->next || h->walked >= h->max_commits)
			return 1;
		if ((ret = commit_source(hash, h->repo, h->next, err)))
			return ret;
		h->walked++;
		if (!history_seen(h, hash)) {
			ALLOC_GROW(h->steps, h->nr, h->alloc);
			memcpy(h->steps[h->nr].source_hash, hash, 41);
			git_oid_tostr(h->steps[h->nr].commit, 41, git_commit_id(h->next));
			h->nr++;
			ALLOC_GROW(h->seen, h->nseen, h->seen_alloc);
			memcpy(h->seen[h->nseen++], hash, 41);
		}
		if (git_commit_parentcount(h->next) > 0 &&
		    git_commit_parent(&parent, h->next, 0) < 0)
			return git_fail_shallow(err, h->repo->repo, BL_EGIT,
						"cannot read a parent commit");
		git_commit_free(h->next);
		h->next = parent;
	}
	*source_out = h->steps[i].source_hash;
	if (commit_out)
		*commit_out = h->steps[i].commit;
	return 0;
}

int repo_toplevel(struct strbuf *out, const char *dir, struct bl_error *err)
{
	git_repository *repo = NULL;
	const char *workdir;
	int ret = open_repo(&repo, dir, err);
	if (ret)
		return ret;
	workdir = git_repository_workdir(repo);
	if (workdir) {
		size_t len = strlen(workdir);
		while (len > 1 && workdir[len - 1] == '/')
			len--;
		strbuf_add(out, workdir, len);
	} else {
		strbuf_addstr(out, dir);
	}
	git_repository_free(repo);
	return 0;
}

/* --- Worktrees for the re-bench (§9) --- */

const char *repo_side_name(enum repo_side side)
{
	return side == REPO_SIDE_B ? "b" : "a";
}

/* mkdir that accepts a directory already there: 0, or BL_EIO naming the path. A symlink is
 * never followed (§13): a committed .benchline link would send the worktrees, and what their
 * builds write, outside the repository. */
static int make_dir(int *created, const char *path, struct bl_error *err)
{
	struct stat st;
	*created = 0;
	if (mkdir(path, 0777) == 0) {
		*created = 1;
		return 0;
	}
	if (errno != EEXIST)
		return bl_error_set(err, BL_EIO, "cannot create '%s': %s", path, strerror(errno));
	if (lstat(path, &st) == 0 && S_ISLNK(st.st_mode))
		return bl_error_set(err, BL_EINVALID,
				    "'%s' is a symbolic link, never followed: benchline keeps its "
				    "worktrees inside the repository (remove the link)",
				    path);
	if (lstat(path, &st) < 0 || !S_ISDIR(st.st_mode))
		return bl_error_set(err, BL_EIO, "'%s' is not a directory", path);
	return 0;
}

/* benchline's own lock on the worktrees under dir (.benchline/worktrees), taken once per
 * repository handle and held until repo_free: two commands on one checkout would check out
 * over each other's builds. Not waited for: the other command says who it is (its pid). */
static int lock_worktrees(struct repo *r, const char *dir, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, pid = STRBUF_INIT;
	int fd, ret = 0;

	if (r->worktree_lock >= 0)
		return 0;
	strbuf_addf(&path, "%s/.lock", dir);
	fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot open '%s': %s", path.buf, strerror(errno));
		goto done;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		ssize_t n;
		strbuf_grow(&pid, 32);
		n = pread(fd, pid.buf, 31, 0);
		strbuf_setlen(&pid, n > 0 ? (size_t)n : 0);
		while (pid.len && (pid.buf[pid.len - 1] == '\n' || pid.buf[pid.len - 1] == ' '))
			strbuf_setlen(&pid, pid.len - 1);
		ret = bl_error_set(
		    err, BL_EBUSY,
		    "another benchline (pid %s) is using the worktrees in '%s': "
		    "wait for it to end",
		    pid.len && strspn(pid.buf, "0123456789") == pid.len ? pid.buf : "?", dir);
		close(fd);
		goto done;
	}
	strbuf_addf(&pid, "%ld\n", (long)getpid());
	if (ftruncate(fd, 0) < 0 || pwrite(fd, pid.buf, pid.len, 0) < 0) {
		/* the pid is only for the message of a command that waits: not an error */
	}
	r->worktree_lock = fd;
done:
	strbuf_release(&path);
	strbuf_release(&pid);
	return ret;
}

/* Removes the lock files a command killed in the middle of a checkout leaves in a worktree's
 * git directory (index.lock, HEAD.lock): under lock_worktrees no other benchline is in it, so
 * they are stale, and git_checkout_tree would fail on them at every later re-bench. */
static void clear_stale_locks(git_repository *wrepo)
{
	static const char *const locks[] = {"index.lock", "HEAD.lock"};
	const char *gitdir = git_repository_path(wrepo);
	for (size_t i = 0; gitdir && i < sizeof(locks) / sizeof(*locks); i++) {
		struct strbuf path = STRBUF_INIT;
		struct stat st;
		strbuf_addf(&path, "%s%s%s", gitdir,
			    gitdir[0] && gitdir[strlen(gitdir) - 1] == '/' ? "" : "/", locks[i]);
		if (lstat(path.buf, &st) == 0 && S_ISREG(st.st_mode))
			unlink(path.buf);
		strbuf_release(&path);
	}
}

/* <root>/.benchline of the repository r opens (see repo_state_dir_at). */
static int repo_state_dir(struct strbuf *out, struct repo *r, struct bl_error *err)
{
	const char *workdir = git_repository_workdir(r->repo);
	if (!workdir)
		return bl_error_set(err, BL_EINVALID,
				    "'%s' is a bare repository: .benchline/ needs a working tree",
				    r->dir);
	return repo_state_dir_at(out, workdir, err);
}

int repo_state_dir_at(struct strbuf *out, const char *root, struct bl_error *err)
{
	struct strbuf dir = STRBUF_INIT, ignore = STRBUF_INIT;
	size_t len = strlen(root);
	int created, ret;
	strbuf_addf(&dir, "%s%s.benchline", root, len && root[len - 1] == '/' ? "" : "/");
	if ((ret = make_dir(&created, dir.buf, err)))
		goto done;
	/* Only a directory made here gets the .gitignore: one the user made is left as it is. */
	if (created) {
		strbuf_addf(&ignore, "%s/.gitignore", dir.buf);
		if ((ret = write_file_atomic(ignore.buf, "*\n", 2, err)))
			goto done;
	}
	strbuf_addstr(out, dir.buf);
done:
	strbuf_release(&dir);
	strbuf_release(&ignore);
	return ret;
}

/* 1 when wt is a valid worktree whose directory is path. */
static int worktree_at(git_worktree *wt, const char *path)
{
	char *a, *b;
	int same;
	if (git_worktree_validate(wt) < 0)
		return 0;
	a = realpath(git_worktree_path(wt), NULL);
	b = realpath(path, NULL);
	same = a && b && !strcmp(a, b);
	free(a);
	free(b);
	return same;
}

/* Makes the side's worktree at path, named name, with commit checked out. The worktree API
 * wants a branch for the new HEAD: a branch named as the worktree is made at commit, and
 * repo_worktree deletes it once HEAD is detached. */
static int worktree_add(git_worktree **out, struct repo *r, const char *name, const char *path,
			git_commit *commit, struct bl_error *err)
{
	git_worktree_add_options opts;
	git_reference *branch = NULL;
	struct strbuf what = STRBUF_INIT;
	struct stat st;
	int ret = 0;
	if (lstat(path, &st) == 0) {
		ret = bl_error_set(err, BL_EINVALID,
				   "'%s' is in the way of benchline's worktree: remove it", path);
		goto done;
	}
	/* force: a branch left by a run that stopped before deleting it is ours to move */
	if (git_branch_create(&branch, r->repo, name, commit, 1) < 0) {
		strbuf_addf(&what, "cannot make the branch '%s' for a worktree", name);
		ret = git_fail(err, BL_EGIT, what.buf);
		goto done;
	}
	git_worktree_add_options_init(&opts, GIT_WORKTREE_ADD_OPTIONS_VERSION);
	opts.ref = branch;
	opts.checkout_options.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_worktree_add(out, r->repo, name, path, &opts) < 0) {
		strbuf_addf(&what, "cannot add the worktree '%s'", path);
		ret = git_fail(err, BL_EGIT, what.buf);
	}
done:
	git_reference_free(branch);
	strbuf_release(&what);
	return ret;
}

int repo_worktree(struct strbuf *path_out, struct repo *r, const char *commit_sha,
		  enum repo_side side, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT, name = STRBUF_INIT, what = STRBUF_INIT;
	git_worktree *wt = NULL;
	git_repository *wrepo = NULL;
	git_commit *commit = NULL, *wcommit = NULL;
	git_reference *branch = NULL;
	git_checkout_options co;
	git_oid oid, key;
	char hex[GIT_OID_HEXSZ + 1];
	int created, ret;

	if (!is_hex40(commit_sha) || git_oid_fromstr(&oid, commit_sha) < 0)
		return bl_error_set(err, BL_EINVALID, "not a commit id: '%s'", commit_sha);
	if (git_commit_lookup(&commit, r->repo, &oid) < 0)
		return bl_error_set(err, BL_ENOTFOUND, "no commit %s in '%s'", commit_sha, r->dir);
	if ((ret = repo_state_dir(&path, r, err)))
		goto done;
	strbuf_addstr(&path, "/worktrees");
	if ((ret = make_dir(&created, path.buf, err)) || (ret = lock_worktrees(r, path.buf, err)))
		goto done;
	strbuf_addf(&path, "/%s", repo_side_name(side));
	/* Worktree names are shared by every checkout of the repository (git keeps them in the
	 * common directory), so the name carries a hash of this checkout's root. */
	git_odb_hash(&key, repo_workdir(r), strlen(repo_workdir(r)), GIT_OBJECT_BLOB);
	strbuf_addf(&name, "benchline-%s-%.12s", repo_side_name(side),
		    git_oid_tostr(hex, sizeof(hex), &key));

	if (git_worktree_lookup(&wt, r->repo, name.buf) == 0 &&
	    (!worktree_at(wt, path.buf) || git_repository_open_from_worktree(&wrepo, wt) < 0)) {
		/* Stale (its directory is gone, elsewhere, or no longer a worktree): forget it; no
		 * file is deleted. */
		git_worktree_prune_options po = GIT_WORKTREE_PRUNE_OPTIONS_INIT;
		po.flags = GIT_WORKTREE_PRUNE_VALID;
		if (git_worktree_prune(wt, &po) < 0) {
			strbuf_addf(&what, "cannot prune the stale worktree '%s'", name.buf);
			ret = git_fail(err, BL_EGIT, what.buf);
			goto done;
		}
		git_worktree_free(wt);
		wt = NULL;
	}
	if (!wt && (ret = worktree_add(&wt, r, name.buf, path.buf, commit, err)))
		goto done;
	if (!wrepo && git_repository_open_from_worktree(&wrepo, wt) < 0) {
		strbuf_addf(&what, "cannot open the worktree '%s'", path.buf);
		ret = git_fail(err, BL_EGIT, what.buf);
		goto done;
	}
	clear_stale_locks(wrepo);
	/* Forced: whatever the last build changed in tracked files goes; untracked files stay.
	 * The commit is looked up again through the worktree's own repository handle, as
	 * git_checkout_tree wants. */
	git_checkout_options_init(&co, GIT_CHECKOUT_OPTIONS_VERSION);
	co.checkout_strategy = GIT_CHECKOUT_FORCE;
	if (git_commit_lookup(&wcommit, wrepo, &oid) < 0 ||
	    git_checkout_tree(wrepo, (const git_object *)wcommit, &co) < 0 ||
	    git_repository_set_head_detached(wrepo, &oid) < 0) {
		strbuf_addf(&what, "cannot check out %.12s in '%s'", commit_sha, path.buf);
		ret = git_fail(err, BL_EGIT, what.buf);
		goto done;
	}
	/* The branch worktree_add needed (or one an interrupted run left) is not kept. Deleted
	 * as a reference: git_branch_create wrote no config for it, and git_branch_delete's
	 * config cleanup leaks pcre2 match data in libgit2 1.5. */
	if (git_branch_lookup(&branch, r->repo, name.buf, GIT_BRANCH_LOCAL) == 0 &&
	    git_reference_delete(branch) < 0) {
		strbuf_addf(&what, "cannot delete the branch '%s'", name.buf);
		ret = git_fail(err, BL_EGIT, what.buf);
		goto done;
	}
	strbuf_addstr(path_out, path.buf);
done:
	git_reference_free(branch);
	git_commit_free(wcommit);
	git_repository_free(wrepo);
	git_worktree_free(wt);
	git_commit_free(commit);
	strbuf_release(&path);
	strbuf_release(&name);
	strbuf_release(&what);
	return ret;
}

int repo_source_first_commit(char sha_out[41], struct repo *r, const char *commit_sha,
			     struct bl_error *err)
{
	git_commit *c = NULL;
	char source[41], parent_source[41];
	git_oid oid;
	int ret;

	if (git_oid_fromstr(&oid, commit_sha) < 0)
		return bl_error_set(err, BL_EINVALID, "not a commit id: '%s'", commit_sha);
	if (git_commit_lookup(&c, r->repo, &oid) < 0)
		return git_fail(err, BL_EGIT, "cannot read a commit");
	if ((ret = commit_source(source, r, c, err)))
		goto done;
	while (git_commit_parentcount(c) > 0) {
		git_commit *parent = NULL;
		if (git_commit_parent(&parent, c, 0) < 0) {
			ret =
			    git_fail_shallow(err, r->repo, BL_EGIT, "cannot read a parent commit");
			goto done;
		}
		if ((ret = commit_source(parent_source, r, parent, err)) ||
		    strcmp(parent_source, source)) {
			git_commit_free(parent);
			break;
		}
		git_commit_free(c);
		c = parent;
	}
	if (!ret)
		git_oid_tostr(sha_out, 41, git_commit_id(c));
done:
	git_commit_free(c);
	return ret;
}

int repo_first_parent_range(struct repo_commit **out, size_t *nr, struct repo *r,
			    const char *good_sha, const char *bad_sha, struct bl_error *err)
{
	struct repo_commit *list = NULL;
	size_t n = 0, alloc = 0;
	git_commit *c = NULL;
	git_oid oid;
	int ret = 0, found = 0;

	*out = NULL;
	*nr = 0;
	if (git_oid_fromstr(&oid, bad_sha) < 0)
		return bl_error_set(err, BL_EINVALID, "not a commit id: '%s'", bad_sha);
	if (git_commit_lookup(&c, r->repo, &oid) < 0)
		return git_fail(err, BL_EGIT, "cannot read a commit");
	while (c) {
		git_commit *parent = NULL;
		char sha[41];
		git_oid_tostr(sha, sizeof(sha), git_commit_id(c));
		if (!strcmp(sha, good_sha)) {
			found = 1;
			break;
		}
		ALLOC_GROW(list, n, alloc);
		memcpy(list[n].sha, sha, 41);
		if ((ret = commit_source(list[n].source_hash, r, c, err)))
			goto done;
		n++;
		if (git_commit_parentcount(c) > 0 && git_commit_parent(&parent, c, 0) < 0) {
			ret =
			    git_fail_shallow(err, r->repo, BL_EGIT, "cannot read a parent commit");
			goto done;
		}
		git_commit_free(c);
		c = parent;
	}
	if (!found) {
		ret = bl_error_set(err, BL_EINVALID,
				   "%.12s is not on the first-parent history of %.12s", good_sha,
				   bad_sha);
		goto done;
	}
	/* Oldest first. */
	for (size_t i = 0; i < n / 2; i++) {
		struct repo_commit t = list[i];
		list[i] = list[n - 1 - i];
		list[n - 1 - i] = t;
	}
	*out = list;
	*nr = n;
	list = NULL;
done:
	git_commit_free(c);
	free(list);
	return ret;
}
