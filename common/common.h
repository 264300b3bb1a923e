/*
 * common: the small pieces every module uses. A strbuf whose buffer is never NULL, and its
 * "did you mean" (strbuf.c), the error struct that carries details out of a failing call,
 * checked allocation, capped file reading, timestamps, digests and libgit2's start (util.c), the
 * one JSON writer (json.c), numbers (numbers.c: the shortest round-trip writer of doubles, their
 * comparison, the nearest-rank percentile, figures in human units), containers (containers.c), the
 * names of the enums every stage shares (names.c) and running a child process (run_command.c).
 * Named for what they are (strbuf_*, bl_error_*, x*, child_process_*), as git names its helpers.
 */
#ifndef BENCHLINE_COMMON_H
#define BENCHLINE_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define BENCHLINE_VERSION "0.1.0"

/* Return codes: 0 on success, a negative named error otherwise; details go in a bl_error. */
enum bl_code {
	BL_OK = 0,
	BL_EINVALID = -1,  /* the input is malformed or breaks a rule */
	BL_EIO = -2,	   /* a file could not be read or written */
	BL_ENOTFOUND = -3, /* the thing named does not exist */
	BL_EDB = -4,	   /* the database failed */
	BL_EGIT = -5,	   /* libgit2 failed */
	BL_ETOOBIG = -6,   /* input over its cap */
	BL_ECONFIG = -7,   /* benchline.json is malformed */
	BL_EDENIED = -8,   /* the caller may not do this (a push token's machines) */
	BL_EBUILD = -9,	   /* a side cannot be built: bench.build failed (rebench's exit 125) */
	BL_EBUSY = -10,	   /* the database stayed locked past the busy timeout (the server's 503) */
	BL_ECONFLICT = -11,    /* the thing is in a state that forbids this (an ignored alert) */
	BL_EUNAVAILABLE = -12, /* the database cannot be reached: its connection was lost or
				* refused (the server's 503; made again for the next statement) */
};

struct strbuf {
	size_t alloc; /* 0 while buf points at the shared empty string */
	size_t len;
	char *buf; /* never NULL, always NUL-terminated */
};

extern char strbuf_slopbuf[];
#define STRBUF_INIT                                                                                \
	{                                                                                          \
		0, 0, strbuf_slopbuf                                                               \
	}

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
void strbuf_reset(struct strbuf *sb);
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, char c);
/* The decimal digits of v: what "%" PRId64 prints, without printf's cost (keys built by the
 * thousand). */
void strbuf_add_int64(struct strbuf *sb, int64_t v);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* A line about a step of long work ("alert 3: re-benching ...", "the machine is busy ...")
 * formatted and handed to the caller's note callback (fn NULL: nothing): how use cases, which
 * never print, tell the command line or the server what they do (common/strbuf.c). */
void bl_note(void (*fn)(const char *line, void *data), void *data, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void strbuf_setlen(struct strbuf *sb, size_t len);
/* Appends a JSON string literal (quoted and escaped) for s. */
void strbuf_add_json_string(struct strbuf *sb, const char *s);
/* Text from outside (a name, a commit subject) inside a line of Markdown, never at its start:
 * every character that could start emphasis, code, a link, HTML, an entity, a table cell or an
 * @mention is backslash-escaped, control characters become blanks: it shows as it is. */
void strbuf_add_markdown(struct strbuf *sb, const char *s);
/* "; did you mean 'PREFIXNAME'?" (or 'X' or 'Y' when several are as near) for the names
 * nearest to typed (its first len bytes): at most two edits away (an insertion, deletion,
 * change or swap of neighbours each counts one), one for a name typed shorter than 5. Nothing
 * is appended when no name is that near. What commands, options and benchline.json's keys
 * suggest. */
void strbuf_add_suggestion(struct strbuf *sb, const char *prefix, const char *typed, size_t len,
			   const char *const *names, size_t n);
/* New jansson values for a figure that may be missing (NAN, an infinity), a string that may
 * be NULL or a time in Unix seconds that may be NAN (RFC 3339 UTC text otherwise): null then
 * (common/json.c). */
struct json_t;
struct json_t *json_real_or_null(double v);
struct json_t *json_string_or_null(const char *s);
struct json_t *json_time_or_null(double t);
/* A JSON scalar's text (a string quoted, an integer, a real by strbuf_add_double with
 * double_flags, true, false, null); 0, or -1 for an object or an array, which are the caller's
 * to write (nothing appended). */
int strbuf_add_json_scalar(struct strbuf *sb, const struct json_t *v, unsigned double_flags);
/*
 * The JSON text of v appended to sb (common/json.c). Compact unless JSON_WRITE_INDENT; reals
 * in their shortest round-trip form unless JSON_WRITE_CANONICAL. BL_EINVALID (sb as it was)
 * for a value JSON cannot hold.
 */
enum json_write_flags {
	JSON_WRITE_SORT_KEYS = 1 << 0, /* members in byte order of their keys */
	JSON_WRITE_INDENT = 1 << 1,    /* two spaces per level, a member per line */
	/* sorted keys and reals as "%.17g" (a ".0" added to whole numbers, no '+' or leading zero
	 * in an exponent): byte for byte what jansson's json_dumps writes with JSON_COMPACT |
	 * JSON_SORT_KEYS | JSON_REAL_PRECISION(17), the form every stored record (and its digest)
	 * has had since the first schema */
	JSON_WRITE_CANONICAL = 1 << 2,
};
int json_write(struct strbuf *sb, const struct json_t *v, unsigned flags);
/* The same as a new string (free it), NULL for a value JSON cannot hold: where json_dumps was. */
char *json_write_text(const struct json_t *v, unsigned flags);

/* What more an error knows of its cause than its code, for a caller that words its answer
 * otherwise (the server tells a push how its query gives what a command's flags give). Set by
 * bl_error_set_kind; bl_error_set makes it BL_KIND_NONE, bl_error_prefix keeps it. */
enum bl_error_kind {
	BL_KIND_NONE,
	BL_KIND_NEEDS_FLAG, /* the input lacks what a flag fills in (--machine, --repo...) */
};

/* Details of a failure: the code that was returned, a lowercase message and its kind. */
struct bl_error {
	int code;
	struct strbuf msg;
	enum bl_error_kind kind;
};
#define BL_ERROR_INIT                                                                              \
	{                                                                                          \
		0, STRBUF_INIT, BL_KIND_NONE                                                       \
	}

/* Sets err (when not NULL) and returns code, so callers can `return bl_error_set(...)`. The
 * arguments may include err's own message (err->msg.buf): an error can extend itself. */
int bl_error_set(struct bl_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* The same, with the error's kind. */
int bl_error_set_kind(struct bl_error *err, enum bl_error_kind kind, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Puts "prefix: " in front of the current message (whose text the arguments may include). */
void bl_error_prefix(struct bl_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void bl_error_clear(struct bl_error *err);
/* url as messages may show it (a new string appended to sb): the password of its user part
 * (scheme://user:PASSWORD@host) and every password= parameter of its query left out. */
void strbuf_add_url_redacted(struct strbuf *sb, const char *url);
void bl_error_release(struct bl_error *err);

void *xmalloc(size_t size);
void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t size);
char *xstrdup(const char *s);
/* xstrdup of s, NULL for NULL. */
char *xstrdup_or_null(const char *s);
char *xstrndup(const char *s, size_t n);
#define ALLOC_GROW(array, nr, alloc)                                                               \
	do {                                                                                       \
		if ((nr) >= (alloc)) {                                                             \
			(alloc) = (alloc) < 16 ? 16 : (alloc)*2;                                   \
			(array) = xrealloc((array), (alloc) * sizeof(*(array)));                   \
		}                                                                                  \
	} while (0)

/*
 * Containers (common/containers.c).
 *
 * hashmap: string keys to int64 values, open addressing. Keys are not copied: each must stay
 * valid and unchanged while the map holds it. Each slot keeps its key's hash, so a probe
 * compares strings only on a full hash match. All zeros (HASHMAP_INIT) is an empty map.
 */
struct hashmap {
	const char **keys;
	uint64_t *hashes;
	int64_t *vals;
	size_t cap, nr;
};
#define HASHMAP_INIT                                                                               \
	{                                                                                          \
		NULL, NULL, NULL, 0, 0                                                             \
	}
/* 1 with *val set when key (NULL: never) is in the map, else 0. hashmap_get_len is given
 * strlen(key), for a caller that knows it already (a column's byte count). */
int hashmap_get(const struct hashmap *m, const char *key, int64_t *val);
int hashmap_get_len(const struct hashmap *m, const char *key, size_t len, int64_t *val);
/* Sets key's value, adding key when absent. */
void hashmap_put(struct hashmap *m, const char *key, int64_t val);
void hashmap_release(struct hashmap *m);

/*
 * intern: strings numbered 0, 1, 2, ... in the order first added, each kept once as a copy
 * the table owns (strings[i] is number i). NULL is a value like any other: numbered when
 * first added, kept as NULL. Set up with intern_init.
 */
struct intern {
	char **strings;
	size_t nr, alloc;
	struct hashmap index; /* private: string to number */
	int64_t null_index;   /* private: NULL's number, -1 until added */
};
void intern_init(struct intern *t);
/* s's number, s added when it is new. */
uint32_t intern_add(struct intern *t, const char *s);
/* intern_add, quicker when s is number hint: for a reader whose rows mostly repeat the
 * previous row's string (a hint out of range, or another string, is looked up as usual). */
uint32_t intern_add_hint(struct intern *t, const char *s, uint32_t hint);
/* s's number, -1 when it was never added. */
int64_t intern_find(const struct intern *t, const char *s);
void intern_release(struct intern *t);

/* Sets index[0..n) to 0..n-1 ordered by key, ties in index order. Key i is the int64_t at
 * (const char *)keys + i * stride, so keys can be a field of an array of structs. An LSD radix
 * sort, 11 bits a pass over the keys' offsets from the smallest (as many passes as their
 * range needs): sequential passes, no comparisons, unless the keys are 2^32 or more apart
 * (then qsort). n must be under 2^32. */
void sort_index_by_int64(uint32_t *index, const int64_t *keys, size_t stride, size_t n);
/* qsort's and bsearch's comparison of two strings held by pointer (an array of char *),
 * in strcmp's order. */
int cmp_strp(const void *a, const void *b);

/*
 * Names (common/names.c): kinds and states are enums inside the program, each with one table
 * of names, the text the record format, the database, JSON and the pages use. *_name gives
 * a value's name; *_parse the value of a name: 0, or BL_EINVALID when it names none.
 */

/* A metric's kind (§2). The numbers go into stored line fingerprints: append, never reorder. */
enum metric_kind { METRIC_TIMED, METRIC_COUNTED, METRIC_QUANTILE };
/* 1 when s is a machine name (§1, §2): 1 to 64 of [A-Za-z0-9._-]. What a record, --machine and
 * benchline.json's "machine" and "machines" keys all take (common/names.c). */
int machine_name_valid(const char *s);
const char *metric_kind_name(enum metric_kind k);
int metric_kind_parse(enum metric_kind *out, const char *name);
/* The value a metric is judged by (§6, §7): a timed metric's median (its value when it has
 * none), any other kind's value. NAN when that is missing. */
double metric_judged_value(enum metric_kind k, double median, double value);
/* The counted metric deterministic counters make (§9.6): a benchmark's instructions under
 * callgrind, which §6 judges too, with quiet.counter_floor's floor. */
#define METRIC_INSTRUCTIONS "instructions"

/* A metric's better direction: "lower" (0) or "higher" (1), the int every stage keeps as
 * better_higher. */
const char *metric_better_name(int better_higher);
int metric_better_parse(int *better_higher, const char *name);

/*
 * Why a line starts where it does (§5): the first record of a Series, a harness version or a
 * content hash other than the line's, an imported Baseline; LINE_CONTINUES when it does not.
 * The rule is here, once, because the store's Series listing, detection and the charts all
 * apply it: line_break_at says where a record (harness, content, baseline) stands against the
 * line so far (started 0 before the Series' first record; content NULL for none).
 */
enum line_break {
	LINE_CONTINUES,
	LINE_FIRST,
	LINE_HARNESS,
	LINE_CONTENT,
	LINE_BASELINE,
	LINE_PINNED, /* a commit bisection pinned (§9.3): detection breaks there from the stored
		      * Regressions, never through line_break_at */
};
/* "first", "harness", "content", "baseline", "pinned"; NULL for LINE_CONTINUES. */
const char *line_break_name(enum line_break b);
int line_break_parse(enum line_break *out, const char *name);
enum line_break line_break_at(int started, int64_t line_harness, const char *line_content,
			      int64_t harness, const char *content, int baseline);
/* The other break (§9.3): 1 when a commit bisection pinned on the Series, at one of the seqs
 * on main `pinned` (n of them, ascending), lies after its line's last record (placed at
 * last_place) and at or before the next record (at place): that record starts a `pinned`
 * line. Where line_break_at says the line continues, detection, the Series listing and the
 * charts all ask this next. */
int line_pinned_at(const int64_t *pinned, size_t n, double last_place, double place);

/* Which side of its center a Suspect's record is on: slower is worse in the metric's
 * direction. */
enum suspect_side { SUSPECT_SLOWER, SUSPECT_FASTER };
const char *suspect_side_name(enum suspect_side s);
int suspect_side_parse(enum suspect_side *out, const char *name);

/* Which opinion marked a Suspect: the band of §6 ("band") or the change-point pass of §6.1
 * ("change-point"), a second opinion on what the band cannot see. */
enum suspect_kind { SUSPECT_BAND, SUSPECT_CHANGE_POINT };
const char *suspect_kind_name(enum suspect_kind k);
int suspect_kind_parse(enum suspect_kind *out, const char *name);

/* A Suspect's state, which is its alert's (§9.1): detect makes them pending until one of the
 * alert's Suspects has persisted (open) or all came back (transient); a confirmation, a
 * bisection or a person (ignored) move them on. */
enum suspect_state {
	SUSPECT_OPEN,
	SUSPECT_CLEARED,
	SUSPECT_CONFIRMED,
	SUSPECT_COVERED,
	SUSPECT_TRANSIENT,
	SUSPECT_IGNORED,
	SUSPECT_PENDING,
};
const char *suspect_state_name(enum suspect_state s);
int suspect_state_parse(enum suspect_state *out, const char *name);

/* What confirm found for an alert (§9.4), kept with it: confirm takes up an alert with no
 * outcome once. */
enum alert_outcome {
	ALERT_NO_OUTCOME,
	ALERT_CLEARED,
	ALERT_CONFIRMED,
	ALERT_UNBUILDABLE,
	ALERT_INCONCLUSIVE,
	ALERT_TRANSIENT, /* asked for by id, and found transient: cleared without measuring */
};
/* NULL for ALERT_NO_OUTCOME, else "cleared", "confirmed", "unbuildable", "inconclusive",
 * "transient". */
const char *alert_outcome_name(enum alert_outcome o);
int alert_outcome_parse(enum alert_outcome *out, const char *name);

/*
 * The formats results are read in (§2, §10): `--format` and benchline.json's bench.format name
 * one. "auto" is decided from the content, "benchline" is the native record format ("native"
 * parses to it too), the others are the adapters' (ingest/adapters/ maps each to its parser).
 * Here because benchline.json's reading, below the adapters, checks bench.format by it.
 */
enum result_format {
	RESULT_AUTO,
	RESULT_NATIVE,
	RESULT_BMF,
	RESULT_GBENCH,
	RESULT_HYPERFINE,
	RESULT_PYTEST,
	RESULT_GOTEST,
	RESULT_CRITERION,
	RESULT_CATCH2,
	RESULT_JMH,
};
#define RESULT_NFORMATS 10
const char *result_format_name(enum result_format f);
int result_format_parse(enum result_format *out, const char *name);
/* Every format's name, in order, appended to sb as "auto, benchline, ... or jmh": what a
 * message lists as the formats there are. */
void result_format_list(struct strbuf *sb);

/*
 * The histories `benchline import --from` reads (§10): an asv results directory, a published
 * asv site, github-action-benchmark's data.js and Bencher's perf JSON export (ingest/adapters/
 * maps each to its reader).
 */
enum history_format {
	HISTORY_ASV,
	HISTORY_ASV_HTML,
	HISTORY_GAB,
	HISTORY_BENCHER,
};
#define HISTORY_NFORMATS 4
int history_format_parse(enum history_format *out, const char *name);
/* Every history's name appended to sb as "asv, asv-html, gab or bencher". */
void history_format_list(struct strbuf *sb);

/* Reads a whole file (or stdin for "-") into sb; BL_ETOOBIG when it is over cap bytes. */
int read_file_capped(struct strbuf *sb, const char *path, size_t cap, struct bl_error *err);
/* The pieces read_file_capped is made of, for a reader that goes on from a file descriptor
 * (ingest's, piece by piece): open_capped opens path ("-": standard input, fd 0) and refuses a
 * regular file over cap bytes before reading it; read_once appends what one read(2) gives, at
 * most max bytes (the count, 0 at the end of the file, BL_EIO); read_fd_capped appends all
 * that is left, BL_ETOOBIG once sb holds over cap bytes; too_big is that error. Messages name
 * path. */
int open_capped(int *fd_out, const char *path, size_t cap, struct bl_error *err);
ssize_t read_once(struct strbuf *sb, int fd, size_t max, const char *path, struct bl_error *err);
int read_fd_capped(struct strbuf *sb, int fd, const char *path, size_t cap, struct bl_error *err);
int too_big(struct bl_error *err, const char *path, size_t cap);
/* Writes data to path atomically (a temporary file renamed over it). */
int write_file_atomic(const char *path, const void *data, size_t len, struct bl_error *err);

/* Parses RFC 3339 UTC ("2026-11-02T04:00:00Z", optional fraction); 0 or BL_EINVALID. */
int parse_rfc3339_utc(const char *s, double *unix_out);
/* Formats seconds since the epoch as RFC 3339 UTC with second precision. */
void format_rfc3339_utc(struct strbuf *sb, int64_t unix_seconds);
/* Seconds on the monotonic clock: for how long something has taken or waited, never a date. */
double monotonic_s(void);
/* Seconds since the epoch on the wall clock, to the microsecond: when something happened. */
double epoch_s(void);

/* 1 when the string is 40 lowercase or uppercase hex digits. */
int is_hex40(const char *s);
/* The git blob id of data (SHA-1 of "blob LEN\0" and the bytes) in lowercase hex: the
 * digest a stored run is known by. Computed with libcrypto, which needs no start-up and
 * hashes several times faster than libgit2's collision-detecting SHA-1; the same id git
 * gives the bytes (`git hash-object`). */
int digest_blob(char out[41], const void *data, size_t len);
/* A SHA-1 of bytes given piece by piece (libcrypto), for checksums of data too big to hold:
 * digest_init, any number of digest_add, then digest_finish writes the lowercase hex and
 * frees the context. 0, or BL_EINVALID when libcrypto fails (out then ""). */
struct digest_ctx;
int digest_init(struct digest_ctx **out);
void digest_add(struct digest_ctx *ctx, const void *data, size_t len);
int digest_finish(char out[41], struct digest_ctx *ctx);
/* SHA-256 of data, or of a file's bytes, as 64 lowercase hex digits (what names a libc in a
 * counter machine's key, §9.6). BL_EIO naming the file when it cannot be read. */
int digest_sha256(char out[65], const void *data, size_t len, struct bl_error *err);
int digest_sha256_file(char out[65], const char *path, struct bl_error *err);
/* libgit2, started once per process by the first caller that opens a repository (ingest/repo/,
 * and benchline.json found through git), not by every command: Debian's libgit2 (on mbedTLS)
 * parses the whole CA bundle when it starts, three quarters of the instructions of a command
 * that never touches git. Thread-safe. libgit2_stop, at exit, stops it if it was started. */
void libgit2_start(void);
void libgit2_stop(void);
/* 1 when the bytes are valid UTF-8. */
int utf8_valid(const char *s, size_t len);

/*
 * A double as text in its shortest round-trip form: the fewest significant digits (17 at
 * most) that read back as the same double. Laid out as Python's repr() does (12.4,
 * 4.005485184848892, 100, 1e-05, 1e+16) unless flags say otherwise; nan, inf and -inf as
 * such. buf holds DOUBLE_TEXT_MAX bytes; returns buf.
 */
#define DOUBLE_TEXT_MAX 40
enum double_text_flags {
	DOUBLE_POINT_ZERO = 1 << 0, /* a whole number without an exponent ends in ".0" (100.0) */
	DOUBLE_LAYOUT_G = 1 << 1,   /* printf's %g layout: an exponent once it is as large as the
				       digit count (1e+02, 1.2e+03), not only from 1e16 */
};
const char *format_double(char *buf, double v, unsigned flags);
/* Exactly snprintf's "%.17g" of a finite v, into buf (DOUBLE_TEXT_MAX bytes); returns the
 * length. The form stored records are written in (their digest is over it), made fast. */
int format_double_g17(char *buf, double v);
void strbuf_add_double(struct strbuf *sb, double v, unsigned flags);
/*
 * Figures in units people read (145 µs, 798 MB/s, 1.2 s), one scale per Series so its values
 * compare at a glance: unit_scale_choose picks, for a unit benchline knows (ns, us, ms, s; B,
 * kB, MB, GB, KiB, MiB, GiB; B/s, kB/s, MB/s, GB/s), the largest step in which typical is 1 or
 * more; any other unit is kept as it is. The scale holds its unit's text itself, so it outlives
 * the record it was chosen from (a unit longer than UNIT_TEXT_MAX - 1 bytes is cut there, on a
 * character boundary).
 */
#define UNIT_TEXT_MAX 64
struct unit_scale {
	double factor;		  /* a value times factor is in unit */
	char unit[UNIT_TEXT_MAX]; /* what to write after it ("" for none) */
};
void unit_scale_choose(struct unit_scale *out, const char *unit, double typical);
/* v in the scale, three significant digits without trailing zeros (a whole number in its own
 * unit, a count, as it is), then the unit: "28.3 ms", "12316 allocs". */
void strbuf_add_quantity(struct strbuf *sb, double v, const struct unit_scale *s);
/* v in the unit its own size calls for (unit_scale_choose with v as the typical value), as
 * strbuf_add_quantity writes it: how a lone value is shown, "983 MB/s", "66.7 µs". */
void strbuf_add_value(struct strbuf *sb, double v, const char *unit);
/* A ratio as the signed percent change every output shows, one decimal (§11): 1.152 is
 * "+15.2%", 0.9 "-10.0%", and one that rounds to nothing "0.0%" (never "+0.0%" or "-0.0%", so
 * no sign claims a direction there is none of); a ratio that is not finite appends unknown ("-",
 * "?") instead. A shift (a fraction, the ratio minus 1) is shown as strbuf_add_change(sb, 1 +
 * shift, ...). */
void strbuf_add_change(struct strbuf *sb, double ratio, const char *unknown);
/* An interval of ratios the same way, "[+1.2%, +3.4%]"; unknown unless both ends are finite. */
void strbuf_add_change_interval(struct strbuf *sb, double lo, double hi, const char *unknown);
/* qsort's comparison of two doubles, ascending (NaN compares equal to everything). */
int cmp_double(const void *a, const void *b);

/* Nearest-rank percentile: the value at 1-based rank ceil(p/100 * n) of the sorted values
 * (rank 1 when that is 0). values need not be sorted; it is not modified. */
double nearest_rank(const double *values, size_t n, double pct);
/* Same, on values already sorted ascending. */
double nearest_rank_sorted(const double *sorted, size_t n, double pct);

/* Matches name against a shell glob (*, ?, [...]); 1 when it matches. */
int glob_match(const char *pattern, const char *name);

/* Frees an array of nr strings and the array. */
void strings_free(char **strings, size_t nr);

/*
 * Child processes (common/run_command.c), in the spirit of git's run-command.h: fill in what to
 * run in a child_process_init'ed struct, call child_process_run, read what happened, then
 * child_process_release. One poll loop serves the child's streams: stdin fed from memory,
 * stdout captured up to a cap, the tail of stderr kept, and the deadline watched.
 *
 * The program ignores SIGPIPE (cli/main.c), so a child that stops reading its stdin is an EPIPE
 * here, not a signal; the child itself starts with SIGPIPE at its default and no signal blocked.
 */
struct child_process {
	/* What to run; child_process_run only reads these. */
	const char *const *argv; /* argv[0] is looked up in PATH unless it has a '/' */
	/* NULL-terminated changes to our environment ("NAME=value" sets NAME, "NAME" alone
	 * unsets it), or NULL for ours as it is. */
	const char *const *env;
	const char *dir;     /* the child's working directory; NULL for ours */
	const char *in;	     /* fed to its stdin, which is then closed; NULL: see no_stdin */
	size_t in_len;	     /* the bytes of in */
	int no_stdin;	     /* without in: 1 for /dev/null, 0 to share our stdin */
	size_t out_max;	     /* stdout over this many bytes is BL_ETOOBIG; 0: no cap */
	size_t err_tail_max; /* > 0: stderr is captured and its last so many bytes kept */
	int no_stderr;	     /* without err_tail_max: 1 for /dev/null, 0 to share ours */
	/* 1: stdout goes where stderr goes (the tail, /dev/null or ours) and out stays empty, for
	 * a build whose log matters only as the tail of a failure */
	int stdout_to_stderr;
	int timeout_ms; /* killed when still running after this long; 0: no limit */
	/* 0: the child gets its own process group, and a kill goes to the whole group (what it
	 * started too); 1: it stays in ours, so a Ctrl-C at the terminal reaches it, and a kill
	 * reaches only it. */
	int keep_pgroup;
	/* 1: no process the child starts outlives it (§13: a benchmark's `setsid sleep &` would
	 * run on through the next samples). benchline becomes a child subreaper
	 * (PR_SET_CHILD_SUBREAPER), so what the child leaves behind is reparented to it, and once
	 * the child has exited every such process is killed and reaped, before its output is read
	 * to its end (a leftover holding the child's stdout cannot keep the run waiting). For
	 * single-threaded commands that run one child at a time: every child of ours but the
	 * ones we had before the first such run is taken for a leftover. */
	int reap_orphans;

	/* What happened; set by child_process_run. */
	struct strbuf out;	/* standard output (at most out_max bytes) */
	struct strbuf err_tail; /* the last err_tail_max bytes of standard error */
	int exit_code;		/* the exit status when it exited, else -1 */
	int signal;		/* the signal that ended it, else 0 */
	int timed_out;		/* 1 when the deadline passed and it was killed */
	double wall_s, cpu_s;	/* elapsed and user + system CPU seconds (wait4's rusage) */
	int64_t peak_rss_kib;	/* peak resident set size (ru_maxrss) */
};

void child_process_init(struct child_process *cp);
/* Runs cp->argv to its end, or until the deadline. Returns 0 when it ran, whatever its exit
 * status (see exit_code, signal, timed_out); BL_ENOTFOUND when the program or the directory
 * does not exist; BL_EIO when it cannot be started; BL_ETOOBIG when it printed more than
 * out_max (it is killed and waited for, and the other results are set). */
int child_process_run(struct child_process *cp, struct bl_error *err);
/* Frees the results and leaves cp as child_process_init does. */
void child_process_release(struct child_process *cp);

/* The system headers that declare a banned function come first: built with _FORTIFY_SOURCE
 * (Debian's packaging flags, make deb), they define inline wrappers of those very names, which
 * the macros below would break if either header were first included after them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "banned.h"

#endif
