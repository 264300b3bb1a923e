/*
 * Preflight (§4): the pure pieces (/proc/stat and /proc/PID/stat parsing, load from two
 * samples, nvidia-smi output, command lines, battery, swap, turbo, governor), each limit at
 * exactly its value (not over) and just above (over), the JSON object, and whole runs on the
 * fixture root fixtures/sysroot/quiet and on a fake nvidia-smi. Run from the repository root.
 */
#include <git2.h>
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/common.h"
#include "ingest/ingest.h"
#include "ingest/preflight/preflight.h"

#define assert_double_equal(a, b, eps) assert_true(fabs((double)(a) - (double)(b)) <= (eps))

#define QUIET_ROOT "fixtures/sysroot/quiet"

/* Limits as the defaults, with no environment and no nvidia-smi. */
static void plain_limits(struct preflight_limits *l)
{
	memset(l, 0, sizeof(*l));
	l->cpu_load_pct = PREFLIGHT_CPU_LIMIT;
	l->gpu_load_pct = PREFLIGHT_GPU_LIMIT;
	l->gpu_timeout_ms = PREFLIGHT_GPU_TIMEOUT_MS;
}

/* A quiet reading: nothing over, nothing running, every Linux check fine. */
static void quiet_readings(struct preflight *p)
{
	preflight_init(p);
	p->cpu_load_pct = 1;
	p->gpu_load_pct = 0;
	p->governor = xstrdup("performance");
	p->governor_cpus = 4;
	p->turbo = 0;
	p->swap_used_kb = 0;
}

static int has_text(char *const *list, size_t n, const char *text)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(list[i], text))
			return 1;
	return 0;
}

/* ------------------------------------------------------------------ /proc/stat */

static void parse_cpu_line(void **state)
{
	struct preflight_cpu_times t;
	(void)state;
	assert_int_equal(preflight_parse_cpu(&t, "cpu  10 20 30 40 50 60 70 80 90 100\n"
						 "cpu0 1 2 3 4 5 6 7 8 9 10\n"),
			 0);
	assert_true(t.user == 10 && t.nice == 20 && t.system == 30 && t.idle == 40);
	assert_true(t.iowait == 50 && t.irq == 60 && t.softirq == 70 && t.steal == 80);
	/* An old kernel's four columns: the rest count as 0. */
	assert_int_equal(preflight_parse_cpu(&t, "cpu 1 2 3 4\n"), 0);
	assert_true(t.idle == 4 && t.iowait == 0 && t.steal == 0);
	/* The aggregate line need not come first; cpu0 is not it. */
	assert_int_equal(preflight_parse_cpu(&t, "cpu0 9 9 9 9\nintr 1\ncpu 5 6 7 8\n"), 0);
	assert_true(t.user == 5 && t.idle == 8);
	assert_int_equal(preflight_parse_cpu(&t, "cpu0 1 2 3 4\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_cpu(&t, "cpu 1 2 3\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_cpu(&t, "cpu x y z w\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_cpu(&t, ""), BL_EINVALID);
	assert_int_equal(preflight_parse_cpu(&t, "cpu 99999999999999999999999 1 1 1\n"),
			 BL_EINVALID);
}

static void parse_proc_pid_stat(void **state)
{
	struct preflight_proc_stat ps;
	(void)state;
	assert_int_equal(preflight_parse_proc_stat(
			     &ps, "4242 (benchline) R 4241 4242 4241 0 -1 4194304 100 0 0 0 "
				  "13 4 0 0 20 0 1 0 5000\n"),
			 0);
	assert_int_equal(ps.pid, 4242);
	assert_int_equal(ps.ppid, 4241);
	assert_true(ps.utime == 13 && ps.stime == 4);
	/* comm may hold spaces and parentheses: the last ')' ends it. */
	assert_int_equal(
	    preflight_parse_proc_stat(&ps, "77 (a) b (c)) S 1 77 77 0 -1 0 0 0 0 0 250 125 0 0\n"),
	    0);
	assert_int_equal(ps.pid, 77);
	assert_int_equal(ps.ppid, 1);
	assert_true(ps.utime == 250 && ps.stime == 125);
	assert_int_equal(preflight_parse_proc_stat(&ps, "77 (x) S 1 2 3\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_proc_stat(&ps, "(x) S 1 2 3 4 5 6 7 8 9 10 11 12"),
			 BL_EINVALID);
	assert_int_equal(preflight_parse_proc_stat(&ps, ""), BL_EINVALID);
}

static struct preflight_cpu_times cpu(uint64_t user, uint64_t system, uint64_t idle,
				      uint64_t iowait)
{
	struct preflight_cpu_times t = {user, 0, system, idle, iowait, 0, 0, 0};
	return t;
}

static void load_from_two_samples(void **state)
{
	struct preflight_cpu_times a = cpu(1000, 500, 10000, 100), b;
	(void)state;
	/* 30 busy of 1000 ticks, 5 of them this process's own: 2.5%. */
	b = cpu(1020, 510, 10960, 110);
	assert_double_equal(preflight_cpu_load(&a, &b, 5), 2.5, 0);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 3, 0);
	/* iowait is idle time: all of it is not load. */
	b = cpu(1000, 500, 10000, 1100);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 0, 0);
	/* Every busy column counts: nice, irq, softirq, steal. */
	b = a;
	b.nice += 10;
	b.irq += 10;
	b.softirq += 10;
	b.steal += 10;
	b.idle += 60;
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 40, 0);
	/* Exactly 10% is exactly 10.0 (no rounding noise). */
	b = cpu(1100, 500, 10900, 100);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 10.0, 0);
	/* Rounded to 0.01: 1 of 3 ticks. */
	b = cpu(1001, 500, 10002, 100);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 33.33, 0);
	/* No time passed: 0, not a division by zero. */
	assert_double_equal(preflight_cpu_load(&a, &a, 0), 0, 0);
	/* More self time than busy time (sampling skew): 0, never negative. */
	b = cpu(1002, 500, 10998, 100);
	assert_double_equal(preflight_cpu_load(&a, &b, 7), 0, 0);
	/* A counter stepping back is no time, never a huge unsigned delta. */
	b = cpu(1010, 500, 9000, 190);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 10, 0);
	/* All busy: 100. */
	b = cpu(2000, 500, 10000, 100);
	assert_double_equal(preflight_cpu_load(&a, &b, 0), 100, 0);
}

/* ------------------------------------------------------------------ limits */

static void over_means_strictly_greater(void **state)
{
	(void)state;
	assert_false(preflight_over(10.0, 10.0));
	assert_true(preflight_over(10.01, 10.0));
	assert_false(preflight_over(9.99, 10.0));
	assert_false(preflight_over(0, 0));
	assert_true(preflight_over(0.01, 0));
}

static void cpu_limit_exactly_and_above(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	(void)state;
	plain_limits(&l);
	quiet_readings(&p);
	p.cpu_load_pct = 10.0;
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_int_equal(p.nfailures, 0);
	assert_int_equal(p.findings[0].level, PREFLIGHT_OK);
	assert_string_equal(p.findings[0].text, "cpu load 10% (limit 10%)");

	p.cpu_load_pct = 10.01;
	preflight_judge(&p, &l);
	assert_false(p.quiet);
	assert_int_equal(p.nfailures, 1);
	assert_string_equal(p.failures[0], "cpu load 10.01% is over the limit of 10%");
	assert_int_equal(p.findings[0].level, PREFLIGHT_FAIL);

	/* A configured limit, fractional. */
	l.cpu_load_pct = 12.5;
	p.cpu_load_pct = 12.5;
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_string_equal(p.findings[0].text, "cpu load 12.5% (limit 12.5%)");
	p.cpu_load_pct = 12.51;
	preflight_judge(&p, &l);
	assert_false(p.quiet);
	preflight_release(&p);
}

static void gpu_limit_exactly_above_and_skipped(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	(void)state;
	plain_limits(&l);
	quiet_readings(&p);
	p.gpu_load_pct = 10;
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_string_equal(p.findings[1].text, "gpu load 10% (limit 10%)");
	p.gpu_load_pct = 10.01;
	preflight_judge(&p, &l);
	assert_false(p.quiet);
	assert_string_equal(p.failures[0], "gpu load 10.01% is over the limit of 10%");

	/* No nvidia-smi: skipped and said so, quiet. */
	p.gpu_load_pct = NAN;
	p.gpu_skip = xstrdup("no nvidia-smi");
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_int_equal(p.findings[1].level, PREFLIGHT_SKIP);
	assert_string_equal(p.findings[1].text, "gpu load: no nvidia-smi");
	assert_int_equal(p.nwarnings, 0);

	/* nvidia-smi there but failing: a warning, not a failure. */
	p.gpu_error = xstrdup("'nvidia-smi' exited with status 6");
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_int_equal(p.nwarnings, 1);
	assert_string_equal(p.warnings[0], "gpu load unknown: 'nvidia-smi' exited with status 6");
	preflight_release(&p);
}

static void processes_and_battery_fail(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	char *names[] = {(char *)"cargo", (char *)"blender"};
	(void)state;
	plain_limits(&l);
	quiet_readings(&p);
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_false(p.other_benchline);

	p.others = xcalloc(1, sizeof(*p.others));
	p.others[0].pid = 812;
	p.others[0].what = xstrdup("benchline run -- ./bench");
	p.nothers = 1;
	preflight_judge(&p, &l);
	assert_false(p.quiet);
	assert_true(p.other_benchline);
	assert_string_equal(
	    p.failures[0],
	    "another benchline run is running (pid 812: 'benchline run -- ./bench')");

	l.processes = names;
	l.nprocesses = 2;
	p.busy = xcalloc(1, sizeof(*p.busy));
	p.busy[0].pid = 900;
	p.busy[0].what = xstrdup("cargo");
	p.nbusy = 1;
	p.on_battery = 1;
	p.battery = xstrdup("BAT0");
	preflight_judge(&p, &l);
	assert_int_equal(p.nfailures, 3);
	assert_true(has_text(p.failures, p.nfailures,
			     "configured benchmark process 'cargo' is running (pid 900)"));
	assert_true(has_text(p.failures, p.nfailures, "on battery power ('BAT0')"));
	preflight_release(&p);
}

static void linux_checks_only_warn(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	(void)state;
	plain_limits(&l);
	quiet_readings(&p);
	free(p.governor);
	p.governor = xstrdup("powersave");
	p.governor_slow = 4;
	p.turbo = 1;
	p.turbo_source = xstrdup("intel_pstate/no_turbo is 0");
	p.swap_used_kb = 1;
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_int_equal(p.nfailures, 0);
	assert_int_equal(p.nwarnings, 3);
	assert_string_equal(p.warnings[0], "cpu governor is 'powersave', not 'performance'");
	assert_string_equal(p.warnings[1], "turbo boost is on (intel_pstate/no_turbo is 0)");
	assert_string_equal(p.warnings[2], "swap in use: 1 kB");

	/* Some cpus only. */
	p.governor_slow = 1;
	preflight_judge(&p, &l);
	assert_string_equal(p.warnings[0],
			    "cpu governor is 'powersave' on 1 of 4 cpus, not 'performance'");

	/* Unknown everywhere: skipped, no warnings. */
	free(p.governor);
	p.governor = NULL;
	p.governor_cpus = p.governor_slow = 0;
	p.turbo = -1;
	p.swap_used_kb = -1;
	preflight_judge(&p, &l);
	assert_true(p.quiet);
	assert_int_equal(p.nwarnings, 0);
	preflight_release(&p);
}

/* ------------------------------------------------------------------ readers' pieces */

static void parse_gpu_output(void **state)
{
	double v = -1;
	(void)state;
	assert_int_equal(preflight_parse_gpu(&v, "35\n"), 0);
	assert_double_equal(v, 35, 0);
	/* The busiest GPU counts. */
	assert_int_equal(preflight_parse_gpu(&v, "5\n35\n12\n"), 0);
	assert_double_equal(v, 35, 0);
	assert_int_equal(preflight_parse_gpu(&v, " 12 \r\n\n"), 0);
	assert_double_equal(v, 12, 0);
	assert_int_equal(preflight_parse_gpu(&v, "[N/A]\n7"), 0);
	assert_double_equal(v, 7, 0);
	assert_int_equal(preflight_parse_gpu(&v, "0\n"), 0);
	assert_double_equal(v, 0, 0);
	assert_int_equal(preflight_parse_gpu(&v, "[N/A]\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_gpu(&v, ""), BL_EINVALID);
	assert_int_equal(preflight_parse_gpu(&v, "No devices were found\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_gpu(&v, "35 %\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_gpu(&v, "-3\n"), BL_EINVALID);
	assert_int_equal(preflight_parse_gpu(&v, "nan\n"), BL_EINVALID);
}

#define CMD(s) preflight_is_benchline_run(s, sizeof(s) - 1)

static void benchline_run_command_lines(void **state)
{
	(void)state;
	assert_true(CMD("benchline\0run\0--\0./bench\0"));
	assert_true(CMD("/usr/local/bin/benchline\0run\0"));
	assert_true(CMD("./build/default/benchline\0--db\0x.db\0run\0--\0make\0"));
	assert_true(CMD("benchline\0--db=x.db\0run\0"));
	assert_true(CMD("benchline\0run")); /* no final NUL */
	assert_false(CMD("benchline\0preflight\0"));
	assert_false(CMD("benchline\0serve\0--port\0run\0"));
	assert_false(CMD("benchline\0ingest\0run\0")); /* a file named run */
	assert_false(CMD("benchline\0--db\0run\0"));   /* a database named run */
	assert_false(CMD("benchline-web\0run\0"));
	assert_false(CMD("/opt/benchline/bin/other\0run\0"));
	assert_false(CMD("sh\0-c\0benchline run\0"));
	assert_false(CMD("benchline\0"));
	assert_false(CMD("benchline run -- x")); /* not split: a rewritten title */
	assert_false(preflight_is_benchline_run("", 0));
	/* Only len bytes are read: the buffer need not end in a NUL. */
	assert_true(preflight_is_benchline_run("benchline\0runX", 13));
	assert_false(preflight_is_benchline_run("benchlinexyz", 9));
	assert_false(preflight_is_benchline_run("benchline\0run", 12));
}

static void comm_names(void **state)
{
	(void)state;
	assert_true(preflight_comm_matches("cargo\n", "cargo"));
	assert_true(preflight_comm_matches("cargo", "cargo"));
	assert_false(preflight_comm_matches("cargo-watch\n", "cargo"));
	assert_false(preflight_comm_matches("carg\n", "cargo"));
	/* The kernel cuts comm to 15 characters. */
	assert_true(preflight_comm_matches("blender-benchma\n", "blender-benchmark"));
	assert_false(preflight_comm_matches("blender-benchma\n", "blender-benchXYZ"));
	/* Names that share their first 15 characters cannot be told apart. */
	assert_true(preflight_comm_matches("blender-benchma\n", "blender-benchmarx"));
	assert_false(preflight_comm_matches("blender-bench\n", "blender-benchmark"));
}

static void battery_decisions(void **state)
{
	const char *which;
	(void)state;
	{ /* a laptop on AC, battery full; a wireless mouse discharging (ignored) */
		struct preflight_power_supply s[] = {
		    {"AC", "Mains", NULL, NULL, 1},
		    {"BAT0", "Battery", "Full", "System", -1},
		    {"hidpp_battery_0", "Battery", "Discharging", "Device", -1},
		};
		assert_false(preflight_on_battery(s, 3, &which));
		assert_null(which);
	}
	{ /* unplugged */
		struct preflight_power_supply s[] = {
		    {"AC", "Mains", NULL, NULL, 0},
		    {"BAT0", "Battery", "Discharging", NULL, -1},
		};
		assert_true(preflight_on_battery(s, 2, &which));
		assert_string_equal(which, "BAT0");
	}
	{ /* AC offline while the battery says "Not charging": still on battery */
		struct preflight_power_supply s[] = {
		    {"ADP1", "Mains", NULL, NULL, 0},
		    {"BAT1", "Battery", "Not charging", NULL, -1},
		};
		assert_true(preflight_on_battery(s, 2, &which));
		assert_string_equal(which, "BAT1");
	}
	{ /* a USB-C port offline while AC is online: on mains */
		struct preflight_power_supply s[] = {
		    {"AC", "Mains", NULL, NULL, 1},
		    {"BAT0", "Battery", "Charging", NULL, -1},
		    {"ucsi-source-psy-USBC000:001", "USB", NULL, NULL, 0},
		};
		assert_false(preflight_on_battery(s, 3, &which));
	}
	{ /* charging over USB-C only */
		struct preflight_power_supply s[] = {
		    {"BAT0", "Battery", "Charging", NULL, -1},
		    {"ucsi-source-psy-USBC000:001", "USB", NULL, NULL, 1},
		};
		assert_false(preflight_on_battery(s, 2, &which));
	}
	{ /* a desktop: an offline USB-C port and no battery */
		struct preflight_power_supply s[] = {
		    {"ucsi-source-psy-USBC000:001", "USB", NULL, NULL, 0},
		};
		assert_false(preflight_on_battery(s, 1, &which));
	}
	{ /* a battery with no external supply listed, not discharging (a VM, a tablet) */
		struct preflight_power_supply s[] = {
		    {"BAT0", "Battery", "Unknown", NULL, -1},
		};
		assert_false(preflight_on_battery(s, 1, &which));
	}
	{ /* a desktop on a UPS that is discharging */
		struct preflight_power_supply s[] = {
		    {"ups", "UPS", "Discharging", NULL, -1},
		};
		assert_true(preflight_on_battery(s, 1, &which));
		assert_string_equal(which, "ups");
	}
	assert_false(preflight_on_battery(NULL, 0, &which));
}

static void swap_turbo_governor(void **state)
{
	int64_t used = -5;
	size_t slow;
	char *all_perf[] = {(char *)"performance", (char *)"performance"};
	char *mixed[] = {(char *)"performance", (char *)"powersave", (char *)"schedutil"};
	char *all_save[] = {(char *)"powersave", (char *)"powersave"};
	(void)state;
	assert_int_equal(preflight_parse_swap(&used, "MemTotal: 100 kB\nSwapTotal:  "
						     "2048 kB\nSwapFree:   2048 kB\n"),
			 0);
	assert_int_equal(used, 0);
	assert_int_equal(preflight_parse_swap(&used, "SwapTotal: 2048 kB\nSwapFree: 1024 kB\n"), 0);
	assert_int_equal(used, 1024);
	assert_int_equal(preflight_parse_swap(&used, "SwapTotal: 0 kB\nSwapFree: 0 kB\n"), 0);
	assert_int_equal(used, 0);
	assert_int_equal(preflight_parse_swap(&used, "MemTotal: 100 kB\n"), BL_ENOTFOUND);
	/* SwapCached is not SwapTotal. */
	assert_int_equal(preflight_parse_swap(&used, "SwapCached: 5 kB\nSwapFree: 1 kB\n"),
			 BL_ENOTFOUND);

	assert_int_equal(preflight_turbo("0\n", NULL), 1);
	assert_int_equal(preflight_turbo("1\n", NULL), 0);
	assert_int_equal(preflight_turbo(NULL, "1"), 1);
	assert_int_equal(preflight_turbo(NULL, "0"), 0);
	assert_int_equal(preflight_turbo("1", "1"), 0); /* no_turbo wins */
	assert_int_equal(preflight_turbo(NULL, NULL), -1);
	assert_int_equal(preflight_turbo("x", NULL), -1);

	assert_string_equal(preflight_governor(all_perf, 2, &slow), "performance");
	assert_int_equal(slow, 0);
	assert_string_equal(preflight_governor(mixed, 3, &slow), "powersave");
	assert_int_equal(slow, 2);
	assert_string_equal(preflight_governor(all_save, 2, &slow), "powersave");
	assert_int_equal(slow, 2);
	assert_null(preflight_governor(NULL, 0, &slow));
}

static void percent_format(void **state)
{
	static const struct {
		double v;
		const char *s;
	} cases[] = {{2.5, "2.5"},	{10, "10"},   {10.01, "10.01"}, {0, "0"},
		     {33.333, "33.33"}, {100, "100"}, {-0.001, "0"}};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct strbuf sb = STRBUF_INIT;
		preflight_format_pct(&sb, cases[i].v);
		assert_string_equal(sb.buf, cases[i].s);
		strbuf_release(&sb);
	}
}

/* ------------------------------------------------------------------ JSON */

static void json_has_every_key(void **state)
{
	static const char *const keys[] = {
	    "quiet",	       "warnings",   "failures", "cpu_load_pct", "gpu_load_pct",
	    "other_benchline", "on_battery", "governor", "turbo",	 "swap_used_kb"};
	struct preflight_limits l;
	struct preflight p;
	struct strbuf sb = STRBUF_INIT;
	json_t *j;
	(void)state;
	plain_limits(&l);
	preflight_init(&p);
	p.cpu_load_pct = 35;
	preflight_judge(&p, &l);
	assert_int_equal(preflight_json(&sb, &p), 0);
	assert_string_equal(sb.buf,
			    "{\"quiet\":false,\"warnings\":[],\"failures\":[\"cpu load 35% is over "
			    "the limit of 10%\"],\"cpu_load_pct\":35.0,\"gpu_load_pct\":null,"
			    "\"other_benchline\":false,\"on_battery\":false,\"governor\":null,"
			    "\"turbo\":null,\"swap_used_kb\":null}");
	strbuf_release(&sb);
	preflight_release(&p);

	quiet_readings(&p);
	p.cpu_load_pct = 2.5;
	p.gpu_load_pct = 7;
	p.turbo = 1;
	p.swap_used_kb = 1024;
	preflight_judge(&p, &l);
	j = preflight_to_json(&p);
	assert_int_equal(json_object_size(j), sizeof(keys) / sizeof(keys[0]));
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		assert_non_null(json_object_get(j, keys[i]));
	assert_true(json_is_true(json_object_get(j, "quiet")));
	assert_double_equal(json_real_value(json_object_get(j, "cpu_load_pct")), 2.5, 0);
	assert_double_equal(json_real_value(json_object_get(j, "gpu_load_pct")), 7, 0);
	assert_string_equal(json_string_value(json_object_get(j, "governor")), "performance");
	assert_true(json_is_true(json_object_get(j, "turbo")));
	assert_int_equal(json_integer_value(json_object_get(j, "swap_used_kb")), 1024);
	assert_int_equal(json_array_size(json_object_get(j, "warnings")), 2);
	json_decref(j);
	preflight_release(&p);
}

/* ------------------------------------------------------------------ whole runs */

static void run_on_the_quiet_fixture(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	struct bl_error err = BL_ERROR_INIT;
	char *names[] = {(char *)"sshd"};
	(void)state;
	plain_limits(&l);
	l.sysroot = QUIET_ROOT;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_true(p.quiet);
	assert_double_equal(p.cpu_load_pct, 2.5, 0);
	assert_true(isnan(p.gpu_load_pct));
	assert_string_equal(p.gpu_skip, "no nvidia-smi");
	/* pid 4242 is this process (a `benchline run` itself): never "another" run. */
	assert_int_equal(p.nothers, 0);
	assert_false(p.on_battery);
	assert_string_equal(p.governor, "performance");
	assert_int_equal(p.governor_cpus, 2);
	assert_int_equal(p.turbo, 0);
	assert_int_equal(p.swap_used_kb, 0);
	assert_int_equal(p.nwarnings, 0);
	preflight_release(&p);

	/* A configured name that is running there: sshd, pid 300. */
	l.processes = names;
	l.nprocesses = 1;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_false(p.quiet);
	assert_int_equal(p.nbusy, 1);
	assert_int_equal(p.busy[0].pid, 300);
	assert_string_equal(p.failures[0],
			    "configured benchmark process 'sshd' is running (pid 300)");
	preflight_release(&p);

	/* A limit under the fixture's 2.5%. */
	l.nprocesses = 0;
	l.cpu_load_pct = 2.49;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_false(p.quiet);
	preflight_release(&p);
	bl_error_release(&err);
}

static void run_on_a_missing_root_is_an_error(void **state)
{
	struct preflight_limits l;
	struct preflight p;
	struct bl_error err = BL_ERROR_INIT;
	(void)state;
	plain_limits(&l);
	l.sysroot = "fixtures/sysroot/no-such-root";
	assert_int_equal(preflight_run(&p, &l, &err), BL_EIO);
	assert_non_null(
	    strstr(err.msg.buf, "cannot read 'fixtures/sysroot/no-such-root/proc/stat'"));
	bl_error_release(&err);
}

/* Writes an executable shell script into dir and returns its path. */
static char *script(const char *dir, const char *name, const char *body)
{
	struct strbuf path = STRBUF_INIT;
	FILE *f;
	strbuf_addf(&path, "%s/%s", dir, name);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fprintf(f, "#!/bin/sh\n%s\n", body);
	fclose(f);
	assert_int_equal(chmod(path.buf, 0755), 0);
	return strbuf_detach(&path, NULL);
}

static void run_with_fake_nvidia_smi(void **state)
{
	char dir[] = "/tmp/benchline-preflight-unit.XXXXXX";
	struct preflight_limits l;
	struct preflight p;
	struct bl_error err = BL_ERROR_INIT;
	char *busy, *idle, *hang, *fails, *garbage, *args;
	struct strbuf cleanup = STRBUF_INIT;
	(void)state;
	assert_non_null(mkdtemp(dir));
	busy = script(dir, "busy", "echo 35; echo 3");
	idle = script(dir, "idle", "printf '5\\n'");
	hang = script(dir, "hang", "sleep 30");
	fails = script(dir, "fails", "echo 'No devices were found'; exit 6");
	garbage = script(dir, "garbage", "echo 'utilization.gpu'");
	/* It must be asked exactly this. */
	args = script(dir, "args",
		      "[ \"$*\" = '--query-gpu=utilization.gpu --format=csv,noheader,nounits' ] "
		      "&& echo 1 || exit 3");
	plain_limits(&l);
	l.sysroot = QUIET_ROOT;

	l.nvidia_smi = busy;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_false(p.quiet);
	assert_double_equal(p.gpu_load_pct, 35, 0);
	assert_string_equal(p.failures[0], "gpu load 35% is over the limit of 10%");
	preflight_release(&p);

	l.nvidia_smi = idle;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_true(p.quiet);
	assert_double_equal(p.gpu_load_pct, 5, 0);
	preflight_release(&p);

	l.nvidia_smi = args;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_double_equal(p.gpu_load_pct, 1, 0);
	preflight_release(&p);

	/* Hung: killed at the timeout, a warning. */
	l.nvidia_smi = hang;
	l.gpu_timeout_ms = 300;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_true(p.quiet);
	assert_true(isnan(p.gpu_load_pct));
	assert_non_null(p.gpu_error);
	assert_non_null(strstr(p.gpu_error, "did not answer within 0.3 s and was killed"));
	assert_int_equal(p.nwarnings, 1);
	preflight_release(&p);
	l.gpu_timeout_ms = PREFLIGHT_GPU_TIMEOUT_MS;

	l.nvidia_smi = fails;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_true(p.quiet);
	assert_non_null(strstr(p.gpu_error, "exited with status 6"));
	preflight_release(&p);

	l.nvidia_smi = garbage;
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_non_null(strstr(p.gpu_error, "cannot parse the output of"));
	preflight_release(&p);

	/* Missing: skipped, and the finding names where it looked. */
	l.nvidia_smi = "/nonexistent/nvidia-smi";
	assert_int_equal(preflight_run(&p, &l, &err), 0);
	assert_true(p.quiet);
	assert_null(p.gpu_error);
	assert_string_equal(p.gpu_skip, "no nvidia-smi at '/nonexistent/nvidia-smi'");
	preflight_release(&p);

	strbuf_addf(&cleanup, "rm -f %s %s %s %s %s %s && rmdir %s", busy, idle, hang, fails,
		    garbage, args, dir);
	assert_int_equal(system(cleanup.buf), 0);
	strbuf_release(&cleanup);
	free(busy);
	free(idle);
	free(hang);
	free(fails);
	free(garbage);
	free(args);
	bl_error_release(&err);
}

static void processes_from_benchline_json(void **state)
{
	char dir[] = "/tmp/benchline-preflight-unit.XXXXXX";
	struct config cfg;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf path = STRBUF_INIT;
	char **names;
	size_t n;
	FILE *f;
	(void)state;
	assert_non_null(mkdtemp(dir));
	/* No file: none. */
	assert_int_equal(config_load(&cfg, dir, &err), 0);
	assert_int_equal(preflight_config_processes(&names, &n, &cfg, &err), 0);
	assert_int_equal(n, 0);
	assert_null(names);
	config_release(&cfg);

	strbuf_addf(&path, "%s/benchline.json", dir);
	f = fopen(path.buf, "w");
	assert_non_null(f);
	fputs("{\"quiet\": {\"cpu_load_pct\": 20, \"processes\": [\"cargo\", \"rustc\"]}}\n", f);
	fclose(f);
	assert_int_equal(config_load(&cfg, dir, &err), 0);
	assert_double_equal(cfg.cpu_load_pct, 20, 0);
	assert_int_equal(preflight_config_processes(&names, &n, &cfg, &err), 0);
	assert_int_equal(n, 2);
	assert_string_equal(names[0], "cargo");
	assert_string_equal(names[1], "rustc");
	strings_free(names, n);
	config_release(&cfg);

	assert_int_equal(unlink(path.buf), 0);
	assert_int_equal(rmdir(dir), 0);
	strbuf_release(&path);
	bl_error_release(&err);
}

static void limits_from_the_environment(void **state)
{
	struct preflight_limits l;
	(void)state;
	unsetenv("BENCHLINE_SYSROOT");
	unsetenv("BENCHLINE_NVIDIA_SMI");
	preflight_limits_init(&l);
	assert_null(l.sysroot);
	assert_null(l.nvidia_smi);
	assert_true(l.search_path);
	assert_double_equal(l.cpu_load_pct, 10, 0);
	assert_double_equal(l.gpu_load_pct, 10, 0);
	setenv("BENCHLINE_SYSROOT", "/", 1);
	preflight_limits_init(&l);
	assert_null(l.sysroot);
	setenv("BENCHLINE_SYSROOT", QUIET_ROOT, 1);
	setenv("BENCHLINE_NVIDIA_SMI", "/x/nvidia-smi", 1);
	preflight_limits_init(&l);
	assert_string_equal(l.sysroot, QUIET_ROOT);
	assert_string_equal(l.nvidia_smi, "/x/nvidia-smi");
	assert_false(l.search_path); /* a fixture never sees the real GPU */
	unsetenv("BENCHLINE_SYSROOT");
	unsetenv("BENCHLINE_NVIDIA_SMI");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parse_cpu_line),
	    cmocka_unit_test(parse_proc_pid_stat),
	    cmocka_unit_test(load_from_two_samples),
	    cmocka_unit_test(over_means_strictly_greater),
	    cmocka_unit_test(cpu_limit_exactly_and_above),
	    cmocka_unit_test(gpu_limit_exactly_above_and_skipped),
	    cmocka_unit_test(processes_and_battery_fail),
	    cmocka_unit_test(linux_checks_only_warn),
	    cmocka_unit_test(parse_gpu_output),
	    cmocka_unit_test(benchline_run_command_lines),
	    cmocka_unit_test(comm_names),
	    cmocka_unit_test(battery_decisions),
	    cmocka_unit_test(swap_turbo_governor),
	    cmocka_unit_test(percent_format),
	    cmocka_unit_test(json_has_every_key),
	    cmocka_unit_test(run_on_the_quiet_fixture),
	    cmocka_unit_test(run_on_a_missing_root_is_an_error),
	    cmocka_unit_test(run_with_fake_nvidia_smi),
	    cmocka_unit_test(processes_from_benchline_json),
	    cmocka_unit_test(limits_from_the_environment),
	};
	int ret;
	git_libgit2_init();
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	git_libgit2_shutdown();
	return ret;
}
