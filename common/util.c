#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include <git2.h>
#include <openssl/evp.h>
#include <pthread.h>

#include "common/common.h"

static void out_of_memory(void)
{
	fputs("fatal: out of memory\n", stderr);
	abort();
}

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p)
		out_of_memory();
	return p;
}

void *xrealloc(void *p, size_t size)
{
	void *q = realloc(p, size ? size : 1);
	if (!q)
		out_of_memory();
	return q;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = xmalloc(n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

char *xstrdup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static int error_vset(struct bl_error *err, enum bl_error_kind kind, int code, const char *fmt,
		      va_list ap)
{
	struct strbuf sb = STRBUF_INIT;
	if (!err)
		return code;
	/* Formatted into a buffer of its own, then swapped in: the arguments may point into the
	 * old message (an error that extends itself), which must stay whole until read. */
	strbuf_vaddf(&sb, fmt, ap);
	err->code = code;
	err->kind = kind;
	strbuf_release(&err->msg);
	err->msg = sb;
	return code;
}

int bl_error_set(struct bl_error *err, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	code = error_vset(err, BL_KIND_NONE, code, fmt, ap);
	va_end(ap);
	return code;
}

int bl_error_set_kind(struct bl_error *err, enum bl_error_kind kind, int code, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	code = error_vset(err, kind, code, fmt, ap);
	va_end(ap);
	return code;
}

void bl_error_prefix(struct bl_error *err, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	if (!err)
		return;
	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	strbuf_addstr(&sb, ": ");
	strbuf_add(&sb, err->msg.buf, err->msg.len);
	strbuf_release(&err->msg);
	err->msg = sb;
}

void bl_error_clear(struct bl_error *err)
{
	err->code = 0;
	err->kind = BL_KIND_NONE;
	strbuf_reset(&err->msg);
}

void bl_error_release(struct bl_error *err)
{
	err->code = 0;
	err->kind = BL_KIND_NONE;
	strbuf_release(&err->msg);
}

void strbuf_add_url_redacted(struct strbuf *sb, const char *url)
{
	const char *auth = strstr(url, "://"), *at, *colon, *end, *query, *frag;
	size_t auth_len;
	int kept = 0;

	if (!auth) {
		strbuf_addstr(sb, url);
		return;
	}
	auth += 3;
	auth_len = strcspn(auth, "/?#");
	/* scheme://user:PASSWORD@host: the user stays, the password goes */
	at = memrchr(auth, '@', auth_len);
	colon = at ? memchr(auth, ':', (size_t)(at - auth)) : NULL;
	if (colon) {
		strbuf_add(sb, url, (size_t)(colon - url));
		strbuf_add(sb, at, (size_t)(auth + auth_len - at));
	} else {
		strbuf_add(sb, url, (size_t)(auth + auth_len - url));
	}
	/* the path as it is, then the query without its password= parameters (libpq's) */
	query = auth + auth_len + strcspn(auth + auth_len, "?#");
	strbuf_add(sb, auth + auth_len, (size_t)(query - (auth + auth_len)));
	frag = query + strcspn(query, "#");
	if (*query == '?') {
		for (const char *p = query + 1; p < frag; p = end + (end < frag)) {
			end = memchr(p, '&', (size_t)(frag - p));
			if (!end)
				end = frag;
			if ((size_t)(end - p) >= 9 && !strncasecmp(p, "password=", 9))
				continue;
			if ((size_t)(end - p) == 8 && !strncasecmp(p, "password", 8))
				continue;
			strbuf_addch(sb, kept++ ? '&' : '?');
			strbuf_add(sb, p, (size_t)(end - p));
		}
	}
	strbuf_addstr(sb, frag);
}

int open_capped(int *fd_out, const char *path, size_t cap, struct bl_error *err)
{
	int fd = strcmp(path, "-") ? open(path, O_RDONLY | O_CLOEXEC) : 0;
	struct stat st;

	*fd_out = -1;
	if (fd < 0)
		return bl_error_set(err, BL_EIO, "cannot open '%s': %s", path, strerror(errno));
	/* a regular file says its size: one over the cap is refused before a byte is read */
	if (!fstat(fd, &st) && S_ISREG(st.st_mode) && (uintmax_t)st.st_size > cap) {
		if (fd)
			close(fd);
		return too_big(err, path, cap);
	}
	*fd_out = fd;
	return 0;
}

int too_big(struct bl_error *err, const char *path, size_t cap)
{
	return bl_error_set(err, BL_ETOOBIG, "'%s' is too big (over %zu bytes)", path, cap);
}

ssize_t read_once(struct strbuf *sb, int fd, size_t max, const char *path, struct bl_error *err)
{
	ssize_t n;

	strbuf_grow(sb, max);
	do
		n = read(fd, sb->buf + sb->len, max);
	while (n < 0 && errno == EINTR);
	if (n < 0)
		return bl_error_set(err, BL_EIO, "cannot read '%s': %s", path, strerror(errno));
	strbuf_setlen(sb, sb->len + (size_t)n);
	return n;
}

int read_fd_capped(struct strbuf *sb, int fd, const char *path, size_t cap, struct bl_error *err)
{
	ssize_t n;
	while ((n = read_once(sb, fd, 65536, path, err)) > 0)
		if (sb->len > cap)
			return too_big(err, path, cap);
	return n < 0 ? (int)n : 0;
}

int read_file_capped(struct strbuf *sb, const char *path, size_t cap, struct bl_error *err)
{
	int fd, ret;

	if ((ret = open_capped(&fd, path, cap, err)))
		return ret;
	ret = read_fd_capped(sb, fd, path, cap, err);
	if (fd)
		close(fd);
	return ret;
}

int write_file_atomic(const char *path, const void *data, size_t len, struct bl_error *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd, ret = 0;
	strbuf_addf(&tmp, "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp.buf, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot create '%s': %s", tmp.buf, strerror(errno));
		goto done;
	}
	for (size_t off = 0; off < len;) {
		ssize_t n = write(fd, (const char *)data + off, len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			ret = bl_error_set(err, BL_EIO, "cannot write '%s': %s", tmp.buf,
					   strerror(errno));
			close(fd);
			unlink(tmp.buf);
			goto done;
		}
		off += (size_t)n;
	}
	if (close(fd) < 0 || rename(tmp.buf, path) < 0) {
		ret = bl_error_set(err, BL_EIO, "cannot write '%s': %s", path, strerror(errno));
		unlink(tmp.buf);
	}
done:
	strbuf_release(&tmp);
	return ret;
}

static int digits(const char *s, int n, int *out)
{
	int v = 0;
	for (int i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	*out = v;
	return 0;
}

/* Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
static int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
	y -= m <= 2;
	const int64_t era = (y >= 0 ? y : y - 399) / 400;
	const unsigned yoe = (unsigned)(y - era * 400);
	const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
	const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
	return era * 146097 + (int64_t)doe - 719468;
}

int parse_rfc3339_utc(const char *s, double *unix_out)
{
	static const int mdays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
	int y, mo, d, h, mi, sec;
	double frac = 0;
	size_t len = strlen(s);
	if (len < 20 || digits(s, 4, &y) || s[4] != '-' || digits(s + 5, 2, &mo) || s[7] != '-' ||
	    digits(s + 8, 2, &d) || (s[10] != 'T' && s[10] != 't') || digits(s + 11, 2, &h) ||
	    s[13] != ':' || digits(s + 14, 2, &mi) || s[16] != ':' || digits(s + 17, 2, &sec))
		return BL_EINVALID;
	const char *p = s + 19;
	if (*p == '.') {
		double scale = 0.1;
		p++;
		if (*p < '0' || *p > '9')
			return BL_EINVALID;
		while (*p >= '0' && *p <= '9') {
			frac += (*p - '0') * scale;
			scale /= 10;
			p++;
		}
	}
	if ((*p != 'Z' && *p != 'z') || p[1])
		return BL_EINVALID;
	if (mo < 1 || mo > 12 || d < 1 || d > mdays[mo - 1] || h > 23 || mi > 59 || sec > 60)
		return BL_EINVALID;
	if (mo == 2 && d == 29 && !((y % 4 == 0 && y % 100 != 0) || y % 400 == 0))
		return BL_EINVALID;
	*unix_out = (double)(days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 +
			     mi * 60 + sec) +
		    frac;
	return 0;
}

void format_rfc3339_utc(struct strbuf *sb, int64_t unix_seconds)
{
	time_t t = (time_t)unix_seconds;
	struct tm tm;
	char buf[32];
	gmtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%SZ", &tm);
	strbuf_addstr(sb, buf);
}

double monotonic_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double epoch_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)(ts.tv_nsec / 1000) / 1e6;
}

int is_hex40(const char *s)
{
	size_t i;
	for (i = 0; i < 40; i++) {
		char c = s[i];
		if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')))
			return 0;
	}
	return s[40] == '\0';
}

int utf8_valid(const char *str, size_t len)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t i = 0;
	while (i < len) {
		unsigned c = s[i];
		size_t need;
		unsigned min;
		if (c < 0x80) {
			i++;
			continue;
		} else if ((c & 0xE0) == 0xC0) {
			need = 1;
			min = 0x80;
			c &= 0x1F;
		} else if ((c & 0xF0) == 0xE0) {
			need = 2;
			min = 0x800;
			c &= 0x0F;
		} else if ((c & 0xF8) == 0xF0) {
			need = 3;
			min = 0x10000;
			c &= 0x07;
		} else {
			return 0;
		}
		if (i + need >= len)
			return 0;
		for (size_t k = 1; k <= need; k++) {
			if ((s[i + k] & 0xC0) != 0x80)
				return 0;
			c = (c << 6) | (s[i + k] & 0x3F);
		}
		if (c < min || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF))
			return 0;
		i += need + 1;
	}
	return 1;
}

double nearest_rank_sorted(const double *sorted, size_t n, double pct)
{
	if (!n)
		return NAN;
	/* pct * n first: 95 * 20 / 100 is exactly 19, 0.95 * 20 is not */
	double r = ceil(pct * (double)n / 100.0);
	size_t rank = r < 1 ? 1 : (size_t)r;
	if (rank > n)
		rank = n;
	return sorted[rank - 1];
}

double nearest_rank(const double *values, size_t n, double pct)
{
	if (!n)
		return NAN;
	double *copy = xmalloc(n * sizeof(*copy));
	memcpy(copy, values, n * sizeof(*copy));
	qsort(copy, n, sizeof(*copy), cmp_double);
	double v = nearest_rank_sorted(copy, n, pct);
	free(copy);
	return v;
}

int glob_match(const char *pattern, const char *name)
{
	return fnmatch(pattern, name, 0) == 0;
}

void strings_free(char **strings, size_t nr)
{
	if (!strings)
		return;
	for (size_t i = 0; i < nr; i++)
		free(strings[i]);
	free(strings);
}

/* Lowercase hex of a 20-byte SHA-1. */
static void sha1_hex(char out[41], const unsigned char *md)
{
	static const char hex[] = "0123456789abcdef";
	for (unsigned i = 0; i < 20; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[40] = '\0';
}

struct digest_ctx {
	EVP_MD_CTX *md;
	int failed;
};

int digest_init(struct digest_ctx **out)
{
	struct digest_ctx *ctx = xcalloc(1, sizeof(*ctx));
	ctx->md = EVP_MD_CTX_new();
	ctx->failed = !ctx->md || !EVP_DigestInit_ex(ctx->md, EVP_sha1(), NULL);
	*out = ctx;
	return ctx->failed ? BL_EINVALID : 0;
}

void digest_add(struct digest_ctx *ctx, const void *data, size_t len)
{
	if (!ctx->failed && len && !EVP_DigestUpdate(ctx->md, data, len))
		ctx->failed = 1;
}

int digest_finish(char out[41], struct digest_ctx *ctx)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	int ok = !ctx->failed && EVP_DigestFinal_ex(ctx->md, md, &mdlen) && mdlen == 20;
	EVP_MD_CTX_free(ctx->md);
	free(ctx);
	out[0] = '\0';
	if (!ok)
		return BL_EINVALID;
	sha1_hex(out, md);
	return 0;
}

int digest_blob(char out[41], const void *data, size_t len)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	char header[32];
	int hlen = snprintf(header, sizeof(header), "blob %zu", len) + 1, ok;
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();

	ok = ctx && EVP_DigestInit_ex(ctx, EVP_sha1(), NULL) &&
	     EVP_DigestUpdate(ctx, header, (size_t)hlen) && EVP_DigestUpdate(ctx, data, len) &&
	     EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 20;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		return BL_EINVALID;
	sha1_hex(out, md);
	return 0;
}

static pthread_once_t libgit2_once = PTHREAD_ONCE_INIT;
static int libgit2_started;

static void start_libgit2(void)
{
	libgit2_started = git_libgit2_init() > 0;
}

void libgit2_start(void)
{
	pthread_once(&libgit2_once, start_libgit2);
}

void libgit2_stop(void)
{
	if (libgit2_started)
		git_libgit2_shutdown();
}

/* SHA-256 with a context the caller fed. */
static int sha256_finish(char out[65], EVP_MD_CTX *ctx, int ok, struct bl_error *err)
{
	unsigned char md[EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	static const char hex[] = "0123456789abcdef";
	ok = ok && EVP_DigestFinal_ex(ctx, md, &mdlen) && mdlen == 32;
	EVP_MD_CTX_free(ctx);
	out[0] = '\0';
	if (!ok)
		return bl_error_set(err, BL_EINVALID, "cannot compute a SHA-256 digest");
	for (unsigned i = 0; i < 32; i++) {
		out[2 * i] = hex[md[i] >> 4];
		out[2 * i + 1] = hex[md[i] & 15];
	}
	out[64] = '\0';
	return 0;
}

int digest_sha256(char out[65], const void *data, size_t len, struct bl_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	int ok =
	    ctx && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL) && EVP_DigestUpdate(ctx, data, len);
	return sha256_finish(out, ctx, ok, err);
}

int digest_sha256_file(char out[65], const char *path, struct bl_error *err)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	FILE *f = fopen(path, "rb");
	char buf[65536];
	size_t n;
	int ok = ctx && f && EVP_DigestInit_ex(ctx, EVP_sha256(), NULL);
	if (!f) {
		EVP_MD_CTX_free(ctx);
		out[0] = '\0';
		return bl_error_set(err, BL_EIO, "cannot read '%s': %s", path, strerror(errno));
	}
	while (ok && (n = fread(buf, 1, sizeof(buf), f)) > 0)
		ok = EVP_DigestUpdate(ctx, buf, n);
	ok = ok && !ferror(f);
	fclose(f);
	return sha256_finish(out, ctx, ok, err);
}
