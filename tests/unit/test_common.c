/* Unit tests for common/: strbuf, errors, timestamps, UTF-8, hex, globs, child processes,
 * numbers as text. */
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "common/common.h"

static void strbuf_starts_empty_and_never_null(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	assert_non_null(sb.buf);
	assert_string_equal(sb.buf, "");
	strbuf_release(&sb);
	assert_non_null(sb.buf);
	assert_int_equal(sb.len, 0);
}

static void strbuf_grows_across_many_appends(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	for (int i = 0; i < 10000; i++)
		strbuf_addf(&sb, "%d,", i % 10);
	assert_int_equal(sb.len, 20000);
	assert_memory_equal(sb.buf, "0,1,2,", 6);
	assert_int_equal(sb.buf[sb.len], '\0');
	strbuf_setlen(&sb, 3);
	assert_string_equal(sb.buf, "0,1");
	size_t len;
	char *owned = strbuf_detach(&sb, &len);
	assert_int_equal(len, 3);
	assert_string_equal(owned, "0,1");
	assert_string_equal(sb.buf, "");
	free(owned);
}

static void strbuf_addf_handles_long_output(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	char big[5000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	strbuf_addf(&sb, "<%s>", big);
	assert_int_equal(sb.len, 5001);
	assert_int_equal(sb.buf[0], '<');
	assert_int_equal(sb.buf[5000], '>');
	strbuf_release(&sb);
}

/* strbuf_add_int64 prints what printf's PRId64 prints, the extremes included. */
static void strbuf_add_int64_matches_printf(void **state)
{
	const int64_t v[] = {0,		7,	   -7,		 10, -10, 123456789, 1000000000000,
			     INT64_MAX, INT64_MIN, INT64_MIN + 1};
	(void)state;
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		struct strbuf got = STRBUF_INIT, want = STRBUF_INIT;
		strbuf_addstr(&got, "k=");
		strbuf_add_int64(&got, v[i]);
		strbuf_addf(&want, "k=%" PRId64, v[i]);
		assert_string_equal(got.buf, want.buf);
		assert_int_equal(got.len, want.len);
		strbuf_release(&got);
		strbuf_release(&want);
	}
}

static void strbuf_json_string_escapes(void **state)
{
	(void)state;
	struct strbuf sb = STRBUF_INIT;
	strbuf_add_json_string(&sb, "a\"b\\c\nd\x01");
	assert_string_equal(sb.buf, "\"a\\\"b\\\\c\\nd\\u0001\"");
	strbuf_release(&sb);
}

static void error_set_and_prefix(void **state)
{
	(void)state;
	struct bl_error err = BL_ERROR_INIT;
	assert_int_equal(bl_error_set(&err, BL_EINVALID, "bad '%s'", "x"), BL_EINVALID);
	bl_error_prefix(&err, "file.json:%d", 3);
	assert_string_equal(err.msg.buf, "file.json:3: bad 'x'");
	assert_int_equal(err.code, BL_EINVALID);
	/* A NULL error is allowed and only returns the code. */
	assert_int_equal(bl_error_set(NULL, BL_EIO, "ignored"), BL_EIO);
	bl_error_release(&err);
}

/* An error's kind (issue 27: the server words a push's answer by it, never by the message's
 * text): set with the error, kept through a prefix, cleared by the next plain error. */
static void error_kind_follows_the_error(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	assert_int_equal(err.kind, BL_KIND_NONE);
	assert_int_equal(bl_error_set_kind(&err, BL_KIND_NEEDS_FLAG, BL_EINVALID,
					   "%s: no machine: give --machine", "b.json"),
			 BL_EINVALID);
	bl_error_prefix(&err, "request");
	assert_int_equal(err.kind, BL_KIND_NEEDS_FLAG);
	assert_string_equal(err.msg.buf, "request: b.json: no machine: give --machine");
	bl_error_set(&err, BL_EIO, "other");
	assert_int_equal(err.kind, BL_KIND_NONE);
	bl_error_set_kind(&err, BL_KIND_NEEDS_FLAG, BL_EINVALID, "again");
	bl_error_clear(&err);
	assert_int_equal(err.kind, BL_KIND_NONE);
	assert_int_equal(bl_error_set_kind(NULL, BL_KIND_NEEDS_FLAG, BL_EIO, "ignored"), BL_EIO);
	bl_error_release(&err);
}

/* An error can extend itself: its own message as an argument of bl_error_set (or of
 * bl_error_prefix) is read before the message is replaced, even when the new one needs more
 * room than the old one had (issue 26: the spool's error read freed memory and lost the
 * body's name). */
static void error_set_from_its_own_message(void **state)
{
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf want = STRBUF_INIT, why = STRBUF_INIT;
	(void)state;
	bl_error_set(&err, BL_EIO, "%s", "body.json: not acknowledged after 4 attempts");
	for (int i = 0; i < 40; i++)
		strbuf_addstr(&why, "cannot create the spool file: read-only file system; ");
	strbuf_addf(&want, "%s; and it cannot be spooled: %s", err.msg.buf, why.buf);
	assert_int_equal(
	    bl_error_set(&err, BL_EIO, "%s; and it cannot be spooled: %s", err.msg.buf, why.buf),
	    BL_EIO);
	assert_string_equal(err.msg.buf, want.buf);
	strbuf_reset(&want);
	strbuf_addf(&want, "%s (again): %s", err.msg.buf, err.msg.buf);
	bl_error_prefix(&err, "%s (again)", err.msg.buf);
	assert_string_equal(err.msg.buf, want.buf);
	bl_error_release(&err);
	strbuf_release(&want);
	strbuf_release(&why);
}

static void urls_lose_their_passwords_in_messages(void **state)
{
	static const char *const cases[][2] = {
	    {"postgresql://u:s3cret@h:5432/db", "postgresql://u@h:5432/db"},
	    {"http://u:p@ss@h/x?y=1", "http://u@h/x?y=1"},
	    {"postgresql://h/db?user=u&password=s3cret&sslmode=require",
	     "postgresql://h/db?user=u&sslmode=require"},
	    {"postgresql://h/db?PASSWORD=s3cret", "postgresql://h/db"},
	    {"postgres://u@h/db?password", "postgres://u@h/db"},
	    {"https://h:8443/api#p:x@y", "https://h:8443/api#p:x@y"},
	    {"http://127.0.0.1:8080", "http://127.0.0.1:8080"},
	    {"bench.db", "bench.db"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		strbuf_add_url_redacted(&sb, cases[i][0]);
		assert_string_equal(sb.buf, cases[i][1]);
		strbuf_release(&sb);
	}
}

static void rfc3339_accepts_utc(void **state)
{
	(void)state;
	double t;
	assert_int_equal(parse_rfc3339_utc("1970-01-01T00:00:00Z", &t), 0);
	assert_true(t == 0);
	assert_int_equal(parse_rfc3339_utc("2026-11-02T04:00:00Z", &t), 0);
	assert_true(t == 1793592000.0);
	assert_int_equal(parse_rfc3339_utc("2026-11-02T04:00:00.25Z", &t), 0);
	assert_true(t == 1793592000.25);
	assert_int_equal(parse_rfc3339_utc("2024-02-29T12:00:00Z", &t), 0);
	struct strbuf sb = STRBUF_INIT;
	format_rfc3339_utc(&sb, 1793592000);
	assert_string_equal(sb.buf, "2026-11-02T04:00:00Z");
	strbuf_release(&sb);
}

static void rfc3339_rejects_the_rest(void **state)
{
	(void)state;
	double t;
	const char *bad[] = {
	    "2026-11-02T04:00:00",	 /* no zone */
	    "2026-11-02T04:00:00+01:00", /* not UTC */
	    "2026-11-02 04:00:00Z",	 /* no T */
	    "2026-13-02T04:00:00Z",	 /* month */
	    "2026-02-30T04:00:00Z",	 /* day */
	    "2025-02-29T04:00:00Z",	 /* not a leap year */
	    "2026-11-02T24:00:00Z",	 /* hour */
	    "2026-11-02T04:00:00.Z",	 /* empty fraction */
	    "2026-11-02T04:00:00Zjunk",	 "",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		assert_int_equal(parse_rfc3339_utc(bad[i], &t), BL_EINVALID);
}

static void utf8_validation(void **state)
{
	(void)state;
	assert_true(utf8_valid("plain", 5));
	assert_true(utf8_valid("caf\xc3\xa9", 5));
	assert_true(utf8_valid("\xf0\x9f\x98\x80", 4));
	assert_false(utf8_valid("\xff", 1));
	assert_false(utf8_valid("caf\xc3", 4));	     /* truncated */
	assert_false(utf8_valid("\xc0\xaf", 2));     /* overlong */
	assert_false(utf8_valid("\xed\xa0\x80", 3)); /* surrogate */
}

static void hex40(void **state)
{
	(void)state;
	assert_true(is_hex40("0123456789abcdef0123456789ABCDEF01234567"));
	assert_false(is_hex40("0123456789abcdef0123456789abcdef0123456"));
	assert_false(is_hex40("0123456789abcdef0123456789abcdef012345678"));
	assert_false(is_hex40("g123456789abcdef0123456789abcdef01234567"));
}

static void globs(void **state)
{
	(void)state;
	assert_true(glob_match("m4-*", "m4-pro-metal"));
	assert_false(glob_match("m4-*", "rtx2070"));
	assert_true(glob_match("*", "anything"));
}

static void file_reading_is_capped(void **state)
{
	(void)state;
	char path[] = "/tmp/benchline-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "0123456789", 10), 10);
	close(fd);
	struct strbuf sb = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	assert_int_equal(read_file_capped(&sb, path, 10, &err), 0);
	assert_string_equal(sb.buf, "0123456789");
	strbuf_reset(&sb);
	assert_int_equal(read_file_capped(&sb, path, 9, &err), BL_ETOOBIG);
	assert_non_null(strstr(err.msg.buf, "too big"));
	unlink(path);
	assert_int_equal(read_file_capped(&sb, path, 9, &err), BL_EIO);
	assert_non_null(strstr(err.msg.buf, "cannot open '/tmp/benchline-unit-"));
	strbuf_release(&sb);
	bl_error_release(&err);
}

/* ------------------------------------------------------------------ child processes */

/* Runs script with /bin/sh -c in cp (already set up by the caller); returns its result. */
static int run_sh(struct child_process *cp, const char *script, struct bl_error *err)
{
	const char *argv[] = {"/bin/sh", "-c", script, NULL};
	int ret;
	cp->argv = argv;
	ret = child_process_run(cp, err);
	cp->argv = NULL;
	return ret;
}

/* The whole of a file (small ones), for checking what a child wrote. */
static void slurp(struct strbuf *sb, const char *path)
{
	struct bl_error err = BL_ERROR_INIT;
	strbuf_reset(sb);
	assert_int_equal(read_file_capped(sb, path, 1 << 20, &err), 0);
	bl_error_release(&err);
}

static void child_captures_stdout_and_exit_code(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	child_process_init(&cp);
	assert_int_equal(run_sh(&cp, "printf 'hello\\nworld'; exit 7", &err), 0);
	assert_int_equal(cp.out.len, 11);
	assert_memory_equal(cp.out.buf, "hello\nworld", 11);
	assert_int_equal(cp.exit_code, 7);
	assert_int_equal(cp.signal, 0);
	assert_int_equal(cp.timed_out, 0);
	assert_true(cp.peak_rss_kib > 0);
	assert_true(cp.wall_s > 0); /* a real process takes time; its CPU time may round to 0 */
	/* A second run on the same struct starts from nothing. */
	assert_int_equal(run_sh(&cp, "true", &err), 0);
	assert_int_equal(cp.out.len, 0);
	assert_int_equal(cp.exit_code, 0);
	child_process_release(&cp);
	assert_int_equal(cp.out.len, 0);
	assert_int_equal(cp.exit_code, -1);
	assert_null(cp.argv);
	bl_error_release(&err);
}

static void child_reports_the_signal_that_ended_it(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	child_process_init(&cp);
	assert_int_equal(run_sh(&cp, "kill -TERM $$", &err), 0);
	assert_int_equal(cp.signal, SIGTERM);
	assert_int_equal(cp.exit_code, -1);
	/* We ignore SIGPIPE (main, as cli/main.c); the child must not inherit that. */
	assert_int_equal(run_sh(&cp, "kill -PIPE $$; exit 3", &err), 0);
	assert_int_equal(cp.signal, SIGPIPE);
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_output_over_the_cap_is_too_big_and_killed(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	child_process_init(&cp);
	cp.out_max = 4096;
	/* Never ends by itself: only the kill stops it. */
	assert_int_equal(run_sh(&cp, "while :; do echo 0123456789; done", &err), BL_ETOOBIG);
	assert_int_equal(err.code, BL_ETOOBIG);
	assert_string_equal(err.msg.buf, "'/bin/sh' printed more than 4096 bytes");
	assert_true(cp.out.len <= 4096);
	assert_int_equal(cp.signal, SIGKILL);
	/* Exactly the cap is not too much. */
	cp.out_max = 5;
	assert_int_equal(run_sh(&cp, "printf 12345", &err), 0);
	assert_string_equal(cp.out.buf, "12345");
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_stderr_tail_keeps_the_last_bytes(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	const char *end = "line 999\nEND\n";
	child_process_init(&cp);
	cp.err_tail_max = 32;
	/* Far more than the tail, in many writes, so it is trimmed on the way. */
	assert_int_equal(run_sh(&cp,
				"i=0; while [ $i -lt 1000 ]; do echo \"line $i\" >&2; "
				"i=$((i + 1)); done; echo END >&2; echo out",
				&err),
			 0);
	assert_int_equal(cp.err_tail.len, 32);
	assert_memory_equal(cp.err_tail.buf + 32 - strlen(end), end, strlen(end));
	assert_string_equal(cp.out.buf, "out\n");
	/* Less than the tail is kept whole. */
	cp.err_tail_max = 4096;
	assert_int_equal(run_sh(&cp, "echo short >&2; exit 1", &err), 0);
	assert_string_equal(cp.err_tail.buf, "short\n");
	assert_int_equal(cp.exit_code, 1);
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_stdout_to_stderr_joins_the_tail(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	child_process_init(&cp);
	cp.err_tail_max = 4096;
	cp.stdout_to_stderr = 1;
	/* Both streams in the order written, and nothing on stdout. */
	assert_int_equal(run_sh(&cp, "echo one; echo two >&2; echo three; exit 2", &err), 0);
	assert_string_equal(cp.err_tail.buf, "one\ntwo\nthree\n");
	assert_int_equal(cp.out.len, 0);
	assert_int_equal(cp.exit_code, 2);
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_stderr_passed_through_or_dropped(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf got = STRBUF_INIT;
	char path[] = "/tmp/benchline-unit-stderr-XXXXXX";
	int fd = mkstemp(path), saved = dup(2);
	assert_true(fd >= 0 && saved >= 0);
	child_process_init(&cp);
	/* Our stderr is the file while the children run. */
	fflush(stderr);
	assert_int_equal(dup2(fd, 2), 2);
	assert_int_equal(run_sh(&cp, "echo passed through >&2", &err), 0);
	cp.no_stderr = 1;
	assert_int_equal(run_sh(&cp, "echo dropped >&2", &err), 0);
	assert_int_equal(dup2(saved, 2), 2);
	close(saved);
	close(fd);
	slurp(&got, path);
	assert_string_equal(got.buf, "passed through\n");
	assert_int_equal(cp.err_tail.len, 0);
	unlink(path);
	strbuf_release(&got);
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_stdin_is_fed(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	const char *cat[] = {"cat", NULL};
	/* Far more than a pipe holds, so writing and reading must take turns. */
	size_t len = (size_t)1 << 20;
	char *data = xmalloc(len);
	for (size_t i = 0; i < len; i++)
		data[i] = (char)('a' + i % 26);
	child_process_init(&cp);
	cp.argv = cat;
	cp.in = data;
	cp.in_len = len;
	assert_int_equal(child_process_run(&cp, &err), 0);
	assert_int_equal(cp.exit_code, 0);
	assert_int_equal(cp.out.len, len);
	assert_memory_equal(cp.out.buf, data, len);
	/* Empty input: stdin is closed at once. */
	cp.in_len = 0;
	assert_int_equal(child_process_run(&cp, &err), 0);
	assert_int_equal(cp.out.len, 0);
	/* A child that reads none of it: an EPIPE here, not a failure. */
	cp.in_len = len;
	assert_int_equal(run_sh(&cp, "exit 0", &err), 0);
	assert_int_equal(cp.exit_code, 0);
	/* No input and no_stdin: /dev/null. */
	cp.argv = cat;
	cp.in = NULL;
	cp.in_len = 0;
	cp.no_stdin = 1;
	assert_int_equal(child_process_run(&cp, &err), 0);
	assert_int_equal(cp.out.len, 0);
	assert_int_equal(cp.exit_code, 0);
	free(data);
	child_process_release(&cp);
	bl_error_release(&err);
}

/* A pipe whose write end the child and everything it starts inherit: its read end sees end
 * of file only when all of them have exited. */
static void inherited_pipe(int fds[2])
{
	assert_int_equal(pipe(fds), 0);
	assert_int_equal(fcntl(fds[0], F_SETFD, FD_CLOEXEC), 0);
}

/* 1 when every holder of the pipe's write end is gone. The bound only keeps a survivor from
 * hanging the test; the kill is immediate. */
static int holders_gone(int fds[2])
{
	struct pollfd pfd = {fds[0], POLLIN, 0};
	char c;
	int r;
	close(fds[1]);
	r = poll(&pfd, 1, 10000);
	r = r == 1 && read(fds[0], &c, 1) == 0;
	close(fds[0]);
	return r;
}

static void child_deadline_kills_its_process_group(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	int fds[2];
	child_process_init(&cp);
	cp.timeout_ms = 200;
	/* sh waits for sleep, its own child: both are in the group that is killed. */
	inherited_pipe(fds);
	assert_int_equal(run_sh(&cp, "sleep 30; echo not reached", &err), 0);
	assert_int_equal(cp.timed_out, 1);
	assert_int_equal(cp.signal, SIGKILL);
	assert_int_equal(cp.out.len, 0);
	assert_true(holders_gone(fds));
	/* Its output closed but still running: killed at the deadline too. */
	inherited_pipe(fds);
	assert_int_equal(run_sh(&cp, "exec >/dev/null; sleep 30", &err), 0);
	assert_int_equal(cp.timed_out, 1);
	assert_int_equal(cp.signal, SIGKILL);
	assert_true(holders_gone(fds));
	/* Within the deadline: not timed out. */
	cp.timeout_ms = 60000;
	assert_int_equal(run_sh(&cp, "echo quick", &err), 0);
	assert_int_equal(cp.timed_out, 0);
	assert_int_equal(cp.exit_code, 0);
	assert_string_equal(cp.out.buf, "quick\n");
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_runs_in_its_directory(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf want = STRBUF_INIT;
	char dir[] = "/tmp/benchline-unit-dir-XXXXXX";
	char *real;
	assert_non_null(mkdtemp(dir));
	assert_non_null(real = realpath(dir, NULL));
	child_process_init(&cp);
	cp.dir = dir;
	assert_int_equal(run_sh(&cp, "pwd -P", &err), 0);
	strbuf_addf(&want, "%s\n", real);
	assert_string_equal(cp.out.buf, want.buf);
	cp.dir = "/nonexistent-benchline-dir";
	assert_int_equal(run_sh(&cp, "pwd", &err), BL_ENOTFOUND);
	assert_non_null(
	    strstr(err.msg.buf, "cannot run '/bin/sh' in '/nonexistent-benchline-dir'"));
	assert_int_equal(rmdir(dir), 0);
	free(real);
	strbuf_release(&want);
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_environment_changes(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	const char *env[] = {"BL_UNIT_SET=first", "BL_UNIT_GONE", "BL_UNIT_ADDED=added",
			     "BL_UNIT_SET=new", NULL};
	setenv("BL_UNIT_KEPT", "kept", 1);
	setenv("BL_UNIT_GONE", "x", 1);
	setenv("BL_UNIT_SET", "old", 1);
	child_process_init(&cp);
	cp.env = env;
	assert_int_equal(run_sh(&cp,
				"printf '%s|%s|%s|%s' \"$BL_UNIT_KEPT\" \"${BL_UNIT_GONE-unset}\" "
				"\"$BL_UNIT_SET\" \"$BL_UNIT_ADDED\"",
				&err),
			 0);
	assert_string_equal(cp.out.buf, "kept|unset|new|added");
	/* Ours is as it was. */
	assert_string_equal(getenv("BL_UNIT_SET"), "old");
	assert_string_equal(getenv("BL_UNIT_GONE"), "x");
	assert_null(getenv("BL_UNIT_ADDED"));
	unsetenv("BL_UNIT_KEPT");
	unsetenv("BL_UNIT_GONE");
	unsetenv("BL_UNIT_SET");
	child_process_release(&cp);
	bl_error_release(&err);
}

static void child_program_that_cannot_run(void **state)
{
	(void)state;
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf script = STRBUF_INIT;
	char dir[] = "/tmp/benchline-unit-prog-XXXXXX";
	const char *missing[] = {"benchline-no-such-program", NULL};
	const char *a_dir[] = {dir, NULL};
	const char *plain[] = {script.buf, "arg", NULL};
	FILE *f;
	assert_non_null(mkdtemp(dir));
	child_process_init(&cp);
	assert_int_equal(child_process_run(&cp, &err), BL_EINVALID);
	cp.argv = missing;
	assert_int_equal(child_process_run(&cp, &err), BL_ENOTFOUND);
	assert_string_equal(err.msg.buf,
			    "cannot run 'benchline-no-such-program': No such file or directory");
	/* Found, but exec refuses it: reported by the spawn, not as an exit status. */
	cp.argv = a_dir;
	assert_int_equal(child_process_run(&cp, &err), BL_EIO);
	assert_non_null(strstr(err.msg.buf, "Permission denied"));
	/* No #! line: /bin/sh runs it, as execvp does. */
	strbuf_addf(&script, "%s/plain", dir);
	plain[0] = script.buf;
	assert_non_null(f = fopen(script.buf, "w"));
	fputs("echo from sh \"$1\"\n", f);
	fclose(f);
	assert_int_equal(chmod(script.buf, 0755), 0);
	cp.argv = plain;
	assert_int_equal(child_process_run(&cp, &err), 0);
	assert_string_equal(cp.out.buf, "from sh arg\n");
	assert_int_equal(unlink(script.buf), 0);
	assert_int_equal(rmdir(dir), 0);
	strbuf_release(&script);
	child_process_release(&cp);
	bl_error_release(&err);
}

/* The next pseudo-random double of every bit pattern but NaN, the infinities and zero. */
static double next_double(uint64_t *x)
{
	double v;
	do {
		*x ^= *x << 13, *x ^= *x >> 7, *x ^= *x << 17;
		memcpy(&v, x, sizeof(v));
	} while (isnan(v) || isinf(v) || v == 0);
	return v;
}

/* repr()'s layout, as the ladder files print reals (DOUBLE_POINT_ZERO) and as their messages
 * and tables print numbers (0). */
static void doubles_in_shortest_round_trip_form(void **state)
{
	static const struct {
		double v;
		const char *json, *text;
	} cases[] = {
	    {4.005485184848892, "4.005485184848892", "4.005485184848892"},
	    {12.4, "12.4", "12.4"},
	    {100.0, "100.0", "100"},
	    {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004"},
	    {1e-5, "1e-05", "1e-05"},
	    {0.0001, "0.0001", "0.0001"},
	    {1e22, "1e+22", "1e+22"},
	    {1e16, "1e+16", "1e+16"},
	    {1234567890123456.0, "1234567890123456.0", "1234567890123456"},
	    {5e-324, "5e-324", "5e-324"},
	    {1.7976931348623157e308, "1.7976931348623157e+308", "1.7976931348623157e+308"},
	    {-2.5, "-2.5", "-2.5"},
	    {0.0, "0.0", "0"},
	    {-0.0, "-0.0", "-0"},
	    {8.94, "8.94", "8.94"},
	    {10 - 1.06, "8.94", "8.94"},
	    {NAN, "nan", "nan"},
	    {INFINITY, "inf", "inf"},
	    {-INFINITY, "-inf", "-inf"},
	};
	char buf[DOUBLE_TEXT_MAX], again[DOUBLE_TEXT_MAX];
	struct strbuf sb = STRBUF_INIT;
	uint64_t x = 0x9e3779b97f4a7c15ULL;
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(format_double(buf, cases[i].v, DOUBLE_POINT_ZERO),
				    cases[i].json);
		assert_string_equal(format_double(buf, cases[i].v, 0), cases[i].text);
		strbuf_reset(&sb);
		strbuf_addch(&sb, '[');
		strbuf_add_double(&sb, cases[i].v, DOUBLE_POINT_ZERO);
		strbuf_addch(&sb, ']');
		snprintf(again, sizeof(again), "[%s]", cases[i].json);
		assert_string_equal(sb.buf, again);
	}
	/* Random doubles: each reads back exactly, with as many significant digits as the
	 * shortest %e form that does. */
	for (int i = 0; i < 20000; i++) {
		double v = next_double(&x);
		int p;
		size_t digits = 0, start, end;
		char sig[DOUBLE_TEXT_MAX];
		format_double(buf, v, DOUBLE_POINT_ZERO);
		assert_true(strtod(buf, NULL) == v);
		for (const char *c = buf; *c && *c != 'e'; c++)
			if (*c >= '0' && *c <= '9')
				sig[digits++] = *c;
		for (start = 0; start < digits && sig[start] == '0'; start++)
			;
		for (end = digits; end > start && sig[end - 1] == '0'; end--)
			;
		for (p = 1; p < 17; p++) {
			snprintf(again, sizeof(again), "%.*e", p - 1, v);
			if (strtod(again, NULL) == v)
				break;
		}
		assert_int_equal(end - start, (size_t)p);
	}
	strbuf_release(&sb);
}

/* printf's %g layout, as ingest's messages print numbers: the first %.Ng that reads back,
 * byte for byte, with ".0" after a whole number when asked (a JSON real). */
static void doubles_in_the_g_layout(void **state)
{
	static const struct {
		double v;
		const char *g, *real;
	} cases[] = {
	    {-100.0, "-1e+02", "-1e+02"},
	    {-5.0, "-5", "-5.0"},
	    {-1200.0, "-1.2e+03", "-1.2e+03"},
	    {-12.5, "-12.5", "-12.5"},
	    {0.0, "0", "0.0"},
	    {-0.0, "-0", "-0.0"},
	    {1e-5, "1e-05", "1e-05"},
	    {0.0001, "0.0001", "0.0001"},
	    {123456.0, "123456", "123456.0"},
	    {0.1 + 0.2, "0.30000000000000004", "0.30000000000000004"},
	};
	char buf[DOUBLE_TEXT_MAX], want[DOUBLE_TEXT_MAX];
	struct strbuf real = STRBUF_INIT;
	uint64_t x = 0x2545f4914f6cdd1dULL;
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		assert_string_equal(format_double(buf, cases[i].v, DOUBLE_LAYOUT_G), cases[i].g);
		assert_string_equal(
		    format_double(buf, cases[i].v, DOUBLE_LAYOUT_G | DOUBLE_POINT_ZERO),
		    cases[i].real);
	}
	for (int i = 0; i < 20000; i++) {
		/* Whole numbers too: where %g and repr() part ways. */
		double v =
		    i % 2 ? next_double(&x) : (double)(int64_t)(x % 100000000) * (i % 3 ? 1 : -10);
		if (v == 0)
			continue;
		for (int p = 1; p <= 17; p++) {
			snprintf(want, sizeof(want), "%.*g", p, v);
			if (strtod(want, NULL) == v)
				break;
		}
		assert_string_equal(format_double(buf, v, DOUBLE_LAYOUT_G), want);
		/* As a JSON real: ".0" after what has neither a point nor an exponent. */
		strbuf_reset(&real);
		strbuf_addstr(&real, want);
		if (!strpbrk(want, ".e"))
			strbuf_addstr(&real, ".0");
		assert_string_equal(format_double(buf, v, DOUBLE_LAYOUT_G | DOUBLE_POINT_ZERO),
				    real.buf);
	}
	strbuf_release(&real);
}

static void doubles_compare_in_order(void **state)
{
	double v[] = {3, -1, 2.5, -0.0, 1e300, -INFINITY, 2.5, 7};
	const double sorted[] = {-INFINITY, -1, -0.0, 2.5, 2.5, 3, 7, 1e300};
	double a = 1, b = 2;
	(void)state;
	assert_int_equal(cmp_double(&a, &b), -1);
	assert_int_equal(cmp_double(&b, &a), 1);
	assert_int_equal(cmp_double(&a, &a), 0);
	qsort(v, sizeof(v) / sizeof(v[0]), sizeof(v[0]), cmp_double);
	for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_true(v[i] == sorted[i]);
}

/* A double from a seeded generator: uniform bits, short decimals, whole numbers and the
 * edges of format_double_g17's fast range. */
static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng_next(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static double some_double(unsigned i)
{
	static const double edges[] = {1e-4,
				       1e15,
				       9.99999999999999e14,
				       0.0001000000000000001,
				       0.5,
				       2.5,
				       1e16,
				       1e-5,
				       123456789012345678.0,
				       5e-324,
				       1.7976931348623157e308,
				       0.1,
				       0.3,
				       8124.4,
				       1374.7};
	uint64_t r = rng_next(), bits;
	double v;

	switch (i % 4) {
	case 0:
		bits = r;
		memcpy(&v, &bits, sizeof(v));
		return isfinite(v) ? v : 1.5;
	case 1: /* a short decimal, as people and harnesses write them */
		return (double)(int64_t)(r % 100000000) / pow(10, (double)((r >> 40) % 12));
	case 2:
		return (double)(int64_t)(r >> 12) * (r & 1 ? 1 : -1);
	default:
		return edges[(r >> 3) % (sizeof(edges) / sizeof(*edges))] * (r & 1 ? 1 : -1);
	}
}

static void doubles_as_printf_g17(void **state)
{
	char mine[DOUBLE_TEXT_MAX], libc[64];
	(void)state;
	for (unsigned i = 0; i < 400000; i++) {
		double v = some_double(i);
		int len = format_double_g17(mine, v);
		snprintf(libc, sizeof(libc), "%.17g", v);
		if (strcmp(mine, libc))
			fail_msg("%a: %s, printf %s", v, mine, libc);
		assert_int_equal(len, (int)strlen(libc));
	}
}

/* The canonical writer is byte for byte jansson's sorted, compact, 17-digit dump: stored
 * records are hashed over it. */
static void json_canonical_is_janssons_dump(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	for (unsigned round = 0; round < 2000; round++) {
		json_t *o = json_object(), *arr = json_array(), *inner = json_object();
		char key[16], *theirs;
		for (unsigned k = 0; k < 12; k++) {
			snprintf(key, sizeof(key), "k%02u", (unsigned)(rng_next() % 40));
			json_object_set_new(o, key, json_real(some_double(round * 12 + k)));
		}
		for (unsigned k = 0; k < 5; k++)
			json_array_append_new(arr, json_real(some_double(round + k)));
		json_array_append_new(arr, json_integer((json_int_t)(rng_next() >> 2)));
		json_object_set_new(inner, "s", json_string("tab\t\"q\" \\ \x01 \x1f é"));
		json_object_set_new(inner, "b", json_true());
		json_object_set_new(inner, "n", json_null());
		json_object_set_new(inner, "f", json_false());
		json_object_set_new(inner, "empty", json_object());
		json_object_set_new(inner, "none", json_array());
		json_object_set_new(o, "samples", arr);
		json_object_set_new(o, "a", inner);
		json_object_set_new(o, "", json_string(""));
		theirs = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
		strbuf_reset(&sb);
		assert_int_equal(json_write(&sb, o, JSON_WRITE_CANONICAL), 0);
		assert_string_equal(sb.buf, theirs);
		free(theirs);
		theirs = json_dumps(o, JSON_INDENT(2) | JSON_SORT_KEYS | JSON_REAL_PRECISION(17));
		strbuf_reset(&sb);
		assert_int_equal(json_write(&sb, o, JSON_WRITE_CANONICAL | JSON_WRITE_INDENT), 0);
		assert_string_equal(sb.buf, theirs);
		free(theirs);
		json_decref(o);
	}
	/* not JSON: nothing written */
	strbuf_reset(&sb);
	strbuf_addstr(&sb, "kept");
	assert_int_equal(json_write(&sb, NULL, 0), BL_EINVALID);
	assert_string_equal(sb.buf, "kept");
	strbuf_release(&sb);
}

/* Outside the canonical form, reals are written in their shortest round-trip form. */
static void json_shortest_reals(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	json_t *a = json_pack("[f,f,f,i]", 8124.4, 100.0, 0.1, 7);
	(void)state;
	assert_int_equal(json_write(&sb, a, 0), 0);
	assert_string_equal(sb.buf, "[8124.4,100.0,0.1,7]");
	json_decref(a);
	strbuf_release(&sb);
}

/* A run's digest is git's blob id of its canonical text. */
static void digests_are_git_blob_ids(void **state)
{
	char id[41];
	(void)state;
	assert_int_equal(digest_blob(id, "hello", 5), 0);
	assert_string_equal(id, "b6fc4c620b67d95f953a5c1c1230aaab5db5a1b0");
	assert_int_equal(digest_blob(id, "", 0), 0);
	assert_string_equal(id, "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391");
}

static void quantity(const char *unit, double typical, double v, const char *want)
{
	struct unit_scale sc;
	struct strbuf sb = STRBUF_INIT;
	unit_scale_choose(&sc, unit, typical);
	strbuf_add_quantity(&sb, v, &sc);
	assert_string_equal(sb.buf, want);
	strbuf_release(&sb);
}

/* Figures in the units people read, one scale per Series. */
/* A lone value in the unit its own size calls for (the overview and `series` alike, issue
 * 28), and a change with the one precision every change is shown with (§11). */
static void values_and_changes_as_people_read_them(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	(void)state;
	strbuf_add_value(&sb, 982603401.0, "B/s");
	strbuf_addstr(&sb, " | ");
	strbuf_add_value(&sb, 66699.3, "ns");
	strbuf_addstr(&sb, " | ");
	strbuf_add_value(&sb, 12316, "allocs");
	assert_string_equal(sb.buf, "983 MB/s | 66.7 µs | 12316 allocs");
	strbuf_reset(&sb);
	strbuf_add_change(&sb, 1.123, "?");
	strbuf_addch(&sb, ' ');
	strbuf_add_change(&sb, 1.738, "?");
	strbuf_addch(&sb, ' ');
	strbuf_add_change(&sb, 1.03, "?");
	strbuf_addch(&sb, ' ');
	strbuf_add_change(&sb, 0.96, "?");
	strbuf_addch(&sb, ' ');
	strbuf_add_change(&sb, 0.9996, "?");
	strbuf_addch(&sb, ' ');
	strbuf_add_change(&sb, 1, "?");
	strbuf_addch(&sb, '|');
	strbuf_add_change(&sb, NAN, "");
	strbuf_add_change(&sb, INFINITY, "?");
	strbuf_addch(&sb, '|');
	assert_string_equal(sb.buf, "+12.3% +73.8% +3.0% -4.0% 0.0% 0.0%|?|");
	strbuf_release(&sb);
}

static void quantities_in_human_units(void **state)
{
	(void)state;
	quantity("us", 145, 145, "145 µs");
	quantity("us", 28268.7, 28268.7, "28.3 ms");
	quantity("us", 28268.7, 31000, "31 ms");
	quantity("us", 1.2e6, 1.2e6, "1.2 s");
	quantity("ms", 9394, 9394, "9.39 s");
	quantity("ns", 0.5, 0.5, "0.5 ns");
	quantity("s", 0.0042, 0.0042, "4.2 ms");
	quantity("MB/s", 798, 798, "798 MB/s");
	quantity("B/s", 7.98e8, 7.98e8, "798 MB/s");
	quantity("bytes", 1536, 1536, "1.54 kB");
	quantity("KiB", 2048, 2048, "2 MiB");
	/* a Series scaled by its typical value keeps one unit */
	quantity("us", 28268.7, 950, "0.95 ms");
	/* other units as they are; counts whole */
	quantity("allocs", 12316, 12316, "12316 allocs");
	quantity("frames", 3, 2.5, "2.5 frames");
	quantity("", 7, 7, "7");
	quantity("us", NAN, 145, "145 us");
	{
		/* the scale keeps its own copy of the unit, cut on a character boundary */
		char unit[100];
		struct unit_scale sc;
		memset(unit, 'x', sizeof(unit));
		unit[sizeof(unit) - 1] = '\0';
		unit_scale_choose(&sc, unit, 1);
		assert_int_equal(strlen(sc.unit), UNIT_TEXT_MAX - 1);
		/* a two-byte character across the cut is left out whole */
		memcpy(unit + UNIT_TEXT_MAX - 2, "\xc2\xb5", 2);
		unit_scale_choose(&sc, unit, 1);
		assert_int_equal(strlen(sc.unit), UNIT_TEXT_MAX - 2);
		memset(unit, 'z', sizeof(unit) - 1);
		assert_int_equal(sc.unit[0], 'x');
	}
	quantity("us", 1.79e308, 1.7976931348623157e308, "1.8e+302 s");
	quantity("", 1, 2.5e-7, "2.5e-07");
}

/* The shortest form's digits as the plain search finds them: 1 to 17 digits, the first that
 * reads back. */
static void shortest_by_search(char *out, size_t size, double v)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(out, size, "%.*e", p - 1, v);
		if (p == 17 || strtod(out, NULL) == v)
			return;
	}
}

/* The significant digits of a number's text: no sign, point, exponent, or leading and
 * trailing zeros ("100" and "1e+02" are both "1"). */
static void significant(char *out, const char *text)
{
	size_t n = 0;
	for (const char *q = text; *q && *q != 'e'; q++)
		if (*q >= '0' && *q <= '9' && (n || *q != '0'))
			out[n++] = *q;
	while (n > 1 && out[n - 1] == '0')
		n--;
	out[n] = '\0';
}

/* format_double's three tries give the digits of trying every length, 1 to 17. */
static void doubles_shortest_matches_the_full_search(void **state)
{
	char mine[DOUBLE_TEXT_MAX], want[64], a[32], b[32];
	(void)state;
	for (unsigned i = 0; i < 200000; i++) {
		double v = some_double(i);
		if (v == 0 || !isfinite(v))
			continue;
		format_double(mine, v, DOUBLE_LAYOUT_G);
		shortest_by_search(want, sizeof(want), v);
		significant(a, mine);
		significant(b, want);
		if (strtod(mine, NULL) != v || strcmp(a, b))
			fail_msg("%a: %s, but the search gives %s", v, mine, want);
	}
}

/* A pid written to dir/name by a child. */
static pid_t pid_in(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT, text = STRBUF_INIT;
	pid_t pid;
	strbuf_addf(&path, "%s/%s", dir, name);
	slurp(&text, path.buf);
	pid = (pid_t)atol(text.buf);
	strbuf_release(&path);
	strbuf_release(&text);
	return pid;
}

/* With reap_orphans, nothing the child started outlives it (§13): a detached `setsid sleep`, a
 * grandchild whose parent runs on, and a leftover that holds the child's stdout open (which
 * would keep the run waiting until its deadline) are all killed and reaped. Last in the list:
 * the test's process stays a subreaper. */
static void child_leaves_nothing_behind(void **state)
{
	char tmpl[] = "/tmp/benchline-unit-leftovers.XXXXXX";
	char *dir = mkdtemp(tmpl);
	static const char *const names[] = {"detached", "parent", "grandchild", "holder"};
	struct child_process cp;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf script = STRBUF_INIT;
	(void)state;

	assert_non_null(dir);
	strbuf_addf(&script,
		    "cd '%s' || exit 9\n"
		    "setsid sleep 3600 >/dev/null 2>&1 & echo $! >detached\n"
		    "(sleep 3600 & echo $! >grandchild; wait) >/dev/null 2>&1 & echo $! >parent\n"
		    "sleep 3600 & echo $! >holder\n"
		    "while [ ! -s grandchild ]; do :; done\n"
		    "echo out\n",
		    dir);
	child_process_init(&cp);
	cp.reap_orphans = 1;
	cp.timeout_ms = 600000;
	assert_int_equal(run_sh(&cp, script.buf, &err), 0);
	assert_int_equal(cp.exit_code, 0);
	assert_int_equal(cp.timed_out, 0);
	assert_string_equal(cp.out.buf, "out\n");
	for (size_t i = 0; i < sizeof(names) / sizeof(*names); i++) {
		pid_t pid = pid_in(dir, names[i]);
		assert_true(pid > 1);
		assert_int_equal(kill(pid, 0), -1);
		assert_int_equal(errno, ESRCH);
	}
	/* And again: the second run's leftovers go too, and nothing of ours is touched. */
	assert_int_equal(run_sh(&cp, script.buf, &err), 0);
	assert_int_equal(kill(pid_in(dir, "holder"), 0), -1);
	child_process_release(&cp);
	strbuf_reset(&script);
	strbuf_addf(&script, "rm -rf '%s'", dir);
	assert_int_equal(system(script.buf), 0);
	strbuf_release(&script);
	bl_error_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(strbuf_starts_empty_and_never_null),
	    cmocka_unit_test(strbuf_grows_across_many_appends),
	    cmocka_unit_test(strbuf_addf_handles_long_output),
	    cmocka_unit_test(strbuf_add_int64_matches_printf),
	    cmocka_unit_test(strbuf_json_string_escapes),
	    cmocka_unit_test(error_set_and_prefix),
	    cmocka_unit_test(error_kind_follows_the_error),
	    cmocka_unit_test(error_set_from_its_own_message),
	    cmocka_unit_test(urls_lose_their_passwords_in_messages),
	    cmocka_unit_test(rfc3339_accepts_utc),
	    cmocka_unit_test(rfc3339_rejects_the_rest),
	    cmocka_unit_test(utf8_validation),
	    cmocka_unit_test(hex40),
	    cmocka_unit_test(globs),
	    cmocka_unit_test(file_reading_is_capped),
	    cmocka_unit_test(child_captures_stdout_and_exit_code),
	    cmocka_unit_test(child_reports_the_signal_that_ended_it),
	    cmocka_unit_test(child_output_over_the_cap_is_too_big_and_killed),
	    cmocka_unit_test(child_stderr_tail_keeps_the_last_bytes),
	    cmocka_unit_test(child_stderr_passed_through_or_dropped),
	    cmocka_unit_test(child_stdout_to_stderr_joins_the_tail),
	    cmocka_unit_test(child_stdin_is_fed),
	    cmocka_unit_test(child_deadline_kills_its_process_group),
	    cmocka_unit_test(child_runs_in_its_directory),
	    cmocka_unit_test(child_environment_changes),
	    cmocka_unit_test(child_program_that_cannot_run),
	    cmocka_unit_test(doubles_in_shortest_round_trip_form),
	    cmocka_unit_test(doubles_in_the_g_layout),
	    cmocka_unit_test(doubles_compare_in_order),
	    cmocka_unit_test(doubles_as_printf_g17),
	    cmocka_unit_test(doubles_shortest_matches_the_full_search),
	    cmocka_unit_test(json_canonical_is_janssons_dump),
	    cmocka_unit_test(json_shortest_reals),
	    cmocka_unit_test(digests_are_git_blob_ids),
	    cmocka_unit_test(quantities_in_human_units),
	    cmocka_unit_test(child_leaves_nothing_behind),
	    cmocka_unit_test(values_and_changes_as_people_read_them),
	};
	/* As cli/main.c: a child that stops reading its stdin is an EPIPE, not our death. */
	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
