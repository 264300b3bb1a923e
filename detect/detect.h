/*
 * detect: Suspects (§6, §6.1) and alerts (§9.1). The band rule itself, a pure function of one
 * line's medians with no I/O (rule.c); the change-point search, the second opinion of §6.1,
 * pure functions too, with the values a line keeps for it (changes.c); `detect_run`, which
 * walks the Series the store hands it, judges the lines that changed since the last run and
 * stores lines (run.c), handing each judged timed line to the change-point searches that run
 * beside it in a worker thread (search.c); the alert pass it ends with, which gives each
 * Suspect its alert, judges the alerts and stores both (alerts.c); and the JSON of Series,
 * records, Suspects and alerts (json.c). docs/detection.md explains the rule with a worked
 * example, its blind spots, the change points and the incremental design; docs/confirm.md the
 * alerts.
 */
#ifndef BENCHLINE_DETECT_H
#define BENCHLINE_DETECT_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"

struct store;
struct store_suspect;
struct json_t;
struct store_series;
struct store_record_row;

/* The band (§6): a window of up to 8 medians before a record on its line, at least 3. */
#define DETECT_WINDOW	  8
#define DETECT_MIN_WINDOW 3
#define DETECT_MAD_FACTOR 4.0
#define DETECT_FLOOR	  0.03
/* 4: instruction counts judged (§9.6); 5: each judged timed line's values kept for the
 * change-point search (§6.1) */
#define DETECT_STATE_FORMAT "5"
/* quiet.transient_records when benchline.json does not say (§9.1) */
#define DETECT_TRANSIENT_RECORDS 4

/*
 * What the rule remembers of a line: its last judged records (at most DETECT_WINDOW, oldest
 * first), each with its id (the caller's: a run id) and its mark. That is all it needs to judge
 * the next record, so a line can be continued record by record (an incremental detect)
 * exactly as a walk from its start would judge it. A marked record also keeps what the alert
 * rules of §9.1 ask of it while it is in the window: its band, and how the records after it
 * have behaved.
 */
struct detect_tail {
	size_t n;
	double median[DETECT_WINDOW];
	int64_t id[DETECT_WINDOW];
	/* +1: marked above its center, -1: marked below, 0: not marked */
	signed char mark[DETECT_WINDOW];
	/* Of a marked record: */
	double tolerance[DETECT_WINDOW]; /* its band's tolerance (on its side, for a ladder) */
	double deviation[DETECT_WINDOW]; /* its band's median absolute deviation */
	double edge[DETECT_WINDOW];	 /* its band's edge on its side */
	unsigned char followers[DETECT_WINDOW]; /* records after it so far */
	unsigned char persisted[DETECT_WINDOW]; /* of which the first in a row beyond its edge */
	double sorted[DETECT_WINDOW];		/* the medians in ascending order */
};

/* A marked record whose followers a new record moved (see detect_verdict). */
struct detect_followed {
	int64_t id;
	int followers, persisted;
};

/* The rule's finding for one record. */
struct detect_verdict {
	int judged;    /* 0: fewer than DETECT_MIN_WINDOW records before it on its line */
	int outside;   /* |m - center| > tolerance */
	int continues; /* outside, but continues a marked step (so not marked) */
	int marked;    /* outside and the first of its step: a Suspect */
	int above;     /* +1 above the center, -1 below, 0 on it (only when judged) */
	double center, deviation, tolerance;
	double shift; /* (m - center) / center; NAN when the center is 0 */
	/* When marked (§9.1), else 0: the last record before it whose median is inside its band
	 * (the reference a re-bench measures against), and the newest earlier marked record of
	 * the same side in the window whose alert it joins: its median within max(4 * deviation,
	 * 3% of that record's median) of that record's, the deviation being that record's band's,
	 * or every record between the two beyond that record's edge (one excursion). */
	int64_t reference_id, follows_id;
	/* The marked records in the window before this one, each counting it as a follower:
	 * whether it stayed beyond their edge decides whether they were transient. */
	size_t nfollowed;
	struct detect_followed followed[DETECT_WINDOW];
	/* A marked record that left the window as this one came in, with its final counts (it
	 * had DETECT_WINDOW followers); evicted.id is 0 when none did. */
	struct detect_followed evicted;
};

void detect_tail_init(struct detect_tail *t);
/* Judges median m of the record `id` (non-zero), the record after those t holds, then adds it
 * to t. The band is never narrower than floor times its center: DETECT_FLOOR for timings,
 * quiet.counter_floor for instruction counts, whose noise is none. */
void detect_step(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id,
		 double floor);
struct ladder;
/*
 * The same for a histogram quantile with a ladder (§8): the center is the window's median as
 * above, but a value is outside only past the bucket above the center's own (tolerance
 * hi_next - center) or under the edge below the bucket under it; a center in the top
 * bucket cannot be outside above, one in the first two buckets cannot be outside below.
 */
void detect_step_ladder(struct detect_verdict *out, struct detect_tail *t, double m, int64_t id,
			const struct ladder *l);
/* Judges a whole line from its first record: out[i] for medians[i], whose id is i + 1. */
void detect_line(struct detect_verdict *out, const double *medians, size_t n);
/* 1 when a record on the given side of its center is slower (worse in the metric's
 * direction): above for lower-is-better metrics, below for higher-is-better ones. */
int detect_is_slower(int above, int better_higher);

/* A tail as bytes, for the store: the count, the medians (little-endian doubles), the ids
 * (little-endian), a mark byte each, then for each marked one its tolerance, deviation and
 * edge (doubles) and its two counts (a byte each). 137 bytes for a full window with no mark. */
void detect_tail_encode(struct strbuf *out, const struct detect_tail *t);
/* BL_EINVALID when the bytes are not an encoded tail. */
int detect_tail_decode(struct detect_tail *out, const void *data, size_t len);

/* A line's fingerprint: FNV-1a over each member's run id, value and kind, in order. Two walks
 * of the same members give the same fingerprint, any change to them another. */
#define DETECT_FINGERPRINT_INIT 0xcbf29ce484222325ULL
uint64_t detect_fingerprint(uint64_t fp, int64_t run_id, double value, unsigned kind);

struct detect_options {
	int all; /* recompute every line */
	/* The judged metrics (benchline.json `metrics`), when given: NULL with metrics_given 1
	 * means every timed metric. Without metrics_given, the set the last detect used. */
	const char *const *metrics;
	size_t nmetrics;
	int metrics_given;
	/* With metrics_given: benchline.json's "ladders", so the quantile metrics `metrics`
	 * names are judged by their ladder (§8); NULL: none. Kept with the judged metrics. */
	const struct json_t *ladders;
	const char *ladders_file; /* where they were read, for messages */
	/* Alerts (§9.1): a Suspect that stays beyond its band for this many records has
	 * persisted, one back before that is transient (quiet.transient_records); 0 for the
	 * setting the last detect used (DETECT_TRANSIENT_RECORDS at first). At most
	 * DETECT_WINDOW. */
	int transient_records;
	/* The change-point pass (§6.1): with changes_given, quiet.change_points (0 off, else on),
	 * quiet.change_penalty (0: DETECT_CHANGE_PENALTY) and quiet.change_min_shift (negative:
	 * DETECT_CHANGE_MIN_SHIFT); without, the settings the last detect used (at first the
	 * defaults, on). Other settings than the last detect's judge every line again. */
	int changes_given;
	int change_points;
	double change_penalty, change_min_shift;
	/* The band's floor for instruction Series (§9.6, quiet.counter_floor) as a fraction;
	 * 0 for the one the last detect used (CONFIG_COUNTER_FLOOR at first). A change judges
	 * every line again. */
	double counter_floor;
	/* A full walk holds at most this many records (and metric values) in memory at once;
	 * 0 for the defaults. */
	size_t pass_members, pass_points;
};

struct config;
/* The judging settings of a repository's benchline.json (§10), as `detect`, the sweep and the
 * server's detection all take them: its judged metrics and their ladders,
 * quiet.transient_records, the change-point settings (quiet.change_points, change_penalty,
 * change_min_shift) and quiet.counter_floor (their defaults where it has none). The other
 * fields are left as they are; opts keeps pointers into cfg. */
void detect_options_from_config(struct detect_options *opts, const struct config *cfg);

struct detect_result {
	int64_t series;		  /* every Series (machine, benchmark, config, metric) */
	int64_t judged_series;	  /* of which detection judges */
	int64_t lines_recomputed; /* lines whose members changed, so were judged again */
	int64_t groups_walked;	  /* (machine, benchmark, config) read whole */
	int64_t records_appended; /* records judged at the end of their line */
	int64_t first_new_id;	  /* Suspects with this id or above are new */
	int64_t new_suspects;
	int full; /* 1: every Series was read (--all, the first run, new judged metrics) */
};

/*
 * Brings the stored lines and Suspects up to date in one transaction: on the first run, with
 * opts->all or when the judged metrics changed, every Series is read and judged; otherwise
 * only what the store's change log says moved. Idempotent: a second run changes nothing.
 */
int detect_run(struct detect_result *out, struct store *st, const struct detect_options *opts,
	       struct bl_error *err);

/*
 * The alert pass (§9.1, alerts.c), run by detect_run in its transaction after the walk. The
 * walk hands it each Suspect it marked anew or whose numbers moved (stored: what the database
 * holds of it, NULL for a new one; commit: its record's commit) and each stored one it no
 * longer marks; detect_alerts_finish gives every one its alert (the alert of the earlier
 * Suspect it joins, else that of its machine, commit and side, made when there is none),
 * judges every alert whose Suspects changed or that was judged under another
 * quiet.transient_records, or where a record joined or left its Series, and writes the
 * Suspects with their alert's state. After a full walk (detect_alerts_walked_all) the Series
 * each machine judged at each commit come from the walk (detect_alerts_judged), else from the
 * database.
 */
struct detect_alerts;
struct store_detect;
struct store_mark;
struct detect_alerts *detect_alerts_new(struct store *st, int transient_records);
void detect_alerts_free(struct detect_alerts *a);
void detect_alerts_put(struct detect_alerts *a, const struct store_mark *m,
		       const struct store_mark *stored, const char *commit);
struct store_group;
/* New follower counts for the Suspect of group g's run_id and metric, if there is one. */
int detect_alerts_follow(struct detect_alerts *a, struct store_detect *d,
			 const struct store_group *g, int64_t run_id, const char *metric,
			 int followers, int persisted, struct bl_error *err);
void detect_alerts_drop(struct detect_alerts *a, const struct store_mark *stored);
void detect_alerts_walked_all(struct detect_alerts *a);
/* A record of machine at commit joined or left its Series (an incremental detect): the alerts
 * there count the Series judged at their commit again. */
void detect_alerts_record_at(struct detect_alerts *a, int64_t machine_id, const char *commit);
/* n more judged Series of machine at commit (summed over calls). */
void detect_alerts_judged(struct detect_alerts *a, int64_t machine_id, const char *commit,
			  int64_t n);
int detect_alerts_finish(struct detect_alerts *a, struct store_detect *d, struct bl_error *err);

/* What a Suspect's own followers say with T = quiet.transient_records (§9.1): it has
 * persisted when its first T followers all stayed beyond its band; it is transient when one
 * of them came back first; pending before either. An alert is open when one of its Suspects
 * persisted, transient when all are, pending otherwise. */
enum { DETECT_MARK_PENDING, DETECT_MARK_PERSISTED, DETECT_MARK_TRANSIENT };
int detect_mark_status(int followers, int persisted, int transient_records);
/* Whether a Suspect's state is still detect's to change (pending, open, transient: read off
 * its line) rather than a decision a measurement or a person made (confirmed, cleared,
 * covered, ignored), which detect keeps. */
int detect_state_undecided(enum suspect_state s);

/*
 * Change points (§6.1, changes.c): a second opinion on a line, for staircases and returns the
 * band cannot see. PELT on the logs of the medians (a segment's cost is its sum of squared
 * deviations from its mean; segments of DETECT_CHANGE_MIN_SEGMENT records or more; a penalty
 * per change of factor * sigma^2 * ln(n), sigma = 1.4826 * MAD(first differences) / sqrt(2),
 * at least DETECT_CHANGE_MIN_SIGMA, rounded to the nearest power of 2^(1 /
 * DETECT_CHANGE_PENALTY_STEPS)); a change counts when the median of up to DETECT_CHANGE_SIDE
 * records after it is worse than that of up to DETECT_CHANGE_SIDE before it by the minimum
 * shift, and its segment lasts DETECT_CHANGE_SIDE records. Pure functions. The rounding lets
 * a line that grows keep its search's state and go on from it, exactly, for as long as its
 * penalty stays on the same step (docs/detection.md, "Change points").
 */
#define DETECT_CHANGE_MIN_SEGMENT   4
#define DETECT_CHANGE_SIDE	    8
#define DETECT_CHANGE_PENALTY	    32.0 /* quiet.change_penalty */
#define DETECT_CHANGE_MIN_SHIFT	    0.05 /* quiet.change_min_shift */
#define DETECT_CHANGE_MIN_SIGMA	    1e-4
#define DETECT_CHANGE_PENALTY_STEPS 8 /* steps of the penalty per doubling */
/* sigma of y[0..n): 1.4826 * the MAD of its first differences / sqrt(2), at least the
 * minimum. */
double detect_change_sigma(const double *y, size_t n);
/* factor * sigma^2 * ln(n) for y[0..n), rounded to the nearest power of
 * 2^(1 / DETECT_CHANGE_PENALTY_STEPS) (the factor itself is not rounded). */
double detect_change_penalty(const double *y, size_t n, double factor);

/* The search's state after the first n values of a line: the penalty it searched with, the
 * prefix sums and least costs it still needs, and its candidates for the start of the last
 * segment (FPOP's: each with the means where it is the cheapest). Each prefix it keeps has its
 * best split with it (the changes, ascending), so that the search can give the best split of
 * more values without the earlier ones' splits. Enough to go on with more values exactly as a
 * search of them all from the start would. */
struct detect_fpop_point {
	size_t t;	  /* the prefix: the first t values (a candidate: where it starts) */
	double f, ps, pq; /* the least cost of the prefix, and the sums of y and y^2 over it */
	size_t *chain;	  /* the changes of its best split */
	size_t nchain;
	double *z; /* a candidate's means where it is the cheapest: nz (lo, hi) pairs */
	size_t nz;
};
struct detect_fpop {
	size_t n;	/* values searched; 0: none (a search starts from the first) */
	double penalty; /* the penalty they were searched with */
	double ps, pq;	/* the sums at n */
	/* the prefixes n - DETECT_CHANGE_MIN_SEGMENT + 1 .. n (those of 0 values or more): the
	 * candidates still to come */
	struct detect_fpop_point tail[DETECT_CHANGE_MIN_SEGMENT];
	struct detect_fpop_point *cand;
	size_t ncand;
};
void detect_fpop_init(struct detect_fpop *st);
void detect_fpop_release(struct detect_fpop *st);
/* PELT: the least penalised split of y[0..n) into segments of min_seg or more; the starts of
 * every segment but the first, ascending, into out (room for n), and how many. */
size_t detect_change_points(size_t *out, const double *y, size_t n, double penalty, size_t min_seg);
/* The same, going on from st when it searched the first st->n values of y with this penalty
 * and DETECT_CHANGE_MIN_SEGMENT (else from the start); st is left at n. */
size_t detect_change_points_from(size_t *out, const double *y, size_t n, double penalty,
				 size_t min_seg, struct detect_fpop *st);
/* A change that counts: at medians[index], the levels before and after it, and the shift. */
struct detect_change {
	size_t index;
	double before, after; /* the medians of up to DETECT_CHANGE_SIDE records each side */
	double shift;	      /* (after - before) / before */
};
/* quiet.change_penalty and quiet.change_min_shift; 0 and a negative value: the defaults. */
struct detect_change_options {
	double penalty, min_shift;
};
/* The changes of a line's medians that count (worse in the metric's direction), into out
 * (room for n); none when a median is not positive. */
size_t detect_changes_judge(struct detect_change *out, const double *medians, size_t n,
			    int better_higher, const struct detect_change_options *o);

/*
 * A line's judged medians as detect keeps them for the search (sql/010-change-points.sql),
 * each with its record's run id and what the band made of it (DETECT_VALUE_*): chunks of
 * DETECT_VALUES_CHUNK records (chunk k holds records k * DETECT_VALUES_CHUNK on), written once
 * full, and a head rewritten as the line grows: its count, the changes the last search found
 * (indexes into the line), the search's state and the records of the chunk not yet full.
 */
#define DETECT_VALUES_CHUNK 64
enum { DETECT_VALUE_UNMARKED, DETECT_VALUE_SLOWER, DETECT_VALUE_FASTER };
struct detect_values {
	double *median;
	int64_t *run_id;
	unsigned char *mark; /* DETECT_VALUE_* */
	size_t n, alloc;
};
void detect_values_init(struct detect_values *v);
void detect_values_release(struct detect_values *v);
void detect_values_add(struct detect_values *v, double median, int64_t run_id, unsigned char mark);
/* v's records [from, to): each median as a little-endian double, then a varint of its run
 * id's difference from the previous one (zigzag) shifted left by 2, with the mark. */
void detect_values_encode(struct strbuf *out, const struct detect_values *v, size_t from,
			  size_t to);
/* Appends the records of one encoded run of them to v; BL_EINVALID when the bytes are not. */
int detect_values_decode(struct detect_values *v, const void *data, size_t len);
/* The head of v (its records from the last full chunk on), with the changes and the state
 * (st NULL or st->n 0: none). */
void detect_values_encode_head(struct strbuf *out, const struct detect_values *v,
			       const size_t *changes, size_t nchanges,
			       const struct detect_fpop *st);
/* From a head: the count (*n), *changes (malloc'd, the caller's; NULL when none), *st
 * (released first) and the records of the chunk not yet full, appended to v (which holds the
 * full chunks' records already: *n - v->n of them); BL_EINVALID when the bytes are not a head,
 * or not v's. */
int detect_values_decode_head(size_t *n, size_t **changes, size_t *nchanges, struct detect_fpop *st,
			      struct detect_values *v, const void *data, size_t len);
/* Drops from out[0..n) the changes that have a record the band marked slower (mark[i] is
 * DETECT_VALUE_SLOWER; one mark per median of the line, nmarks of them) within one record of
 * them: that step has its Suspect already and gets no second. The count left. */
size_t detect_changes_unmarked(struct detect_change *out, size_t n, const unsigned char *mark,
			       size_t nmarks);
/* The changes of a line that count and that the band has not marked (detect_changes_judge,
 * then detect_changes_unmarked with v's marks), searched on from st (see
 * detect_change_points_from; st is emptied when the line is not searched: too short, or a
 * median that is not positive); out has room for v->n. */
size_t detect_changes_line(struct detect_change *out, const struct detect_values *v,
			   int better_higher, const struct detect_change_options *o,
			   struct detect_fpop *st);

/*
 * The change-point searches of one detect (search.c): the walk gives each judged timed line
 * it finishes (detect_search_add), a worker thread searches them (detect_changes_line) while
 * the walk goes on, and the walk takes them back in the order given (detect_search_next), so
 * the outcome does not depend on the thread. The caller's struct starts with a
 * detect_search_line, allocated by it and freed by free_line (also for the lines still held
 * by detect_search_free). BENCHLINE_DETECT_THREADS=0 searches without the thread.
 */
struct detect_search;
struct detect_search_line {
	struct detect_values v; /* the line's judged medians, with their run ids and marks */
	int better_higher;
	struct detect_fpop state; /* where the last search of the line left off */
	/* set by the search: */
	int searched;
	struct detect_change *changes; /* malloc'd */
	size_t nchanges;
};
struct detect_search *detect_search_new(const struct detect_change_options *o,
					void (*free_line)(struct detect_search_line *l));
void detect_search_add(struct detect_search *s, struct detect_search_line *l);
/* The first line given and not yet taken back, once it is searched (searching it here when
 * nobody has started it); with wait 0, NULL when it is not searched yet; NULL when every line
 * given was taken back. */
struct detect_search_line *detect_search_next(struct detect_search *s, int wait);
void detect_search_free(struct detect_search *s);

/* A Suspect as §14 prints it: {"id", "machine", "benchmark", "config", "metric", "commit",
 * "source_hash", "seq", "side", "kind", "shift", "center", "tolerance", "state"}, null where
 * unknown; "kind" is "band" (§6) or "change-point" (§6.1). */
struct json_t *detect_suspect_json(const struct store_suspect *s);
struct store_alert;
/* An alert as `alerts --json` prints it (§14): {"id", "machine", "commit", "reference_commit",
 * "side", "run_wide", "state", "outcome", "suspects", "kinds", "series", "judged_series",
 * "filed_url"}; suspect_ids (a reference taken; NULL for []) the ids of its Suspects, "kinds"
 * the opinions that marked them: ["band"], ["change-point"] or ["band", "change-point"]. */
struct json_t *detect_alert_json(const struct store_alert *a, struct json_t *suspect_ids);
/* The same with its Suspects' ids read from the store, as `alerts --json` and GET /api/alerts
 * list it: *out (the caller's) or an error. */
int detect_alert_json_read(struct json_t **out, struct store *st, const struct store_alert *a,
			   struct bl_error *err);
/* A Series as `series --json` prints it; open_suspects (a reference taken) or NULL for null. */
struct json_t *detect_series_json(const struct store_series *s, struct json_t *open_suspects);
/* The same with its open Suspects counted through detect (NULL when detect never ran: null),
 * as `series --json` and GET /api/series list it: *out (the caller's) or an error. */
struct store_detect;
int detect_series_json_read(struct json_t **out, struct store_detect *detect,
			    const struct store_series *s, struct bl_error *err);
/* A record as `records --json` prints it. */
struct json_t *detect_record_json(const struct store_record_row *row);

#endif
