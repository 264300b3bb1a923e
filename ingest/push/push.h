/*
 * push: talking to a benchline server (§10's fleet, §11's API) over HTTP with libcurl. A
 * generic request on a server named once (its base URL, the bearer token of a token file,
 * timeouts) and POST /api/records with bounded retries (push.c); the spool that keeps a body the
 * server did not acknowledge until a later command pushes it (spool.c); and the session every
 * pushing command runs (session.c: the spool first, oldest body first, then its own bodies).
 * Nothing here prints or exits.
 */
#ifndef BENCHLINE_PUSH_H
#define BENCHLINE_PUSH_H

#include <stddef.h>
#include <stdint.h>

#include "common/common.h"
#include "ingest/ingest.h"

/* The largest body POST /api/records takes (the server's cap, web.h's WEB_MAX_BODY). */
#define PUSH_MAX_BODY ((size_t)16 << 20)
/* The largest answer read from a server; past it the request fails (BL_ETOOBIG). An answer
 * to POST /api/records is smaller than its body (a line per record, without the metrics), so
 * four times the body's cap leaves room for any server. */
#define PUSH_MAX_RESPONSE ((size_t)64 << 20)
/* The largest token file read. */
#define PUSH_MAX_TOKEN_FILE ((size_t)64 << 10)
/* Defaults: the retries after a first failed attempt, the first retry's delay (each next one
 * doubles), the longest wait a Retry-After header may ask for, and the timeouts. */
#define PUSH_RETRIES		3
#define PUSH_BASE_DELAY_MS	200
#define PUSH_MAX_DELAY_MS	5000
#define PUSH_CONNECT_TIMEOUT_MS 10000
#define PUSH_TIMEOUT_MS		60000

/*
 * A server. The fields may be changed between requests; handle is private (libcurl's easy
 * handle, kept so that one command's requests share a connection).
 */
struct push_server {
	char *url;		 /* the base URL, without a trailing '/' */
	char *shown;		 /* the same as messages show it: without a password */
	char *token;		 /* the bearer token, NULL when none was given */
	long connect_timeout_ms; /* to connect (PUSH_CONNECT_TIMEOUT_MS) */
	long timeout_ms;	 /* for a whole request, answer included (PUSH_TIMEOUT_MS) */
	void *handle;
};

/*
 * Opens a server: url is http:// or https:// and a host (a trailing '/' is dropped; a
 * password in it is never shown in a message: strbuf_add_url_redacted);
 * token_file (NULL: no token) holds the bearer token, the first field of its first line that
 * is neither blank nor a '#' comment, so a server's token file (TOKEN [MACHINE-GLOB]) will do.
 * A token_file starting with "~/" is under $HOME. Nothing is sent yet. BL_EINVALID for a bad
 * URL or a token file without a token; BL_EIO, BL_ENOTFOUND, BL_ETOOBIG as read_file_capped
 * says for the file.
 */
int push_server_open(struct push_server **out, const char *url, const char *token_file,
		     struct bl_error *err);
void push_server_free(struct push_server *srv);

/* The token of a token file's text (the rule above) appended to out; 0, or BL_EINVALID when
 * the text has none. */
int push_token_parse(struct strbuf *out, const char *text, size_t len);

/* An answer: the HTTP status, its body (at most PUSH_MAX_RESPONSE bytes), its Content-Type,
 * where a 3xx points, and Retry-After. */
struct push_response {
	long status;		    /* 0 before an answer */
	struct strbuf body;	    /* never NULL */
	struct strbuf content_type; /* the Content-Type header, "" when none */
	struct strbuf location;	    /* a 3xx's Location, made absolute; "" when none */
	double retry_after_s;	    /* Retry-After in seconds, -1 when the answer has none */
};
void push_response_init(struct push_response *r);
void push_response_release(struct push_response *r);

/*
 * One request: method ("GET", "POST", ...) on the server's URL followed by path_and_query
 * ("/api/alerts?state=open"), with body (len bytes, NULL for none) of content_type (NULL:
 * application/json), and the token as "Authorization: Bearer". Redirects are not followed.
 * out is reset first. Returns 0 whenever the server answered, whatever the status (out->status
 * says); BL_EIO when it did not (the connection refused or reset, the host unknown, a timeout:
 * err says which, naming the URL); BL_ETOOBIG when the answer passes PUSH_MAX_RESPONSE;
 * BL_EINVALID when libcurl refuses the request itself (a malformed URL).
 */
int push_request(struct push_response *out, struct push_server *srv, const char *method,
		 const char *path_and_query, const char *body, size_t len, const char *content_type,
		 struct bl_error *err);

/* How hard to try: retries after the first attempt, base_delay_ms before the first retry,
 * doubling after each. */
struct push_retry {
	int retries;
	long base_delay_ms;
};
void push_retry_init(struct push_retry *r);
/* The wait before retry number attempt (1 for the first): base_delay_ms << (attempt - 1), or
 * the answer's Retry-After when that is longer (retry_after_s < 0: none), never more than
 * PUSH_MAX_DELAY_MS unless the schedule itself is. */
long push_retry_delay_ms(const struct push_retry *r, int attempt, double retry_after_s);
/* 1 when an answer with this status may pass on a later try: no answer (0), 408, 429 and
 * every 5xx; a 4xx is the request's own fault and is never retried. */
int push_status_retryable(long status);

/*
 * push_request (JSON bodies), trying again on what may pass (no answer, or a retryable status)
 * up to retry->retries times, waiting push_retry_delay_ms in between; name is what is sent, in
 * messages (a file). 0: a 2xx, out holds the answer (push_records checks it is benchline's);
 * BL_EDENIED: refused (a 4xx but 408 and 429), never retried, out->status the status, and err
 * the server's message ("error" of its JSON, else its text), with the server's name for a body
 * ("request:LINE:COLUMN: ...") made name; BL_EIO: not acknowledged, either after every attempt
 * ("NAME: not acknowledged after N attempts: " and the last failure) or at once for an answer
 * no later attempt would change: a 3xx, never followed ("NAME: redirected to URL: not
 * followed"), or a status outside 200 to 599; BL_ETOOBIG and BL_EINVALID as push_request says.
 */
int push_request_retrying(struct push_response *out, struct push_server *srv,
			  const struct push_retry *retry, const char *name, const char *method,
			  const char *path_and_query, const char *body, size_t len,
			  struct bl_error *err);
/*
 * POSTs one body of native records (§2) to /api/records with push_request_retrying, and
 * counts it acknowledged only when the answer is a 2xx carrying benchline's outcome list with
 * exactly one outcome per record of the body, in order (push_body_records,
 * push_answer_outcomes): 0 then. Any other 2xx is BL_EIO, not acknowledged, with what came back
 * ("NAME: the server's answer is not benchline's (200, text/html, 24 bytes)", "NAME: the server
 * answered 201 with 0 outcomes for 3 records"); the rest as push_request_retrying says; also
 * BL_ETOOBIG, nothing sent, when the body is empty or over PUSH_MAX_BODY.
 */
int push_records(struct push_response *out, struct push_server *srv, const struct push_retry *retry,
		 const char *name, const char *body, size_t len, struct bl_error *err);

/* How many records a native body holds (§2: one object, an array of them, or one after
 * another), counted without checking them: 0 with *n set, or BL_EINVALID when the body is not
 * JSON values one after another or one array. */
int push_body_records(size_t *n, const char *body, size_t len);

/*
 * The outcomes of an acknowledged POST /api/records (answer is its body): a new array of one
 * object per record, each checked to carry what `ingest` prints ({"record", "id", "machine",
 * "benchmark", "config", "source_hash", "harness_version", "baseline", "outcome"}, outcome a
 * name ingest_outcome_parse knows). BL_EINVALID for any other answer.
 */
struct json_t;
int push_answer_outcomes(struct json_t **out, const char *answer, size_t len, struct bl_error *err);
/* What an answer is, for a message: "STATUS, CONTENT-TYPE, N bytes" (the media type without
 * its parameters, "no content type" when it has none). */
void push_answer_describe(struct strbuf *out, const struct push_response *r);

/*
 * The spool: one file per body a server did not acknowledge, named so that the names sort
 * oldest first (push_spool_name), written atomically (a temporary file renamed into place, then
 * synced), in a directory of its own; bodies a server refused move to its rejected/
 * subdirectory with the answer beside them (NAME.answer).
 */
struct push_spool {
	char *dir;   /* without a trailing '/' */
	int lock_fd; /* -1 while not locked */
	unsigned added;
};

/* The spool's directory: dir when not NULL, else $XDG_STATE_HOME/benchline/spool, else
 * $HOME/.local/state/benchline/spool. Nothing is created until a body is added. BL_EINVALID
 * when dir is empty or neither variable is set. */
int push_spool_open(struct push_spool **out, const char *dir, struct bl_error *err);
void push_spool_free(struct push_spool *sp);

/* The file name of the body spooled seq-th (0-based) by process pid at unix_ns nanoseconds
 * since the epoch: "20261102T040000.123456789Z-00004242-000000.json", UTC, fixed width, so the
 * names sort as the bodies were spooled. */
void push_spool_name(struct strbuf *out, int64_t unix_ns, long pid, unsigned seq);
/* 1 when name (no directory) is a spooled body: a name push_spool_name makes. */
int push_spool_name_valid(const char *name);

/* Adds a body; its path is appended to path (may be NULL). The directory is made (0700, with
 * its parents) when missing. BL_EIO when it cannot be written. */
int push_spool_add(struct strbuf *path, struct push_spool *sp, const char *body, size_t len,
		   struct bl_error *err);
/* The spooled bodies' file names, oldest first (a new array of new strings, *n of them); none
 * when the directory does not exist. */
int push_spool_list(char ***names, size_t *n, struct push_spool *sp, struct bl_error *err);
/* Waits for the spool's lock (flock on DIR/.lock), so that two commands do not push the same
 * bodies at once; push_spool_unlock (or push_spool_free) releases it. */
int push_spool_lock(struct push_spool *sp, struct bl_error *err);
void push_spool_unlock(struct push_spool *sp);
/* Reads a spooled body (at most PUSH_MAX_BODY bytes) into out, opened without following a
 * symlink: BL_EINVALID for an entry that is not a regular file (a symlink, a directory, a
 * FIFO: "PATH: not a regular file (a directory): skipped"), BL_ENOTFOUND when it is gone,
 * BL_EIO when it cannot be read, BL_ETOOBIG over the cap. Removes one (gone already is not an
 * error); moves one to rejected/ with answer (len bytes) written beside it as NAME.answer,
 * appending its new path to moved_to (may be NULL). */
int push_spool_read(struct strbuf *out, struct push_spool *sp, const char *name,
		    struct bl_error *err);
int push_spool_remove(struct push_spool *sp, const char *name, struct bl_error *err);
int push_spool_reject(struct strbuf *moved_to, struct push_spool *sp, const char *name,
		      const char *answer, size_t len, struct bl_error *err);

/*
 * A pushing command's session: its server, its spool, how hard it tries, and whether the
 * server has already failed it. Once a body went unacknowledged after every retry, the server
 * counts as unreachable for the rest of the session: later bodies go to the spool untried, so
 * a command with many files waits for one failure, not one per file.
 */
struct push_session {
	struct push_server *srv;
	struct push_spool *spool;
	struct push_retry retry;
	int unreachable;
};

/*
 * Sends one body (named name in messages), or keeps it in the spool. 0: acknowledged (push_records:
 * answer holds benchline's outcome list, spooled_as is left empty) or spooled because it was not
 * acknowledged (its path is appended to spooled_as, and err says why it was not acknowledged
 * and what came back, for the caller to show); BL_EDENIED or BL_ETOOBIG: refused by the server
 * or over its cap, not spooled (err says); BL_EIO: neither acknowledged nor spooled (the spool
 * could not be written; err names the body and says both why).
 */
int push_session_send(struct push_response *answer, struct strbuf *spooled_as,
		      struct push_session *s, const char *name, const char *body, size_t len,
		      struct bl_error *err);

/* What became of one spooled entry during push_session_flush, for the caller to report. */
struct push_flushed {
	const char *path;		    /* the spooled file */
	const struct push_response *answer; /* the server's answer */
	int kept;    /* 1: not acknowledged, it stays (and the flush stops) */
	int skipped; /* 1: not a regular file (a symlink, a directory...): left, never sent */
	int stuck;   /* 1: acknowledged or refused, but it could not be removed or moved */
	const char *moved_to;	    /* refused or unreadable, and moved here; else NULL */
	const struct bl_error *why; /* all but an acknowledged one: why; else NULL */
};
typedef void (*push_flush_fn)(const struct push_flushed *f, void *data);

/*
 * Pushes the spooled bodies, oldest first, under the spool's lock. Each one acknowledged is
 * handed to fn, then removed. One refused for what it holds (400, 403, 413 or any other 4xx but
 * those below), and one that cannot be read, is moved to rejected/ and handed to fn, and the
 * flush goes on; so it does past an entry that is not a regular file (handed to fn as skipped,
 * left where it is, never opened through a symlink) and past one it could not remove or move
 * (handed to fn as stuck): no entry stops the others. It stops at the first body not
 * acknowledged after every retry, handed to fn as kept (the session becomes unreachable; that
 * body and the later ones stay), and at a 401, 404 or 405, which say the command's token or URL
 * is wrong, not the body: then it returns BL_EDENIED with the server's message and leaves the
 * spool as it is. *left (may be NULL) is how many entries stay in the spool but the skipped
 * ones. BL_EIO when the spool cannot be listed or locked.
 */
int push_session_flush(size_t *left, struct push_session *s, push_flush_fn fn, void *data,
		       struct bl_error *err);

#endif
