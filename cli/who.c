#include <stdlib.h>
#include <unistd.h>

#include "cli/cli.h"

void cli_who(struct strbuf *out)
{
	const char *user = getenv("USER");
	if (!user || !*user)
		user = getlogin();
	if (user && *user)
		strbuf_addstr(out, user);
	else
		strbuf_addf(out, "uid %ld", (long)getuid());
}
