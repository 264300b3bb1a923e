/*
 * Functions that overflow buffers or hide truncation, or keep hidden static state that threads
 * share. Using one is a compile error; use a strbuf (strbuf_addf) or snprintf with a checked
 * result, gmtime_r/localtime_r, strtok_r (or a strbuf split), mkstemp instead.
 */
#ifndef BENCHLINE_BANNED_H
#define BENCHLINE_BANNED_H

/* Their declarations first, so a header included after this one is not rewritten. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define BANNED(func) sorry_##func##_is_a_banned_function

#undef strcpy
#define strcpy(x, y) BANNED(strcpy)
#undef strcat
#define strcat(x, y) BANNED(strcat)
#undef strncpy
#define strncpy(x, y, n) BANNED(strncpy)
#undef strncat
#define strncat(x, y, n) BANNED(strncat)
#undef sprintf
#define sprintf(...) BANNED(sprintf)
#undef vsprintf
#define vsprintf(...) BANNED(vsprintf)
#undef gets
#define gets(x) BANNED(gets)
#undef strtok
#define strtok(x, y) BANNED(strtok)
#undef gmtime
#define gmtime(x) BANNED(gmtime)
#undef localtime
#define localtime(x) BANNED(localtime)
#undef ctime
#define ctime(x) BANNED(ctime)
#undef asctime
#define asctime(x) BANNED(asctime)
#undef mktemp
#define mktemp(x) BANNED(mktemp)

#endif
