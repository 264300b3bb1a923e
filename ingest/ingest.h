/*
 * ingest: the record model (§2) with positions in JSON text for messages (jsonpos.c), the key
 * rule and tags (§1, §5) and storing a batch (ingest.c), a file's records staged on disk
 * (stage.c), the intake use case (intake.c), the import use case (import.c) and data care,
 * retag and rm (care.c); its rooms
 * are config/ (benchline.json, §3), adapters/ (the formats' parsers, the native one too,
 * §2, §10), repo/ (the source hash and commit sync, §3), preflight/ (§4) and push/ (§10's fleet).
 * Nothing here prints or exits.
 */
#ifndef BENCHLINE_INGEST_H
#define BENCHLINE_INGEST_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/common.h"
#include "ingest/config/config.h"
#include "ingest/repo/repo.h"

struct store;

/* Caps on what a record may carry (§2). */
#define INGEST_MAX_STRING  4096
#define INGEST_MAX_SAMPLES 1000000
/* Largest file `ingest` reads. */
#define INGEST_MAX_FILE ((size_t)1 << 30)
struct ingest_metric {
	char *name;
	enum metric_kind kind;
	char *unit;
	int better_higher; /* 1 when higher is better */
	double median;	   /* NAN when absent (counted, quantile) */
	double p95;	   /* NAN when absent */
	double value;	   /* counted and quantile metrics; NAN when absent */
	int64_t n;	   /* number of measurements, -1 when absent */
	double *samples;   /* NULL when none */
	size_t nsamples;
	char *ladder; /* quantile metrics: the ladder's name, else NULL */
};

struct ingest_record {
	char *machine;
	char *machine_info; /* compact JSON object, or NULL */
	char *benchmark;
	char *config;	    /* "" by default */
	char *content_hash; /* NULL when absent */
	int64_t harness_version;
	char commit[41];
	char source_hash[41]; /* "" when the file left it out */
	char *branch;	      /* NULL when absent */
	double committed_at;  /* seconds since the epoch, NAN when absent */
	int dirty;
	char *profile; /* "release" by default */
	double started_at;
	int baseline;
	char *primary; /* the primary metric's name (defaulted to the first timed by name) */
	int has_preflight;
	int preflight_quiet;
	struct ingest_metric *metrics; /* sorted by name */
	size_t nmetrics;
	char *raw;	  /* the record as canonical JSON (sorted keys, compact) */
	char digest[41];  /* SHA-1 of raw: the run's identity for idempotent re-ingest */
	int line, column; /* where the record starts in its file (1-based), for messages */
};

struct ingest_batch {
	struct ingest_record *records;
	size_t nr, alloc;
};

void ingest_record_release(struct ingest_record *rec);
void ingest_batch_release(struct ingest_batch *batch);

/* Takes each record a parser produces, in order: it may move the record's contents out (the
 * parser releases what is left). Non-zero stops the parse with that error. */
typedef int ingest_record_fn(struct ingest_record *rec, void *data, struct bl_error *err);
/* What a format lacks, for the adapters to fill each record's missing fields with: the flags
 * (--machine, --harness-version, --config), --repo's HEAD, or a push's query. The native
 * format ignores it: its records carry their own fields. */
struct ingest_defaults {
	const char *machine;	 /* --machine, NULL if not given */
	int64_t harness_version; /* --harness-version, -1 if not given */
	const char *config;	 /* --config, NULL: "" */
	const char *commit;	 /* from --repo HEAD or NULL */
	const char *source_hash; /* computed from --repo or NULL */
	int dirty;		 /* from --repo working tree */
	const char *branch;	 /* from --repo or NULL */
	double committed_at;	 /* NAN if unknown */
	double started_at;	 /* NAN: use the file's own date, else its mtime, else now */
};

/* Empty defaults: no flag given (every field unknown). */
void ingest_defaults_init(struct ingest_defaults *d);

/*
 * Why a history's reader left something out (struct ingest_history): each is counted, and the
 * import's summary says how many of each and why.
 */
enum ingest_skip {
	INGEST_SKIP_NO_VALUE,	 /* a point without a value: the tool could not measure it */
	INGEST_SKIP_NO_COMMIT,	 /* a point at no git commit (a revision or version without one) */
	INGEST_SKIP_OVERVIEW,	 /* a file of summaries, not measurements (asv's summary graphs) */
	INGEST_SKIP_EMPTY,	 /* a graph without a point */
	INGEST_SKIP_UNDESCRIBED, /* a result of a benchmark the history does not describe */
};
#define INGEST_NSKIPS 5
/* How many were skipped and why, appended to out: "1320 points without a value (the tool could
 * not measure them)". */
void ingest_skip_text(struct strbuf *out, enum ingest_skip s, int64_t n);

/*
 * A history `benchline import` reads (§10): another tool's results over many commits, each
 * result a record at its own commit. Its reader (parsers->history) makes each record from the
 * history and the defaults (machine, config and harness version when given; the rest of them
 * is ignored), lets complete (may be NULL) fill in what the caller knows better (the source
 * hash from a repository), finishes it (canonical JSON, digest) and hands it to fn, one at a
 * time in the history's order, so that memory holds one record whatever the history's size.
 * What it leaves out it counts in skipped. Its errors name the file, with a line and a column
 * where the file has them; fn may have taken records before a later one fails.
 */
struct ingest_history {
	enum history_format from;
	const char *path; /* a directory (asv, asv-html) or a file (gab, bencher) */
	const struct ingest_defaults *defaults;
	int (*complete)(struct ingest_record *rec, void *data, struct bl_error *err);
	void *complete_data;
	ingest_record_fn *fn;
	void *fn_data;
	/* After each piece of the history read (a file, an entry): done of total; NULL: none. */
	void (*progress)(void *data, size_t done, size_t total);
	void *progress_data;
	int64_t skipped[INGEST_NSKIPS]; /* set by the reader */
};

/*
 * The parsers of the formats (§2, §10), handed to the intake (ingest_intake_init) and to data
 * care (ingest_retag, ingest_explain_run) by their callers, who pass ingest/adapters/'s
 * adapters_parsers. The adapters include this header for the record model and ingest/ never
 * includes theirs, so the two rooms form no cycle (docs/architecture.md says why this cut).
 */
struct ingest_parsers {
	/* A file in a format ("auto": decided from its content), its records appended to out;
	 * *chosen (may be NULL) the format's name (adapters_parse). */
	int (*parse)(struct ingest_batch *out, const char **chosen, const char *format,
		     const char *path, const char *text, size_t len,
		     const struct ingest_defaults *defaults, struct bl_error *err);
	/* The format of a file from its content, NULL when it cannot tell
	 * (adapters_detect_format). */
	const char *(*detect)(const char *path, const char *text, size_t len);
	/* Native records in memory, as a stored run's canonical JSON is read back
	 * (adapters_parse_native). */
	int (*native)(struct ingest_batch *out, const char *name, const char *text, size_t len,
		      struct bl_error *err);
	/* A native file read piece by piece from fd, each record handed to fn as it is parsed
	 * (adapters_parse_native_fd). */
	int (*native_fd)(const char *name, int fd, const char *start, size_t start_len,
			 ingest_record_fn *fn, void *data, struct bl_error *err);
	/* A history, its records handed on as they are made (adapters_history). */
	int (*history)(struct ingest_history *h, struct bl_error *err);
};

struct json_t;
/* Fills the record's canonical raw JSON (sorted keys, compact) and its digest. obj is the
 * validated object the record came from (unknown keys kept); NULL builds the JSON from the
 * record's fields, for producers without a source object (adapters, the demo). Sorts the
 * metrics by name and defaults primary. */
int ingest_record_finish(struct ingest_record *rec, const struct json_t *obj, struct bl_error *err);

/* Sets key to value at the top level of the record's raw JSON (value's reference is taken)
 * and recomputes the digest: how `run` attaches its preflight and process figures and how
 * import-baseline marks a Baseline. The caller keeps the parsed fields in step. */
int ingest_record_annotate(struct ingest_record *rec, const char *key, struct json_t *value,
			   struct bl_error *err);

/*
 * The key rule (§1): whether a new run displaces the standing run of its key. A machine with
 * keep "first" keeps the standing run. A run with a quality tag (dirty, profile, preflight,
 * noisy) never displaces one without; otherwise the quieter (lower p95/median of the
 * primary metric, NAN when unknown) stands, a known figure beats an unknown one, and a tie
 * keeps the standing run.
 */
int ingest_new_run_stands(int keep_first, int old_flawed, double old_quietness, int new_flawed,
			  double new_quietness);

/* Prefixes err's message with where the record is: "FILE:LINE:COLUMN: record NUMBER" (NUMBER
 * is its place among the file's records, from 1), "FILE: record NUMBER" when its line is
 * unknown. */
void ingest_record_error_prefix(struct bl_error *err, const char *file,
				const struct ingest_record *rec, size_t number);
/* p95/median of the record's primary metric, NAN when either is unknown. */
double ingest_quietness(const struct ingest_record *rec);
/* How many measurements the primary metric's figures come from: its "n", else the samples it
 * carries; -1 when the record says neither. */
int64_t ingest_sample_count(const struct ingest_record *rec);
/* The noisy rule (§4, §10): p95/median of the primary metric at or over limit, for a run of at
 * least min_samples measurements (or of an unknown count: the producer computed the p95, and
 * benchline cannot tell it was from few). */
int ingest_is_noisy(const struct ingest_record *rec, double limit, int64_t min_samples);

/* What ingest_store did with one record. */
enum ingest_outcome {
	INGEST_STANDS,	   /* stored, and it is its key's record */
	INGEST_SUPERSEDED, /* stored, another run holds the key */
	INGEST_DUPLICATE,  /* the same run was already stored: nothing new */
};

/* The tags a stored run can carry (§5), as bits; each keeps the run off its Series. */
enum ingest_tag {
	INGEST_TAG_DIRTY = 1 << 0,
	INGEST_TAG_NOISY = 1 << 1,
	INGEST_TAG_NOT_MAIN = 1 << 2,
	INGEST_TAG_PREFLIGHT = 1 << 3,
	INGEST_TAG_PROFILE = 1 << 4,
	INGEST_TAG_SUPERSEDED = 1 << 5,
};
#define INGEST_NTAGS 6
/* The quality tags: a run with one never displaces a run without (the key rule). */
#define INGEST_QUALITY_TAGS                                                                        \
	(INGEST_TAG_DIRTY | INGEST_TAG_NOISY | INGEST_TAG_PREFLIGHT | INGEST_TAG_PROFILE)
/* The tag of bit i (0 to INGEST_NTAGS - 1), in the store's (alphabetical) order. */
const char *ingest_tag_name(unsigned i);
/* The tags the rules of §5 give a record now (enum ingest_tag bits, superseded aside: that is
 * the key rule's): dirty, profile, preflight, noisy by noisy_limit and min_samples, and
 * not-main by what the store knows of main (an imported Baseline never is). */
int ingest_record_tags(unsigned *out, struct store *st, const struct ingest_record *rec,
		       double noisy_limit, int64_t min_samples, struct bl_error *err);

/* Why the run does not stand: the run that holds its key keeps it because... */
enum ingest_kept {
	INGEST_KEPT_NONE,    /* (it stands, or it was stored before) */
	INGEST_KEPT_FIRST,   /* its machine keeps the first run of a key (keep "first") */
	INGEST_KEPT_CLEAN,   /* that run has no quality tag and this one has */
	INGEST_KEPT_QUIETER, /* that run is as quiet or quieter (p95/median) */
};

/* What kept a stored record off its Series: its run's tags and the figures that decided them,
 * for the one-line report and the JSON outcome (§10: `noisy: p95/median 1.12 >= 1.06`). */
struct ingest_tagged {
	unsigned tags;		       /* enum ingest_tag bits */
	double quietness, noisy_limit; /* p95/median of the primary metric (NAN: unknown), and the
					  limit it was held to */
	int64_t standing;	       /* superseded: the run that holds the key (0: unknown) */
	double standing_quietness;     /* that run's p95/median (NAN: unknown) */
	enum ingest_kept kept;
};

struct ingest_options {
	double noisy_limit;	      /* 0 for CONFIG_NOISY_LIMIT */
	int64_t min_samples;	      /* 0 for CONFIG_MIN_SAMPLES */
	struct ingest_tagged *tagged; /* may be NULL: one per record, what kept it off (a
					  duplicate: its stored run's tags) */
};

/*
 * Stores a parsed batch in one transaction: every record, or (on any error) none. outcomes
 * (may be NULL) receives one entry per record, and run_ids the run each record became.
 */
int ingest_store(struct store *st, struct ingest_batch *batch, const struct ingest_options *opts,
		 enum ingest_outcome *outcomes, int64_t *run_ids, struct bl_error *err);

/* What became of one record that was stored (or staged, then stored). */
struct ingest_stage_result {
	int64_t run_id;
	enum ingest_outcome outcome;
	struct ingest_tagged tagged;
};

/* How many records a writer asks the database about at once: its lookups are a few statements
 * per chunk of this many. */
#define INGEST_CHUNK 1024

/*
 * A writer (ingest.c): one transaction in which records are stored as they come, a chunk at a
 * time, each chunk's lookups (runs by digest, tags, machines, benchmarks, the standing run of
 * each key, main's commits, ids for new runs) a few statements for the whole chunk. What it
 * stores, the ids and the outcomes are those of storing the records one by one in order,
 * whatever the chunks. ingest_store is a writer over a batch; the intake's streamed files feed
 * one from another thread's parse.
 */
struct ingest_writer;
struct ingest_writer *ingest_writer_new(struct store *st, const struct ingest_options *opts);
/* Takes the write lock and begins the transaction; without wait, BL_EBUSY at once (nothing
 * begun) when another writer holds the lock. */
int ingest_writer_begin(struct ingest_writer *w, int wait, struct bl_error *err);
/* Stores n records in order, res[i] what became of recs[i]; an error names the record by its
 * place among all the writer stored ("record N") and leaves the transaction to be rolled back. */
int ingest_writer_store(struct ingest_writer *w, const struct ingest_record *recs, size_t n,
			struct ingest_stage_result *res, struct bl_error *err);
int ingest_writer_commit(struct ingest_writer *w, struct bl_error *err);
/* Rolls back what was not committed. */
void ingest_writer_free(struct ingest_writer *w);

/*
 * Records read back from a stage a chunk at a time (stage.c), by a reader of their own: pread
 * at the reader's offsets, so one thread may read while another adds. The records of a read
 * point into the reader's buffer until its next read; they are never released.
 */
struct ingest_stage_reader {
	uint64_t at;		    /* the stage's bytes read into buf so far */
	struct strbuf buf;	    /* bytes read and not handed out before the last read */
	size_t pos;		    /* where the last read's records end in buf */
	struct ingest_record *recs; /* the last read's records */
	size_t nr, alloc;
	struct ingest_metric *metrics; /* their metrics */
	size_t metrics_alloc;
};

/*
 * A file's records staged on disk (stage.c), between parsing them and storing them: memory
 * holds a few records at a time whatever the file's size. The intake's parse thread adds
 * records (and flushes them, a piece at a time) while its writer reads back what was flushed
 * (ingest_stage_read); once the file is stored, the records are read again in order with their
 * results for the report.
 */
struct ingest_stage {
	FILE *records;	   /* the packed records, one after another (the adding side's) */
	int fd;		   /* its descriptor, which readers pread (-1 before the first record) */
	FILE *results;	   /* what the writer did with each, in the same order */
	size_t nr;	   /* records staged */
	uint64_t bytes;	   /* their packed bytes */
	struct strbuf buf; /* the record being packed */
	struct ingest_stage_reader reader; /* ingest_stage_next's */
};

void ingest_stage_init(struct ingest_stage *sg);
void ingest_stage_release(struct ingest_stage *sg);
int ingest_stage_add(struct ingest_stage *sg, const struct ingest_record *rec,
		     struct bl_error *err);
/* The records added so far written out, where a reader can read them (their count and bytes,
 * nr and bytes, as they are now). */
int ingest_stage_flush(struct ingest_stage *sg, struct bl_error *err);
void ingest_stage_reader_init(struct ingest_stage_reader *r);
void ingest_stage_reader_release(struct ingest_stage_reader *r);
/* The next records after the reader's last read, at most max of those in the stage's first
 * bytes bytes (flushed ones): r->nr of them in r->recs. */
int ingest_stage_read(struct ingest_stage_reader *r, const struct ingest_stage *sg, uint64_t bytes,
		      size_t max, struct bl_error *err);
/* Back to the first record (and result), after adding or after storing. */
int ingest_stage_rewind(struct ingest_stage *sg, struct bl_error *err);
/* The next record in *out: 1, or 0 after the last (*out NULL then). */
int ingest_stage_next(const struct ingest_record **out, struct ingest_stage *sg,
		      struct bl_error *err);
int ingest_stage_put_result(struct ingest_stage *sg, const struct ingest_stage_result *res,
			    struct bl_error *err);
int ingest_stage_get_result(struct ingest_stage_result *res, struct ingest_stage *sg,
			    struct bl_error *err);

/*
 * The intake use case: how records get in, whoever brings them (`ingest`, `run`,
 * `import-baseline` and POST /api/records all call it). It parses a file in any format, fills
 * what the format lacks from flags and the repository's HEAD, computes missing source hashes,
 * applies benchline.json's machine settings and quiet limits, and stores each file (or pushed
 * body) in one transaction, saying per record what happened. Nothing here prints.
 */
/*
 * What the intake takes from benchline.json and the defaults where its caller's flags are silent
 * (§10, "one machine name per checkout"; config_resolve is the rule). With FILES or MEASURE and
 * neither repo nor settings_dir given, benchline.json is the checkout's: the repository holding
 * the current directory (config_load_checkout), which MEASURE takes HEAD from too.
 */
enum ingest_settings {
	/* Only what the caller set (a push's query): the server's benchline.json is not the
	 * pusher's, so no machine or harness version comes from it. */
	INGEST_SETTINGS_GIVEN,
	/* Files brought in (ingest, import-baseline): benchline.json's "machine" (before a
	 * format's own host name) and "harness_version", else harness version 1. */
	INGEST_SETTINGS_FILES,
	/* A benchmark measured here and now (run, sweep): as FILES, and the host name when no
	 * machine is given or set, bench.format when no format is. */
	INGEST_SETTINGS_MEASURE,
};

struct ingest_intake {
	const struct ingest_parsers
	    *parsers; /* the formats' parsers, given to ingest_intake_init */
	/* Set by the caller between ingest_intake_init and ingest_intake_setup;
	 * ingest_intake_setup replaces format, machine and harness_version by what they resolve
	 * to (settings says how). */
	const char *format;	      /* an adapter's name or "auto"; NULL: not given */
	const char *machine, *config; /* what a format lacks; NULL: not given */
	long harness_version;	      /* -1: not given */
	enum ingest_settings settings;
	const char *repo;	  /* the records come from this repository's HEAD; NULL: none */
	const char *settings_dir; /* where benchline.json is read when repo is NULL (the
				     server's --repo); NULL: see settings */
	const char *commit, *source_hash; /* what a format lacks when there is no repo (a push's
					     query); NULL: not given */
	const char *machine_glob; /* the machines records may name (a push token's); NULL: any */
	struct ingest_tagged *tagged; /* may be NULL: one per record ingest_intake_store stores,
					 why it joins no Series (ingest_outcome_add_tags) */
	const char *no_hash_hint;     /* how a record without a source hash could get one */

	/* Filled by ingest_intake_setup and ingest_intake_parse. */
	struct config cfg;		 /* benchline.json, defaults without one */
	struct config_settings resolved; /* the settings and where each came from (not with
					    INGEST_SETTINGS_GIVEN) */
	struct strbuf checkout;		 /* the checkout found from the current directory */
	struct repo_head head;		 /* HEAD of repo */
	int have_head;
	const char *chosen_format; /* the format the last parse used */
};

void ingest_intake_init(struct ingest_intake *in, const struct ingest_parsers *parsers);
void ingest_intake_release(struct ingest_intake *in);
/* Reads benchline.json and HEAD, resolves and checks the settings; nothing is written. */
int ingest_intake_setup(struct ingest_intake *in, struct bl_error *err);
/* Parses a file, a criterion directory or "-" (standard input) into out. */
int ingest_intake_read(struct ingest_intake *in, struct ingest_batch *out, const char *path,
		       struct bl_error *err);
/* Parses text already in memory (name is used in messages); started_at NAN when unknown. */
int ingest_intake_parse(struct ingest_intake *in, struct ingest_batch *out, const char *name,
			const char *text, size_t len, double started_at, struct bl_error *err);
/* Stores a batch in one transaction with benchline.json's noisy limit, after recording its
 * machine settings (keep "first"): outcomes[i] and run_ids[i] say what became of each record.
 * BL_EDENIED (nothing written) when a record names a machine outside machine_glob; every
 * error is prefixed by name. */
int ingest_intake_store(struct ingest_intake *in, struct store *st, const char *name,
			struct ingest_batch *batch, enum ingest_outcome *outcomes, int64_t *run_ids,
			struct bl_error *err);

/* What became of each record of a file, told once the whole file is stored (index 0-based). */
typedef void ingest_report_fn(void *data, size_t index, const struct ingest_record *rec,
			      int64_t run_id, enum ingest_outcome o, const struct ingest_tagged *t);
/* A step between reading and storing (import-baseline marks its records), given the records
 * in order, a batch at a time. */
typedef int ingest_mark_fn(struct ingest_batch *batch, const char *file, void *data,
			   struct bl_error *err);
/*
 * The whole intake of one file (or "-", or a criterion directory): read, completed, marked
 * (mark may be NULL), stored in one transaction and reported to fn. A file of native records
 * larger than a first read is parsed as it is read and staged on disk (struct ingest_stage),
 * so memory holds a few records whatever its size; other formats are whole documents, read
 * into memory under INGEST_MAX_FILE. Either way the write lock is taken only after the
 * whole file was read and found good. Errors are prefixed by path; nothing is stored then.
 */
int ingest_intake_file(struct ingest_intake *in, struct store *st, const char *path,
		       ingest_mark_fn *mark, void *mark_data, ingest_report_fn *fn, void *data,
		       struct bl_error *err);

/* Hands each record it makes to fn (with fn_data), in order, until it returns non-zero:
 * how a stream of records (a large native file, a history) reaches the intake. */
typedef int ingest_produce_fn(void *data, ingest_record_fn *fn, void *fn_data,
			      struct bl_error *err);
/*
 * The intake of records something produces one at a time (ingest_intake_file's large native
 * files, `benchline import`'s histories): produce runs on a thread of its own, each record
 * completed (source hash from the repository), marked (mark may be NULL) and staged on disk
 * (struct ingest_stage) as it comes, while the calling thread stores what is staged, a chunk
 * of INGEST_CHUNK records at a time, in one transaction (a writer); then each is reported to
 * fn. produce, mark and the repository are only used on the producing thread; the store only
 * on the calling one. Until the producer has finished the write lock is only tried, never
 * waited for. Memory holds a few records whatever their number. name prefixes the errors;
 * nothing is stored on error.
 */
int ingest_intake_records(struct ingest_intake *in, struct store *st, const char *name,
			  ingest_produce_fn *produce, void *produce_data, ingest_mark_fn *mark,
			  void *mark_data, ingest_report_fn *fn, void *data, struct bl_error *err);

/*
 * The import use case (import.c, §10): another tool's history (struct ingest_history) brought
 * in as records through the intake (ingest_intake_records), so a team switches without losing
 * its past. in holds the flags (machine, config, harness version: 1 when not given) and
 * benchline.json's settings (ingest_intake_setup, with settings_dir the repository). With repo,
 * each record's source hash is computed from its commit (§3); a commit the repository lacks
 * keeps the history's own (docs/import.md) and is counted. Everything is stored in one
 * transaction, or nothing; importing the same history again stores nothing new.
 */
enum ingest_import_phase {
	INGEST_IMPORT_READING, /* done of total pieces of the history read */
	INGEST_IMPORT_STORING, /* total records about to be stored (done 0) */
};
typedef void ingest_import_progress_fn(void *data, enum ingest_import_phase phase, size_t done,
				       size_t total);
struct ingest_import_result {
	int64_t records;	 /* records the history gave */
	int64_t stored;		 /* runs stored (standing or superseded) */
	int64_t standing;	 /* of those, the runs that hold their key */
	int64_t duplicates;	 /* records already stored: nothing new */
	int64_t series;		 /* distinct (machine, benchmark, config, metric) of the records */
	int64_t commits_unknown; /* records whose commit the repository lacks */
	int64_t skipped[INGEST_NSKIPS]; /* what the history's reader left out, by reason */
};
int ingest_import(struct ingest_import_result *out, struct ingest_intake *in, struct store *st,
		  enum history_format from, const char *path, const char *repo,
		  ingest_import_progress_fn *progress, void *progress_data, struct bl_error *err);

/*
 * The batch as one body of native records for a server (POST /api/records, §10's fleet),
 * appended to out: each record's canonical JSON on a line of its own, with the source hash
 * the intake computed (a native record that carried only a commit) written into its source,
 * since a server cannot compute it.
 */
int ingest_intake_body(struct strbuf *out, const struct ingest_batch *batch, struct bl_error *err);

/* An outcome's name in JSON ("stands", "superseded", "duplicate") and in the one-line report
 * a terminal shows ("stands", "superseded", "already stored"); ingest_outcome_parse reads a
 * name back (0, or BL_EINVALID when it names none). */
const char *ingest_outcome_name(enum ingest_outcome o);
const char *ingest_outcome_phrase(enum ingest_outcome o);
int ingest_outcome_parse(enum ingest_outcome *out, const char *name);
/* One stored record as `ingest --json` and POST /api/records report it: {file (when file is
 * not NULL), record (1-based index), id, machine, benchmark, config, source_hash,
 * harness_version, baseline, outcome}. */
struct json_t *ingest_outcome_json(const char *file, size_t index, const struct ingest_record *rec,
				   int64_t run_id, enum ingest_outcome o);
/* Adds to an outcome row what keeps the record off its Series: "tags" (names, in the store's
 * order; [] when it joins its Series) and "why" ({TAG: reason}, e.g. {"noisy": "p95/median 1.12
 * >= 1.06"}). */
void ingest_outcome_add_tags(struct json_t *row, const struct ingest_record *rec,
			     const struct ingest_tagged *t);
/* An outcome row (ingest_outcome_json with ingest_outcome_add_tags, or a server's) as the line
 * a terminal shows, appended to out: "MACHINE/BENCHMARK[ CONFIG] HASH12 harness N: OUTCOME",
 * then what keeps it off its Series when something does: "stands, tagged noisy (p95/median
 * 1.12 >= 1.06), preflight (preflight found the machine busy): not on its Series". */
void ingest_outcome_text(struct strbuf *out, const struct json_t *row);
/* The reason for tag bit i of t, appended to out (`p95/median 1.12 >= 1.06`). */
void ingest_tag_why(struct strbuf *out, unsigned i, const struct ingest_record *rec,
		    const struct ingest_tagged *t);

/*
 * Positions in JSON text, for messages (jsonpos.c). jansson does not keep the position of
 * values, so these re-scan text that jansson has already accepted (or, for a syntax error,
 * text up to the point where it stopped). Only error paths and the per-record line counter
 * use them.
 */
/* What ingest_json_locate returns when the path leads nowhere. */
#define INGEST_JSON_NOT_FOUND ((size_t)-1)

/* One step of a path into a JSON value: an object's member (key) or an array's element. */
struct ingest_json_seg {
	const char *key; /* NULL for an array element */
	size_t index;
};

/* A position in a text: byte offset, 1-based line and 1-based column in characters. */
struct ingest_json_cursor {
	size_t offset;
	int line, column;
};

void ingest_json_cursor_init(struct ingest_json_cursor *cur);
/* Moves the cursor forward to byte offset to (to >= cur->offset). A newline starts a line;
 * a UTF-8 continuation byte does not count as a column. */
void ingest_json_cursor_advance(struct ingest_json_cursor *cur, const char *text, size_t to);

/* The first offset at or after i that is not JSON whitespace (len when there is none). */
/* Past the string whose opening quote is at i, and past the valid value starting at i. */
size_t ingest_json_skip_string(const char *text, size_t len, size_t i);
size_t ingest_json_skip_value(const char *text, size_t len, size_t i);
size_t ingest_json_skip_ws(const char *text, size_t len, size_t i);

/*
 * The byte offset of the value at path inside the valid JSON value starting at or after
 * start (whitespace skipped). With want_key, the offset of the last step's key (its opening
 * quote) instead. n = 0 names the value itself. INGEST_JSON_NOT_FOUND when the path does
 * not exist.
 */
size_t ingest_json_locate(const char *text, size_t len, size_t start,
			  const struct ingest_json_seg *path, size_t n, int want_key);

/*
 * The start of the token that holds the byte just before pos, scanning the (possibly
 * invalid) text from start: where a syntax error's offending token begins when the parser
 * only said where it stopped. start when there is no token before pos.
 */
size_t ingest_json_token_start(const char *text, size_t len, size_t start, size_t pos);

/*
 * Data care (care.c): the stored history changed by hand, each command in one transaction
 * (nothing half-done on error; a dry run rolls it back) and recorded in the audit table with
 * who did it and why. docs/cli.md (retag, rm) tells the rules.
 */
/* What retag found and (unless a dry run) changed. */
struct ingest_retag_result {
	int64_t runs;		       /* runs read */
	int64_t retagged;	       /* runs whose tags changed */
	int64_t added[INGEST_NTAGS];   /* per tag bit: runs that gained it */
	int64_t removed[INGEST_NTAGS]; /* and lost it */
	int64_t keys_changed;	       /* keys whose standing run is another now */
};
/* Applies the tag rules (ingest_record_tags, with cfg's quiet limits) and the key rule (replayed
 * over each key's runs in the order they were stored, with cfg's machine settings recorded
 * first) to every stored run, parsing each run's canonical JSON again (parsers->native). who is
 * recorded in the audit when something changed. */
int ingest_retag(struct ingest_retag_result *out, struct store *st,
		 const struct ingest_parsers *parsers, const struct config *cfg, const char *who,
		 int dry_run, struct bl_error *err);

/* Why a stored run is where it is (`records --why`): its record read back from its stored
 * JSON (parsers->native), and its tags with the figures that decide them (its stored p95/median
 * against cfg's limit; the run that holds its key and why), for ingest_tag_why. */
struct ingest_explained {
	struct ingest_batch batch; /* holds the one record */
	const struct ingest_record *record;
	struct ingest_tagged tagged;
	int standing; /* it holds its key */
};
int ingest_explain_run(struct ingest_explained *out, struct store *st,
		       const struct ingest_parsers *parsers, const struct config *cfg,
		       int64_t run_id, struct bl_error *err);
void ingest_explained_release(struct ingest_explained *e);

/* Which runs rm removes: ids, or the filters (each NULL for any, at least one given; commit a
 * prefix of hex digits, 4 to 40). why is required unless dry_run. */
struct ingest_rm_request {
	const int64_t *ids;
	size_t nids;
	const char *machine, *benchmark, *commit;
	const char *who, *why;
	int dry_run;
};
/* One run removed (or that a dry run would remove), told once all are settled. */
struct ingest_removed {
	int64_t id;
	const char *machine, *benchmark, *config, *commit, *source_hash;
	int64_t harness_version;
	int standing;	      /* it stood for its key */
	int64_t now_standing; /* the run that stands for its key after, 0 when none */
};
typedef void ingest_removed_fn(void *data, const struct ingest_removed *r);
struct ingest_rm_result {
	int64_t removed;      /* runs removed */
	int64_t keys_changed; /* keys whose standing run was removed, another standing now */
	int64_t keys_emptied; /* keys left with no run */
};
/* Removes the runs with what refers to them (store_admin_remove_run: the next detect reads every
 * Series), then settles each key they were runs of by the key rule over the runs left. fn (may be
 * NULL) hears of each run, by id. BL_ENOTFOUND naming the id when an id is no run, or when the
 * filters take none; nothing is removed then. */
int ingest_rm(struct ingest_rm_result *out, struct store *st, const struct ingest_rm_request *req,
	      ingest_removed_fn *fn, void *data, struct bl_error *err);

/* benchline.json's machine settings (machines.NAME.keep) recorded in the store, as every
 * intake does before it stores a record. */
int ingest_record_machine_settings(struct store *st, const struct config *cfg,
				   struct bl_error *err);

#endif
