/* Unit tests of web/'s helpers: the reply cache finds an answer by its whole key, never by
 * its hash alone; HTML escaping leaves only characters XML admits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "web/web.h"

static void cache_put_text(struct web_reply_cache *c, uint64_t hash, const char *key, uint64_t gen,
			   const char *body)
{
	struct web_reply r;
	memset(&r, 0, sizeof(r));
	strbuf_init(&r.body, 0);
	strbuf_addstr(&r.body, body);
	r.status = 200;
	r.type = "text/plain";
	web_reply_cache_put(c, &r, hash, key, strlen(key) + 1, gen);
	strbuf_release(&r.body);
}

/* The cached body for key, or "" on a miss. */
static int cache_get_text(struct strbuf *out, struct web_reply_cache *c, uint64_t hash,
			  const char *key, uint64_t gen)
{
	struct web_reply r;
	int hit;
	memset(&r, 0, sizeof(r));
	strbuf_init(&r.body, 0);
	hit = web_reply_cache_get(c, &r, hash, key, strlen(key) + 1, gen);
	strbuf_reset(out);
	strbuf_add(out, r.body.buf, r.body.len);
	strbuf_release(&r.body);
	return hit;
}

static void test_reply_cache_whole_key(void **state)
{
	struct web_reply_cache *c = web_reply_cache_new(4);
	struct strbuf got = STRBUF_INIT;
	(void)state;
	/* two keys with the same hash: each finds its own answer, or none */
	cache_put_text(c, 42, "/series/a", 1, "A");
	assert_false(cache_get_text(&got, c, 42, "/series/b", 1));
	assert_string_equal(got.buf, "");
	cache_put_text(c, 42, "/series/b", 1, "B");
	assert_true(cache_get_text(&got, c, 42, "/series/a", 1));
	assert_string_equal(got.buf, "A");
	assert_true(cache_get_text(&got, c, 42, "/series/b", 1));
	assert_string_equal(got.buf, "B");
	/* a prefix of a key is another key */
	assert_false(cache_get_text(&got, c, 42, "/series/", 1));
	/* another generation: nothing */
	assert_false(cache_get_text(&got, c, 42, "/series/a", 2));
	/* the oldest entry makes room */
	cache_put_text(c, 1, "k1", 1, "1");
	cache_put_text(c, 2, "k2", 1, "2");
	cache_put_text(c, 3, "k3", 1, "3");
	assert_false(cache_get_text(&got, c, 42, "/series/a", 1));
	assert_true(cache_get_text(&got, c, 3, "k3", 1));
	strbuf_release(&got);
	web_reply_cache_free(c);
}

/* What may not appear in XML 1.0 (C0 controls but tab, LF, CR; bytes that are not UTF-8;
 * U+FFFE, U+FFFF) becomes U+FFFD; the markup characters become entities; the rest stays. */
static void test_html_escape_leaves_only_xml_characters(void **state)
{
	static const char *const cases[][2] = {
	    {"a<b>&\"c'", "a&lt;b&gt;&amp;&quot;c&#39;"},
	    {"tab\tlf\ncr\r", "tab\tlf\ncr\r"},
	    {"\x01x\x1b[2J\x0b\x7f", "\xef\xbf\xbdx\xef\xbf\xbd[2J\xef\xbf\xbd\x7f"},
	    {"caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80",
	     "caf\xc3\xa9 \xe2\x86\x92 \xf0\x9f\x98\x80"},
	    {"caf\xe9!", "caf\xef\xbf\xbd!"},			      /* Latin-1, not UTF-8 */
	    {"\xc0\xaf", "\xef\xbf\xbd\xef\xbf\xbd"},		      /* overlong '/' */
	    {"\xed\xa0\x80", "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"}, /* a surrogate */
	    {"\xef\xbf\xbe\xef\xbf\xbf", "\xef\xbf\xbd\xef\xbf\xbd"}, /* U+FFFE, U+FFFF */
	    {"cut \xe2\x86", "cut \xef\xbf\xbd\xef\xbf\xbd"},
	    {"\xc2\x9b C1 stays", "\xc2\x9b C1 stays"},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		struct strbuf sb = STRBUF_INIT;
		web_html_escape(&sb, cases[i][0]);
		assert_string_equal(sb.buf, cases[i][1]);
		strbuf_release(&sb);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reply_cache_whole_key),
	    cmocka_unit_test(test_html_escape_leaves_only_xml_characters),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
