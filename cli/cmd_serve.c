#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store/store.h"
#include "web/web.h"
#include "cli/cli.h"
#include "ingest/repo/repo.h"

/* What the server's background thread did, one line at a time on stderr (one write, so lines
 * of two threads never mix). */
static void serve_log(const char *line, void *data)
{
	(void)data;
	cli_printf(stderr, "benchline: %s\n", line);
}

int cmd_serve(int argc, const char **argv, struct cli_ctx *ctx)
{
	struct web_options opts;
	struct web_server *srv = NULL;
	struct bl_error err = BL_ERROR_INIT;
	struct strbuf root = STRBUF_INIT;
	long port = 8080, threads = 4, timeout = 10, sync_interval = -1;
	long lock_timeout = WEB_LOCK_TIMEOUT, deadline = WEB_REQUEST_DEADLINE;
	long client_connections = WEB_CLIENT_CONNECTIONS, client_charts = WEB_CLIENT_CHARTS;
	sigset_t stop, old;
	int sig = 0, ret = 0, create = 0;
	const struct cli_option options[] = {
	    {OPT_STRING, "bind", &opts.bind, "ADDR", "the address to listen on (127.0.0.1)"},
	    {OPT_INT, "port", &port, "PORT", "the port (8080; 0 picks a free one)"},
	    {OPT_STRING, "token-file", &opts.token_file, "F",
	     "bearer tokens, one a line: TOKEN [MACHINE-GLOB [ROLES]], ROLES push,confirm"},
	    {OPT_STRING, "base-url", &opts.base_url, "URL",
	     "the public URL prefix, behind a reverse proxy"},
	    {OPT_INT, "threads", &threads, "N",
	     "database connections for reads, and for charts (4)"},
	    {OPT_INT, "timeout", &timeout, "SECONDS", "drop idle or slow connections after (10)"},
	    {OPT_INT, "lock-timeout", &lock_timeout, "SECONDS",
	     "a write waits this long for the database lock, then 503 (30)"},
	    {OPT_INT, "request-deadline", &deadline, "SECONDS",
	     "drop a client that has not sent its whole request after (30)"},
	    {OPT_INT, "client-connections", &client_connections, "N",
	     "open connections one address may have; 0: no limit (32)"},
	    {OPT_INT, "client-charts", &client_charts, "N",
	     "charts drawn at once for one address; more wait their turn (2)"},
	    {OPT_STRING, "gnuplot", &opts.gnuplot, "PROGRAM", "the gnuplot to run (gnuplot)"},
	    {OPT_STRING, "repo", &opts.repo_dir, "DIR",
	     "the benchmarked repository: its benchline.json, /gate, main synced"},
	    {OPT_INT, "sync-interval", &sync_interval, "SECONDS",
	     "with --repo: sync main this often (300)"},
	    {OPT_BOOL, "create", &create, NULL, "create the database when it does not exist"},
	    {OPT_END, NULL, NULL, NULL, NULL},
	};
	memset(&opts, 0, sizeof(opts));
	if (cli_parse(argc, argv, options, ctx))
		cli_usage_error(ctx->cmd, options, "serve takes no arguments");
	if (port < 0 || port > 65535)
		cli_usage_error(ctx->cmd, options, "--port must be 0 to 65535");
	if (threads < 1 || threads > 256)
		cli_usage_error(ctx->cmd, options, "--threads must be 1 to 256");
	if (timeout < 1 || timeout > 3600)
		cli_usage_error(ctx->cmd, options, "--timeout must be 1 to 3600 seconds");
	if (deadline < 1 || deadline > 3600)
		cli_usage_error(ctx->cmd, options, "--request-deadline must be 1 to 3600 seconds");
	if (client_connections < 0 || client_connections > 512)
		cli_usage_error(ctx->cmd, options, "--client-connections must be 0 to 512");
	if (client_charts < 1 || client_charts > 64)
		cli_usage_error(ctx->cmd, options, "--client-charts must be 1 to 64");
	if (lock_timeout < 1 || lock_timeout > 3600)
		cli_usage_error(ctx->cmd, options,
				"--lock-timeout must be 1 to 3600 seconds, not '%ld'",
				lock_timeout);
	if (sync_interval != -1 && !opts.repo_dir)
		cli_usage_error(ctx->cmd, options, "--sync-interval needs --repo");
	if (sync_interval != -1 && (sync_interval < 1 || sync_interval > 86400))
		cli_usage_error(ctx->cmd, options,
				"--sync-interval must be 1 to 86400 seconds, not '%ld'",
				sync_interval);
	/* The server's writers wait --lock-timeout, its background thread's too, and tell
	 * nobody: a request past it is a 503. */
	store_set_lock_wait((unsigned)lock_timeout * 1000, NULL, NULL);
	/* A database that is not there is a typo in --db more often than a wish for an empty
	 * server: refused unless --create. */
	if (store_open(&ctx->store, ctx->db_path, create ? STORE_CREATE : 0, &err)) {
		if (err.code == BL_ENOTFOUND) {
			char *name = store_name_of_path(ctx->db_path);
			cli_error("no database at '%s' (serve --create makes an empty one)", name);
			free(name);
		} else
			cli_fail(&err);
		bl_error_release(&err);
		return 2;
	}
	if (opts.repo_dir) {
		/* A repository the gate routes could not read is a startup error, not a 500
		 * on every request. */
		struct config cfg;
		config_init(&cfg);
		ret = repo_toplevel(&root, opts.repo_dir, &err);
		if (!ret) {
			opts.repo_dir = root.buf;
			ret = config_load(&cfg, opts.repo_dir, &err);
		}
		config_release(&cfg);
		if (ret) {
			ret = cli_fail(&err);
			strbuf_release(&root);
			bl_error_release(&err);
			return ret;
		}
	}
	opts.db_path = ctx->db_path;
	opts.port = (unsigned)port;
	opts.threads = (unsigned)threads;
	opts.timeout_s = (unsigned)timeout;
	opts.lock_timeout_s = (unsigned)lock_timeout;
	opts.request_deadline_s = (unsigned)deadline;
	opts.client_connections = (unsigned)client_connections;
	opts.client_charts = (unsigned)client_charts;
	opts.sync_interval_s = sync_interval > 0 ? (unsigned)sync_interval : 0;
	opts.log = serve_log;

	/* Every thread inherits this mask: the signals are taken by sigwait below, and a
	 * closed pipe or socket is an error return, never a signal. */
	sigemptyset(&stop);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &stop, &old);
	if (web_start(&srv, &opts, &err)) {
		ret = cli_fail(&err);
		goto done;
	}
	printf("benchline: serving %s at http://%s%s%s:%u/ (Ctrl-C stops)\n",
	       store_name(ctx->store), strchr(opts.bind ? opts.bind : "", ':') ? "[" : "",
	       opts.bind ? opts.bind : "127.0.0.1",
	       strchr(opts.bind ? opts.bind : "", ':') ? "]" : "", web_port(srv));
	fflush(stdout);
	sigdelset(&stop, SIGPIPE);
	while (sigwait(&stop, &sig) != 0)
		;
	/* No new work from here (idle connections closed, new requests 503): said after. */
	web_begin_stop(srv);
	fprintf(stderr, "benchline: %s: finishing requests in flight and stopping\n",
		sig == SIGINT ? "interrupted" : "terminated");
	web_stop(srv);
	fprintf(stderr, "benchline: stopped\n");
done:
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	strbuf_release(&root);
	bl_error_release(&err);
	return ret;
}
