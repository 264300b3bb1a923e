/*
 * repo: everything benchline asks of git, through libgit2 (repo.c): the source hash of a revision
 * (§3), what HEAD is, main's first-parent history synced into the store, merge bases, files at
 * a revision and lazy first-parent walks for the gate, all read-only; docs/source-hash.md
 * explains the hash. The one writer is the re-bench's worktrees under .benchline/ (§9): they
 * add git's worktree records (.git/worktrees/) and never touch the main checkout's files,
 * index, HEAD or branches.
 */
#ifndef BENCHLINE_INGEST_REPO_H
#define BENCHLINE_INGEST_REPO_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct store;
struct config;

/*
 * Source hash (§3) of each revision: out_hashes[i] and out_commits[i] receive 40 hex digits
 * each. Opens the repository read-only; never writes to it.
 */
int repo_source_hash_revs(char (*out_hashes)[41], char (*out_commits)[41], const char *repo_dir,
			  const struct config *cfg, const char *const *revs, size_t nrevs,
			  struct bl_error *err);

/* Top-level paths of HEAD that are in neither list (§3). *out is a NULL-terminated array the
 * caller frees with strings_free. */
int repo_paths_unclassified(char ***out, size_t *nr, const char *repo_dir, const struct config *cfg,
			    struct bl_error *err);

/* What HEAD of a repository is, for records whose format does not say (--repo). */
struct repo_head {
	char commit[41];
	char source_hash[41];
	char branch[256]; /* "" when HEAD is detached */
	double committed_at;
	int dirty; /* the measured paths differ from HEAD in the index or working tree */
};
int repo_read_head(struct repo_head *out, const char *repo_dir, const struct config *cfg,
		   struct bl_error *err);

struct repo_sync_result {
	size_t walked;	  /* commits read from the repository in this run */
	size_t total;	  /* commits of main now stored */
	int rewritten;	  /* 1 when main was rewritten and commits past the fork were dropped */
	char tip[41];	  /* main's tip */
	char branch[256]; /* the main branch's name */
};

/* Walks main's first-parent history into the store, only commits not already there (§3),
 * then refreshes every run's not-main tag. */
int repo_sync(struct repo_sync_result *out, struct store *st, const char *repo_dir,
	      const struct config *cfg, struct bl_error *err);

/* The pull request number a subject names ("... (#123)" or "Merge pull request #123"),
 * else 0. */
long repo_pr_from_subject(const char *subject);

/*
 * The gate's view of a repository (§7), read-only through libgit2: revisions resolved with
 * their source hashes, merge bases, files at a revision, and first-parent history walked
 * lazily, one source hash at a time.
 */
struct repo;
int repo_open(struct repo **out, const char *repo_dir, const struct config *cfg,
	      struct bl_error *err);
void repo_free(struct repo *r);
/* Resolves rev (NULL: the main branch, §3) to a commit and its source hash; name_out (may be
 * NULL) receives rev, or the main branch's name. */
int repo_resolve(char sha_out[41], char source_out[41], struct strbuf *name_out, struct repo *r,
		 const char *rev, struct bl_error *err);
/* 1 when rev is a plain revision: a ref name (git's rules, one level allowed: "main",
 * "origin/pr-7", "HEAD") or 4 to 40 hex digits. Plain revisions resolve by a lookup, never
 * by revparse's expression forms (":/regex", "^{/regex}", "@{...}", "~N"), some of which walk
 * the whole history; the server takes only these from a request. */
int repo_rev_is_plain(const char *rev);
/* A commit's subject (its message's first paragraph on one line, as git log --oneline shows
 * it), appended to out; BL_ENOTFOUND when the repository has no such commit. */
int repo_commit_subject(struct strbuf *out, struct repo *r, const char *sha, struct bl_error *err);
/* The merge base of two commits (full ids) and its source hash. */
int repo_merge_base(char sha_out[41], char source_out[41], struct repo *r, const char *a,
		    const char *b, struct bl_error *err);
/* The root of the working tree holding dir (dir itself for a bare repository), so settings and
 * files at "the repository's root" are found from any directory inside it. */
int repo_toplevel(struct strbuf *out, const char *dir, struct bl_error *err);
/* The commit the working directory has checked out: 1, or 0 (sha_out "") when none. */
int repo_checkout(char sha_out[41], struct repo *r);
/* The working directory (with a trailing slash), NULL for a bare repository. */
const char *repo_workdir(struct repo *r);
/* Appends the file at path in commit's tree to out; *found 0 when there is none. */
int repo_read_file(struct strbuf *out, int *found, struct repo *r, const char *commit_sha,
		   const char *path, size_t cap, struct bl_error *err);

/*
 * Worktrees for the re-bench (§9): one per side, under <root>/.benchline/worktrees/ (a and
 * b, so both paths have the same length and depth and path length cannot bias a
 * measurement), made with libgit2's worktree API and kept for reuse. Each call checks the
 * side's worktree out at a commit, detached and forced: every tracked file is the commit's,
 * whatever a build changed; untracked and ignored files (build outputs) stay, so a build can
 * be incremental. One benchline at a time per checkout: the first call takes benchline's own
 * lock on the worktrees (flock on .benchline/worktrees/.lock, held until repo_free; BL_EBUSY
 * naming the other's pid when another holds it), and clears the index.lock and HEAD.lock a
 * killed run left in a worktree. .benchline and .benchline/worktrees must be directories,
 * never symlinks (BL_EINVALID).
 */
enum repo_side { REPO_SIDE_A, REPO_SIDE_B };
/* "a" or "b": the side's directory under .benchline/worktrees/. */
const char *repo_side_name(enum repo_side side);
/* ROOT/.benchline (no trailing slash) into out, for the root of a working tree (repo_toplevel's
 * answer), created when missing with its own .gitignore of "*", as pytest's cache does, so
 * nothing in it shows in `git status`. */
int repo_state_dir_at(struct strbuf *out, const char *root, struct bl_error *err);
/* The side's worktree with commit_sha (40 hex digits) checked out: its absolute path (no
 * trailing slash) is appended to path_out. Made on first use; a stale one (its directory
 * removed) is pruned and made again; a directory in its way that is not it is an error. */
int repo_worktree(struct strbuf *path_out, struct repo *r, const char *commit_sha,
		  enum repo_side side, struct bl_error *err);

/* A commit with its source hash. */
struct repo_commit {
	char sha[41], source_hash[41];
};
/* The first-parent commits in (good, bad], oldest first, each with its source hash: a new
 * array of *nr the caller frees. BL_EINVALID when good is not on bad's first-parent history. */
int repo_first_parent_range(struct repo_commit **out, size_t *nr, struct repo *r,
			    const char *good_sha, const char *bad_sha, struct bl_error *err);

/* The commit that made commit_sha's source (§10, as bisection pins a step): walking back from
 * commit_sha along first parents while the parent has the same source hash, the last commit
 * reached (commit_sha itself when its parent's source differs; the root ends the walk). So a
 * docs-only commit on top of a change gives the change. sha_out receives 40 hex digits. */
int repo_source_first_commit(char sha_out[41], struct repo *r, const char *commit_sha,
			     struct bl_error *err);

/* A commit's first-parent history as distinct source hashes, newest first. */
struct repo_history;
int repo_history_open(struct repo_history **out, struct repo *r, const char *commit_sha,
		      size_t max_commits, struct bl_error *err);
/* The i-th distinct source hash back from the start (0: the start's own) and the newest
 * commit with it: 0, 1 past the root or max_commits, or a negative error. */
int repo_history_get(const char **source_out, const char **commit_out, struct repo_history *h,
		     size_t i, struct bl_error *err);
void repo_history_free(struct repo_history *h);

#endif
