/*
 * libFuzzer target for what a pushing command reads from outside (§10's fleet, §13): a
 * server's answer to POST /api/records, a token file, a name found in the spool, a spooled
 * body whose records are counted. Any input is either accepted whole or refused with a
 * message, never a crash or a leak.
 */
#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "common/common.h"
#include "ingest/push/push.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *text = (const char *)data;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf sb = STRBUF_INIT;
	json_t *rows = NULL;
	size_t n = 0;

	if (push_answer_outcomes(&rows, text, size, &err)) {
		if (rows || !err.msg.len)
			__builtin_trap(); /* refused: nothing handed out, and said why */
	} else if (!json_is_array(rows)) {
		__builtin_trap();
	}
	json_decref(rows);
	if (push_body_records(&n, text, size) && n)
		__builtin_trap(); /* a body it cannot count has no count */
	if (push_token_parse(&sb, text, size) == 0) {
		/* A token is one field: no blank, no newline, never a comment. */
		if (!sb.len || sb.buf[0] == '#' || strpbrk(sb.buf, " \t\r\n"))
			__builtin_trap();
	} else if (sb.len) {
		__builtin_trap();
	}
	strbuf_reset(&sb);
	strbuf_add(&sb, text, size); /* NUL-terminated, as readdir's names are */
	push_spool_name_valid(sb.buf);
	strbuf_release(&sb);
	bl_error_release(&err);
	return 0;
}
