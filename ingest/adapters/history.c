/*
 * What the histories `benchline import` reads share (adapters.h, §10): the dispatch by
 * --from, a record started from a point of a history and handed on, machine names made from
 * another tool's names, configs, millisecond dates, and the message for a path of the wrong
 * kind. docs/import.md.
 */
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "ingest/adapters/adapters.h"
#include "ingest/ingest.h"

void adapters_machine_name(char out[65], const char *s)
{
	size_t n = 0;

	for (; *s && n < 64; s++) {
		char c = *s;
		int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
			 (c >= '0' && c <= '9') || c == '.' || c == '_' || c == '-';
		/* a multi-byte character becomes one '-' */
		if (((unsigned char)c & 0xC0) == 0x80)
			continue;
		out[n++] = ok ? c : '-';
	}
	out[n] = '\0';
}

void adapters_config_add(struct strbuf *config, const char *key, const char *value)
{
	if (config->len)
		strbuf_addch(config, ' ');
	strbuf_addf(config, "%s=%s", key, value);
}

void adapters_config_add_json(struct strbuf *config, const char *key, const json_t *value)
{
	char *text = json_is_string(value) ? xstrdup(json_string_value(value))
					   : json_dumps(value, JSON_COMPACT | JSON_ENCODE_ANY);
	adapters_config_add(config, key, text ? text : "");
	free(text);
}

void adapters_history_input(struct adapters_input *a, const struct ingest_history *h,
			    const char *name, const char *text, size_t len, struct bl_error *err)
{
	a->name = name;
	a->text = text;
	a->len = len;
	a->defaults = h->defaults;
	a->fallback_time = 0; /* never read: a history's records carry their own dates */
	a->err = err;
}

int adapters_ms_to_time(double ms, double *out)
{
	double t;

	if (!isfinite(ms))
		return BL_EINVALID;
	t = floor(ms / 1000.0);
	/* RFC 3339 in the record: 1970 to 9999 */
	if (t < 0 || t >= 253402300800.0)
		return BL_EINVALID;
	*out = t;
	return 0;
}

int adapters_not_a(struct bl_error *err, const char *name, const char *text, size_t len, size_t off,
		   const char *what, const char *expected, const char *found)
{
	struct strbuf msg = STRBUF_INIT;
	const char *looks = text ? adapters_looks_like(text, len, NULL) : NULL;
	int ret;

	strbuf_addf(&msg, "not %s: expected %s", what, expected);
	if (looks) {
		strbuf_addf(&msg, ", found %s", looks);
	} else if (found) {
		strbuf_addf(&msg, ", found %s", found);
	} else if (text && off < len) {
		/* what the text starts with there, on one line */
		size_t n = 0;
		strbuf_addstr(&msg, ", found '");
		for (size_t i = off; i < len && text[i] != '\n' && text[i] != '\r'; i++) {
			unsigned char c = (unsigned char)text[i];
			if (n >= 32 && (c & 0xC0) != 0x80) {
				strbuf_addstr(&msg, "...");
				break;
			}
			strbuf_addch(&msg, c < 0x20 || c == 0x7f ? '?' : (char)c);
			n++;
		}
		strbuf_addch(&msg, '\'');
	}
	if (text)
		ret = adapters_fail_at(err, name, text, off, "%s", msg.buf);
	else
		ret = bl_error_set(err, BL_EINVALID, "%s: %s", name, msg.buf);
	strbuf_release(&msg);
	return ret;
}

int adapters_history_record(struct ingest_record *rec, const struct ingest_history *h,
			    const struct adapters_point *p, const char *name, struct bl_error *err)
{
	const struct ingest_defaults *d = h->defaults;
	struct adapters_common common;
	int ret;

	memset(&common, 0, sizeof(common));
	if (d->machine) {
		if (!machine_name_valid(d->machine))
			return bl_error_set(err, BL_EINVALID,
					    "--machine: invalid machine name (expected "
					    "[A-Za-z0-9._-]{1,64})");
		snprintf(common.machine, sizeof(common.machine), "%s", d->machine);
	} else {
		adapters_machine_name(common.machine, p->machine ? p->machine : "");
		if (!common.machine[0])
			return bl_error_set(
			    err, BL_EINVALID,
			    "%s:%d:%d: no machine name in the history: give --machine", name,
			    p->line, p->column);
	}
	common.machine_info = (char *)p->machine_info;
	common.harness_version = d->harness_version >= 0 ? d->harness_version : 1;
	common.config = p->config ? p->config : "";
	if (strlen(common.config) > INGEST_MAX_STRING ||
	    !utf8_valid(common.config, strlen(common.config)))
		return bl_error_set(err, BL_EINVALID,
				    "%s:%d:%d: config longer than 4096 bytes or not utf-8", name,
				    p->line, p->column);
	for (int i = 0; i < 40; i++) {
		common.commit[i] =
		    (char)(p->commit[i] >= 'A' && p->commit[i] <= 'F' ? p->commit[i] - 'A' + 'a'
								      : p->commit[i]);
		common.source_hash[i] =
		    (char)(p->source_hash && p->source_hash[i] >= 'A' && p->source_hash[i] <= 'F'
			       ? p->source_hash[i] - 'A' + 'a'
			   : p->source_hash ? p->source_hash[i]
					    : common.commit[i]);
	}
	common.branch = p->branch;
	if (common.branch && (strlen(common.branch) > INGEST_MAX_STRING ||
			      !utf8_valid(common.branch, strlen(common.branch))))
		common.branch = NULL;
	common.committed_at = p->committed_at;
	common.started_at = p->started_at;
	if ((ret = adapters_record_init(rec, &common, p->benchmark, p->line, p->column, name, err)))
		return ret;
	if (p->content_hash) {
		if (strlen(p->content_hash) > INGEST_MAX_STRING ||
		    !utf8_valid(p->content_hash, strlen(p->content_hash))) {
			ingest_record_release(rec);
			return bl_error_set(err, BL_EINVALID,
					    "%s:%d:%d: benchmark version longer than 4096 bytes or "
					    "not utf-8",
					    name, p->line, p->column);
		}
		rec->content_hash = xstrdup(p->content_hash);
	}
	return 0;
}

int adapters_history_emit(struct ingest_history *h, struct ingest_record *rec, const char *name,
			  struct bl_error *err)
{
	int ret;

	if (!rec->nmetrics) {
		ret = bl_error_set(err, BL_EINVALID, "%s:%d:%d: %s: no metrics", name, rec->line,
				   rec->column, rec->benchmark);
		goto done;
	}
	if (h->complete && (ret = h->complete(rec, h->complete_data, err)))
		goto done;
	if ((ret = ingest_record_finish(rec, NULL, err))) {
		bl_error_prefix(err, "%s:%d:%d", name, rec->line, rec->column);
		goto done;
	}
	ret = h->fn(rec, h->fn_data, err);
done:
	ingest_record_release(rec);
	return ret;
}

/* What each history is, for the wrong-kind message. */
static const char *const history_what[HISTORY_NFORMATS] = {
    [HISTORY_ASV] = "asv's results directory (benchmarks.json, and a directory per machine "
		    "holding machine.json)",
    [HISTORY_ASV_HTML] = "a site asv published (a directory holding index.json and graphs/)",
    [HISTORY_GAB] = "github-action-benchmark's data.js",
    [HISTORY_BENCHER] = "Bencher's perf JSON (what `bencher perf` prints)",
};

int adapters_history(struct ingest_history *h, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	struct stat st;
	const char *nul;
	int ret, dir;

	for (size_t i = 0; i < INGEST_NSKIPS; i++)
		h->skipped[i] = 0;
	if (stat(h->path, &st))
		return bl_error_set(err, BL_EIO, "cannot read '%s': no such file or directory",
				    h->path);
	dir = S_ISDIR(st.st_mode);
	switch (h->from) {
	case HISTORY_ASV:
	case HISTORY_ASV_HTML:
		if (!dir) {
			/* say what the file is, when it is something benchline knows */
			const char *looks = read_file_capped(&text, h->path, INGEST_MAX_FILE, NULL)
						? NULL
						: adapters_looks_like(text.buf, text.len, NULL);
			ret = bl_error_set(err, BL_EINVALID, "%s: expected %s, found a file%s%s",
					   h->path, history_what[h->from], looks ? ": " : "",
					   looks ? looks : "");
			break;
		}
		ret = h->from == HISTORY_ASV ? adapters_history_asv(h, err)
					     : adapters_history_asv_html(h, err);
		break;
	case HISTORY_GAB:
	case HISTORY_BENCHER:
		if (dir) {
			ret = bl_error_set(err, BL_EINVALID, "%s: expected %s, found a directory",
					   h->path, history_what[h->from]);
			break;
		}
		if ((ret = read_file_capped(&text, h->path, INGEST_MAX_FILE, err)))
			break;
		if ((nul = memchr(text.buf, '\0', text.len))) {
			ret = adapters_fail_at(err, h->path, text.buf, (size_t)(nul - text.buf),
					       "nul byte in file");
			break;
		}
		ret = h->from == HISTORY_GAB
			  ? adapters_history_gab(h, h->path, text.buf, text.len, err)
			  : adapters_history_bencher(h, h->path, text.buf, text.len, err);
		break;
	default:
		ret = bl_error_set(err, BL_EINVALID, "unknown history");
	}
	strbuf_release(&text);
	return ret;
}
