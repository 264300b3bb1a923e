/*
 * The intake use case (ingest.h): one way in for records, whether a command reads them from
 * files or a sweep machine pushes them to the server, so the same run is parsed, completed,
 * tagged and stored the same way however it arrived.
 */
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <pthread.h>
#include <unistd.h>

#include "ingest/ingest.h"
#include "store/store.h"
#include "ingest/repo/repo.h"

void ingest_intake_init(struct ingest_intake *in, const struct ingest_parsers *parsers)
{
	memset(in, 0, sizeof(*in));
	in->parsers = parsers;
	in->harness_version = -1;
	in->no_hash_hint = "give --repo to compute it";
	config_init(&in->cfg);
	strbuf_init(&in->checkout, 0);
}

void ingest_intake_release(struct ingest_intake *in)
{
	config_release(&in->cfg);
	strbuf_release(&in->checkout);
}

/* benchline.json: repo's, else settings_dir's, else (FILES, MEASURE) the checkout's holding
 * the current directory, whose HEAD a MEASURE takes too. */
static int load_settings(struct ingest_intake *in, struct bl_error *err)
{
	const char *dir = in->repo ? in->repo : in->settings_dir;
	int ret;
	if (dir)
		return config_load(&in->cfg, dir, err);
	if (in->settings == INGEST_SETTINGS_GIVEN)
		return 0;
	if ((ret = config_load_checkout(&in->cfg, &in->checkout, NULL, err)) || !in->checkout.len)
		return ret;
	if (in->settings == INGEST_SETTINGS_MEASURE)
		in->repo = in->checkout.buf;
	else
		in->settings_dir = in->checkout.buf;
	return 0;
}

int ingest_intake_setup(struct ingest_intake *in, struct bl_error *err)
{
	enum result_format f;
	int ret;

	if (in->harness_version < -1)
		return bl_error_set(err, BL_EINVALID, "--harness-version must be 0 or more");
	if ((ret = load_settings(in, err)))
		return ret;
	if (in->settings == INGEST_SETTINGS_GIVEN) {
		if (!in->format)
			in->format = "auto";
	} else {
		struct config_flags flags = {in->machine, in->harness_version, in->format};
		unsigned how = in->settings == INGEST_SETTINGS_MEASURE
				   ? CONFIG_HOST_MACHINE | CONFIG_BENCH_FORMAT
				   : 0;
		if ((ret = config_resolve(&in->resolved, &flags, &in->cfg, how, err)))
			return ret;
		in->machine = in->resolved.machine[0] ? in->resolved.machine : NULL;
		in->harness_version = (long)in->resolved.harness_version;
		in->format = in->resolved.format;
	}
	if (result_format_parse(&f, in->format)) {
		struct strbuf list = STRBUF_INIT;
		result_format_list(&list);
		ret = bl_error_set(err, BL_EINVALID, "unknown format '%s' (%s)", in->format,
				   list.buf);
		strbuf_release(&list);
		return ret;
	}
	if (in->repo) {
		if ((ret = repo_read_head(&in->head, in->repo, &in->cfg, err)))
			return ret;
		in->have_head = 1;
	}
	return 0;
}

/* Fills the source hash of every record that lacks one from the repository, opening it
 * once. */
static int fill_source_hashes(struct ingest_intake *in, struct ingest_batch *batch,
			      const char *file, size_t base, struct bl_error *err)
{
	const char **revs = NULL;
	size_t *index = NULL, nr = 0, alloc = 0, index_alloc = 0;
	char(*hashes)[41] = NULL, (*commits)[41] = NULL;
	int ret = 0;

	for (size_t i = 0; i < batch->nr; i++) {
		if (batch->records[i].source_hash[0])
			continue;
		if (!in->repo) {
			ret = bl_error_set(err, BL_EINVALID, "source.source_hash: missing (%s)",
					   in->no_hash_hint);
			ingest_record_error_prefix(err, file, &batch->records[i], base + i + 1);
			goto done;
		}
		ALLOC_GROW(revs, nr, alloc);
		ALLOC_GROW(index, nr, index_alloc);
		revs[nr] = batch->records[i].commit;
		index[nr++] = i;
	}
	if (!nr)
		goto done;
	hashes = xcalloc(nr, sizeof(*hashes));
	commits = xcalloc(nr, sizeof(*commits));
	if ((ret = repo_source_hash_revs(hashes, commits, in->repo, &in->cfg, revs, nr, err))) {
		/* Name the first record whose commit cannot be hashed (a slow path, errors only).
		 */
		for (size_t k = 0; k < nr; k++) {
			if (repo_source_hash_revs(hashes, commits, in->repo, &in->cfg, revs + k, 1,
						  err)) {
				bl_error_prefix(err, "source.commit");
				ingest_record_error_prefix(err, file, &batch->records[index[k]],
							   base + index[k] + 1);
				goto done;
			}
		}
		bl_error_prefix(err, "%s: source.commit", file);
		goto done;
	}
	for (size_t k = 0; k < nr; k++)
		memcpy(batch->records[index[k]].source_hash, hashes[k], 41);
done:
	free(revs);
	free(index);
	free(hashes);
	free(commits);
	return ret;
}

int ingest_intake_parse(struct ingest_intake *in, struct ingest_batch *out, const char *name,
			const char *text, size_t len, double started_at, struct bl_error *err)
{
	struct ingest_defaults d;
	int ret;

	ingest_defaults_init(&d);
	d.machine = in->machine;
	d.harness_version = in->harness_version;
	d.config = in->config;
	d.started_at = started_at;
	if (in->have_head) {
		d.commit = in->head.commit;
		d.source_hash = in->head.source_hash;
		d.dirty = in->head.dirty;
		d.branch = in->head.branch[0] ? in->head.branch : NULL;
		d.committed_at = in->head.committed_at;
	} else if (in->commit) {
		d.commit = in->commit;
		d.source_hash = in->source_hash;
	}
	if ((ret =
		 in->parsers->parse(out, &in->chosen_format, in->format, name, text, len, &d, err)))
		return ret;
	return fill_source_hashes(in, out, name, 0, err);
}

/* What a read takes at a time. */
#define READ_CHUNK (1 << 16)

/* A NUL byte at text[at], named by line and column: no format benchline reads holds one. */
static int refuse_nul(const char *path, const char *text, size_t at, struct bl_error *err)
{
	struct ingest_json_cursor cur;

	ingest_json_cursor_init(&cur);
	ingest_json_cursor_advance(&cur, text, at);
	return bl_error_set(err, BL_EINVALID,
			    "%s:%d:%d: a NUL byte: not text (no format benchline reads holds one)",
			    path, cur.line, cur.column);
}

/* Whether the records are native ones, read by the native parser (which names a NUL byte by
 * line and column): the format asked for, or the one the text's start says. */
static int native_format(const struct ingest_intake *in, const char *path, const char *text,
			 size_t len)
{
	const char *format = in->format;
	if (!format || !strcmp(format, "auto"))
		format = in->parsers->detect(path, text, len);
	return format && (!strcmp(format, "benchline") || !strcmp(format, "native"));
}

/* A NUL byte at text[nul] (none: (size_t)-1) is refused unless the records are native, whose
 * parser names it by line and column; *as is then the format to parse them with: "benchline",
 * since detection gives up on a NUL byte. Else *as is in->format. */
static int check_nul(const struct ingest_intake *in, const char *path, const char *text, size_t nul,
		     const char **as, struct bl_error *err)
{
	*as = in->format;
	if (nul == (size_t)-1)
		return 0;
	if (!native_format(in, path, text, nul))
		return refuse_nul(path, text, nul, err);
	*as = "benchline";
	return 0;
}

/*
 * Appends what is left of fd to text (up to INGEST_MAX_FILE bytes in all), as it streams in,
 * and stops at the first NUL byte: a device or a pipe (/dev/zero) is never read to the cap
 * first (§13). With eof, fd already ended and is not read again. *nul is the NUL's offset in
 * text, or (size_t)-1 when there is none.
 */
static int read_text_rest(struct strbuf *text, size_t *nul, int fd, int eof, const char *path,
			  struct bl_error *err)
{
	const char *at = memchr(text->buf, '\0', text->len);
	ssize_t n = 0;

	*nul = at ? (size_t)(at - text->buf) : (size_t)-1;
	while (!eof && *nul == (size_t)-1 && (n = read_once(text, fd, READ_CHUNK, path, err)) > 0) {
		if ((at = memchr(text->buf + text->len - (size_t)n, '\0', (size_t)n)))
			*nul = (size_t)(at - text->buf);
		else if (text->len > INGEST_MAX_FILE)
			return too_big(err, path, INGEST_MAX_FILE);
	}
	return *nul == (size_t)-1 && n < 0 ? (int)n : 0;
}

/* Closes what open_capped opened: never standard input (fd 0), nor nothing (-1). */
static void close_input(int fd)
{
	if (fd > 0)
		close(fd);
}

int ingest_intake_read(struct ingest_intake *in, struct ingest_batch *out, const char *path,
		       struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	const char *as, *saved;
	size_t nul;
	int fd = -1, ret;

	/* A criterion target directory is read by its adapter. */
	if (strcmp(path, "-") && stat(path, &st) == 0 && S_ISDIR(st.st_mode))
		return ingest_intake_parse(in, out, path, NULL, 0, NAN, err);
	if ((ret = open_capped(&fd, path, INGEST_MAX_FILE, err)) ||
	    (ret = read_text_rest(&text, &nul, fd, 0, path, err)))
		goto done;
	/* A NUL byte: the native parser names where it is; any other format is refused. */
	if ((ret = check_nul(in, path, text.buf, nul, &as, err)))
		goto done;
	saved = in->format;
	in->format = as;
	ret = ingest_intake_parse(in, out, path, text.buf, text.len, NAN, err);
	in->format = saved;
done:
	close_input(fd);
	strbuf_release(&text);
	return ret;
}

/* BL_EDENIED when a record names a machine the pushing token may not push. */
static int check_machines(struct ingest_intake *in, const char *name, struct ingest_batch *batch,
			  size_t base, struct bl_error *err)
{
	for (size_t i = 0; in->machine_glob && i < batch->nr; i++)
		if (!glob_match(in->machine_glob, batch->records[i].machine))
			return bl_error_set(err, BL_EDENIED,
					    "%s: record %zu: this token may not push machine %s",
					    name, base + i + 1, batch->records[i].machine);
	return 0;
}

int ingest_record_machine_settings(struct store *st, const struct config *cfg, struct bl_error *err)
{
	int ret;
	for (size_t i = 0; i < cfg->n_keep_first; i++)
		if ((ret = store_set_machine_keep(st, cfg->keep_first_machines[i], 1, err)))
			return ret;
	return 0;
}

/* How many records a streamed file hands on at a time: enough that a repository is opened
 * once for many source hashes, few enough that they are a small part of memory. */
#define STREAM_PIECE 256

/*
 * A large native file, parsed on one thread while another stores it. The parse thread reads,
 * checks, completes and marks the records and stages them on disk, a piece at a time; the
 * writer (the caller's thread, which alone talks to the store) stores what is staged, a chunk
 * of INGEST_CHUNK records at a time, in the file's one transaction. The chunks are the same
 * whatever the timing (each waits until its INGEST_CHUNK records are staged, or the file has
 * ended), and so are the rows and outcomes: a writer stores as one record at a time would.
 *
 * The write lock is not waited for while the file may still turn out bad: until the parse has
 * ended, the writer only tries the lock (again at each chunk staged meanwhile), and once the
 * parse has ended it waits for it as any writer does. A bad record ends the parse with its
 * file:line:column message, and the writer, having stored part of the file or nothing, rolls
 * back: nothing of the file is stored.
 */
struct streamed {
	struct ingest_intake *in;
	const char *path; /* the name that prefixes errors */
	ingest_produce_fn *produce;
	void *produce_data;
	ingest_mark_fn *mark;
	void *mark_data;
	struct ingest_batch piece; /* records parsed and not yet staged */
	struct ingest_stage *stage;
	struct bl_error err; /* the parse's error */

	/* shared by the two threads, under lock */
	pthread_mutex_t lock;
	pthread_cond_t moved;
	size_t staged;	/* records flushed to the stage */
	uint64_t bytes; /* and their bytes */
	int done;	/* the parse has ended, with ret */
	int ret;
	int stop; /* the writer failed: the parse ends at its next piece */
};

/* Completes, marks and stages the records parsed since the last piece, and tells the writer. */
static int stage_piece(struct streamed *s, struct bl_error *err)
{
	size_t base = s->stage->nr;
	int ret = 0, stop;

	if (!s->piece.nr)
		return 0;
	if ((ret = fill_source_hashes(s->in, &s->piece, s->path, base, err)) ||
	    (s->mark && (ret = s->mark(&s->piece, s->path, s->mark_data, err))) ||
	    (ret = check_machines(s->in, s->path, &s->piece, base, err)))
		goto done;
	for (size_t i = 0; i < s->piece.nr && !ret; i++)
		ret = ingest_stage_add(s->stage, &s->piece.records[i], err);
	if (ret || (ret = ingest_stage_flush(s->stage, err)))
		goto done;
	pthread_mutex_lock(&s->lock);
	s->staged = s->stage->nr;
	s->bytes = s->stage->bytes;
	stop = s->stop;
	pthread_cond_broadcast(&s->moved);
	pthread_mutex_unlock(&s->lock);
	if (stop)
		ret = bl_error_set(err, BL_EINVALID, "%s: not read further", s->path);
done:
	for (size_t i = 0; i < s->piece.nr; i++)
		ingest_record_release(&s->piece.records[i]);
	s->piece.nr = 0;
	return ret;
}

static int take_streamed(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct streamed *s = data;
	ALLOC_GROW(s->piece.records, s->piece.nr, s->piece.alloc);
	s->piece.records[s->piece.nr++] = *rec;
	memset(rec, 0, sizeof(*rec));
	return s->piece.nr >= STREAM_PIECE ? stage_piece(s, err) : 0;
}

/* The parse thread: the rest of the file, staged; then the end, told. */
static void *parse_streamed(void *data)
{
	struct streamed *s = data;
	int ret = s->produce(s->produce_data, take_streamed, s, &s->err);
	if (!ret)
		ret = stage_piece(s, &s->err);
	pthread_mutex_lock(&s->lock);
	s->done = 1;
	s->ret = ret;
	pthread_cond_broadcast(&s->moved);
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

/* What store_streamed returns when the parse failed: its error is the file's. */
#define PARSE_FAILED 1

/* The writer's side: the staged records stored, a chunk at a time, in one transaction; their
 * results kept in the stage. PARSE_FAILED (err not set) when the parse failed. */
static int store_streamed(struct streamed *s, struct store *st, struct bl_error *err)
{
	struct ingest_options opts = {s->in->cfg.noisy_limit, s->in->cfg.min_samples, NULL};
	struct ingest_writer *w = ingest_writer_new(st, &opts);
	struct ingest_stage_result *res = xcalloc(INGEST_CHUNK, sizeof(*res));
	struct ingest_stage_reader rd;
	size_t stored = 0, try_at = INGEST_CHUNK;
	int begun = 0, ret = 0;

	ingest_stage_reader_init(&rd);
	for (;;) {
		size_t staged;
		uint64_t bytes;
		int done, failed;

		/* a chunk to store (or, before the lock is taken, to try it again at), or the end
		 */
		pthread_mutex_lock(&s->lock);
		while (!s->done && s->staged < (begun ? stored + INGEST_CHUNK : try_at))
			pthread_cond_wait(&s->moved, &s->lock);
		staged = s->staged;
		bytes = s->bytes;
		done = s->done;
		failed = s->done && s->ret;
		pthread_mutex_unlock(&s->lock);
		if (failed) {
			ret = PARSE_FAILED;
			break;
		}
		if (!begun) {
			ret = ingest_writer_begin(w, done, err);
			if (ret == BL_EBUSY && !done) {
				bl_error_clear(err);
				ret = 0;
				try_at = staged + INGEST_CHUNK;
				continue;
			}
			if (ret || (ret = ingest_record_machine_settings(st, &s->in->cfg, err)))
				break;
			begun = 1;
		}
		while (!ret && stored < staged && (staged - stored >= INGEST_CHUNK || done)) {
			if ((ret = ingest_stage_read(&rd, s->stage, bytes, INGEST_CHUNK, err)) ||
			    (ret = ingest_writer_store(w, rd.recs, rd.nr, res, err)))
				break;
			for (size_t i = 0; i < rd.nr && !ret; i++)
				ret = ingest_stage_put_result(s->stage, &res[i], err);
			stored += rd.nr;
		}
		if (ret || done)
			break;
	}
	if (!ret && stored != s->staged)
		ret = bl_error_set(err, BL_EIO, "%s: %zu records staged, %zu stored", s->path,
				   s->staged, stored);
	if (!ret)
		ret = ingest_writer_commit(w, err);
	ingest_writer_free(w);
	ingest_stage_reader_release(&rd);
	free(res);
	return ret;
}

int ingest_intake_records(struct ingest_intake *in, struct store *st, const char *name,
			  ingest_produce_fn *produce, void *produce_data, ingest_mark_fn *mark,
			  void *mark_data, ingest_report_fn *fn, void *data, struct bl_error *err)
{
	struct ingest_stage stage;
	struct streamed s;
	const struct ingest_record *rec;
	pthread_t parser;
	int ret;

	memset(&s, 0, sizeof(s));
	s.in = in;
	s.path = name;
	s.produce = produce;
	s.produce_data = produce_data;
	s.mark = mark;
	s.mark_data = mark_data;
	s.stage = &stage;
	strbuf_init(&s.err.msg, 0);
	ingest_stage_init(&stage);
	pthread_mutex_init(&s.lock, NULL);
	pthread_cond_init(&s.moved, NULL);
	if ((ret = pthread_create(&parser, NULL, parse_streamed, &s))) {
		ret = bl_error_set(err, BL_EIO, "cannot start a thread: %s", strerror(ret));
		goto done;
	}
	ret = store_streamed(&s, st, err);
	if (ret && ret != PARSE_FAILED) {
		/* the writer failed: the parse need not go on */
		pthread_mutex_lock(&s.lock);
		s.stop = 1;
		pthread_mutex_unlock(&s.lock);
	}
	pthread_join(parser, NULL);
	if (ret == PARSE_FAILED) {
		ret = bl_error_set_kind(err, s.err.kind, s.ret, "%s", s.err.msg.buf);
		goto done;
	}
	if (ret) {
		bl_error_prefix(err, "%s", name);
		goto done;
	}
	if ((ret = ingest_stage_rewind(&stage, err)))
		goto done;
	for (size_t i = 0; (ret = ingest_stage_next(&rec, &stage, err)) > 0; i++) {
		struct ingest_stage_result res;
		if ((ret = ingest_stage_get_result(&res, &stage, err)))
			break;
		fn(data, i, rec, res.run_id, res.outcome, &res.tagged);
	}
done:
	ingest_batch_release(&s.piece);
	ingest_stage_release(&stage);
	pthread_cond_destroy(&s.moved);
	pthread_mutex_destroy(&s.lock);
	bl_error_release(&s.err);
	return ret < 0 ? ret : 0;
}

/* The rest of a large native file, read from fd as it is parsed. */
struct native_rest {
	struct ingest_intake *in;
	const char *path;
	int fd;
	const struct strbuf *start;
};

static int produce_native(void *data, ingest_record_fn *fn, void *fn_data, struct bl_error *err)
{
	struct native_rest *n = data;
	return n->in->parsers->native_fd(n->path, n->fd, n->start->buf, n->start->len, fn, fn_data,
					 err);
}

/* The rest of a large native file, staged as it is parsed, then stored. */
static int intake_streamed(struct ingest_intake *in, struct store *st, const char *path, int fd,
			   const struct strbuf *start, ingest_mark_fn *mark, void *mark_data,
			   ingest_report_fn *fn, void *data, struct bl_error *err)
{
	struct native_rest rest = {in, path, fd, start};

	in->chosen_format = "benchline";
	return ingest_intake_records(in, st, path, produce_native, &rest, mark, mark_data, fn, data,
				     err);
}

/* A whole document (or a small file) in memory: parsed, marked, stored, reported. */
static int intake_whole(struct ingest_intake *in, struct store *st, const char *path,
			const char *text, size_t len, ingest_mark_fn *mark, void *mark_data,
			ingest_report_fn *fn, void *data, struct bl_error *err)
{
	struct ingest_batch batch = {NULL, 0, 0};
	enum ingest_outcome *outcomes = NULL;
	struct ingest_tagged *tagged = NULL, *saved = in->tagged;
	int64_t *ids = NULL;
	int ret;

	if ((ret = ingest_intake_parse(in, &batch, path, text, len, NAN, err)) ||
	    (mark && (ret = mark(&batch, path, mark_data, err))))
		goto done;
	outcomes = xcalloc(batch.nr ? batch.nr : 1, sizeof(*outcomes));
	ids = xcalloc(batch.nr ? batch.nr : 1, sizeof(*ids));
	tagged = xcalloc(batch.nr ? batch.nr : 1, sizeof(*tagged));
	in->tagged = tagged;
	ret = ingest_intake_store(in, st, path, &batch, outcomes, ids, err);
	in->tagged = saved;
	for (size_t i = 0; !ret && i < batch.nr; i++)
		fn(data, i, &batch.records[i], ids[i], outcomes[i], &tagged[i]);
done:
	free(outcomes);
	free(ids);
	free(tagged);
	ingest_batch_release(&batch);
	return ret;
}

/* What a first read takes: a file that ends within it is read whole, as before streaming. */
#define FIRST_READ (1 << 16)

int ingest_intake_file(struct ingest_intake *in, struct store *st, const char *path,
		       ingest_mark_fn *mark, void *mark_data, ingest_report_fn *fn, void *data,
		       struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	const char *format = in->format, *as, *saved;
	struct stat sb;
	size_t nul;
	int fd = -1, eof = 0, ret = 0;

	if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode))
		return intake_whole(in, st, path, NULL, 0, mark, mark_data, fn, data, err);
	if ((ret = open_capped(&fd, path, INGEST_MAX_FILE, err)))
		return ret;
	while (!eof && text.len < FIRST_READ) {
		ssize_t n = read_once(&text, fd, FIRST_READ - text.len, path, err);
		if (n < 0) {
			ret = (int)n;
			goto done;
		}
		eof = n == 0;
	}
	if (!eof && !strcmp(format, "auto"))
		format = in->parsers->detect(path, text.buf, text.len);
	if (!eof && format && (!strcmp(format, "benchline") || !strcmp(format, "native"))) {
		/* streamed: the native parser stops at the first thing wrong, a NUL byte too */
		ret = intake_streamed(in, st, path, fd, &text, mark, mark_data, fn, data, err);
		goto done;
	}
	/* a whole document: the rest of it read into memory, but never past a NUL byte */
	if ((ret = read_text_rest(&text, &nul, fd, eof, path, err)) ||
	    (ret = check_nul(in, path, text.buf, nul, &as, err)))
		goto done;
	saved = in->format;
	in->format = as;
	ret = intake_whole(in, st, path, text.buf, text.len, mark, mark_data, fn, data, err);
	in->format = saved;
done:
	close_input(fd);
	strbuf_release(&text);
	return ret;
}

int ingest_intake_store(struct ingest_intake *in, struct store *st, const char *name,
			struct ingest_batch *batch, enum ingest_outcome *outcomes, int64_t *run_ids,
			struct bl_error *err)
{
	struct ingest_options opts = {in->cfg.noisy_limit, in->cfg.min_samples, in->tagged};
	int ret;

	if ((ret = check_machines(in, name, batch, 0, err)) ||
	    (ret = ingest_record_machine_settings(st, &in->cfg, err)))
		return ret;
	if ((ret = ingest_store(st, batch, &opts, outcomes, run_ids, err)))
		bl_error_prefix(err, "%s", name);
	return ret;
}

/* A record's canonical JSON with its source hash in its source object. */
static int add_with_source_hash(struct strbuf *out, const struct ingest_record *rec,
				struct bl_error *err)
{
	json_t *obj = json_loads(rec->raw, 0, NULL), *src;
	int ret = 0;

	src = json_is_object(obj) ? json_object_get(obj, "source") : NULL;
	if (!json_is_object(src)) {
		ret = bl_error_set(err, BL_EINVALID, "cannot read a record's JSON");
		goto done;
	}
	json_object_set_new(src, "source_hash", json_string(rec->source_hash));
	if (json_write(out, obj, JSON_WRITE_CANONICAL))
		ret = bl_error_set(err, BL_EINVALID, "cannot encode a record as JSON");
done:
	json_decref(obj);
	return ret;
}

int ingest_intake_body(struct strbuf *out, const struct ingest_batch *batch, struct bl_error *err)
{
	struct strbuf pair = STRBUF_INIT;
	int ret = 0;

	for (size_t i = 0; i < batch->nr; i++) {
		const struct ingest_record *rec = &batch->records[i];
		/* Canonical JSON is compact: the pair is there exactly when the record carries its
		 * hash; only the records whose hash the intake computed are rewritten. */
		strbuf_reset(&pair);
		strbuf_addf(&pair, "\"source_hash\":\"%s\"", rec->source_hash);
		if (strstr(rec->raw, pair.buf))
			strbuf_addstr(out, rec->raw);
		else if ((ret = add_with_source_hash(out, rec, err))) {
			bl_error_prefix(err, "record %zu", i + 1);
			break;
		}
		strbuf_addch(out, '\n');
	}
	strbuf_release(&pair);
	return ret;
}

/* Each outcome's names: in JSON, and in the line a terminal shows. */
static const struct {
	const char *name, *phrase;
} outcome_names[] = {
    [INGEST_STANDS] = {"stands", "stands"},
    [INGEST_SUPERSEDED] = {"superseded", "superseded"},
    [INGEST_DUPLICATE] = {"duplicate", "already stored"},
};

const char *ingest_outcome_name(enum ingest_outcome o)
{
	return outcome_names[o].name;
}

int ingest_outcome_parse(enum ingest_outcome *out, const char *name)
{
	for (size_t i = 0; i < sizeof(outcome_names) / sizeof(*outcome_names); i++) {
		if (name && !strcmp(outcome_names[i].name, name)) {
			*out = (enum ingest_outcome)i;
			return 0;
		}
	}
	return BL_EINVALID;
}

const char *ingest_outcome_phrase(enum ingest_outcome o)
{
	return outcome_names[o].phrase;
}

json_t *ingest_outcome_json(const char *file, size_t index, const struct ingest_record *rec,
			    int64_t run_id, enum ingest_outcome o)
{
	json_t *row = json_object();
	if (file)
		json_object_set_new(row, "file", json_string(file));
	json_object_set_new(row, "record", json_integer((json_int_t)index + 1));
	json_object_set_new(row, "id", json_integer(run_id));
	json_object_set_new(row, "machine", json_string(rec->machine));
	json_object_set_new(row, "benchmark", json_string(rec->benchmark));
	json_object_set_new(row, "config", json_string(rec->config));
	json_object_set_new(row, "source_hash", json_string(rec->source_hash));
	json_object_set_new(row, "harness_version", json_integer(rec->harness_version));
	json_object_set_new(row, "baseline", json_boolean(rec->baseline));
	json_object_set_new(row, "outcome", json_string(ingest_outcome_name(o)));
	return row;
}

static const char *const tag_names[INGEST_NTAGS] = {
    "dirty", "noisy", "not-main", "preflight", "profile", "superseded",
};

const char *ingest_tag_name(unsigned i)
{
	return i < INGEST_NTAGS ? tag_names[i] : "?";
}

void ingest_tag_why(struct strbuf *out, unsigned i, const struct ingest_record *rec,
		    const struct ingest_tagged *t)
{
	switch (1u << i) {
	case INGEST_TAG_DIRTY:
		strbuf_addf(out, "its measured paths differed from commit %.12s", rec->commit);
		break;
	case INGEST_TAG_NOISY:
		if (isnan(t->quietness))
			strbuf_addstr(out, "p95/median over the limit");
		else
			strbuf_addf(out, "p95/median %.3g >= %.3g", t->quietness, t->noisy_limit);
		break;
	case INGEST_TAG_NOT_MAIN:
		strbuf_addf(out, "commit %.12s is not on main", rec->commit);
		break;
	case INGEST_TAG_PREFLIGHT:
		strbuf_addstr(out, "preflight found the machine busy");
		break;
	case INGEST_TAG_PROFILE:
		strbuf_addf(out, "profile '%s', not release", rec->profile);
		break;
	case INGEST_TAG_SUPERSEDED:
		if (t->kept == INGEST_KEPT_FIRST)
			strbuf_addf(out, "machine %s keeps the first run of a key (run %lld)",
				    rec->machine, (long long)t->standing);
		else if (t->kept == INGEST_KEPT_CLEAN)
			strbuf_addf(out, "run %lld, with no quality tag, holds its key",
				    (long long)t->standing);
		else if (t->kept == INGEST_KEPT_QUIETER && !isnan(t->standing_quietness) &&
			 !isnan(t->quietness))
			strbuf_addf(out, "run %lld holds its key: p95/median %.3g <= %.3g",
				    (long long)t->standing, t->standing_quietness, t->quietness);
		else if (t->kept == INGEST_KEPT_QUIETER)
			strbuf_addf(out, "run %lld holds its key", (long long)t->standing);
		else
			strbuf_addstr(out, "another run holds its key");
		break;
	}
}

void ingest_outcome_text(struct strbuf *out, const json_t *row)
{
	const char *config = json_string_value(json_object_get(row, "config"));
	const char *outcome = json_string_value(json_object_get(row, "outcome"));
	json_t *tags = json_object_get(row, "tags"), *why = json_object_get(row, "why"), *tag;
	enum ingest_outcome o = INGEST_DUPLICATE;
	size_t i, listed = 0;

	ingest_outcome_parse(&o, outcome);
	strbuf_addf(out, "%s/%s%s%s %.12s harness %lld: %s",
		    json_string_value(json_object_get(row, "machine")),
		    json_string_value(json_object_get(row, "benchmark")),
		    config && config[0] ? " " : "", config ? config : "",
		    json_string_value(json_object_get(row, "source_hash")),
		    (long long)json_integer_value(json_object_get(row, "harness_version")),
		    ingest_outcome_phrase(o));
	/* a superseded run says why right after its outcome, the other tags after "tagged" */
	if (o == INGEST_SUPERSEDED) {
		const char *reason = json_string_value(json_object_get(why, "superseded"));
		if (reason)
			strbuf_addf(out, " (%s)", reason);
	}
	json_array_foreach (tags, i, tag) {
		const char *name = json_string_value(tag);
		const char *reason = name ? json_string_value(json_object_get(why, name)) : NULL;
		if (!name || (o == INGEST_SUPERSEDED && !strcmp(name, "superseded")))
			continue;
		strbuf_addstr(out, listed++ ? ", " : ", tagged ");
		strbuf_addstr(out, name);
		if (reason)
			strbuf_addf(out, " (%s)", reason);
	}
	if (json_array_size(tags))
		strbuf_addstr(out, ": not on its Series");
}

void ingest_outcome_add_tags(json_t *row, const struct ingest_record *rec,
			     const struct ingest_tagged *t)
{
	json_t *tags = json_array(), *why = json_object();
	struct strbuf sb = STRBUF_INIT;
	for (unsigned i = 0; i < INGEST_NTAGS; i++) {
		if (!(t->tags & (1u << i)))
			continue;
		strbuf_reset(&sb);
		ingest_tag_why(&sb, i, rec, t);
		json_array_append_new(tags, json_string(tag_names[i]));
		json_object_set_new(why, tag_names[i], json_string_or_null(sb.buf));
	}
	json_object_set_new(row, "tags", tags);
	json_object_set_new(row, "why", why);
	strbuf_release(&sb);
}
