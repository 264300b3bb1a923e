/*
 * The runner: runs a benchmark command as a child, captures its standard output (capped) and
 * the tail of its standard error, and reads its CPU time and peak RSS from wait4's rusage.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ingest/ingest.h"

void ingest_run_release(struct ingest_run *run)
{
	strbuf_release(&run->out);
	strbuf_release(&run->err_tail);
	memset(run, 0, sizeof(*run));
}

static double now_seconds(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Keeps the last `keep` bytes of what was appended. */
static void tail_add(struct strbuf *sb, const char *data, size_t len, size_t keep)
{
	strbuf_add(sb, data, len);
	if (sb->len > 2 * keep) {
		memmove(sb->buf, sb->buf + sb->len - keep, keep);
		strbuf_setlen(sb, keep);
	}
}

int ingest_run_command(struct ingest_run *out, const char *const *argv, size_t max_output,
		       struct bl_error *err)
{
	int outp[2] = {-1, -1}, errp[2] = {-1, -1}, status = 0, ret = 0, toobig = 0;
	struct rusage ru;
	pid_t pid;
	double start;

	memset(out, 0, sizeof(*out));
	strbuf_init(&out->out, 0);
	strbuf_init(&out->err_tail, 0);
	if (!argv[0])
		return bl_error_set(err, BL_EINVALID, "no command to run");
	if (pipe2(outp, O_CLOEXEC) < 0 || pipe2(errp, O_CLOEXEC) < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot make a pipe: %s", strerror(errno));
		goto done;
	}
	start = now_seconds();
	pid = fork();
	if (pid < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot fork: %s", strerror(errno));
		goto done;
	}
	if (pid == 0) {
		signal(SIGPIPE, SIG_DFL);
		dup2(outp[1], 1);
		dup2(errp[1], 2);
		execvp(argv[0], (char *const *)argv);
		/* Only async-signal-safe calls here: the message goes out with write. */
		{
			const char *why = strerror(errno);
			if (write(2, "cannot run '", 12) < 0 ||
			    write(2, argv[0], strlen(argv[0])) < 0 || write(2, "': ", 3) < 0 ||
			    write(2, why, strlen(why)) < 0 || write(2, "\n", 1) < 0)
				_exit(127);
		}
		_exit(127);
	}
	close(outp[1]);
	close(errp[1]);
	outp[1] = errp[1] = -1;

	struct pollfd fds[2] = {{outp[0], POLLIN, 0}, {errp[0], POLLIN, 0}};
	int open_fds = 2;
	char buf[65536];
	while (open_fds) {
		if (poll(fds, 2, -1) < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (int i = 0; i < 2; i++) {
			ssize_t n;
			if (fds[i].fd < 0 || !(fds[i].revents & (POLLIN | POLLHUP | POLLERR)))
				continue;
			n = read(fds[i].fd, buf, sizeof(buf));
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				close(fds[i].fd);
				fds[i].fd = -1;
				open_fds--;
				continue;
			}
			if (i == 1)
				tail_add(&out->err_tail, buf, (size_t)n, INGEST_RUN_ERR_TAIL);
			else if (out->out.len + (size_t)n <= max_output)
				strbuf_add(&out->out, buf, (size_t)n);
			else
				toobig = 1;
		}
	}
	outp[0] = errp[0] = -1;
	while (wait4(pid, &status, 0, &ru) < 0) {
		if (errno != EINTR) {
			ret = bl_error_set(err, BL_EIO, "cannot wait for '%s': %s", argv[0],
					   strerror(errno));
			goto done;
		}
	}
	out->wall_s = now_seconds() - start;
	out->cpu_s = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
		     (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
	out->peak_rss_kib = (int64_t)ru.ru_maxrss;
	if (WIFEXITED(status))
		out->exit_code = WEXITSTATUS(status);
	else if (WIFSIGNALED(status))
		out->signal = WTERMSIG(status);
	/* Keep the tail to the promised size. */
	if (out->err_tail.len > INGEST_RUN_ERR_TAIL) {
		size_t cut = out->err_tail.len - INGEST_RUN_ERR_TAIL;
		memmove(out->err_tail.buf, out->err_tail.buf + cut, INGEST_RUN_ERR_TAIL);
		strbuf_setlen(&out->err_tail, INGEST_RUN_ERR_TAIL);
	}
	if (toobig)
		ret = bl_error_set(err, BL_ETOOBIG, "'%s' printed more than %zu bytes", argv[0],
				   max_output);
done:
	for (int i = 0; i < 2; i++) {
		if (outp[i] >= 0)
			close(outp[i]);
		if (errp[i] >= 0)
			close(errp[i]);
	}
	return ret;
}
