/*
 * A pushing command's session (push.h): each body is sent or kept in the spool, and the spool
 * is pushed oldest body first, so that a machine that was cut off catches up in order.
 */
#include <stdlib.h>
#include <string.h>

#include "ingest/push/push.h"

/* Keeps a body the server did not take in the spool; err keeps why it was not taken. */
static int spool_body(struct strbuf *spooled_as, struct push_session *s, const char *body,
		      size_t len, struct bl_error *err)
{
	struct bl_error spool_err = BL_ERROR_INIT;
	int ret = push_spool_add(spooled_as, s->spool, body, len, &spool_err);
	if (ret) {
		/* Both failures matter: why it was not acknowledged, and why it is lost. */
		bl_error_set(err, ret, "%s; and it cannot be spooled: %s",
			     err && err->msg.len ? err->msg.buf : "not acknowledged",
			     spool_err.msg.buf);
	}
	bl_error_release(&spool_err);
	return ret;
}

int push_session_send(struct push_response *answer, struct strbuf *spooled_as,
		      struct push_session *s, const char *name, const char *body, size_t len,
		      struct bl_error *err)
{
	int ret;

	if (s->unreachable) {
		bl_error_set(
		    err, BL_EIO,
		    "%s: not sent: '%s' did not acknowledge an earlier body of this command", name,
		    s->srv->shown);
		return spool_body(spooled_as, s, body, len, err);
	}
	ret = push_records(answer, s->srv, &s->retry, name, body, len, err);
	if (ret != BL_EIO)
		return ret;
	s->unreachable = 1;
	return spool_body(spooled_as, s, body, len, err);
}

/* 1 when a 4xx says the command's token or URL is wrong rather than the body. */
static int setup_fault(long status)
{
	return status == 401 || status == 404 || status == 405;
}

int push_session_flush(size_t *left, struct push_session *s, push_flush_fn fn, void *data,
		       struct bl_error *err)
{
	char **names = NULL;
	size_t n = 0, i = 0, stay = 0;
	struct strbuf body = STRBUF_INIT, path = STRBUF_INIT, moved = STRBUF_INIT;
	struct push_response answer;
	struct bl_error why = BL_ERROR_INIT;
	int ret;

	push_response_init(&answer);
	if ((ret = push_spool_list(&names, &n, s->spool, err)) || !n || s->unreachable)
		goto done;
	/* Under the lock, list again: another command may have pushed them meanwhile. */
	strings_free(names, n);
	names = NULL;
	n = 0;
	if ((ret = push_spool_lock(s->spool, err)) ||
	    (ret = push_spool_list(&names, &n, s->spool, err)))
		goto done;
	for (; i < n; i++) {
		struct push_flushed f = {NULL, &answer, 0, 0, 0, NULL, NULL};
		strbuf_reset(&body);
		strbuf_reset(&path);
		strbuf_reset(&moved);
		strbuf_addf(&path, "%s/%s", s->spool->dir, names[i]);
		f.path = path.buf;
		push_response_release(&answer);
		bl_error_clear(&why);
		ret = push_spool_read(&body, s->spool, names[i], &why);
		if (ret == BL_ENOTFOUND)
			continue; /* gone meanwhile */
		if (ret == BL_EINVALID) {
			/* Not a body: left as it is, said once, and the flush goes on. */
			f.skipped = 1;
			f.why = &why;
			if (fn)
				fn(&f, data);
			continue;
		}
		if (!ret) {
			/* Read: sent. (One that cannot be read, too big or failing, is moved aside
			 * below, never sent.) */
			ret = push_records(&answer, s->srv, &s->retry, path.buf, body.buf, body.len,
					   &why);
			if (ret == BL_EIO) {
				/* Not acknowledged: it and the rest wait for a later command. */
				s->unreachable = 1;
				ret = 0;
				f.kept = 1;
				f.why = &why;
				if (fn)
					fn(&f, data);
				goto done;
			}
			if ((ret && setup_fault(answer.status)) || ret == BL_EINVALID) {
				/* The command's token or URL, not the body: the spool stays. */
				ret = bl_error_set(err, ret == BL_EINVALID ? ret : BL_EDENIED, "%s",
						   why.msg.buf);
				goto done;
			}
		}
		f.why = ret ? &why : NULL;
		if (ret) {
			/* Refused for what it holds, or not readable (too big, a read error): moved
			 * aside with why, so it never stops the bodies after it. */
			struct bl_error move_err = BL_ERROR_INIT;
			if (!answer.status) /* never sent: the reason is ours */
				strbuf_addf(&answer.body, "%s\n", why.msg.buf);
			if (push_spool_reject(&moved, s->spool, names[i], answer.body.buf,
					      answer.body.len, &move_err)) {
				bl_error_set(&why, BL_EIO, "%s; and it cannot be moved aside: %s",
					     why.msg.buf, move_err.msg.buf);
				f.stuck = 1;
				stay++;
			} else {
				f.moved_to = moved.buf;
			}
			bl_error_release(&move_err);
		} else if (push_spool_remove(s->spool, names[i], &why)) {
			/* Stored, but still here: a later command sends it again, stored once. */
			f.why = &why;
			f.stuck = 1;
			stay++;
		}
		ret = 0;
		if (fn)
			fn(&f, data);
	}
done:
	if (left)
		*left = n - i + stay;
	push_spool_unlock(s->spool);
	push_response_release(&answer);
	strings_free(names, n);
	strbuf_release(&body);
	strbuf_release(&path);
	strbuf_release(&moved);
	bl_error_release(&why);
	return ret;
}
