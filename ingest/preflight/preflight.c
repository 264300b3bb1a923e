/*
 * Preflight (§4): CPU load from /proc/stat, GPU load from nvidia-smi, other benchline runs and
 * configured benchmark processes from /proc/PID, battery from /sys/class/power_supply, and the
 * Linux warnings (governor, turbo, swap). Readers take their paths under a root so tests can
 * point them at a fixture tree; everything they decide is a pure function below.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "ingest/config/config.h"
#include "ingest/preflight/preflight.h"

/* Largest /proc or /sys file read (more is cut off: the lines preflight wants come first). */
#define SMALL_FILE_CAP ((size_t)1 << 20)
/* Largest nvidia-smi output read (more is a warning: it is not what nvidia-smi prints). */
#define GPU_OUTPUT_CAP ((size_t)64 << 10)
/* Longest command line shown in a finding. */
#define CMDLINE_SHOWN 200
/* Deepest ancestor chain followed (a guard against a cycle in a fixture). */
#define MAX_ANCESTORS 1024
/* Largest benchline.json read (as config.c). */
#define CONFIG_MAX_FILE ((size_t)1 << 20)

/* ------------------------------------------------------------------ lifecycle */

void preflight_limits_init(struct preflight_limits *limits)
{
	const char *root = getenv("BENCHLINE_SYSROOT");
	const char *smi = getenv("BENCHLINE_NVIDIA_SMI");
	memset(limits, 0, sizeof(*limits));
	limits->cpu_load_pct = PREFLIGHT_CPU_LIMIT;
	limits->gpu_load_pct = PREFLIGHT_GPU_LIMIT;
	limits->gpu_timeout_ms = PREFLIGHT_GPU_TIMEOUT_MS;
	if (root && *root && strcmp(root, "/"))
		limits->sysroot = root;
	if (smi && *smi)
		limits->nvidia_smi = smi;
	/* A simulated machine must not see the real GPU. */
	limits->search_path = !limits->sysroot;
}

void preflight_init(struct preflight *p)
{
	memset(p, 0, sizeof(*p));
	p->gpu_load_pct = NAN;
	p->turbo = -1;
	p->swap_used_kb = -1;
}

static void release_procs(struct preflight_proc *procs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(procs[i].what);
	free(procs);
}

static void release_verdict(struct preflight *p)
{
	for (size_t i = 0; i < p->nfindings; i++)
		free(p->findings[i].text);
	free(p->findings);
	strings_free(p->warnings, p->nwarnings);
	strings_free(p->failures, p->nfailures);
	p->findings = NULL;
	p->warnings = p->failures = NULL;
	p->nfindings = p->alloc_findings = 0;
	p->nwarnings = p->alloc_warnings = 0;
	p->nfailures = p->alloc_failures = 0;
}

void preflight_release(struct preflight *p)
{
	release_verdict(p);
	free(p->gpu_skip);
	free(p->gpu_error);
	release_procs(p->others, p->nothers);
	release_procs(p->busy, p->nbusy);
	free(p->battery);
	free(p->governor);
	free(p->turbo_source);
	preflight_init(p);
}

/* ------------------------------------------------------------------ pure pieces */

static const char *skip_spaces(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

int preflight_parse_cpu(struct preflight_cpu_times *out, const char *text)
{
	const char *line = text;
	uint64_t v[8] = {0};
	int n = 0;
	while (line && strncmp(line, "cpu ", 4) && strncmp(line, "cpu\t", 4)) {
		line = strchr(line, '\n');
		if (line)
			line++;
	}
	if (!line)
		return BL_EINVALID;
	line += 3;
	while (n < 8) {
		char *end;
		const char *s = skip_spaces(line);
		if (*s < '0' || *s > '9')
			break;
		errno = 0;
		v[n] = strtoull(s, &end, 10);
		if (errno || end == s)
			return BL_EINVALID;
		n++;
		line = end;
	}
	if (n < 4)
		return BL_EINVALID;
	out->user = v[0];
	out->nice = v[1];
	out->system = v[2];
	out->idle = v[3];
	out->iowait = v[4];
	out->irq = v[5];
	out->softirq = v[6];
	out->steal = v[7];
	return 0;
}

int preflight_parse_proc_stat(struct preflight_proc_stat *out, const char *text)
{
	const char *close = strrchr(text, ')'), *s;
	long long v[12];
	char *end;
	errno = 0;
	out->pid = strtol(text, &end, 10);
	if (errno || end == text || !close || close < end || out->pid <= 0)
		return BL_EINVALID;
	s = skip_spaces(close + 1);
	if (!*s || *s == '\n')
		return BL_EINVALID;
	s++; /* the state letter */
	for (int i = 0; i < 12; i++) {
		const char *t = skip_spaces(s);
		errno = 0;
		v[i] = strtoll(t, &end, 10);
		if (errno || end == t)
			return BL_EINVALID;
		s = end;
	}
	/* Fields 4 (ppid) ... 15 (stime): v[0] is ppid, v[10] utime, v[11] stime. */
	if (v[10] < 0 || v[11] < 0)
		return BL_EINVALID;
	out->ppid = (long)v[0];
	out->utime = (uint64_t)v[10];
	out->stime = (uint64_t)v[11];
	return 0;
}

static uint64_t delta(uint64_t before, uint64_t after)
{
	/* Some counters (idle, iowait) may step back on some kernels: never negative. */
	return after > before ? after - before : 0;
}

static double round_pct(double pct)
{
	return round(pct * 100.0) / 100.0;
}

double preflight_cpu_load(const struct preflight_cpu_times *b, const struct preflight_cpu_times *a,
			  uint64_t self_ticks)
{
	uint64_t idle = delta(b->idle, a->idle) + delta(b->iowait, a->iowait);
	uint64_t busy = delta(b->user, a->user) + delta(b->nice, a->nice) +
			delta(b->system, a->system) + delta(b->irq, a->irq) +
			delta(b->softirq, a->softirq) + delta(b->steal, a->steal);
	uint64_t total = idle + busy;
	double pct;
	if (!total)
		return 0;
	busy = busy > self_ticks ? busy - self_ticks : 0;
	/* Multiply first, so 10 of 100 ticks is exactly 10.0. */
	pct = (double)busy * 100.0 / (double)total;
	if (pct > 100)
		pct = 100;
	return round_pct(pct);
}

int preflight_over(double value, double limit)
{
	return value > limit;
}

int preflight_parse_gpu(double *max_pct, const char *text)
{
	const char *line = text;
	int found = 0;
	double max = 0;
	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		char *item = xstrndup(line, len), *s = item, *end;
		size_t n;
		while (*s == ' ' || *s == '\t')
			s++;
		n = strlen(s);
		while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
			s[--n] = '\0';
		if (n && !(s[0] == '[' && s[n - 1] == ']') && strcmp(s, "N/A")) {
			double v;
			errno = 0;
			v = strtod(s, &end);
			if (errno || end == s || *end || !isfinite(v) || v < 0) {
				free(item);
				return BL_EINVALID;
			}
			if (!found || v > max)
				max = v;
			found = 1;
		}
		free(item);
		line += len;
		if (*line == '\n')
			line++;
	}
	if (!found)
		return BL_EINVALID;
	*max_pct = round_pct(max);
	return 0;
}

int preflight_is_benchline_run(const char *cmdline, size_t len)
{
	const char *end = cmdline + len, *arg = cmdline, *base, *slash;
	size_t n0 = strnlen(cmdline, len);
	int skip_value = 0;
	/* argv[0]'s basename, read within len (the buffer need not end in a NUL). */
	slash = memrchr(cmdline, '/', n0);
	base = slash ? slash + 1 : cmdline;
	if ((size_t)(cmdline + n0 - base) != 9 || memcmp(base, "benchline", 9))
		return 0;
	/* The arguments after argv[0], NUL-separated; the last may lack its NUL. */
	for (arg += strnlen(arg, len) + 1; arg < end;
	     arg += strnlen(arg, (size_t)(end - arg)) + 1) {
		size_t n = strnlen(arg, (size_t)(end - arg));
		if (skip_value) {
			skip_value = 0;
			continue;
		}
		if (n && arg[0] == '-') {
			/* Global options before the command word; --db takes a value. */
			skip_value = n == 4 && !memcmp(arg, "--db", 4);
			continue;
		}
		return n == 3 && !memcmp(arg, "run", 3);
	}
	return 0;
}

int preflight_comm_matches(const char *comm, const char *name)
{
	size_t n = strlen(comm);
	while (n && (comm[n - 1] == '\n' || comm[n - 1] == ' '))
		n--;
	if (strlen(name) == n && !strncmp(comm, name, n))
		return 1;
	/* TASK_COMM_LEN is 16: the kernel keeps the first 15 characters. */
	return n == 15 && strlen(name) > 15 && !strncmp(comm, name, 15);
}

int preflight_on_battery(const struct preflight_power_supply *s, size_t n, const char **which)
{
	const char *battery = NULL;
	int external = 0, online = 0;
	*which = NULL;
	for (size_t i = 0; i < n; i++) {
		int is_battery = s[i].type && !strcmp(s[i].type, "Battery");
		int is_ups = s[i].type && !strcmp(s[i].type, "UPS");
		if (s[i].scope && !strcmp(s[i].scope, "Device"))
			continue; /* a peripheral's battery */
		if ((is_battery || is_ups) && s[i].status && !strcmp(s[i].status, "Discharging")) {
			*which = s[i].name;
			return 1;
		}
		if (is_battery && !battery)
			battery = s[i].name;
		if (s[i].type && (!strcmp(s[i].type, "Mains") || !strcmp(s[i].type, "USB"))) {
			external = 1;
			online |= s[i].online == 1;
		}
	}
	if (battery && external && !online) {
		*which = battery;
		return 1;
	}
	return 0;
}

static int meminfo_kb(int64_t *out, const char *text, const char *key)
{
	size_t klen = strlen(key);
	for (const char *line = text; line; line = strchr(line, '\n')) {
		char *end;
		long long v;
		if (*line == '\n')
			line++;
		if (strncmp(line, key, klen) || line[klen] != ':')
			continue;
		errno = 0;
		v = strtoll(line + klen + 1, &end, 10);
		if (errno || end == line + klen + 1 || v < 0)
			return BL_EINVALID;
		*out = v;
		return 0;
	}
	return BL_ENOTFOUND;
}

int preflight_parse_swap(int64_t *used_kb, const char *text)
{
	int64_t total, free_kb;
	int ret;
	if ((ret = meminfo_kb(&total, text, "SwapTotal")) ||
	    (ret = meminfo_kb(&free_kb, text, "SwapFree")))
		return ret;
	*used_kb = total > free_kb ? total - free_kb : 0;
	return 0;
}

/* "0", "1" (trailing whitespace allowed) as 0/1, anything else -1. */
static int flag_value(const char *text)
{
	const char *s = skip_spaces(text);
	if ((s[0] != '0' && s[0] != '1'))
		return -1;
	for (const char *t = s + 1; *t; t++)
		if (*t != '\n' && *t != ' ' && *t != '\r')
			return -1;
	return s[0] - '0';
}

int preflight_turbo(const char *no_turbo, const char *boost)
{
	int v;
	if (no_turbo && (v = flag_value(no_turbo)) >= 0)
		return !v;
	if (boost && (v = flag_value(boost)) >= 0)
		return v;
	return -1;
}

const char *preflight_governor(char *const *governors, size_t n, size_t *slow)
{
	const char *first_slow = NULL;
	*slow = 0;
	if (!n)
		return NULL;
	for (size_t i = 0; i < n; i++)
		if (strcmp(governors[i], "performance")) {
			(*slow)++;
			if (!first_slow)
				first_slow = governors[i];
		}
	return first_slow ? first_slow : governors[0];
}

void preflight_format_pct(struct strbuf *sb, double pct)
{
	size_t start = sb->len;
	strbuf_addf(sb, "%.2f", pct);
	while (sb->len > start && sb->buf[sb->len - 1] == '0')
		strbuf_setlen(sb, sb->len - 1);
	if (sb->len > start && sb->buf[sb->len - 1] == '.')
		strbuf_setlen(sb, sb->len - 1);
	if (!strcmp(sb->buf + start, "-0")) {
		strbuf_setlen(sb, start);
		strbuf_addch(sb, '0');
	}
}

/* ------------------------------------------------------------------ readers */

/* root + "/" + rel, for rel relative to the root ("proc/stat"). */
static void root_path(struct strbuf *sb, const char *root, const char *rel)
{
	strbuf_reset(sb);
	if (root) {
		strbuf_addstr(sb, root);
		if (sb->len && sb->buf[sb->len - 1] == '/')
			strbuf_setlen(sb, sb->len - 1);
	}
	strbuf_addch(sb, '/');
	strbuf_addstr(sb, rel);
}

/* Reads up to cap bytes of a file into sb (reset first): 0, or -1 with errno set. */
static int read_text(struct strbuf *sb, const char *path, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	strbuf_reset(sb);
	if (fd < 0)
		return -1;
	while (sb->len < cap) {
		ssize_t n;
		strbuf_grow(sb, 4096);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			int saved = errno;
			if (errno == EINTR)
				continue;
			close(fd);
			errno = saved;
			return -1;
		}
		if (n == 0)
			break;
		strbuf_setlen(sb, sb->len + (size_t)n);
	}
	close(fd);
	return 0;
}

/* Reads root/rel trimmed of trailing whitespace; 1 when it exists, 0 when not. */
static int read_optional(struct strbuf *sb, const char *root, const char *rel)
{
	struct strbuf path = STRBUF_INIT;
	int ok;
	root_path(&path, root, rel);
	ok = read_text(sb, path.buf, SMALL_FILE_CAP) == 0;
	strbuf_release(&path);
	if (!ok)
		return 0;
	while (sb->len && strchr(" \t\r\n", sb->buf[sb->len - 1]))
		strbuf_setlen(sb, sb->len - 1);
	return 1;
}

/* Reads root/rel, which must exist and parse. */
static int read_required(struct strbuf *sb, const char *root, const char *rel, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret = 0;
	root_path(&path, root, rel);
	if (read_text(sb, path.buf, SMALL_FILE_CAP))
		ret = bl_error_set(err, BL_EIO, "cannot read '%s': %s", path.buf, strerror(errno));
	strbuf_release(&path);
	return ret;
}

static int read_proc_stat(struct preflight_proc_stat *out, struct strbuf *sb, const char *root,
			  const char *rel, struct bl_error *err)
{
	int ret = read_required(sb, root, rel, err);
	if (!ret && preflight_parse_proc_stat(out, sb->buf)) {
		struct strbuf path = STRBUF_INIT;
		root_path(&path, root, rel);
		ret = bl_error_set(err, BL_EINVALID, "cannot parse '%s'", path.buf);
		strbuf_release(&path);
	}
	return ret;
}

static int read_cpu(struct preflight_cpu_times *cpu, uint64_t *self, const char *root,
		    const char *suffix, struct bl_error *err)
{
	struct strbuf sb = STRBUF_INIT, rel = STRBUF_INIT;
	struct preflight_proc_stat ps;
	int ret;
	strbuf_addf(&rel, "proc/stat%s", suffix);
	if ((ret = read_required(&sb, root, rel.buf, err)))
		goto done;
	if (preflight_parse_cpu(cpu, sb.buf)) {
		root_path(&sb, root, rel.buf);
		ret = bl_error_set(err, BL_EINVALID, "cannot parse '%s': no aggregate cpu line",
				   sb.buf);
		goto done;
	}
	strbuf_reset(&rel);
	strbuf_addf(&rel, "proc/self/stat%s", suffix);
	if ((ret = read_proc_stat(&ps, &sb, root, rel.buf, err)))
		goto done;
	*self = ps.utime + ps.stime;
done:
	strbuf_release(&sb);
	strbuf_release(&rel);
	return ret;
}

static void sleep_ms(long ms)
{
	struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

/* CPU load over 1 s on the real machine; proc/stat then proc/stat.after in a fixture. */
static int sample_cpu(struct preflight *p, const char *root, struct bl_error *err)
{
	struct preflight_cpu_times before, after;
	uint64_t self_before, self_after;
	int ret;
	if ((ret = read_cpu(&before, &self_before, root, "", err)))
		return ret;
	if (!root)
		sleep_ms(1000);
	if ((ret = read_cpu(&after, &self_after, root, root ? ".after" : "", err)))
		return ret;
	/* /proc/stat and /proc/self/stat both count USER_HZ ticks (sysconf(_SC_CLK_TCK)),
	 * so this process's own time is subtracted as is. */
	p->cpu_load_pct = preflight_cpu_load(&before, &after, delta(self_before, self_after));
	return 0;
}

/* --- nvidia-smi */

/* The first executable nvidia-smi on PATH, or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;
	if (!path || !*path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);
		struct stat st;
		strbuf_reset(&sb);
		if (len)
			strbuf_add(&sb, path, len);
		else
			strbuf_addch(&sb, '.');
		strbuf_addf(&sb, "/%s", name);
		if (!stat(sb.buf, &st) && S_ISREG(st.st_mode) && !access(sb.buf, X_OK))
			return strbuf_detach(&sb, NULL);
		path += len;
		if (*path == ':')
			path++;
	}
	strbuf_release(&sb);
	return NULL;
}

static char *xstrdup_printf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xstrdup_printf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

/* Asks nvidia-smi: fills gpu_load_pct, or gpu_skip (absent) or gpu_error (it failed). */
static void query_gpu(struct preflight *p, const struct preflight_limits *limits)
{
	struct child_process cp;
	struct strbuf program = STRBUF_INIT;
	struct bl_error err = BL_ERROR_INIT;
	char *found = NULL;
	const char *smi = limits->nvidia_smi;
	int timeout = limits->gpu_timeout_ms;
	struct stat st;
	child_process_init(&cp);
	if (timeout <= 0)
		timeout = PREFLIGHT_GPU_TIMEOUT_MS;
	if (!smi && limits->search_path)
		smi = found = find_in_path("nvidia-smi");
	if (!smi) {
		p->gpu_skip = xstrdup("no nvidia-smi");
		goto done;
	}
	if (stat(smi, &st) < 0 && (errno == ENOENT || errno == ENOTDIR)) {
		p->gpu_skip = xstrdup_printf("no nvidia-smi at '%s'", smi);
		goto done;
	}
	/* The path is run as given, as the stat above looked at it: a name without a '/' is in
	 * the current directory, not looked up in PATH. */
	if (!strchr(smi, '/'))
		strbuf_addstr(&program, "./");
	strbuf_addstr(&program, smi);
	{
		const char *argv[] = {program.buf, "--query-gpu=utilization.gpu",
				      "--format=csv,noheader,nounits", NULL};
		cp.argv = argv;
		cp.no_stdin = 1;
		cp.no_stderr = 1;
		cp.out_max = GPU_OUTPUT_CAP;
		cp.timeout_ms = timeout;
		if (child_process_run(&cp, &err)) {
			p->gpu_error = xstrdup(err.msg.buf);
			goto done;
		}
	}
	if (cp.timed_out)
		p->gpu_error = xstrdup_printf("'%s' did not answer within %g s and was killed", smi,
					      timeout / 1000.0);
	else if (cp.signal)
		p->gpu_error = xstrdup_printf("'%s' died of signal %d", smi, cp.signal);
	else if (cp.exit_code == 127)
		p->gpu_error = xstrdup_printf("cannot run '%s'", smi);
	else if (cp.exit_code)
		p->gpu_error = xstrdup_printf("'%s' exited with status %d", smi, cp.exit_code);
	else if (preflight_parse_gpu(&p->gpu_load_pct, cp.out.buf))
		p->gpu_error = xstrdup_printf("cannot parse the output of '%s'", smi);
done:
	free(found);
	child_process_release(&cp);
	strbuf_release(&program);
	bl_error_release(&err);
}

/* --- processes */

static void add_proc(struct preflight_proc **procs, size_t *n, long pid, char *what)
{
	*procs = xrealloc(*procs, (*n + 1) * sizeof(**procs));
	(*procs)[*n].pid = pid;
	(*procs)[*n].what = what;
	(*n)++;
}

static int cmp_long(const void *a, const void *b)
{
	long x = *(const long *)a, y = *(const long *)b;
	return (x > y) - (x < y);
}

static int is_excluded(long pid, const long *excluded, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (excluded[i] == pid)
			return 1;
	return 0;
}

/* The pids in root/proc, sorted. */
static int list_pids(long **out, size_t *nr, const char *root, struct bl_error *err)
{
	struct strbuf path = STRBUF_INIT;
	size_t n = 0, alloc = 0;
	long *pids = NULL;
	struct dirent *de;
	DIR *dir;
	root_path(&path, root, "proc");
	if (!(dir = opendir(path.buf))) {
		int ret =
		    bl_error_set(err, BL_EIO, "cannot list '%s': %s", path.buf, strerror(errno));
		strbuf_release(&path);
		return ret;
	}
	while ((de = readdir(dir))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (de->d_name[0] < '1' || de->d_name[0] > '9' || *end || pid <= 0)
			continue;
		ALLOC_GROW(pids, n, alloc);
		pids[n++] = pid;
	}
	closedir(dir);
	strbuf_release(&path);
	if (n)
		qsort(pids, n, sizeof(*pids), cmp_long);
	*out = pids;
	*nr = n;
	return 0;
}

/* This process and its ancestors, from proc/self/stat and each parent's stat. */
static int self_and_ancestors(long **out, size_t *nr, const char *root, struct bl_error *err)
{
	struct strbuf sb = STRBUF_INIT, rel = STRBUF_INIT;
	struct preflight_proc_stat ps;
	size_t n = 0, alloc = 0;
	long *pids = NULL;
	int ret;
	if ((ret = read_proc_stat(&ps, &sb, root, "proc/self/stat", err)))
		goto done;
	ALLOC_GROW(pids, n, alloc);
	pids[n++] = ps.pid;
	while (ps.ppid > 0 && n < MAX_ANCESTORS && !is_excluded(ps.ppid, pids, n)) {
		long parent = ps.ppid;
		ALLOC_GROW(pids, n, alloc);
		pids[n++] = parent;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "proc/%ld/stat", parent);
		if (!read_optional(&sb, root, rel.buf) || preflight_parse_proc_stat(&ps, sb.buf))
			break;
	}
done:
	strbuf_release(&sb);
	strbuf_release(&rel);
	if (ret)
		free(pids);
	else {
		*out = pids;
		*nr = n;
	}
	return ret;
}

/* A command line shown in a finding: NULs as spaces, cut to CMDLINE_SHOWN. */
static char *show_cmdline(const char *cmdline, size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	while (len && !cmdline[len - 1])
		len--;
	for (size_t i = 0; i < len && sb.len < CMDLINE_SHOWN; i++) {
		unsigned char c = (unsigned char)cmdline[i];
		strbuf_addch(&sb, !c ? ' ' : (c < 32 || c == 127) ? '?' : (char)c);
	}
	if (len > CMDLINE_SHOWN)
		strbuf_addstr(&sb, "...");
	return strbuf_detach(&sb, NULL);
}

static int scan_processes(struct preflight *p, const struct preflight_limits *limits,
			  struct bl_error *err)
{
	const char *root = limits->sysroot;
	struct strbuf sb = STRBUF_INIT, rel = STRBUF_INIT, path = STRBUF_INIT;
	long *pids = NULL, *mine = NULL;
	size_t npids = 0, nmine = 0;
	char *found = NULL; /* one flag per configured name: report each name once */
	int ret;
	if ((ret = self_and_ancestors(&mine, &nmine, root, err)) ||
	    (ret = list_pids(&pids, &npids, root, err)))
		goto done;
	found = xcalloc(limits->nprocesses + 1, 1);
	for (size_t i = 0; i < npids; i++) {
		if (is_excluded(pids[i], mine, nmine))
			continue;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "proc/%ld/cmdline", pids[i]);
		root_path(&path, root, rel.buf);
		/* Gone, hidden or a kernel thread (empty): not a benchline run. */
		if (!read_text(&sb, path.buf, 65536) && preflight_is_benchline_run(sb.buf, sb.len))
			add_proc(&p->others, &p->nothers, pids[i], show_cmdline(sb.buf, sb.len));
		if (!limits->nprocesses)
			continue;
		strbuf_reset(&rel);
		strbuf_addf(&rel, "proc/%ld/comm", pids[i]);
		if (!read_optional(&sb, root, rel.buf))
			continue; /* gone, or hidden from us */
		for (size_t k = 0; k < limits->nprocesses; k++)
			if (!found[k] && preflight_comm_matches(sb.buf, limits->processes[k])) {
				found[k] = 1;
				add_proc(&p->busy, &p->nbusy, pids[i],
					 xstrdup(limits->processes[k]));
			}
	}
done:
	free(found);
	free(pids);
	free(mine);
	strbuf_release(&sb);
	strbuf_release(&rel);
	strbuf_release(&path);
	return ret;
}

/* --- battery, governor, turbo, swap */

/* Sorted names of root/dir's entries that pass keep (NULL: all but dot files). */
static void list_dir(char ***out, size_t *nr, const char *root, const char *dir,
		     int (*keep)(const char *))
{
	struct strbuf path = STRBUF_INIT;
	size_t n = 0, alloc = 0;
	char **names = NULL;
	struct dirent *de;
	DIR *d;
	root_path(&path, root, dir);
	d = opendir(path.buf);
	strbuf_release(&path);
	*out = NULL;
	*nr = 0;
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.' || (keep && !keep(de->d_name)))
			continue;
		ALLOC_GROW(names, n, alloc);
		names[n++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (n)
		qsort(names, n, sizeof(*names), cmp_strp);
	*out = names;
	*nr = n;
}

static void read_battery(struct preflight *p, const char *root)
{
	struct preflight_power_supply *s;
	struct strbuf sb = STRBUF_INIT, rel = STRBUF_INIT;
	char **names, **texts;
	size_t n;
	const char *which;
	list_dir(&names, &n, root, "sys/class/power_supply", NULL);
	s = xcalloc(n + 1, sizeof(*s));
	texts = xcalloc(3 * n + 1, sizeof(*texts));
	for (size_t i = 0; i < n; i++) {
		static const char *const files[] = {"type", "status", "scope"};
		s[i].name = names[i];
		for (int f = 0; f < 3; f++) {
			strbuf_reset(&rel);
			strbuf_addf(&rel, "sys/class/power_supply/%s/%s", names[i], files[f]);
			if (read_optional(&sb, root, rel.buf))
				texts[3 * i + f] = xstrdup(sb.buf);
		}
		s[i].type = texts[3 * i];
		s[i].status = texts[3 * i + 1];
		s[i].scope = texts[3 * i + 2];
		strbuf_reset(&rel);
		strbuf_addf(&rel, "sys/class/power_supply/%s/online", names[i]);
		s[i].online = read_optional(&sb, root, rel.buf) ? flag_value(sb.buf) : -1;
	}
	p->on_battery = preflight_on_battery(s, n, &which);
	if (p->on_battery)
		p->battery = xstrdup(which);
	strings_free(texts, 3 * n);
	strings_free(names, n);
	free(s);
	strbuf_release(&sb);
	strbuf_release(&rel);
}

static int is_cpu_dir(const char *name)
{
	if (strncmp(name, "cpu", 3) || !name[3])
		return 0;
	for (const char *s = name + 3; *s; s++)
		if (*s < '0' || *s > '9')
			return 0;
	return 1;
}

static void read_governor(struct preflight *p, const char *root)
{
	struct strbuf sb = STRBUF_INIT, rel = STRBUF_INIT;
	char **cpus, **govs;
	size_t ncpus, ngovs = 0;
	const char *g;
	list_dir(&cpus, &ncpus, root, "sys/devices/system/cpu", is_cpu_dir);
	govs = xcalloc(ncpus + 1, sizeof(*govs));
	for (size_t i = 0; i < ncpus; i++) {
		strbuf_reset(&rel);
		strbuf_addf(&rel, "sys/devices/system/cpu/%s/cpufreq/scaling_governor", cpus[i]);
		if (read_optional(&sb, root, rel.buf) && sb.len)
			govs[ngovs++] = xstrdup(sb.buf);
	}
	g = preflight_governor(govs, ngovs, &p->governor_slow);
	p->governor = xstrdup_or_null(g);
	p->governor_cpus = ngovs;
	strings_free(govs, ngovs);
	strings_free(cpus, ncpus);
	strbuf_release(&sb);
	strbuf_release(&rel);
}

static void read_turbo(struct preflight *p, const char *root)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	int has_a = read_optional(&a, root, "sys/devices/system/cpu/intel_pstate/no_turbo");
	int has_b = read_optional(&b, root, "sys/devices/system/cpu/cpufreq/boost");
	p->turbo = preflight_turbo(has_a ? a.buf : NULL, has_b ? b.buf : NULL);
	if (p->turbo >= 0 && has_a && flag_value(a.buf) >= 0)
		p->turbo_source = xstrdup_printf("intel_pstate/no_turbo is %s", a.buf);
	else if (p->turbo >= 0)
		p->turbo_source = xstrdup_printf("cpufreq/boost is %s", b.buf);
	strbuf_release(&a);
	strbuf_release(&b);
}

static void read_swap(struct preflight *p, const char *root)
{
	struct strbuf sb = STRBUF_INIT;
	if (!read_optional(&sb, root, "proc/meminfo") ||
	    preflight_parse_swap(&p->swap_used_kb, sb.buf))
		p->swap_used_kb = -1;
	strbuf_release(&sb);
}

int preflight_run(struct preflight *out, const struct preflight_limits *limits,
		  struct bl_error *err)
{
	int ret;
	preflight_init(out);
	/* The CPU first, so nothing preflight starts (nvidia-smi) is in its sample. */
	if ((ret = sample_cpu(out, limits->sysroot, err)) ||
	    (ret = scan_processes(out, limits, err)))
		goto done;
	read_battery(out, limits->sysroot);
	read_governor(out, limits->sysroot);
	read_turbo(out, limits->sysroot);
	read_swap(out, limits->sysroot);
	query_gpu(out, limits);
	preflight_judge(out, limits);
done:
	if (ret)
		preflight_release(out);
	return ret;
}

/* ------------------------------------------------------------------ verdict */

static void add_finding(struct preflight *p, enum preflight_level level, const char *check,
			const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void add_finding(struct preflight *p, enum preflight_level level, const char *check,
			const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	if (level == PREFLIGHT_WARN) {
		ALLOC_GROW(p->warnings, p->nwarnings + 1, p->alloc_warnings);
		p->warnings[p->nwarnings++] = xstrdup(sb.buf);
		p->warnings[p->nwarnings] = NULL;
	} else if (level == PREFLIGHT_FAIL) {
		ALLOC_GROW(p->failures, p->nfailures + 1, p->alloc_failures);
		p->failures[p->nfailures++] = xstrdup(sb.buf);
		p->failures[p->nfailures] = NULL;
	}
	ALLOC_GROW(p->findings, p->nfindings, p->alloc_findings);
	p->findings[p->nfindings].level = level;
	p->findings[p->nfindings].check = check;
	p->findings[p->nfindings].text = strbuf_detach(&sb, NULL);
	p->nfindings++;
}

static void judge_load(struct preflight *p, const char *check, double load, double limit)
{
	struct strbuf l = STRBUF_INIT, m = STRBUF_INIT;
	preflight_format_pct(&l, load);
	preflight_format_pct(&m, limit);
	if (preflight_over(load, limit))
		add_finding(p, PREFLIGHT_FAIL, check, "%s load %s%% is over the limit of %s%%",
			    check, l.buf, m.buf);
	else
		add_finding(p, PREFLIGHT_OK, check, "%s load %s%% (limit %s%%)", check, l.buf,
			    m.buf);
	strbuf_release(&l);
	strbuf_release(&m);
}

void preflight_judge(struct preflight *p, const struct preflight_limits *limits)
{
	release_verdict(p);
	judge_load(p, "cpu", p->cpu_load_pct, limits->cpu_load_pct);

	if (!isnan(p->gpu_load_pct))
		judge_load(p, "gpu", p->gpu_load_pct, limits->gpu_load_pct);
	else if (p->gpu_error)
		add_finding(p, PREFLIGHT_WARN, "gpu", "gpu load unknown: %s", p->gpu_error);
	else
		add_finding(p, PREFLIGHT_SKIP, "gpu", "gpu load: %s",
			    p->gpu_skip ? p->gpu_skip : "not measured");

	for (size_t i = 0; i < p->nothers; i++)
		add_finding(p, PREFLIGHT_FAIL, "processes",
			    "another benchline run is running (pid %ld: '%s')", p->others[i].pid,
			    p->others[i].what);
	if (!p->nothers)
		add_finding(p, PREFLIGHT_OK, "processes", "no other benchline run");
	for (size_t i = 0; i < p->nbusy; i++)
		add_finding(p, PREFLIGHT_FAIL, "processes",
			    "configured benchmark process '%s' is running (pid %ld)",
			    p->busy[i].what, p->busy[i].pid);
	if (!p->nbusy && limits->nprocesses)
		add_finding(p, PREFLIGHT_OK, "processes",
			    "no configured benchmark process is running");

	if (p->on_battery)
		add_finding(p, PREFLIGHT_FAIL, "battery", "on battery power ('%s')",
			    p->battery ? p->battery : "?");
	else
		add_finding(p, PREFLIGHT_OK, "battery", "not on battery power");

	if (!p->governor)
		add_finding(p, PREFLIGHT_SKIP, "governor", "cpu governor: no cpufreq");
	else if (!p->governor_slow)
		add_finding(p, PREFLIGHT_OK, "governor", "cpu governor is '%s'", p->governor);
	else if (p->governor_slow == p->governor_cpus)
		add_finding(p, PREFLIGHT_WARN, "governor",
			    "cpu governor is '%s', not 'performance'", p->governor);
	else
		add_finding(p, PREFLIGHT_WARN, "governor",
			    "cpu governor is '%s' on %zu of %zu cpus, not 'performance'",
			    p->governor, p->governor_slow, p->governor_cpus);

	if (p->turbo > 0)
		add_finding(p, PREFLIGHT_WARN, "turbo", "turbo boost is on (%s)",
			    p->turbo_source ? p->turbo_source : "?");
	else if (!p->turbo)
		add_finding(p, PREFLIGHT_OK, "turbo", "turbo boost is off");
	else
		add_finding(p, PREFLIGHT_SKIP, "turbo",
			    "turbo boost: no intel_pstate/no_turbo or cpufreq/boost");

	if (p->swap_used_kb > 0)
		add_finding(p, PREFLIGHT_WARN, "swap", "swap in use: %lld kB",
			    (long long)p->swap_used_kb);
	else if (!p->swap_used_kb)
		add_finding(p, PREFLIGHT_OK, "swap", "no swap in use");
	else
		add_finding(p, PREFLIGHT_SKIP, "swap", "swap: no SwapTotal in /proc/meminfo");

	p->other_benchline = p->nothers > 0;
	p->quiet = p->nfailures == 0;
}

static json_t *strings_json(char *const *s, size_t n)
{
	json_t *a = json_array();
	for (size_t i = 0; i < n; i++)
		json_array_append_new(a, json_string(s[i]));
	return a;
}

json_t *preflight_to_json(const struct preflight *p)
{
	json_t *o = json_object();
	json_object_set_new(o, "quiet", json_boolean(p->quiet));
	json_object_set_new(o, "warnings", strings_json(p->warnings, p->nwarnings));
	json_object_set_new(o, "failures", strings_json(p->failures, p->nfailures));
	json_object_set_new(o, "cpu_load_pct", json_real(p->cpu_load_pct));
	json_object_set_new(o, "gpu_load_pct",
			    isnan(p->gpu_load_pct) ? json_null() : json_real(p->gpu_load_pct));
	json_object_set_new(o, "other_benchline", json_boolean(p->other_benchline));
	json_object_set_new(o, "on_battery", json_boolean(p->on_battery));
	json_object_set_new(o, "governor", p->governor ? json_string(p->governor) : json_null());
	json_object_set_new(o, "turbo", p->turbo < 0 ? json_null() : json_boolean(p->turbo));
	json_object_set_new(o, "swap_used_kb",
			    p->swap_used_kb < 0 ? json_null() : json_integer(p->swap_used_kb));
	return o;
}

int preflight_json(struct strbuf *out, const struct preflight *p)
{
	json_t *o = preflight_to_json(p);
	/* Loads carry two decimals: 10 significant digits print them without noise. */
	/* ten digits on purpose: the figures are rounded here, before they become part of the
	 * record (and its digest), not only printed */
	char *text = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(10));
	json_decref(o);
	if (!text)
		return BL_EINVALID;
	strbuf_addstr(out, text);
	free(text);
	return 0;
}

/* ------------------------------------------------------------------ benchline.json */

int preflight_config_processes(char ***out, size_t *nr, const struct config *cfg,
			       struct bl_error *err)
{
	(void)err;
	*out = NULL;
	*nr = 0;
	if (!cfg->n_quiet_processes)
		return 0;
	*out = xcalloc(cfg->n_quiet_processes + 1, sizeof(**out));
	for (size_t i = 0; i < cfg->n_quiet_processes; i++)
		(*out)[i] = xstrdup(cfg->quiet_processes[i]);
	*nr = cfg->n_quiet_processes;
	return 0;
}

int preflight_check(struct preflight *out, const struct config *cfg, struct bl_error *err)
{
	struct preflight_limits limits;
	char **processes = NULL;
	size_t nprocesses = 0;
	int ret;
	preflight_limits_init(&limits);
	limits.cpu_load_pct = cfg->cpu_load_pct;
	limits.gpu_load_pct = cfg->gpu_load_pct;
	if ((ret = preflight_config_processes(&processes, &nprocesses, cfg, err)))
		return ret;
	limits.processes = processes;
	limits.nprocesses = nprocesses;
	ret = preflight_run(out, &limits, err);
	strings_free(processes, nprocesses);
	return ret;
}
