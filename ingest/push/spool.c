/*
 * The spool (push.h): bodies a server has not acknowledged, one file each, kept until a later
 * command pushes them. Files appear whole or not at all (written beside, then renamed), their
 * names sort in the order they were spooled, and a lock keeps two commands from pushing the
 * same bodies at once.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ingest/push/push.h"

/* A spooled body's name: '0' stands for a digit, anything else for itself. */
static const char name_template[] = "00000000T000000.000000000Z-00000000-000000.json";

int push_spool_open(struct push_spool **out, const char *dir, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	const char *state = getenv("XDG_STATE_HOME"), *home = getenv("HOME");

	*out = NULL;
	if (dir) {
		if (!*dir)
			return bl_error_set(err, BL_EINVALID, "the spool directory is empty");
		strbuf_addstr(&path, dir);
	} else if (state && state[0] == '/') {
		/* (The XDG rule: a relative $XDG_STATE_HOME is ignored.) */
		strbuf_addf(&path, "%s/benchline/spool", state);
	} else if (home && *home) {
		strbuf_addf(&path, "%s/.local/state/benchline/spool", home);
	} else {
		return bl_error_set(err, BL_EINVALID,
				    "no spool directory: neither $XDG_STATE_HOME nor $HOME is set "
				    "(give --spool DIR)");
	}
	while (path.len > 1 && path.buf[path.len - 1] == '/')
		strbuf_setlen(&path, path.len - 1);
	*out = xcalloc(1, sizeof(**out));
	(*out)->dir = strbuf_detach(&path, NULL);
	(*out)->lock_fd = -1;
	return 0;
}

void push_spool_free(struct push_spool *sp)
{
	if (!sp)
		return;
	push_spool_unlock(sp);
	free(sp->dir);
	free(sp);
}

void push_spool_name(struct strbuf *out, int64_t unix_ns, long pid, unsigned seq)
{
	time_t secs = (time_t)(unix_ns / 1000000000);
	long ns = (long)(unix_ns % 1000000000);
	struct tm tm;

	if (ns < 0) {
		ns += 1000000000;
		secs--;
	}
	gmtime_r(&secs, &tm);
	strbuf_addf(out, "%04d%02d%02dT%02d%02d%02d.%09ldZ-%08ld-%06u.json", tm.tm_year + 1900,
		    tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, ns,
		    pid % 100000000, seq % 1000000);
}

int push_spool_name_valid(const char *name)
{
	size_t i;
	for (i = 0; name_template[i]; i++) {
		if (name_template[i] == '0' ? (name[i] < '0' || name[i] > '9')
					    : name[i] != name_template[i])
			return 0;
	}
	return name[i] == '\0';
}

/* mkdir -p with mode 0700 for what it makes. */
static int make_dirs(const char *dir, struct bl_error *err)
{
	char *path = xstrdup(dir);
	int ret = 0;

	for (char *p = path + 1;; p++) {
		if (*p != '/' && *p)
			continue;
		char c = *p;
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			ret = bl_error_set(err, BL_EIO, "cannot create '%s': %s", path,
					   strerror(errno));
			break;
		}
		*p = c;
		if (!c)
			break;
	}
	free(path);
	return ret;
}

/* fsync of a file or directory by name: a spooled body must outlive a crash of the machine,
 * not only of the process. */
static int sync_path(const char *path, int directory, struct bl_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | (directory ? O_DIRECTORY : 0));
	if (fd < 0 || fsync(fd) < 0) {
		int saved = errno;
		if (fd >= 0)
			close(fd);
		return bl_error_set(err, BL_EIO, "cannot sync '%s': %s", path, strerror(saved));
	}
	close(fd);
	return 0;
}

int push_spool_add(struct strbuf *path, struct push_spool *sp, const char *body, size_t len,
		   struct bl_error *err)
{
	struct strbuf file = STRBUF_INIT;
	struct timespec now;
	int ret;

	if ((ret = make_dirs(sp->dir, err)))
		goto done;
	clock_gettime(CLOCK_REALTIME, &now);
	strbuf_addf(&file, "%s/", sp->dir);
	push_spool_name(&file, (int64_t)now.tv_sec * 1000000000 + now.tv_nsec, (long)getpid(),
			sp->added++);
	if ((ret = write_file_atomic(file.buf, body, len, err)) ||
	    (ret = sync_path(file.buf, 0, err)) || (ret = sync_path(sp->dir, 1, err)))
		goto done;
	if (path)
		strbuf_addstr(path, file.buf);
done:
	strbuf_release(&file);
	return ret;
}

int push_spool_list(char ***names, size_t *n, struct push_spool *sp, struct bl_error *err)
{
	DIR *d = opendir(sp->dir);
	struct dirent *e;
	size_t alloc = 0;

	*names = NULL;
	*n = 0;
	if (!d) {
		if (errno == ENOENT)
			return 0;
		return bl_error_set(err, BL_EIO, "cannot read the spool '%s': %s", sp->dir,
				    strerror(errno));
	}
	while ((e = readdir(d))) {
		if (!push_spool_name_valid(e->d_name))
			continue;
		ALLOC_GROW(*names, *n, alloc);
		(*names)[(*n)++] = xstrdup(e->d_name);
	}
	closedir(d);
	if (*n > 1)
		qsort(*names, *n, sizeof(**names), cmp_strp);
	return 0;
}

int push_spool_lock(struct push_spool *sp, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;

	if (sp->lock_fd >= 0)
		return 0;
	if ((ret = make_dirs(sp->dir, err)))
		goto done;
	strbuf_addf(&path, "%s/.lock", sp->dir);
	sp->lock_fd = open(path.buf, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (sp->lock_fd < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot open '%s': %s", path.buf, strerror(errno));
		goto done;
	}
	while (flock(sp->lock_fd, LOCK_EX) < 0) {
		if (errno == EINTR)
			continue;
		ret = bl_error_set(err, BL_EIO, "cannot lock '%s': %s", path.buf, strerror(errno));
		close(sp->lock_fd);
		sp->lock_fd = -1;
		break;
	}
done:
	strbuf_release(&path);
	return ret;
}

void push_spool_unlock(struct push_spool *sp)
{
	if (sp->lock_fd < 0)
		return;
	close(sp->lock_fd); /* releases the flock */
	sp->lock_fd = -1;
}

/* What a file that is not regular is, for a message. */
static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISSOCK(mode))
		return "a socket";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	return "of an unknown kind";
}

int push_spool_read(struct strbuf *out, struct push_spool *sp, const char *name,
		    struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	int fd, ret = 0;

	strbuf_addf(&path, "%s/%s", sp->dir, name);
	/* Never through a symlink (a body named like one could point at /etc/passwd), and
	 * never waiting on a FIFO: what it is is asked of the descriptor itself. */
	fd = open(path.buf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
	if (fd < 0) {
		if (errno == ENOENT)
			ret = bl_error_set(err, BL_ENOTFOUND, "%s: gone", path.buf);
		else if (errno == ELOOP)
			ret =
			    bl_error_set(err, BL_EINVALID,
					 "%s: a symbolic link, never followed: skipped", path.buf);
		else
			ret = bl_error_set(err, BL_EIO, "cannot open '%s': %s", path.buf,
					   strerror(errno));
		goto done;
	}
	if (fstat(fd, &st) < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot read '%s': %s", path.buf, strerror(errno));
		goto done;
	}
	if (!S_ISREG(st.st_mode)) {
		ret = bl_error_set(err, BL_EINVALID, "%s: not a regular file (%s): skipped",
				   path.buf, file_kind(st.st_mode));
		goto done;
	}
	if ((uintmax_t)st.st_size > PUSH_MAX_BODY) {
		ret = too_big(err, path.buf, PUSH_MAX_BODY);
		goto done;
	}
	ret = read_fd_capped(out, fd, path.buf, PUSH_MAX_BODY, err);
done:
	if (fd >= 0)
		close(fd);
	strbuf_release(&path);
	return ret;
}

int push_spool_remove(struct push_spool *sp, const char *name, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	strbuf_addf(&path, "%s/%s", sp->dir, name);
	if (unlink(path.buf) < 0 && errno != ENOENT)
		ret =
		    bl_error_set(err, BL_EIO, "cannot remove '%s': %s", path.buf, strerror(errno));
	strbuf_release(&path);
	return ret;
}

int push_spool_reject(struct strbuf *moved_to, struct push_spool *sp, const char *name,
		      const char *answer, size_t len, struct bl_error *err)
{
	struct strbuf from = STRBUF_INIT, dir = STRBUF_INIT, to = STRBUF_INIT, note = STRBUF_INIT;
	int ret;

	strbuf_addf(&from, "%s/%s", sp->dir, name);
	strbuf_addf(&dir, "%s/rejected", sp->dir);
	strbuf_addf(&to, "%s/%s", dir.buf, name);
	strbuf_addf(&note, "%s.answer", to.buf);
	if ((ret = make_dirs(dir.buf, err)) ||
	    (ret = write_file_atomic(note.buf, answer, len, err)))
		goto done;
	if (rename(from.buf, to.buf) < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot move '%s' to '%s': %s", from.buf, to.buf,
				   strerror(errno));
		goto done;
	}
	if (moved_to)
		strbuf_addstr(moved_to, to.buf);
done:
	strbuf_release(&from);
	strbuf_release(&dir);
	strbuf_release(&to);
	strbuf_release(&note);
	return ret;
}
