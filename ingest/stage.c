/*
 * A file's records staged on disk (ingest.h): each parsed record is packed into a temporary
 * file as soon as it is checked, so a file of any size is held in memory a few records at a
 * time. One thread adds records while another reads them back (a reader, by pread at offsets
 * of its own, never the writer's stream): the intake parses a file on one thread while its
 * writer stores what was staged so far on the other.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ingest/ingest.h"

/* A string's length in the packing when the string is NULL. */
#define NO_STRING UINT32_MAX

void ingest_stage_init(struct ingest_stage *sg)
{
	memset(sg, 0, sizeof(*sg));
	strbuf_init(&sg->buf, 0);
	sg->fd = -1;
	ingest_stage_reader_init(&sg->reader);
}

void ingest_stage_release(struct ingest_stage *sg)
{
	if (sg->records)
		fclose(sg->records);
	if (sg->results)
		fclose(sg->results);
	strbuf_release(&sg->buf);
	ingest_stage_reader_release(&sg->reader);
	memset(sg, 0, sizeof(*sg));
	strbuf_init(&sg->buf, 0);
	sg->fd = -1;
	ingest_stage_reader_init(&sg->reader);
}

/* A temporary file in $TMPDIR (else /tmp), gone once closed. */
static int open_temp(FILE **out, struct bl_error *err)
{
	const char *dir = getenv("TMPDIR");
	struct strbuf path = STRBUF_INIT;
	int fd, ret = 0;

	strbuf_addf(&path, "%s/benchline-stage.XXXXXX", dir && *dir ? dir : "/tmp");
	fd = mkstemp(path.buf);
	if (fd < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot create a temporary file in '%s': %s",
				   dir && *dir ? dir : "/tmp", strerror(errno));
		goto done;
	}
	unlink(path.buf);
	if (!(*out = fdopen(fd, "w+b"))) {
		close(fd);
		ret =
		    bl_error_set(err, BL_EIO, "cannot open a temporary file: %s", strerror(errno));
	}
done:
	strbuf_release(&path);
	return ret;
}

static void put(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_add(sb, data, len);
}

static void put_u32(struct strbuf *sb, uint32_t v)
{
	put(sb, &v, sizeof(v));
}

static void put_str(struct strbuf *sb, const char *s)
{
	uint32_t len = s ? (uint32_t)strlen(s) : NO_STRING;
	put_u32(sb, len);
	if (s)
		put(sb, s, (size_t)len + 1);
}

/* Pads to a multiple of 8 bytes, so doubles can be read in place. */
static void put_align(struct strbuf *sb)
{
	static const char zeros[8];
	put(sb, zeros, (8 - sb->len % 8) % 8);
}

/* Where pack puts things a reader needs before unpacking: after the two 32-bit words (the
 * length, padding), ints[], whose last is the count of metrics, then reals[]. */
#define PACKED_NINTS	   8
#define PACKED_NMETRICS_AT (8 + (PACKED_NINTS - 1) * 8)
/* The least a packed record takes: its length, padding, the integers and the reals. */
#define PACKED_MIN (8 + PACKED_NINTS * 8 + 2 * 8)

static void pack(struct strbuf *sb, const struct ingest_record *rec)
{
	int64_t ints[PACKED_NINTS] = {
	    rec->harness_version, rec->dirty, rec->baseline, rec->has_preflight,
	    rec->preflight_quiet, rec->line,  rec->column,   (int64_t)rec->nmetrics};
	double reals[] = {rec->committed_at, rec->started_at};

	strbuf_setlen(sb, 0);
	put_u32(sb, 0); /* the length, filled in below */
	put_u32(sb, 0);
	put(sb, ints, sizeof(ints));
	put(sb, reals, sizeof(reals));
	put(sb, rec->commit, sizeof(rec->commit));
	put(sb, rec->source_hash, sizeof(rec->source_hash));
	put(sb, rec->digest, sizeof(rec->digest));
	put_str(sb, rec->machine);
	put_str(sb, rec->machine_info);
	put_str(sb, rec->benchmark);
	put_str(sb, rec->config);
	put_str(sb, rec->content_hash);
	put_str(sb, rec->branch);
	put_str(sb, rec->profile);
	put_str(sb, rec->primary);
	put_str(sb, rec->raw);
	for (size_t i = 0; i < rec->nmetrics; i++) {
		const struct ingest_metric *m = &rec->metrics[i];
		int64_t mints[] = {m->kind, m->better_higher, m->n, (int64_t)m->nsamples,
				   m->samples != NULL};
		double mreals[] = {m->median, m->p95, m->value};
		put_str(sb, m->name);
		put_str(sb, m->unit);
		put_str(sb, m->ladder);
		put_align(sb);
		put(sb, mints, sizeof(mints));
		put(sb, mreals, sizeof(mreals));
		if (m->samples)
			put(sb, m->samples, m->nsamples * sizeof(double));
	}
	/* each record a multiple of 8 bytes, so the next one's doubles are aligned where a
	 * reader's buffer holds it */
	put_align(sb);
	uint32_t len = (uint32_t)sb->len;
	memcpy(sb->buf, &len, sizeof(len));
}

int ingest_stage_add(struct ingest_stage *sg, const struct ingest_record *rec, struct bl_error *err)
{
	int ret;

	if (!sg->records) {
		if ((ret = open_temp(&sg->records, err)))
			return ret;
		sg->fd = fileno(sg->records);
	}
	pack(&sg->buf, rec);
	if (fwrite(sg->buf.buf, 1, sg->buf.len, sg->records) != sg->buf.len)
		return bl_error_set(err, BL_EIO, "cannot write a temporary file: %s",
				    strerror(errno));
	sg->nr++;
	sg->bytes += sg->buf.len;
	return 0;
}

int ingest_stage_flush(struct ingest_stage *sg, struct bl_error *err)
{
	if (sg->records && fflush(sg->records))
		return bl_error_set(err, BL_EIO, "cannot write a temporary file: %s",
				    strerror(errno));
	return 0;
}

int ingest_stage_rewind(struct ingest_stage *sg, struct bl_error *err)
{
	int ret;
	if ((ret = ingest_stage_flush(sg, err)))
		return ret;
	ingest_stage_reader_release(&sg->reader);
	ingest_stage_reader_init(&sg->reader);
	if (sg->results && (fflush(sg->results) || fseek(sg->results, 0, SEEK_SET)))
		return bl_error_set(err, BL_EIO, "cannot read a temporary file: %s",
				    strerror(errno));
	return 0;
}

/* Reading back what pack wrote; the record's strings and samples point into the buffer. */
struct reader {
	const char *p, *end;
	int bad;
};

static const void *take(struct reader *r, size_t len)
{
	const char *at = r->p;
	if ((size_t)(r->end - r->p) < len) {
		r->bad = 1;
		return NULL;
	}
	r->p += len;
	return at;
}

static char *take_str(struct reader *r)
{
	uint32_t len;
	const void *at = take(r, sizeof(len));
	if (!at)
		return NULL;
	memcpy(&len, at, sizeof(len));
	if (len == NO_STRING)
		return NULL;
	return (char *)take(r, (size_t)len + 1);
}

static void take_align(struct reader *r, const char *base)
{
	take(r, (8 - (size_t)(r->p - base) % 8) % 8);
}

/* The record packed at p (len bytes, a multiple of 8 from an 8-aligned address) into rec, its
 * metrics into metrics (rec's count of them), its strings and samples pointing into p. */
static int unpack(struct ingest_record *rec, struct ingest_metric *metrics, const char *p,
		  size_t len, struct bl_error *err)
{
	struct reader r = {p, p + len, 0};
	int64_t ints[PACKED_NINTS];
	double reals[2];
	const void *at;

	memset(rec, 0, sizeof(*rec));
	take(&r, 8);
	if ((at = take(&r, sizeof(ints))))
		memcpy(ints, at, sizeof(ints));
	if ((at = take(&r, sizeof(reals))))
		memcpy(reals, at, sizeof(reals));
	if ((at = take(&r, 3 * 41))) {
		memcpy(rec->commit, at, 41);
		memcpy(rec->source_hash, (const char *)at + 41, 41);
		memcpy(rec->digest, (const char *)at + 82, 41);
	}
	if (r.bad)
		goto bad;
	rec->harness_version = ints[0];
	rec->dirty = (int)ints[1];
	rec->baseline = (int)ints[2];
	rec->has_preflight = (int)ints[3];
	rec->preflight_quiet = (int)ints[4];
	rec->line = (int)ints[5];
	rec->column = (int)ints[6];
	rec->nmetrics = (size_t)ints[7];
	rec->committed_at = reals[0];
	rec->started_at = reals[1];
	rec->machine = take_str(&r);
	rec->machine_info = take_str(&r);
	rec->benchmark = take_str(&r);
	rec->config = take_str(&r);
	rec->content_hash = take_str(&r);
	rec->branch = take_str(&r);
	rec->profile = take_str(&r);
	rec->primary = take_str(&r);
	rec->raw = take_str(&r);
	if (r.bad || rec->nmetrics > (size_t)(r.end - r.p))
		goto bad;
	rec->metrics = metrics;
	for (size_t i = 0; i < rec->nmetrics; i++) {
		struct ingest_metric *m = &metrics[i];
		int64_t mints[5];
		double mreals[3];
		memset(m, 0, sizeof(*m));
		m->name = take_str(&r);
		m->unit = take_str(&r);
		m->ladder = take_str(&r);
		take_align(&r, p);
		if ((at = take(&r, sizeof(mints))))
			memcpy(mints, at, sizeof(mints));
		if ((at = take(&r, sizeof(mreals))))
			memcpy(mreals, at, sizeof(mreals));
		if (r.bad)
			goto bad;
		m->kind = (enum metric_kind)mints[0];
		m->better_higher = (int)mints[1];
		m->n = mints[2];
		m->nsamples = (size_t)mints[3];
		m->median = mreals[0];
		m->p95 = mreals[1];
		m->value = mreals[2];
		if (mints[4] && !(m->samples = (double *)take(&r, m->nsamples * sizeof(double))))
			goto bad;
	}
	if (!r.bad && rec->machine && rec->benchmark && rec->config && rec->profile && rec->raw)
		return 0;
bad:
	return bl_error_set(err, BL_EIO, "a temporary file was damaged");
}

void ingest_stage_reader_init(struct ingest_stage_reader *r)
{
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->buf, 0);
}

void ingest_stage_reader_release(struct ingest_stage_reader *r)
{
	strbuf_release(&r->buf);
	free(r->recs);
	free(r->metrics);
	memset(r, 0, sizeof(*r));
	strbuf_init(&r->buf, 0);
}

/* What one pread asks for at most: a few hundred records, whatever their size. */
#define READ_BLOCK (1 << 20)

/* The length a packed record at p says it has. */
static uint32_t packed_len(const char *p)
{
	uint32_t n;
	memcpy(&n, p, sizeof(n));
	return n;
}

int ingest_stage_read(struct ingest_stage_reader *r, const struct ingest_stage *sg, uint64_t bytes,
		      size_t max, struct bl_error *err)
{
	size_t nmetrics = 0, off;

	r->nr = 0;
	for (off = r->pos; r->nr < max;) {
		size_t have = r->buf.len - off, want;
		ssize_t got;
		if (have >= sizeof(uint32_t)) {
			uint32_t len = packed_len(r->buf.buf + off);
			int64_t count;
			if (len < PACKED_MIN || len % 8)
				goto damaged;
			if (len <= have) {
				memcpy(&count, r->buf.buf + off + PACKED_NMETRICS_AT,
				       sizeof(count));
				if (count < 0 || (uint64_t)count > len)
					goto damaged;
				ALLOC_GROW(r->recs, r->nr, r->alloc);
				r->nr++;
				nmetrics += (size_t)count;
				off += len;
				continue;
			}
		}
		if (r->at >= bytes) {
			if (have) /* only whole records are ever flushed */
				goto damaged;
			break;
		}
		/* before reading more, what the last read handed out goes: the rest moves to
		 * the (aligned) start */
		if (r->pos) {
			memmove(r->buf.buf, r->buf.buf + r->pos, r->buf.len - r->pos);
			strbuf_setlen(&r->buf, r->buf.len - r->pos);
			off -= r->pos;
			r->pos = 0;
		}
		want = bytes - r->at < READ_BLOCK ? (size_t)(bytes - r->at) : READ_BLOCK;
		strbuf_grow(&r->buf, want);
		got = pread(sg->fd, r->buf.buf + r->buf.len, want, (off_t)r->at);
		if (got <= 0)
			return bl_error_set(err, BL_EIO, "cannot read a temporary file: %s",
					    got ? strerror(errno) : "it ended early");
		strbuf_setlen(&r->buf, r->buf.len + (size_t)got);
		r->at += (uint64_t)got;
	}
	if (nmetrics > r->metrics_alloc) {
		r->metrics_alloc = nmetrics;
		r->metrics = xrealloc(r->metrics, nmetrics * sizeof(*r->metrics));
	}
	nmetrics = 0;
	for (size_t i = 0; i < r->nr; i++) {
		uint32_t len = packed_len(r->buf.buf + r->pos);
		if (unpack(&r->recs[i], r->metrics + nmetrics, r->buf.buf + r->pos, len, err))
			return BL_EIO;
		nmetrics += r->recs[i].nmetrics;
		r->pos += len;
	}
	return 0;
damaged:
	r->nr = 0;
	return bl_error_set(err, BL_EIO, "a temporary file was damaged");
}

int ingest_stage_next(const struct ingest_record **out, struct ingest_stage *sg,
		      struct bl_error *err)
{
	*out = NULL;
	if (!sg->records)
		return 0;
	if (ingest_stage_read(&sg->reader, sg, sg->bytes, 1, err))
		return BL_EIO;
	if (!sg->reader.nr)
		return 0;
	*out = &sg->reader.recs[0];
	return 1;
}

int ingest_stage_put_result(struct ingest_stage *sg, const struct ingest_stage_result *res,
			    struct bl_error *err)
{
	int ret;
	if (!sg->results && (ret = open_temp(&sg->results, err)))
		return ret;
	if (fwrite(res, sizeof(*res), 1, sg->results) != 1)
		return bl_error_set(err, BL_EIO, "cannot write a temporary file: %s",
				    strerror(errno));
	return 0;
}

int ingest_stage_get_result(struct ingest_stage_result *res, struct ingest_stage *sg,
			    struct bl_error *err)
{
	if (!sg->results || fread(res, sizeof(*res), 1, sg->results) != 1)
		return bl_error_set(err, BL_EIO, "cannot read a temporary file");
	return 0;
}
