/*
 * confirm: turning Suspects into Regressions (§9), judgement only. The re-bench engine
 * (rebench.c), which decides how much to measure two builds and what the paired samples mean,
 * through a callback that takes one sample of a side; `rebench` and `bisect` (measure.c: the
 * sampler over ingest/bench/'s two sides, and bisect's search); `gate --live` and `gate
 * --settle` (live.c); the confirm use case (alerts.c); a pinned
 * bisection stored as a Regression (regression.c); an outcome sent by another machine
 * (outcome.c); an alert ignored by a person (ignore.c); triage's issues (triage.c); two
 * callgrind profiles compared, where the extra instructions went (profile.c). What is
 * measured, and how (worktrees, builds, processes, artifacts), is ingest/bench/'s. Nothing
 * here prints or exits. docs/confirm.md explains the rules.
 */
#ifndef BENCHLINE_DETECT_CONFIRM_H
#define BENCHLINE_DETECT_CONFIRM_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "detect/gate/gate.h"
#include "ingest/bench/bench.h"
#include "ingest/repo/repo.h"

struct config;

/* --- The re-bench engine (§9.2, rebench.c) --- */

#define CONFIRM_ROUND_PAIRS   10   /* pairs between two looks at the intervals */
#define CONFIRM_MAX_PAIRS     60   /* pairs in one measurement at the most */
#define CONFIRM_CONFIRMATIONS 3	   /* measurements that must all say slower */
#define CONFIRM_REPLACEMENTS  3	   /* undecided measurements replaced at the most */
#define CONFIRM_LEVEL	      0.99 /* the paired ratios' median interval */
#define CONFIRM_RSS_LIMIT     1.10 /* peak RSS: worse by more than 10% ... */
#define CONFIRM_RSS_MIN_KIB   1024 /* ... and by more than 1 MiB */

enum confirm_side { CONFIRM_SIDE_A, CONFIRM_SIDE_B };

/* How a metric is judged: its paired ratios against the limit, or as peak memory is. */
/* How a key's ratios are judged: against the limit, peak memory's own rule, or an exact count
 * against its tolerance (§9.6: counted once per side, no pairs). */
enum confirm_judge { CONFIRM_JUDGE_RATIO, CONFIRM_JUDGE_RSS, CONFIRM_JUDGE_COUNT };

/* One metric of one sample. */
struct confirm_value {
	const char *key; /* names the metric the same way on both sides */
	double value;	 /* positive and finite to count */
	int better_higher;
	enum confirm_judge judge;
	double limit; /* the limit its ratios are judged against; 0: the options' */
};

/* Takes one sample of side (a build): *values (n of them) stay the callee's, valid until its
 * next call. 0, or an error that ends the re-bench. */
typedef int (*confirm_sample_fn)(struct confirm_value **values, size_t *n, enum confirm_side side,
				 void *data, struct bl_error *err);

/* A metric's standing: after a round (progress) or at the end (the result). */
struct confirm_metric {
	const char *key;
	int better_higher;
	enum gate_verdict verdict; /* SAME, SLOWER, FASTER or UNDECIDED */
	size_t pairs;		   /* in the latest measurement */
	double ratio, lo, hi;	   /* median of b / a and its interval; NAN when none */
	double a, b;		   /* each side's nearest-rank median over those pairs */
	int asked; /* asked about (confirm_rebench_options.asked): it decides and extends rounds */
	/* How the measurements voted (the result only). */
	size_t measurements, slower_votes, clear_votes, undecided_votes;
};

/* Where a re-bench stands: after each round, and once before the first pair (measurement 0,
 * done 0), which is where the pace of what follows starts. */
struct confirm_progress {
	int measurement;	 /* 1-based; 0 before the first pair */
	size_t pairs, max_pairs; /* pairs of this measurement, and the most it takes */
	/* Pairs over the whole re-bench, and the most it can take now: what is left of this
	 * measurement and the measurements that the metrics still waited for may yet need. */
	size_t done, most;
	const struct confirm_metric *metrics; /* this measurement's standing, asked or not */
	size_t n;
};
typedef void (*confirm_progress_fn)(const struct confirm_progress *p, void *data);

struct confirm_rebench_options {
	double limit; /* the bare limit the ratios are judged against (GATE_LIMIT) */
	size_t round_pairs, max_pairs, confirmations, replacements;
	/* The metrics asked about, by key: only they decide when a measurement's rounds stop,
	 * whether another measurement follows and the whole verdict. The others are measured in
	 * the same samples and reported, never waited for. NULL: every metric is asked about. */
	const char *const *asked;
	size_t nasked;
};
void confirm_rebench_options_init(struct confirm_rebench_options *o);

struct confirm_rebench_result {
	struct confirm_metric *metrics; /* in the order the first measurement met them */
	size_t n;
	/* Over the metrics asked about: SLOWER when any is, else UNDECIDED when any is (or none
	 * was measured), else SAME (FASTER metrics count as SAME here). */
	enum gate_verdict verdict;
	size_t measurements, pairs; /* measurements taken, pairs over all of them */
};

/*
 * Measures side B against side A: measurements of rounds of pairs until every metric asked
 * about is settled (its interval decides) or max_pairs are taken. A metric that a measurement
 * finds slower is measured again from scratch, and is SLOWER only when `confirmations`
 * measurements say so and none says otherwise; one measurement that is not slower (same or
 * faster) decides it; an UNDECIDED measurement counts for nothing and is followed by another,
 * at most `replacements` times (a measurement that did not measure it counts as one). Only
 * metrics asked about make another measurement follow; the others take the votes of the
 * measurements that happen anyway. Samples are taken through sample; progress (may be NULL)
 * before the first pair and after each round, given progress_data.
 */
int confirm_rebench(struct confirm_rebench_result *out, const struct confirm_rebench_options *o,
		    confirm_sample_fn sample, void *sample_data, confirm_progress_fn progress,
		    void *progress_data, struct bl_error *err);
void confirm_rebench_release(struct confirm_rebench_result *r);

/* --- `benchline rebench` (measure.c): two revisions built and measured --- */

/* The benchmark the runs' own figures (cpu_s, peak_rss_kib) are keyed under. */
#define CONFIRM_RUN_BENCHMARK "bench.run"

/* What a key names: one metric of one benchmark of bench.run's output, or one of the runs' own
 * figures (benchmark CONFIRM_RUN_BENCHMARK, config ""). */
struct confirm_key {
	char *key; /* "benchmark[ [config]] metric", or "cpu_s", "peak_rss_kib" */
	char *benchmark, *config, *metric, *unit; /* unit and kind as first met */
	enum metric_kind kind;
	int better_higher;
	enum confirm_judge judge;
	double limit;	    /* its ratios' limit (the request's limit_for); 0: the re-bench's */
	int seen[2];	    /* whether side a's, side b's samples had it */
	char *side_unit[2]; /* the unit and kind each side's output gave it (NULL: not seen) */
	enum metric_kind side_kind[2];
};

/* A key's own limit, for a caller whose limit depends on the metric (the gate's overrides and
 * counted tolerances); 0: the re-bench's limit. */
typedef double (*confirm_limit_fn)(const struct confirm_key *key, void *data);

struct confirm_rebench_report;
struct confirm_profile;
struct confirm_rebench_request {
	const char *repo;	    /* a directory inside the working tree; NULL: "." */
	const struct config *cfg;   /* its benchline.json, already read; NULL: read it */
	const char *a, *b;	    /* the revisions: A the reference, B the candidate */
	const char *label[2];	    /* how messages name A and B; NULL: "side a", "side b" */
	const char *benchmark_glob; /* only these benchmarks; NULL: every one */
	/* Only these benchmarks (exact names), when n_benchmarks is not 0; the runs' own cpu_s and
	 * peak_rss_kib then only when CONFIRM_RUN_BENCHMARK is among them. */
	const char *const *benchmarks;
	size_t n_benchmarks;
	double limit;		    /* 0: GATE_LIMIT */
	confirm_limit_fn limit_for; /* a key's own limit; NULL: limit for every key */
	void *limit_data;
	/* The keys asked about (confirm_rebench_options.asked); NULL: every key. */
	const char *const *asked;
	size_t nasked;
	confirm_progress_fn progress; /* before the first pair and after each round; NULL: none */
	void *progress_data;
	/* Deterministic counters (§9.6), when benchline.json sets bench.counters: each side
	 * counted once before the timing rounds, unless no_counters; only counted when
	 * counters_only. a_counts: side A's counts taken before (reused, counted on
	 * a_counted_on), so it is not counted again (nor built, when counters_only). */
	int no_counters, counters_only;
	const struct bench_counts *a_counts;
	const char *a_counted_on;
	/* §9.7: the keys whose benchmarks are profiled once the verdicts are in (the first
	 * CONFIRM_PROFILES_MAX benchmarks with a key profile_wanted says yes to, in the order the
	 * keys were met); NULL: none is. */
	int (*profile_wanted)(const struct confirm_rebench_report *r, size_t key, void *data);
	void *profile_data;
};

struct confirm_rebench_side {
	char *name; /* the revision as given */
	char commit[41], source_hash[41];
	double build_s; /* how long bench.build took */
};

struct confirm_rebench_report {
	struct confirm_rebench_side side[2];
	double limit;
	int identical;	       /* bench.artifacts byte-identical: nothing was measured */
	size_t artifact_files; /* compared, when identical */
	struct confirm_rebench_result result;
	/* Every key either side's samples had, in the order first met; result.metrics has those
	 * both sides had. */
	struct confirm_key *keys;
	size_t nkeys;
	/* Counted (§9.6): each side's counts (side A's are the request's when reused), the
	 * machine they are keyed by and the build stamp; their keys, "BENCHMARK instructions",
	 * are among keys and result.metrics, judged CONFIRM_JUDGE_COUNT. */
	int counted, reused_a, counters_only;
	struct bench_counts counts[2];
	struct bench_counter_env env;
	char *a_counted_on;
	/* §9.7: where the extra instructions went, for the benchmarks profile_wanted picked;
	 * profile_note says what was skipped and why ("" when nothing was). */
	struct confirm_profile *profiles;
	size_t nprofiles;
	struct strbuf profile_note;
};

/*
 * Resolves A and B in the repository holding req->repo, checks each out in its worktree,
 * builds both (BL_EBUILD, the message naming the side, its commit and its worktree, when one
 * cannot be built), and
 * unless their bench.artifacts are byte-identical measures B against A with confirm_rebench: each
 * sample the fastest of bench.processes runs of bench.run, its results parsed by bench.format's
 * adapter, keyed "benchmark[ [config]] metric", plus cpu_s and peak_rss_kib from the runs.
 */
int confirm_rebench_revs(struct confirm_rebench_report *out,
			 const struct confirm_rebench_request *req, struct bl_error *err);
void confirm_rebench_report_release(struct confirm_rebench_report *r);
struct json_t;
/* The report as `rebench --json` prints it (docs/confirm.md). */
struct json_t *confirm_rebench_json(const struct confirm_rebench_report *r);

/* --- `benchline gate --live` (live.c): the gate's verdict from a re-bench now --- */

/*
 * The gate of §7.10 with the options gate_options_build made: the head, the base and their
 * merge base M resolved (equal source hashes: GATE_NOTHING_TO_COMPARE, and nothing is built);
 * else M checked out and built in side a's worktree, the head in side b's, and the head
 * measured against M with confirm_rebench_revs (progress after each round). Every metric of
 * bench.run's output, and the runs' cpu_s and peak_rss_kib (benchmark CONFIRM_RUN_BENCHMARK),
 * becomes a row of out (mode GATE_MODE_LIVE, machine this host's name), judged on its paired
 * ratios against the bare limit: the gate's, an override's, or 1 + a counted metric's
 * tolerance; excludes apply; slower across the board fails. BL_EBUILD (the message naming the
 * head or the merge base and its commit) when a side cannot be built; BL_EINVALID for a
 * ratchet, which needs stored records. benchline-gate.lock is not read: its entries hold
 * stored references, which a live measurement never reproduces.
 */
int confirm_gate_live(struct gate_report *out, const struct gate_options *opts,
		      confirm_progress_fn progress, void *progress_data, struct bl_error *err);

/*
 * `benchline gate --settle` (§7.8): the stored gate's report r (from gate_run with opts), its
 * main comparison's FAIL rows (not a stale accept, which no measurement clears) and UNDECIDED
 * rows measured again live: their benchmarks only, the head against the merge base M, with
 * confirm_rebench_revs as --live measures (the same limits), the rows' own keys the only ones
 * asked about (the benchmarks' other metrics never hold the rounds up), and each such row whose
 * (benchmark, config, metric) bench.run printed on both sides takes the live verdict, kept
 * marked settled with the stored one; the others keep theirs, with a note why. Byte-identical
 * bench.artifacts settle them all as same. Then the outcome is decided again
 * (gate_report_decide). Nothing is measured when no row asks for it, or when r is not a pass
 * or a fail. BL_ECONFIG without bench.run (confirm_gate_settle_ready); BL_EBUILD when a side
 * cannot be built.
 */
int confirm_gate_settle(struct gate_report *r, const struct gate_options *opts,
			confirm_progress_fn progress, void *progress_data, struct bl_error *err);
/* 0 when --settle can measure (benchline.json sets bench.run), else BL_ECONFIG saying so: a
 * caller checks before the stored gate runs. */
int confirm_gate_settle_ready(const struct gate_options *opts, struct bl_error *err);

/* --- `benchline bisect` (measure.c): the first slower commit between two --- */

enum confirm_bisect_outcome { CONFIRM_PINNED, CONFIRM_NOT_REPRODUCED, CONFIRM_INCONCLUSIVE };
/* "pinned", "not_reproduced", "inconclusive". */
const char *confirm_bisect_outcome_name(enum confirm_bisect_outcome o);

/* Why a probe did not decide: it stayed undecided over a whole measurement, or it cannot be
 * built (both are stepped over, as git bisect skip does). */
enum confirm_probe_skip {
	CONFIRM_PROBE_MEASURED,
	CONFIRM_PROBE_UNDECIDED,
	CONFIRM_PROBE_UNBUILDABLE
};
/* NULL, "undecided", "unbuildable". */
const char *confirm_probe_skip_name(enum confirm_probe_skip s);

struct confirm_bisect_request {
	const char *repo; /* a directory inside the working tree; NULL: "." */
	const char *good, *bad;
	const char *benchmark; /* the benchmark judged (a name, or a glob) */
	const char *metric;    /* its metric judged; NULL: every metric it has */
	/* Non-NULL, with metric: the one Series judged, benchmark taken as a name, not a glob
	 * (confirm bisects an alert's Series); its other configs are measured, not judged. */
	const char *config;
	double limit; /* 0: GATE_LIMIT */
	/* §9.6, with bench.counters: each probe's benchmark counted once per side, a slower count
	 * making the probe slower; counters_only (or the metric instructions) decides by the
	 * counts alone, nothing timed; no_counters never counts. */
	int counters_only, no_counters;
	confirm_progress_fn progress;
	void *progress_data;
};

/* One commit measured against good. */
struct confirm_probe {
	char commit[41], source_hash[41];
	enum gate_verdict verdict; /* over the judged metrics; NONE when it could not be built */
	enum confirm_probe_skip skip;
	int identical; /* its artifacts were good's: same, nothing measured */
	char *key;     /* the metric whose figures follow (the slower one, if any) */
	/* What key names: its benchmark, config ("" for none) and metric; NULL when nothing was
	 * measured. The runs' own figures are benchmark "bench.run". */
	char *benchmark, *config, *metric;
	double ratio, lo, hi;
	size_t pairs;
	/* §9.6: the probe's instruction count over good's (NAN: not counted) */
	double count_ratio;
};

struct confirm_bisect_report {
	enum confirm_bisect_outcome outcome;
	struct confirm_rebench_side good, bad;
	size_t candidates; /* distinct sources in (good, bad], good's own left out */
	/* In the order measured: the first is bad's source against good (the ends). */
	struct confirm_probe *probes;
	size_t nprobes;
	struct repo_commit pinned; /* PINNED: the first slower commit */
	char *subject;		   /* PINNED: its subject, else NULL */
	long pr;		   /* PINNED: the pull request its subject names, else 0 */
	struct repo_commit range_first, range_last; /* INCONCLUSIVE: what is left */
	struct repo_commit *remaining;		    /* INCONCLUSIVE: every candidate left */
	size_t nremaining;
	size_t commits; /* first-parent commits in (good, bad] */
	/* PINNED (§9.7): where the extra instructions went, the source before the pinned one
	 * against it, NULL when not profiled; profile_note says why not ("" when it was). */
	struct confirm_profile *profile;
	struct strbuf profile_note;
	/* §9.6: the machine key counts were taken under ("" when nothing was counted): the
	 * Series of a pinned instruction count is that machine's */
	char counter_machine[96];
};

/*
 * The first commit on bad's first-parent history after good whose source is slower than
 * good's (§9.3): the commits in (good, bad], each run of one source hash collapsed to its first
 * commit and good's own source left out, so no two probes measure the same source; bad's
 * source against good first (not slower: NOT_REPRODUCED); then a binary search, each probe
 * re-benched against good on side A, its judged metrics slower or not. A probe that stays
 * undecided over one measurement (up to 60 pairs) or cannot be built is skipped; when skips
 * leave more than one commit, INCONCLUSIVE with the range left. BL_EBUILD when good itself
 * cannot be built.
 */
int confirm_bisect(struct confirm_bisect_report *out, const struct confirm_bisect_request *req,
		   struct bl_error *err);
void confirm_bisect_report_release(struct confirm_bisect_report *r);
/* The report as `bisect --json` prints it (docs/cli.md). */
struct json_t *confirm_bisect_json(const struct confirm_bisect_report *r);
/* The probe that found the pinned commit slower (its figures are the Regression's); NULL
 * unless the report is PINNED. */
const struct confirm_probe *confirm_bisect_pinned_probe(const struct confirm_bisect_report *r);

/* --- Regressions (§9.3, regression.c): a pinned bisection stored in the database --- */

struct store;
struct store_regression;

/*
 * Stores the commit report r pinned as a Regression of the Series (machine, benchmark, config,
 * metric): its commit, source hash, subject and pull request (the commits table's when r has
 * none), the pinned probe's ratio and interval, r's good as the reference commit and the probe
 * log (the `probes` array of confirm_bisect_json). alert_id is the alert a confirm bisected for,
 * 0 for none. BL_EINVALID unless r is PINNED. A Regression already stored for that Series and
 * commit is kept: *id_out is its id, *added 0 (added may be NULL).
 */
int confirm_store_regression(int64_t *id_out, int *added, struct store *st,
			     const struct confirm_bisect_report *r, const char *machine,
			     const char *benchmark, const char *config, const char *metric,
			     int64_t alert_id, struct bl_error *err);

/* The machine measurements are made on (the rule of confirm, §9): flag when given, else
 * benchline.json's "machine" at the root of repo's working tree (NULL: "."), else the host name;
 * appended to out. */
int confirm_machine(struct strbuf *out, const char *flag, const char *repo, struct bl_error *err);
/*
 * `benchline bisect` with a database: the Regression of a PINNED report on machine's Series of
 * the key its pinned probe found slower (confirm_store_regression, no alert). The Series' id
 * (store_series_id) is appended to series_out (may be NULL).
 */
int confirm_bisect_store(int64_t *id_out, int *added, struct strbuf *series_out, struct store *st,
			 const struct confirm_bisect_report *r, const char *machine,
			 struct bl_error *err);

/* A Regression as `regressions --json` and /api/regressions print it (§14): {"id", "alert",
 * "machine", "benchmark", "config", "metric", "commit", "seq", "source_hash", "subject",
 * "pull_request", "ratio", "interval", "reference_commit", "filed_url", "created_at",
 * "probes"}, null where unknown. */
struct json_t *confirm_regression_json(const struct store_regression *r);

/* --- Triage (§9.5, triage.c): one issue per confirmed alert, for a bot to file --- */

struct store_triage_alert;

/* A Regression as an issue names it: a copy the issue owns. */
struct confirm_triage_regression {
	int64_t id;
	char *machine, *benchmark, *config, *metric;
	char *commit, *source_hash, *reference_commit;
	char *subject; /* NULL when unknown */
	int64_t pr;    /* 0 when none */
	double ratio, lo, hi;
	char *probes;  /* the probe log, JSON text */
	char *profile; /* §9.7: where the extra instructions went, JSON text; NULL: none */
};

/* The issue of one alert: all its Regressions, the largest first. */
struct confirm_triage_issue {
	int64_t alert_id;
	char *machine, *alert_commit;
	enum suspect_state state;
	int64_t series;		      /* the Suspects the alert holds */
	int by_band, by_change_point; /* which opinions marked them (§6, §6.1) */
	struct confirm_triage_regression *regs;
	size_t nregs, regs_alloc;
	struct strbuf title, body;
};

/* The issue's labels, in this order. */
extern const char *const confirm_triage_labels[2];

/* Starts the issue of alert a, then adds its Regressions one by one (copied), then writes the
 * title and the Markdown body: chart links under base_url when it is not NULL (a trailing '/'
 * is dropped). */
void confirm_triage_issue_init(struct confirm_triage_issue *is, const struct store_triage_alert *a);
void confirm_triage_issue_add(struct confirm_triage_issue *is, const struct store_regression *r);
void confirm_triage_issue_write(struct confirm_triage_issue *is, const char *base_url);
void confirm_triage_issue_release(struct confirm_triage_issue *is);
/* The issue as one Markdown document: its title as a heading, then its body. */
void confirm_triage_markdown(struct strbuf *out, const struct confirm_triage_issue *is);
/* {"id" (the alert), "title", "body", "labels", "regressions": [ids]} (§14). */
struct json_t *confirm_triage_json(const struct confirm_triage_issue *is);

/* Every alert triage has yet to file (store_each_triage_alert) as a written issue: a new
 * array of *nr the caller frees with confirm_triage_issues_free. */
int confirm_triage_list(struct confirm_triage_issue **out, size_t *nr, struct store *st,
			const char *base_url, struct bl_error *err);
void confirm_triage_issues_free(struct confirm_triage_issue *is, size_t nr);

/* Parses "ID=URL" (--mark-filed): ID a positive alert id, URL non-empty with no blank or control
 * character; *url points into arg. BL_EINVALID naming the argument otherwise. */
int confirm_triage_parse_filed(int64_t *id, const char **url, const char *arg,
			       struct bl_error *err);
/* Records where each alert was filed, all in one transaction: an unknown alert (BL_ENOTFOUND,
 * "no alert N") marks none. */
int confirm_triage_mark_filed(struct store *st, const int64_t *ids, const char *const *urls,
			      size_t n, struct bl_error *err);

/* --- `benchline confirm` (alerts.c): alerts re-benched, bisected, turned into Regressions --- */

struct store;
struct confirm_alerts_request {
	const char *repo;    /* a directory inside the working tree; NULL: "." */
	const char *machine; /* the default selection's machine (this one's) */
	/* The alerts asked for by id (any state, any machine); none: every open slower alert
	 * of `machine` that confirm has not taken up before, and with `pending` every pending
	 * one too (§9.4: pending ones only when asked for, by --pending or by id). */
	const int64_t *ids;
	size_t nids;
	int pending;
	/* benchline.json, already read (its `metrics` say which of an alert's Series are judged);
	 * NULL: read from the repository. */
	const struct config *cfg;
	double limit; /* 0: GATE_LIMIT */
	/* §9.6: decide by bench.counters' counts alone, nothing timed (an alert whose Series are
	 * all instruction counts always is) */
	int counters_only;
	confirm_progress_fn progress; /* each re-bench's rounds; NULL: none */
	void *progress_data;
	/* A line about each step ("alert 3: re-benching ..."), for stderr; NULL: none. */
	void (*note)(const char *line, void *data);
	void *note_data;
};
/* What confirm did with one alert. */
struct confirm_alert_result {
	int64_t alert;
	enum alert_outcome outcome; /* ALERT_NO_OUTCOME only for one decided by hand (ignored) */
	int already;		    /* decided by an earlier run: nothing was measured */
	struct json_t *rebench;	    /* the re-bench report (§14), NULL when none ran */
	int64_t *regressions;	    /* the Regressions stored for it */
	size_t nregressions, regressions_alloc;
	char *note; /* why it is unbuildable or inconclusive; NULL */
};
/*
 * Takes up the alerts req names (§9.4): each alert's commit re-benched against its reference
 * commit, once, only the alert's own Series asked about (those on a metric benchline.json
 * judges): they decide how long it measures, the other metrics are measured alongside and
 * reported. None of them slower: cleared (undecided, or not measured: inconclusive, still open
 * or pending); slower: confirmed, then every such Series the re-bench found slower is bisected
 * between the two, judged on that Series alone, and each pinned commit stored as a Regression
 * of the alert, which is then covered. A side that cannot be built leaves the alert open (or
 * pending) and `unbuildable`. Each outcome is stored with the alert as soon as it is known, so
 * a second run does nothing. The default selection says through req->note how many pending
 * alerts it left. *out (n of them, in the order taken up) is the caller's to free.
 */
int confirm_alerts(struct confirm_alert_result **out, size_t *nr, struct store *st,
		   const struct confirm_alerts_request *req, struct bl_error *err);
void confirm_alert_results_free(struct confirm_alert_result *r, size_t n);
struct push_server;
/*
 * The same from a sweep machine (§10's fleet): the server holds the history, this machine
 * measures. The alerts are this machine's open slower ones on the server (GET /api/alerts, with
 * their Series from GET /api/suspects), its pending ones too with req->pending (a second GET,
 * state=pending), or those req->ids names; each is re-benched and bisected
 * here, in req->repo, and what is found is posted back as an outcome document (POST
 * /api/alerts/{id}/outcome, confirm_apply_outcome's), which the server stores as a local confirm
 * stores it. BL_EDENIED when the server refuses a document (its token lacks the confirm role,
 * another machine's alert), BL_EIO when it cannot be reached.
 */
int confirm_alerts_remote(struct confirm_alert_result **out, size_t *nr, struct push_server *srv,
			  const struct confirm_alerts_request *req, struct bl_error *err);
/* One result as `confirm --json` lists it: {"alert", "outcome", "already", "rebench",
 * "regressions", "note"}. */
struct json_t *confirm_alert_result_json(const struct confirm_alert_result *r);

/* --- A confirm outcome from another machine (outcome.c, POST /api/alerts/{id}/outcome) --- */

/* The key the re-bench names a metric by on both sides, "benchmark[ [config]] metric" (sb is
 * reset first; measure.c). */
void confirm_metric_key(struct strbuf *sb, const char *benchmark, const char *config,
			const char *metric);

/*
 * Stores what a confirm elsewhere found for alert_id, given as the document
 *   {"outcome": "cleared"|"confirmed"|"unbuildable"|"inconclusive"|"transient",
 *    "rebench": {the `rebench --json` report}|null, "note": string|null,
 *    "regressions": [{"benchmark", "config", "metric", "bisect": {the `bisect --json`
 *                     report, status "pinned"}}]}
 * exactly as confirm_alerts stores its own: the alert's state (cleared; covered when it holds
 * a Regression after this, else confirmed; inconclusive: confirmed when the re-bench found one
 * of the alert's Series slower, else open, or pending when it was; unbuildable: the same;
 * transient) with the outcome, the
 * re-bench report as JSON text and the note (store_alert_set_outcome), and each regression a
 * Regression of the alert on its machine (store_regression_add: the pinned commit, its source
 * hash, subject and pull request, the report's ratio and interval, good's commit as the
 * reference and the probe log), all in one transaction. Every field is checked first:
 * BL_EINVALID naming the field ("regressions[0].bisect.pinned.commit: ..."), also for a
 * regression on a Series none of the alert's Suspects is on, Regressions with another outcome
 * than confirmed, a cleared or confirmed outcome without its re-bench report, or a transient one
 * with one; BL_ENOTFOUND ("no alert N"); BL_ECONFLICT for an ignored alert, or one that holds
 * Regressions given another outcome than confirmed. Sending the same document again changes
 * nothing (a Series and commit keep their first Regression). out receives the outcome, the
 * re-bench report, the note and the Regressions' ids in the document's order; the caller
 * releases it with confirm_alert_result_release.
 */
int confirm_apply_outcome(struct confirm_alert_result *out, struct store *st, int64_t alert_id,
			  const struct json_t *doc, struct bl_error *err);
/* Frees what confirm_apply_outcome put in r (not r itself). */
void confirm_alert_result_release(struct confirm_alert_result *r);

/*
 * A person's decision that an alert needs no more work (`benchline suspects ignore`, POST
 * /api/alerts/{id}/ignore): the alert and its Suspects become ignored, which every later detect
 * keeps (a Suspect that joins it takes its state), so it leaves confirm and triage for good. Its
 * outcome, re-bench report and note stay. who and why go to the audit, in the same transaction.
 * *was is the state it had (SUSPECT_IGNORED: it was ignored already, and nothing changes).
 * BL_EINVALID when why is empty or over INGEST_MAX_STRING (4096) bytes, BL_ENOTFOUND ("no alert
 * N").
 */
int confirm_ignore_alert(enum suspect_state *was, struct store *st, int64_t alert_id,
			 const char *who, const char *why, struct bl_error *err);

/* --- Where the extra instructions went (§9.7, profile.c) --- */

/* Benchmarks a live gate profiles: its first FAIL rows' (§9.7). */
#define CONFIRM_PROFILES_MAX 3
/* Functions a profile comparison keeps, and the least share of added self instructions that
 * earns a place (0.01%). */
#define CONFIRM_PROFILE_TOP	  10
#define CONFIRM_PROFILE_MIN_SHARE 1e-4

struct bench_profile;
/* A function that executes more instructions at the head than at the base. */
struct confirm_profile_fn {
	char *function, *file; /* file relative to its side's worktree */
	uint64_t base_self, head_self;
	/* The self instructions it added, and with what it called: as shares of the base's
	 * total (fixed work), else as the change of its share of each side's own total. */
	double self_share, inclusive_share;
};

/* Two callgrind profiles of one benchmark compared: the functions that added the most self
 * instructions, most first. */
struct confirm_profile {
	char *benchmark, *metric; /* the caller's to set (NULL: not known), freed with it */
	int fixed_work;		  /* the counter command's profile: both sides did the same work */
	uint64_t base_total, head_total;
	struct confirm_profile_fn functions[CONFIRM_PROFILE_TOP];
	size_t nfunctions;
};
/*
 * Compares the base's profile with the head's: each function (its name, and its file with the
 * side's worktree root, when given, taken off the front) ranked by the self instructions it
 * added, as a share of the base's total when fixed_work, else as the change of its share of
 * each side's own total; the top CONFIRM_PROFILE_TOP that added any.
 */
void confirm_profile_compare(struct confirm_profile *out, const struct bench_profile *base,
			     const struct bench_profile *head, int fixed_work,
			     const char *base_root, const char *head_root);
void confirm_profile_release(struct confirm_profile *p);
/* {benchmark, metric, fixed_work, base_total, head_total, functions: [{function, file,
 * base_self, head_self, self_share, inclusive_share}]} */
struct json_t *confirm_profile_json(const struct confirm_profile *p);
/* "where the extra instructions went in 'checksum': +1.92% self, +1.92% with callees in
 * checksum (bench.c)": the first function, for a terminal. */
void confirm_profile_line(struct strbuf *out, const struct confirm_profile *p);
/* A <details> block, "where the extra instructions went", with a row per function. */
void confirm_profile_markdown(struct strbuf *out, const struct confirm_profile *p);
/* The comparison back from what confirm_profile_json made (a Regression keeps it as text);
 * BL_EINVALID when j is not such an object. */
int confirm_profile_from_json(struct confirm_profile *out, const struct json_t *j,
			      struct bl_error *err);

#endif
