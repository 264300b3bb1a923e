/*
 * Bearer tokens (§11): the token file, one line a token, `TOKEN [MACHINE-GLOB [ROLES]]`, and
 * the token a request presents, compared without stopping at the first difference.
 */
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "web/web.h"

/* ROLES of a token line: a comma list of push and confirm, each at most once. */
static int parse_roles(unsigned *out, const char *list)
{
	*out = 0;
	for (const char *p = list;;) {
		size_t n = strcspn(p, ",");
		unsigned role;
		if (n == 4 && !strncmp(p, "push", 4))
			role = WEB_ROLE_PUSH;
		else if (n == 7 && !strncmp(p, "confirm", 7))
			role = WEB_ROLE_CONFIRM;
		else
			return BL_EINVALID;
		if (*out & role)
			return BL_EINVALID;
		*out |= role;
		if (!p[n])
			return 0;
		p += n + 1;
	}
}

/* Tokens: one a line, "TOKEN [MACHINE-GLOB [ROLES]]" (ROLES a comma list of push and confirm,
 * both when not given); blank lines and # comments skipped. */
int web_tokens_load(struct web_token **out, size_t *nr, const char *path, struct bl_error *err)
{
	struct strbuf text = STRBUF_INIT;
	size_t alloc = 0, lineno = 0;
	int ret = read_file_capped(&text, path, WEB_MAX_TOKEN_FILE, err);
	if (ret) {
		bl_error_prefix(err, "token file");
		goto done;
	}
	for (char *line = text.buf; *line;) {
		char *end = strchr(line, '\n'), *tok, *glob, *roles, *extra, *save = NULL;
		unsigned mask = WEB_ROLE_PUSH | WEB_ROLE_CONFIRM;
		lineno++;
		if (end)
			*end = '\0';
		tok = strtok_r(line, " \t\r", &save);
		glob = tok ? strtok_r(NULL, " \t\r", &save) : NULL;
		roles = glob ? strtok_r(NULL, " \t\r", &save) : NULL;
		extra = roles ? strtok_r(NULL, " \t\r", &save) : NULL;
		if (tok && tok[0] != '#') {
			if (extra) {
				ret = bl_error_set(err, BL_EINVALID,
						   "%s:%zu:%zu: '%s' after the roles: a line is "
						   "TOKEN [MACHINE-GLOB [ROLES]]",
						   path, lineno, (size_t)(extra - line) + 1, extra);
				goto done;
			}
			if (roles && parse_roles(&mask, roles)) {
				ret = bl_error_set(err, BL_EINVALID,
						   "%s:%zu:%zu: roles are a comma list of push and "
						   "confirm, not '%s'",
						   path, lineno, (size_t)(roles - line) + 1, roles);
				goto done;
			}
			ALLOC_GROW(*out, *nr, alloc);
			(*out)[*nr].token = xstrdup(tok);
			(*out)[*nr].glob = xstrdup_or_null(glob);
			(*out)[*nr].roles = mask;
			(*nr)++;
		}
		if (!end)
			break;
		line = end + 1;
	}
done:
	strbuf_release(&text);
	return ret;
}

void web_tokens_free(struct web_token *t, size_t nr)
{
	for (size_t i = 0; i < nr; i++) {
		free(t[i].token);
		free(t[i].glob);
	}
	free(t);
}

/* Compares without stopping at the first difference. */
static int token_equal(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned char diff = (unsigned char)(la != lb);
	for (size_t i = 0; i < la; i++)
		diff |= (unsigned char)(a[i] ^ b[i % (lb ? lb : 1)]);
	return !diff;
}

/* The token of an "Authorization: Bearer TOKEN" header, without the blanks around it (a
 * client or proxy may pad the value). */
const struct web_token *web_token_find(const struct web_token *t, size_t nr, const char *header)
{
	const struct web_token *found = NULL;
	struct strbuf presented = STRBUF_INIT;
	size_t n;
	if (!header || strncasecmp(header, "Bearer ", 7))
		return NULL;
	header += 7;
	header += strspn(header, " \t");
	n = strlen(header);
	while (n && (header[n - 1] == ' ' || header[n - 1] == '\t'))
		n--;
	strbuf_add(&presented, header, n);
	for (size_t i = 0; i < nr; i++)
		if (token_equal(t[i].token, presented.buf))
			found = &t[i];
	strbuf_release(&presented);
	return found;
}
