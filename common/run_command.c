/*
 * Child processes: the one way benchline runs a program (the benchmark of `benchline run`,
 * preflight's nvidia-smi, the web's gnuplot). The child is started with posix_spawn, which
 * also reports an exec that fails (as an error here, not as an exit status 127) and is safe
 * from the web server's worker threads. One poll loop then feeds its stdin, captures its
 * stdout up to a cap and the tail of its stderr, and keeps its deadline; wait4 gives its exit
 * status and rusage.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/common.h"

extern char **environ;

/* The most read from a child's pipe at once. */
#define CHILD_READ_CHUNK 65536
/* How often a child that closed its output is looked at while its deadline runs: first after
 * 50 us (most children exit right after closing their output, and a re-bench starts hundreds
 * of them), then twice as long each time, up to every 10 ms. */
#define CHILD_REAP_FIRST_US 50
#define CHILD_REAP_MAX_US   10000

void child_process_init(struct child_process *cp)
{
	memset(cp, 0, sizeof(*cp));
	strbuf_init(&cp->out, 0);
	strbuf_init(&cp->err_tail, 0);
	cp->exit_code = -1;
}

void child_process_release(struct child_process *cp)
{
	strbuf_release(&cp->out);
	strbuf_release(&cp->err_tail);
	child_process_init(cp);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Milliseconds for poll until the deadline, rounded up so it is not woken just before. */
static int ms_until(int64_t deadline)
{
	int64_t left = deadline - now_ns();
	if (left <= 0)
		return 0;
	left = (left + 999999) / 1000000;
	return left > 1000000000 ? 1000000000 : (int)left;
}

static void sleep_us(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/*
 * The file posix_spawn gets for name: name itself when it has a '/', else the first executable
 * regular file of that name in PATH, as execvp searches (with its default PATH when there is
 * none; relative entries are taken from our working directory). 0, ENOENT, or EACCES when only
 * files that may not be run were found.
 */
static int locate_program(struct strbuf *path, const char *name)
{
	const char *p = getenv("PATH");
	int found_eacces = 0;
	strbuf_reset(path);
	if (strchr(name, '/')) {
		strbuf_addstr(path, name);
		return 0;
	}
	if (!*name)
		return ENOENT;
	if (!p)
		p = "/bin:/usr/bin";
	for (;;) {
		const char *end = strchrnul(p, ':');
		struct stat st;
		strbuf_reset(path);
		if (end > p) {
			strbuf_add(path, p, (size_t)(end - p));
			strbuf_addch(path, '/');
		}
		strbuf_addstr(path, name);
		if (!stat(path->buf, &st) && S_ISREG(st.st_mode)) {
			if (!access(path->buf, X_OK))
				return 0;
			found_eacces = 1;
		}
		if (!*end)
			break;
		p = end + 1;
	}
	return found_eacces ? EACCES : ENOENT;
}

/* 1 when one of the m changes names var's variable ("NAME=value" or "NAME"). */
static int env_changed(const char *const *changes, size_t m, const char *var)
{
	size_t len = (size_t)(strchrnul(var, '=') - var);
	for (size_t j = 0; j < m; j++)
		if ((size_t)(strchrnul(changes[j], '=') - changes[j]) == len &&
		    !strncmp(changes[j], var, len))
			return 1;
	return 0;
}

/* Our environment with the changes made (a later change of a name wins), for the child. The
 * array is malloc'd; its strings are ours or the caller's, not copies. */
static char **child_environ(const char *const *changes)
{
	size_t n = 0, m = 0, nr = 0;
	char **envp;
	while (environ && environ[n])
		n++;
	while (changes[m])
		m++;
	envp = xcalloc(n + m + 1, sizeof(*envp));
	for (size_t i = 0; i < n; i++)
		if (!env_changed(changes, m, environ[i]))
			envp[nr++] = environ[i];
	for (size_t j = 0; j < m; j++)
		if (strchr(changes[j], '=') && !env_changed(changes + j + 1, m - j - 1, changes[j]))
			envp[nr++] = (char *)changes[j];
	return envp;
}

/* Moves fd above the standard streams, so the dup2s onto 0, 1 and 2 in the child cannot
 * overwrite one of the other pipes (our own stdin may be closed, and a pipe then gets 0). */
static int fd_above_stdio(int *fd)
{
	int moved;
	if (*fd > 2)
		return 0;
	if ((moved = fcntl(*fd, F_DUPFD_CLOEXEC, 3)) < 0)
		return -1;
	close(*fd);
	*fd = moved;
	return 0;
}

/* A close-on-exec pipe, so a child started by another thread does not keep it open. */
static int make_pipe(int fds[2])
{
	if (pipe2(fds, O_CLOEXEC) < 0)
		return -1;
	if (fd_above_stdio(&fds[0]) || fd_above_stdio(&fds[1])) {
		int saved = errno;
		close(fds[0]);
		close(fds[1]);
		fds[0] = fds[1] = -1;
		errno = saved;
		return -1;
	}
	return 0;
}

static void close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Starts the child on the pipes' child ends: 0 or an errno value. The child gets no blocked
 * signal and SIGPIPE at its default (we ignore it; the serve threads block some), and its own
 * process group unless keep_pgroup. A file that is not a binary and has no #! line is run by
 * /bin/sh, as execvp does.
 */
static int spawn(pid_t *pid, const struct child_process *cp, const char *path, char **envp,
		 int in_fd, int out_fd, int err_fd)
{
	posix_spawn_file_actions_t fa;
	posix_spawnattr_t attr;
	sigset_t none, dflt;
	short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
	int e = 0;

	posix_spawn_file_actions_init(&fa);
	posix_spawnattr_init(&attr);
	if (cp->in)
		e = posix_spawn_file_actions_adddup2(&fa, in_fd, 0);
	else if (cp->no_stdin)
		e = posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
	if (!e && !cp->stdout_to_stderr)
		e = posix_spawn_file_actions_adddup2(&fa, out_fd, 1);
	if (!e && cp->err_tail_max)
		e = posix_spawn_file_actions_adddup2(&fa, err_fd, 2);
	else if (!e && cp->no_stderr)
		e = posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
	/* After stderr is in place, so stdout follows it wherever it went. */
	if (!e && cp->stdout_to_stderr)
		e = posix_spawn_file_actions_adddup2(&fa, 2, 1);
	if (!e && cp->dir)
		e = posix_spawn_file_actions_addchdir_np(&fa, cp->dir);
	sigemptyset(&none);
	sigemptyset(&dflt);
	sigaddset(&dflt, SIGPIPE);
	if (!e)
		e = posix_spawnattr_setsigmask(&attr, &none);
	if (!e)
		e = posix_spawnattr_setsigdefault(&attr, &dflt);
	if (!e && !cp->keep_pgroup) {
		flags |= POSIX_SPAWN_SETPGROUP;
		e = posix_spawnattr_setpgroup(&attr, 0);
	}
	if (!e)
		e = posix_spawnattr_setflags(&attr, flags);
	if (!e)
		e = posix_spawn(pid, path, &fa, &attr, (char *const *)cp->argv, envp);
	if (e == ENOEXEC) {
		size_t n = 0;
		const char **sh_argv;
		while (cp->argv[n])
			n++;
		sh_argv = xcalloc(n + 2, sizeof(*sh_argv));
		sh_argv[0] = "/bin/sh";
		sh_argv[1] = path;
		for (size_t i = 1; i < n; i++)
			sh_argv[i + 1] = cp->argv[i];
		e = posix_spawn(pid, "/bin/sh", &fa, &attr, (char *const *)sh_argv, envp);
		free(sh_argv);
	}
	posix_spawn_file_actions_destroy(&fa);
	posix_spawnattr_destroy(&attr);
	return e;
}

/* --- Leftovers (reap_orphans) --- */

/* The children we had when we became a subreaper: not a benchmark's (a shell's background job
 * that benchline was exec'd over), never killed. */
static int subreaper;
static pid_t *children_before;
static size_t nchildren_before;

/* Our children's pids into *out (a new array, *n of them): every thread's
 * /proc/self/task/TID/children, else a scan of every process's parent in /proc. */
static void list_children(pid_t **out, size_t *n)
{
	size_t alloc = 0;
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int have_file = 0;
	pid_t self = getpid();

	*out = NULL;
	*n = 0;
	while (d && (e = readdir(d))) {
		struct strbuf path = STRBUF_INIT;
		FILE *f;
		long pid;
		if (e->d_name[0] == '.')
			continue;
		strbuf_addf(&path, "/proc/self/task/%s/children", e->d_name);
		f = fopen(path.buf, "re");
		strbuf_release(&path);
		if (!f)
			continue;
		have_file = 1;
		while (fscanf(f, "%ld", &pid) == 1) {
			ALLOC_GROW(*out, *n, alloc);
			(*out)[(*n)++] = (pid_t)pid;
		}
		fclose(f);
	}
	if (d)
		closedir(d);
	if (have_file || !(d = opendir("/proc")))
		return;
	/* No children files (a kernel without CONFIG_PROC_CHILDREN): "PID (COMM) S PPID ..." */
	while ((e = readdir(d))) {
		struct strbuf path = STRBUF_INIT, stat = STRBUF_INIT;
		const char *paren;
		long ppid;
		if (e->d_name[0] < '1' || e->d_name[0] > '9')
			continue;
		strbuf_addf(&path, "/proc/%s/stat", e->d_name);
		if (!read_file_capped(&stat, path.buf, 4096, NULL) &&
		    (paren = strrchr(stat.buf, ')')) && sscanf(paren + 1, " %*c %ld", &ppid) == 1 &&
		    ppid == (long)self) {
			ALLOC_GROW(*out, *n, alloc);
			(*out)[(*n)++] = (pid_t)atol(e->d_name);
		}
		strbuf_release(&path);
		strbuf_release(&stat);
	}
	closedir(d);
}

static int was_before(pid_t pid)
{
	for (size_t i = 0; i < nchildren_before; i++)
		if (children_before[i] == pid)
			return 1;
	return 0;
}

/* Once: benchline becomes a child subreaper, so a process a child leaves behind becomes ours
 * (not init's), where kill_leftovers finds it. */
static void become_subreaper(void)
{
	if (subreaper)
		return;
	subreaper = 1;
	list_children(&children_before, &nchildren_before);
	prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
}

/* Kills and reaps every child of ours but child (the one being run, still to be waited for)
 * and those we had before: the processes it left behind, which came to us as their parents
 * ended. Each round's killed processes hand theirs on to us, so it goes on until none is left
 * (a bounded number of rounds: a fork bomb is not chased for ever). */
static void kill_leftovers(pid_t child)
{
	for (int round = 0; round < 64; round++) {
		pid_t *pids;
		size_t n, killed = 0;
		list_children(&pids, &n);
		for (size_t i = 0; i < n; i++) {
			if (pids[i] == child || was_before(pids[i]))
				continue;
			kill(pids[i], SIGKILL);
			pids[killed++] = pids[i];
		}
		for (size_t i = 0; i < killed; i++)
			while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
				;
		free(pids);
		if (!killed)
			break;
	}
}

/* A descriptor that polls readable once pid has exited (pidfd_open), or -1 (an older kernel:
 * then leftovers are killed only after the child's output is read to its end). */
static int exit_fd(pid_t pid)
{
#ifdef SYS_pidfd_open
	long fd = syscall(SYS_pidfd_open, pid, 0);
	return fd < 0 ? -1 : (int)fd;
#else
	(void)pid;
	return -1;
#endif
}

/* Keeps the last `keep` bytes of what was appended (trimmed when twice that is held). */
static void tail_add(struct strbuf *sb, const char *data, size_t len, size_t keep)
{
	strbuf_add(sb, data, len);
	if (sb->len > 2 * keep) {
		memmove(sb->buf, sb->buf + sb->len - keep, keep);
		strbuf_setlen(sb, keep);
	}
}

/* Writes what the child's stdin takes now; closes it when everything is written or when the
 * child stopped reading (EPIPE: a child need not read all it is given). */
static void feed_stdin(int *fd, const char *data, size_t len, size_t *written)
{
	while (*written < len) {
		ssize_t n = write(*fd, data + *written, len - *written);
		if (n > 0) {
			*written += (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && errno == EAGAIN)
			return; /* the pipe is full: poll says when there is room */
		break;
	}
	close_fd(fd);
}

enum child_stop { CHILD_EOF, CHILD_DEADLINE, CHILD_TOOBIG, CHILD_POLL_FAILED };

/* Serves fds (our ends of stdin, stdout and stderr; -1 when not a pipe) until all are closed,
 * the deadline (0: none) passes, or stdout goes over its cap. fds[3] (-1: none) polls readable
 * once the child pid has exited: its leftovers are killed then, which closes the pipes they
 * held. */
static enum child_stop serve_streams(struct child_process *cp, int fds[4], pid_t pid,
				     int64_t deadline, int *errnum)
{
	char buf[CHILD_READ_CHUNK];
	size_t written = 0;

	if (fds[0] >= 0) {
		if (fcntl(fds[0], F_SETFL, fcntl(fds[0], F_GETFL) | O_NONBLOCK) < 0)
			close_fd(&fds[0]); /* cannot happen on a pipe we made */
		else if (!cp->in_len)
			close_fd(&fds[0]);
	}
	while (fds[0] >= 0 || fds[1] >= 0 || fds[2] >= 0) {
		/* poll skips an entry whose fd is negative. */
		struct pollfd pfd[4] = {{fds[0], POLLOUT, 0},
					{fds[1], POLLIN, 0},
					{fds[2], POLLIN, 0},
					{fds[3], POLLIN, 0}};
		int wait_ms = -1;
		if (deadline) {
			if (now_ns() >= deadline)
				return CHILD_DEADLINE;
			wait_ms = ms_until(deadline);
		}
		if (poll(pfd, 4, wait_ms) < 0) {
			if (errno == EINTR)
				continue;
			*errnum = errno;
			return CHILD_POLL_FAILED;
		}
		if (pfd[3].revents) {
			kill_leftovers(pid);
			close_fd(&fds[3]);
		}
		if (pfd[0].revents)
			feed_stdin(&fds[0], cp->in, cp->in_len, &written);
		for (int i = 1; i < 3; i++) {
			ssize_t n;
			if (!pfd[i].revents)
				continue;
			n = read(fds[i], buf, sizeof(buf));
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			if (n <= 0) {
				close_fd(&fds[i]);
				continue;
			}
			if (i == 2)
				tail_add(&cp->err_tail, buf, (size_t)n, cp->err_tail_max);
			else if (cp->out_max && cp->out.len + (size_t)n > cp->out_max)
				return CHILD_TOOBIG;
			else
				strbuf_add(&cp->out, buf, (size_t)n);
		}
	}
	return CHILD_EOF;
}

/* SIGKILL to the child, and to its process group when it has its own. */
static void kill_child(const struct child_process *cp, pid_t pid)
{
	if (!cp->keep_pgroup)
		kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Waits for the child; with a deadline, kills it when it is still running then (its output
 * may be closed while it runs on). 0 or an errno value. */
static int reap(struct child_process *cp, pid_t pid, int64_t deadline, int *status,
		struct rusage *ru)
{
	long pause = CHILD_REAP_FIRST_US;
	while (deadline && !cp->timed_out) {
		pid_t w = wait4(pid, status, WNOHANG, ru);
		int left;
		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR)
			return errno;
		if (!(left = ms_until(deadline))) {
			cp->timed_out = 1;
			kill_child(cp, pid);
			break;
		}
		sleep_us(pause < (long)left * 1000 ? pause : (long)left * 1000);
		if (pause < CHILD_REAP_MAX_US)
			pause *= 2;
	}
	while (wait4(pid, status, 0, ru) < 0)
		if (errno != EINTR)
			return errno;
	return 0;
}

int child_process_run(struct child_process *cp, struct bl_error *err)
{
	int in[2] = {-1, -1}, out[2] = {-1, -1}, errp[2] = {-1, -1}, fds[4], exited = -1;
	struct strbuf path = STRBUF_INIT;
	char **envp = environ;
	const char *name;
	struct rusage ru;
	enum child_stop stop;
	int64_t start = 0, deadline = 0;
	int e, errnum = 0, status = 0, ret = 0;
	pid_t pid = -1;

	strbuf_reset(&cp->out);
	strbuf_reset(&cp->err_tail);
	cp->exit_code = -1;
	cp->signal = cp->timed_out = 0;
	cp->wall_s = cp->cpu_s = 0;
	cp->peak_rss_kib = 0;
	if (!cp->argv || !cp->argv[0])
		return bl_error_set(err, BL_EINVALID, "no command to run");
	name = cp->argv[0];

	if (!(e = locate_program(&path, name))) {
		if (make_pipe(out) || (cp->in && make_pipe(in)) ||
		    (cp->err_tail_max && make_pipe(errp))) {
			ret = bl_error_set(err, BL_EIO, "cannot run '%s': cannot make a pipe: %s",
					   name, strerror(errno));
			goto done;
		}
		if (cp->env)
			envp = child_environ(cp->env);
		if (cp->reap_orphans)
			become_subreaper();
		start = now_ns();
		e = spawn(&pid, cp, path.buf, envp, in[0], out[1], errp[1]);
	}
	if (e) {
		int code = e == ENOENT ? BL_ENOTFOUND : BL_EIO;
		if (cp->dir)
			ret = bl_error_set(err, code, "cannot run '%s' in '%s': %s", name, cp->dir,
					   strerror(e));
		else
			ret = bl_error_set(err, code, "cannot run '%s': %s", name, strerror(e));
		goto done;
	}
	/* Only the child holds its ends now, so its exit closes them. */
	close_fd(&in[0]);
	close_fd(&out[1]);
	close_fd(&errp[1]);

	if (cp->timeout_ms > 0)
		deadline = start + (int64_t)cp->timeout_ms * 1000000;
	fds[0] = in[1];
	fds[1] = out[0];
	fds[2] = errp[0];
	fds[3] = cp->reap_orphans ? exit_fd(pid) : -1;
	stop = serve_streams(cp, fds, pid, deadline, &errnum);
	in[1] = fds[0];
	out[0] = fds[1];
	errp[0] = fds[2];
	exited = fds[3];
	if (stop == CHILD_DEADLINE)
		cp->timed_out = 1;
	if (stop != CHILD_EOF)
		kill_child(cp, pid);
	/* Closed before the wait: a grandchild still writing gets EPIPE, not a stuck pipe. */
	close_fd(&in[1]);
	close_fd(&out[0]);
	close_fd(&errp[0]);
	if ((e = reap(cp, pid, stop == CHILD_EOF ? deadline : 0, &status, &ru))) {
		ret = bl_error_set(err, BL_EIO, "cannot wait for '%s': %s", name, strerror(e));
		goto done;
	}
	/* The child is reaped: whatever it left behind goes now, before the next sample. */
	if (cp->reap_orphans)
		kill_leftovers(-1);

	cp->wall_s = (double)(now_ns() - start) / 1e9;
	cp->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		    (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	cp->peak_rss_kib = (int64_t)ru.ru_maxrss;
	if (WIFEXITED(status))
		cp->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		cp->signal = WTERMSIG(status);
	/* Keep the tail to the promised size. */
	if (cp->err_tail.len > cp->err_tail_max) {
		size_t cut = cp->err_tail.len - cp->err_tail_max;
		memmove(cp->err_tail.buf, cp->err_tail.buf + cut, cp->err_tail_max);
		strbuf_setlen(&cp->err_tail, cp->err_tail_max);
	}
	if (stop == CHILD_TOOBIG)
		ret = bl_error_set(err, BL_ETOOBIG, "'%s' printed more than %zu bytes", name,
				   cp->out_max);
	else if (stop == CHILD_POLL_FAILED)
		ret = bl_error_set(err, BL_EIO, "cannot read the output of '%s': %s", name,
				   strerror(errnum));
done:
	for (int i = 0; i < 2; i++) {
		close_fd(&in[i]);
		close_fd(&out[i]);
		close_fd(&errp[i]);
	}
	close_fd(&exited);
	if (envp != environ)
		free(envp);
	strbuf_release(&path);
	return ret;
}
