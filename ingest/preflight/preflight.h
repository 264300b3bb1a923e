/*
 * Preflight (§4): is the machine quiet enough to measure? The preflight room's one header, its
 * readers and rules all in preflight.c: `benchline preflight` checks the machine, and each run
 * that stores its records (ingest/bench/'s bench_records: `benchline run`, each process of a
 * sweep) calls preflight_check and puts preflight_to_json's object under a record's "preflight"
 * key.
 *
 * The readers take every path under a root (BENCHLINE_SYSROOT, default "/"), so tests can
 * simulate a machine with a fixture tree; the decisions are pure functions of what was read,
 * unit-tested on their own. "Over the limit" always means strictly greater: a load of exactly
 * 10% passes a 10% limit.
 */
#ifndef BENCHLINE_INGEST_PREFLIGHT_H
#define BENCHLINE_INGEST_PREFLIGHT_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct config;
struct json_t;

/* Default limits (§4), in percent; benchline.json quiet.cpu_load_pct / quiet.gpu_load_pct. */
#define PREFLIGHT_CPU_LIMIT 10.0
#define PREFLIGHT_GPU_LIMIT 10.0
/* How long nvidia-smi may take before it is killed. */
#define PREFLIGHT_GPU_TIMEOUT_MS 5000

struct preflight_limits {
	double cpu_load_pct; /* a load strictly over this fails */
	double gpu_load_pct;
	char *const *processes; /* benchline.json quiet.processes: names matched against comm */
	size_t nprocesses;
	const char *sysroot;	/* NULL: the real machine (sample over 1 s); else a fixture root */
	const char *nvidia_smi; /* the program to ask; NULL: search PATH when search_path is 1 */
	int search_path;	/* 0: no nvidia-smi unless nvidia_smi names one */
	int gpu_timeout_ms;
};

/*
 * Defaults, plus the test hooks from the environment: BENCHLINE_SYSROOT (unset, empty or "/":
 * the real machine) and BENCHLINE_NVIDIA_SMI (the nvidia-smi to run). Under a simulated root
 * PATH is not searched, so a fixture never sees the real GPU.
 */
void preflight_limits_init(struct preflight_limits *limits);

enum preflight_level {
	PREFLIGHT_OK,
	PREFLIGHT_SKIP, /* the check could not be made here (no nvidia-smi, no cpufreq) */
	PREFLIGHT_WARN, /* noted, does not fail */
	PREFLIGHT_FAIL, /* the machine is not quiet */
};

struct preflight_finding {
	enum preflight_level level;
	const char *check; /* "cpu", "gpu", "processes", "battery", "governor", "turbo", "swap" */
	char *text;	   /* lowercase, e.g. "cpu load 2.5% (limit 10%)" */
};

struct preflight_proc {
	long pid;
	char *what; /* the configured name, or the other run's command line */
};

struct preflight {
	/* The readings. */
	double cpu_load_pct; /* rounded to 0.01 */
	double gpu_load_pct; /* max over GPUs; NAN when not measured */
	char *gpu_skip;	     /* why not measured because absent (NULL otherwise) */
	char *gpu_error;     /* why not measured although nvidia-smi exists (NULL otherwise) */
	struct preflight_proc *others; /* other `benchline run` processes */
	size_t nothers;
	struct preflight_proc *busy; /* running configured processes */
	size_t nbusy;
	int on_battery;
	char *battery;	      /* the supply that says so, NULL when not on battery */
	char *governor;	      /* NULL: no cpufreq */
	size_t governor_cpus; /* cpus with a governor */
	size_t governor_slow; /* of which not at "performance" */
	int turbo;	      /* 1 on, 0 off, -1 unknown */
	char *turbo_source;   /* the file that said so */
	int64_t swap_used_kb; /* -1 unknown */
	/* The verdict, filled by preflight_judge. */
	int quiet;
	int other_benchline;
	struct preflight_finding *findings; /* in check order, for the text output */
	size_t nfindings, alloc_findings;
	char **warnings; /* the WARN findings' texts */
	size_t nwarnings, alloc_warnings;
	char **failures; /* the FAIL findings' texts */
	size_t nfailures, alloc_failures;
};

void preflight_init(struct preflight *p);
void preflight_release(struct preflight *p);

/*
 * Takes every reading (one second of CPU sampling on the real machine) and judges it.
 * Returns 0 whether or not the machine is quiet (see out->quiet); an error only when a
 * reading that must exist cannot be made (/proc/stat, /proc/self/stat, a fixture's
 * *.after files).
 */
int preflight_run(struct preflight *out, const struct preflight_limits *limits,
		  struct bl_error *err);

/* Fills quiet, other_benchline, findings, warnings and failures from the readings. */
void preflight_judge(struct preflight *p, const struct preflight_limits *limits);

/* The object a record carries under "preflight" (§2), every key present: a new reference. */
struct json_t *preflight_to_json(const struct preflight *p);
/* The same object as compact JSON text, appended to out. */
int preflight_json(struct strbuf *out, const struct preflight *p);

/* preflight_run with benchline.json's limits (quiet.cpu_load_pct, gpu_load_pct, processes):
 * what `run` and `sweep` check before measuring. */
int preflight_check(struct preflight *out, const struct config *cfg, struct bl_error *err);
/* quiet.processes of the benchline.json cfg was read from (none when it has no file). */
int preflight_config_processes(char ***out, size_t *nr, const struct config *cfg,
			       struct bl_error *err);

/* --- Pure pieces, exposed for the unit tests. --- */

/* The aggregate "cpu" line of /proc/stat, in clock ticks (USER_HZ). */
struct preflight_cpu_times {
	uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};

/* Parses the aggregate "cpu " line of /proc/stat text; BL_EINVALID when there is none or it
 * has fewer than four numbers (missing later columns count as 0). */
int preflight_parse_cpu(struct preflight_cpu_times *out, const char *text);

/* The fields of /proc/PID/stat preflight uses. */
struct preflight_proc_stat {
	long pid, ppid;
	uint64_t utime, stime; /* clock ticks */
};

/* Parses /proc/PID/stat text (the comm field may hold spaces and parentheses). */
int preflight_parse_proc_stat(struct preflight_proc_stat *out, const char *text);

/*
 * Load in percent between two samples: busy (all but idle and iowait) over total, less
 * self_ticks (this process's own utime + stime over the interval), clamped to [0, 100] and
 * rounded to 0.01. 0 when no time passed.
 */
double preflight_cpu_load(const struct preflight_cpu_times *before,
			  const struct preflight_cpu_times *after, uint64_t self_ticks);

/* 1 when value is over limit: strictly greater (exactly the limit passes). */
int preflight_over(double value, double limit);

/* The highest of nvidia-smi's per-GPU utilization lines ("35\n7\n"); "[N/A]" lines are
 * skipped. BL_EINVALID when a line is something else or no line has a number. */
int preflight_parse_gpu(double *max_pct, const char *text);

/* 1 when a NUL-separated command line is `benchline [global options] run ...`: argv[0]'s
 * basename is "benchline" and its command word (past --db FILE and other options) is "run". */
int preflight_is_benchline_run(const char *cmdline, size_t len);

/* 1 when /proc/PID/comm (newline trimmed) is the configured name; the kernel cuts comm to 15
 * characters, so a longer name matches a comm that is its first 15. */
int preflight_comm_matches(const char *comm, const char *name);

/* One /sys/class/power_supply entry. */
struct preflight_power_supply {
	const char *name;
	const char *type;   /* "Battery", "Mains", "USB", "UPS", ... */
	const char *status; /* "Discharging", "Charging", ...; NULL when absent */
	const char *scope;  /* "Device" for a peripheral's battery; NULL when absent */
	int online;	    /* 1, 0, or -1 when absent */
};

/*
 * 1 when the machine runs on battery: a system battery (or a UPS) says "Discharging", or a
 * system battery exists and there are external supplies (Mains, USB) and none is online.
 * Peripheral batteries (scope "Device": a mouse, a headset) are ignored. *which names the
 * supply that decided (NULL when 0).
 */
int preflight_on_battery(const struct preflight_power_supply *s, size_t n, const char **which);

/* Swap in use from /proc/meminfo text: SwapTotal - SwapFree in kB. BL_ENOTFOUND when either
 * line is missing. */
int preflight_parse_swap(int64_t *used_kb, const char *text);

/* Turbo from the contents of intel_pstate/no_turbo and cpufreq/boost (NULL when absent):
 * 1 on, 0 off, -1 unknown. no_turbo wins when both exist. */
int preflight_turbo(const char *no_turbo, const char *boost);

/* The governor to report for per-cpu governors: their common name, or when they differ the
 * first that is not "performance". *slow counts those not at "performance". NULL when n is
 * 0. */
const char *preflight_governor(char *const *governors, size_t n, size_t *slow);

/* Formats a percentage with at most two decimals and no trailing zeros ("2.5", "10"). */
void preflight_format_pct(struct strbuf *sb, double pct);

#endif
