/*
 * adapters: the formats results come in, mapped to records: the native records of §2
 * (native.c) and the foreign formats of §10 (bmf.c, gbench.c, hyperfine.c, pytest.c, gotest.c,
 * criterion.c, catch2.c with its small XML reader, jmh.c), with their shared walk, `--format
 * auto`, the hints for output that is not a format and the dispatch (adapters.c); and the
 * histories `benchline import` reads (§10: asv.c for asv's results directory and published
 * site, gab.c for github-action-benchmark's data.js, bencher.c for Bencher's perf JSON), with
 * what they share (history.c). Each
 * foreign adapter maps every benchmark of a file to one record; repetitions and raw times
 * become samples; what the format lacks (machine, harness version, commit, source hash, config)
 * comes from struct ingest_defaults, and a required field that neither the file nor a flag
 * gives is an error naming the flag. docs/formats.md says exactly how each format maps. The
 * intake and data care reach these parsers only through the table they are handed
 * (adapters_parsers): this room includes ingest.h for the record model, never the reverse.
 * Nothing here prints or exits.
 *
 * The first part is the room's API; the second is shared by the files of ingest/adapters/
 * only.
 */
#ifndef BENCHLINE_INGEST_ADAPTERS_H
#define BENCHLINE_INGEST_ADAPTERS_H

#include <stddef.h>
#include <stdint.h>

#include "ingest/ingest.h"

/*
 * Parses one result file in format ("auto", "benchline" or "native", "bmf", "gbench",
 * "hyperfine", "pytest", "gotest", "criterion") and appends its records to out. path names
 * the file in messages; for criterion it is a target/criterion directory and text is NULL
 * (auto picks criterion for a directory). *chosen (may be NULL) receives the adapter's name,
 * "benchline" for the native format. Errors are BL_EINVALID with "PATH:LINE:COLUMN: message"
 * or "PATH: message" (a missing required field names its flag: "PATH: no machine: give
 * --machine"); BL_EIO or BL_ETOOBIG for a criterion file that cannot be read. Nothing is
 * appended to out on error. The native format ignores defaults: its records carry their own
 * fields.
 */
int adapters_parse(struct ingest_batch *out, const char **chosen, const char *format,
		   const char *path, const char *text, size_t len,
		   const struct ingest_defaults *defaults, struct bl_error *err);

/*
 * The native parser (§2, native.c), the native format's adapter: one object, an array of
 * objects, or one object per line. name is the file name used in messages. On failure err says
 * "NAME:LINE:COLUMN: message" and nothing is appended to out.
 */
int adapters_parse_native(struct ingest_batch *out, const char *name, const char *text, size_t len,
			  struct bl_error *err);
/*
 * The same parser over a file read piece by piece from fd (start: the first start_len bytes,
 * already read), so memory holds one record at a time whatever the file's size: each record
 * goes to fn as soon as it is parsed. Fails like adapters_parse_native, and past
 * INGEST_MAX_FILE bytes; fn may have taken records before a later one fails.
 */
int adapters_parse_native_fd(const char *name, int fd, const char *start, size_t start_len,
			     ingest_record_fn *fn, void *data, struct bl_error *err);

/* Whether records read in format f can name their own commit (the native format's
 * source.commit, pytest-benchmark's commit_info; auto may find either): 0 for the formats that
 * name none, whose records take their commit from a repository's HEAD or not at all. */
int adapters_format_names_commit(enum result_format f);

/*
 * Reads the history h names (h->from, h->path; struct ingest_history), each record handed to
 * h->fn as it is made. A path of the wrong kind is an error saying what was expected and what
 * was found ("data.js:1:1: not Bencher's perf JSON: expected an object with \"results\", found
 * github-action-benchmark's data.js (--from gab)"); so is every bad value, at its position.
 * docs/import.md says how each history maps to records.
 */
int adapters_history(struct ingest_history *h, struct bl_error *err);

/* The parsers above, as the intake and data care are handed them (ingest.h). */
extern const struct ingest_parsers adapters_parsers;

/* The format of a file from its content ("benchline", "bmf", ...), "criterion" when text is
 * NULL and path is a directory; NULL when it cannot tell. */
const char *adapters_detect_format(const char *path, const char *text, size_t len);

/* The history a file's text belongs to (enum history_format: github-action-benchmark's
 * data.js, Bencher's perf JSON, an asv results file or a published site's index.json), -1
 * when none. */
int adapters_detect_history(const char *text, size_t len);

/*
 * What a file is, as a message names it, when it is something benchline reads or knows the
 * tool of: "Google Benchmark JSON (--format gbench)", "github-action-benchmark's data.js
 * (benchline import --from gab)", "Google Benchmark's console output (run it with
 * --benchmark_format=json)". NULL when it cannot tell. *off (may be NULL) receives the offset
 * the message should point at: where the content starts, or the line that gave it away.
 */
const char *adapters_looks_like(const char *text, size_t len, size_t *off);

/* ------------------------------------------------------------------------------------------
 * Private to the adapters.
 */

struct json_t;

/* Caps on a criterion directory walk. */
#define INGEST_CRITERION_MAX_ENTRIES 100000 /* directory entries looked at */
#define INGEST_CRITERION_MAX_DEPTH   16
#define INGEST_CRITERION_MAX_FILE    ((size_t)64 << 20) /* bytes of one json file */

/* One file being adapted. */
struct adapters_input {
	const char *name; /* for messages */
	const char *text; /* NULL for a directory */
	size_t len;
	const struct ingest_defaults *defaults;
	double fallback_time; /* started_at when neither the flag nor the file gives one */
	struct bl_error *err;
};

/* What a file itself says about every record in it; NULL/NAN/-1 when it says nothing. */
struct adapters_file_info {
	const char *machine;	  /* a host name */
	const char *machine_what; /* where machine came from, for messages ("host name") */
	char *machine_info;	  /* compact JSON object, owned */
	double started_at;
	const char *commit; /* 40 hex digits */
	const char *branch;
	int dirty;
	double committed_at;
};

void adapters_file_info_init(struct adapters_file_info *fi);
void adapters_file_info_release(struct adapters_file_info *fi);

/* The fields every record of a file shares, resolved from the flags and the file. */
struct adapters_common {
	char machine[65];
	char *machine_info;
	int64_t harness_version;
	const char *config;
	char commit[41];
	char source_hash[41];
	const char *branch;
	int dirty;
	double committed_at;
	double started_at;
};

/* Resolves flags over the file's own fields (flags win); a missing machine, harness version
 * or commit is an error naming its flag. common->machine_info is borrowed from fi. */
int adapters_resolve(struct adapters_common *common, const struct adapters_input *a,
		     const struct adapters_file_info *fi);

/* Starts a record for benchmark (checked: not empty, at most INGEST_MAX_STRING bytes, valid
 * UTF-8) at line:column; the record's fields come from common. */
int adapters_record_init(struct ingest_record *rec, const struct adapters_common *common,
			 const char *benchmark, int line, int column, const char *name,
			 struct bl_error *err);

/* Adds a metric to rec; name and unit are copied. */
struct ingest_metric *adapters_add_metric(struct ingest_record *rec, const char *name,
					  enum metric_kind kind, const char *unit,
					  int better_higher);
/* Takes samples (owned) into a timed metric and computes median and p95 by nearest rank; n
 * becomes the sample count. */
void adapters_take_samples(struct ingest_metric *m, double *samples, size_t n);
/* The nearest-rank median of n values (NAN when n is 0). */
double adapters_median(const double *values, size_t n);

/* Finishes rec (canonical JSON, digest) and moves it into batch; releases it on error. */
int adapters_push(struct ingest_batch *batch, struct ingest_record *rec, const char *name,
		  struct bl_error *err);

/* Moves every record of from to the end of to. */
void adapters_append(struct ingest_batch *to, struct ingest_batch *from);

/* "NAME:LINE:COLUMN: " + message for byte offset off of text. */
__attribute__((format(printf, 5, 6))) int adapters_fail_at(struct bl_error *err, const char *name,
							   const char *text, size_t off,
							   const char *fmt, ...);

/* Parses the whole text as a JSON object; a syntax error or another top-level value is
 * reported with its position like the native parser. *out is a new reference. */
int adapters_load_json(struct json_t **out, const char *name, const char *text, size_t len,
		       struct bl_error *err);

/* A path into a JSON document, for messages: where a value is and its dotted name. */
#define INGEST_ADAPT_MAX_DEPTH 8
struct adapters_path {
	struct ingest_json_seg seg[INGEST_ADAPT_MAX_DEPTH];
	size_t n;
};
void adapters_path_key(struct adapters_path *p, const char *key);
void adapters_path_index(struct adapters_path *p, size_t index);
void adapters_path_pop(struct adapters_path *p);

/*
 * Walks the members of the object or the elements of the array at a path in order, giving
 * each one's position (an object member's key, an array element's value) without
 * re-scanning the text from its start: the line and column of each record in one pass.
 */
struct adapters_walk {
	struct ingest_json_cursor cur;
	size_t next; /* offset of the next member or element, INGEST_JSON_NOT_FOUND at the end */
};
void adapters_walk_start(struct adapters_walk *w, const struct adapters_input *a,
			 const struct adapters_path *p);
/* The position of the next member or element (1:1 past the end), and moves past it. */
void adapters_walk_next(struct adapters_walk *w, const struct adapters_input *a, int *line,
			int *column);

/* What becomes of one element of a results array: records appended to out. */
typedef int (*adapters_element_fn)(struct ingest_batch *out, const struct adapters_input *a,
				   const struct adapters_common *common, struct adapters_path *p,
				   struct json_t *element, int line, int column);
/* Calls fn on each element of array, the value at p, with the element's path and position
 * (one walk over the text), stopping at the first error. */
int adapters_each_element(struct ingest_batch *out, const struct adapters_input *a,
			  const struct adapters_common *common, struct adapters_path *p,
			  struct json_t *array, adapters_element_fn fn);

/*
 * Fails at the value at path (or, with key, at its last key; with parent, at the object that
 * lacks it) with "NAME:LINE:COLUMN: DOTTED.PATH: message".
 */
enum adapters_at { INGEST_AT_VALUE, INGEST_AT_KEY, INGEST_AT_PARENT };
__attribute__((format(printf, 4, 5))) int adapters_json_fail(const struct adapters_input *a,
							     const struct adapters_path *p,
							     enum adapters_at at, const char *fmt,
							     ...);

/* v (at p) as a finite number that is not negative. */
int adapters_number_value(const struct adapters_input *a, struct adapters_path *p, struct json_t *v,
			  double *out);

/* Typed getters on member key of obj (whose path is p): each fails positioned. A missing
 * optional member leaves *out alone and returns 0. */
int adapters_get_string(const struct adapters_input *a, struct adapters_path *p, struct json_t *obj,
			const char *key, int required, const char **out);
/* A finite number that is not negative. */
int adapters_get_number(const struct adapters_input *a, struct adapters_path *p, struct json_t *obj,
			const char *key, int required, double *out);
int adapters_get_object(const struct adapters_input *a, struct adapters_path *p, struct json_t *obj,
			const char *key, int required, struct json_t **out);
int adapters_get_array(const struct adapters_input *a, struct adapters_path *p, struct json_t *obj,
		       const char *key, int required, struct json_t **out);
/* Every element of arr (at path p) as a finite number that is not negative, at most
 * INGEST_MAX_SAMPLES; *out is malloc'd (NULL when empty). */
int adapters_get_samples(const struct adapters_input *a, struct adapters_path *p,
			 struct json_t *arr, double **out, size_t *n);

/* A timestamp: RFC 3339 / ISO 8601 ("2026-11-02T04:00:00Z", "...+09:00", "... 17:44:46",
 * "...T00:21:56.209765"); no offset means UTC. 0 or BL_EINVALID. */
int adapters_parse_time(const char *s, double *out);

/* Parses the whole text as one JSON value of any type (adapters_load_json's messages); *out
 * is a new reference. */
int adapters_load_json_any(struct json_t **out, const char *name, const char *text, size_t len,
			   struct bl_error *err);

/* Bencher's built-in measures keep Bencher's meaning (latency in ns, throughput in ops/s with
 * higher better, build-time in s, file-size in bytes, counted); any other is timed, lower
 * better, with the unit given (NULL: ""). Shared by bmf.c and bencher.c. */
struct adapters_measure {
	enum metric_kind kind;
	const char *unit;
	int better_higher;
};
void adapters_bencher_measure(struct adapters_measure *out, const char *measure, const char *unit);

/* The adapters: parse a.text (a.name in messages) into out. */
int adapters_bmf(struct ingest_batch *out, const struct adapters_input *a);
int adapters_gbench(struct ingest_batch *out, const struct adapters_input *a);
int adapters_hyperfine(struct ingest_batch *out, const struct adapters_input *a);
int adapters_pytest(struct ingest_batch *out, const struct adapters_input *a);
int adapters_gotest(struct ingest_batch *out, const struct adapters_input *a);
/* Walks the directory a.name (a.text is NULL). */
int adapters_criterion(struct ingest_batch *out, const struct adapters_input *a);
int adapters_catch2(struct ingest_batch *out, const struct adapters_input *a);
int adapters_jmh(struct ingest_batch *out, const struct adapters_input *a);

/* --- histories (`benchline import`, history.c) --- */

/* Caps on a history's directory walk (asv, asv-html). */
#define ADAPTERS_HISTORY_MAX_FILES 1000000
#define ADAPTERS_HISTORY_MAX_DEPTH 16

/* The record's fields a history gives per record (what adapters_record_init takes from
 * struct adapters_common), checked and copied by adapters_history_record. */
struct adapters_point {
	const char *machine; /* made a machine name: other characters become '-' */
	const char *machine_info;
	const char *benchmark;
	const char *config;
	const char *content_hash; /* NULL: none */
	const char *commit;	  /* 40 hex digits */
	const char *source_hash;  /* the history's own (docs/import.md); NULL: the commit */
	const char *branch;	  /* NULL: none */
	double committed_at;	  /* NAN: unknown */
	double started_at;
	int line, column; /* where the point is in name */
};
/* Starts rec for point p of file name: machine from --machine when given, harness version
 * from the defaults. */
int adapters_history_record(struct ingest_record *rec, const struct ingest_history *h,
			    const struct adapters_point *p, const char *name, struct bl_error *err);
/* Completes (h->complete), finishes and hands rec to h->fn; rec is released either way.
 * Errors are prefixed NAME:LINE:COLUMN from the record. */
int adapters_history_emit(struct ingest_history *h, struct ingest_record *rec, const char *name,
			  struct bl_error *err);
/* s as a machine name: each character outside [A-Za-z0-9._-] becomes '-', cut to 64 bytes;
 * out is "" when nothing is left. */
void adapters_machine_name(char out[65], const char *s);
/* Appends "key=value" to a config, a space between parts; adapters_config_add_json writes a
 * JSON value that is not a string as compact JSON (a parameter's 16, [1, 2]). */
void adapters_config_add(struct strbuf *config, const char *key, const char *value);
void adapters_config_add_json(struct strbuf *config, const char *key, const struct json_t *value);
/* The input the JSON helpers (adapters_get_*, adapters_json_fail) read one file of a history
 * through: name, its text, h's defaults (which must be set) and err. */
void adapters_history_input(struct adapters_input *a, const struct ingest_history *h,
			    const char *name, const char *text, size_t len, struct bl_error *err);
/* Milliseconds since the epoch (asv's and github-action-benchmark's dates) as whole seconds;
 * BL_EINVALID when out of RFC 3339's range. */
int adapters_ms_to_time(double ms, double *out);
/* The import's wrong-kind message: "NAME[:LINE:COLUMN]: not WHAT: expected EXPECTED, found
 * FOUND", FOUND from adapters_looks_like when text (may be NULL) tells, else found (may be
 * NULL: no ", found" part). off is where the text says so. */
int adapters_not_a(struct bl_error *err, const char *name, const char *text, size_t len, size_t off,
		   const char *what, const char *expected, const char *found);

/* The readers: asv and asv-html walk h->path; gab and bencher parse the text of h->path
 * (name in messages), which adapters_history has read. */
int adapters_history_asv(struct ingest_history *h, struct bl_error *err);
int adapters_history_asv_html(struct ingest_history *h, struct bl_error *err);
int adapters_history_gab(struct ingest_history *h, const char *name, const char *text, size_t len,
			 struct bl_error *err);
int adapters_history_bencher(struct ingest_history *h, const char *name, const char *text,
			     size_t len, struct bl_error *err);
/* One asv results file (its text) of a machine, as the directory walk reads it: benchmarks is
 * benchmarks.json's object and machine_info machine.json's fields but machine and version
 * (compact JSON, may be NULL). For the walk and the fuzz target. */
int adapters_asv_results_file(struct ingest_history *h, const char *name, const char *text,
			      size_t len, const char *machine, const char *machine_info,
			      const struct json_t *benchmarks, struct bl_error *err);

/*
 * One criterion benchmark from the texts of its new/ directory: estimates.json and
 * sample.json (required) and benchmark.json (may be NULL). dir_name is the benchmark's
 * directory relative to target/criterion, its name when benchmark.json has no full_id;
 * the *_name arguments name the files in messages. Appends one record to out. Used by the
 * directory walk and by the fuzz target.
 */
struct adapters_criterion_texts {
	const char *dir_name;
	const char *estimates_name, *estimates;
	size_t estimates_len;
	const char *sample_name, *sample;
	size_t sample_len;
	const char *benchmark_name, *benchmark; /* benchmark NULL when there is none */
	size_t benchmark_len;
	double fallback_time;
};
int adapters_criterion_parse_texts(struct ingest_batch *out,
				   const struct adapters_criterion_texts *t,
				   const struct ingest_defaults *defaults, struct bl_error *err);

#endif
