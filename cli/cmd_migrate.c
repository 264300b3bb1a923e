#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "store/store.h"
#include "cli/cli.h"

/* One line a table on stderr, as the copy goes. */
static void show_progress(const char *table, size_t rows, void *data)
{
	(void)data;
	fprintf(stderr, "benchline: copied %zu rows of %s\n", rows, table);
}

int cmd_migrate(int argc, const char **argv, struct cli_ctx *ctx)
{
	const char *from_path = NULL, *to_path = NULL;
	int json = 0;
	const struct cli_option opts[] = {
	    {OPT_STRING, "from", &from_path, "DB", "the database to copy (a file or a URL)"},
	    {OPT_STRING, "to", &to_path, "DB", "the database to fill (created; must be empty)"},
	    {OPT_BOOL, "json", &json, NULL, "print the counts and checksums as JSON"},
	    {OPT_END, NULL, NULL, NULL, NULL}};
	struct bl_error err = BL_ERROR_INIT;
	struct store *from = NULL, *to = NULL;
	struct store_copy_report report;
	json_t *tables = json_array();
	size_t rows = 0;
	int ret = 2;

	if (cli_parse(argc, argv, opts, ctx))
		cli_usage_error(ctx->cmd, opts, "migrate takes no arguments");
	if (!from_path || !to_path)
		cli_usage_error(ctx->cmd, opts, "migrate needs --from and --to");
	if (!strcmp(from_path, to_path))
		cli_usage_error(ctx->cmd, opts, "--from and --to name the same database");
	if (store_open(&from, from_path, 0, &err) || store_open(&to, to_path, STORE_CREATE, &err) ||
	    store_copy(&report, from, to, show_progress, NULL, &err)) {
		cli_fail(&err);
		goto done;
	}
	for (size_t i = 0; i < STORE_COPY_NTABLES; i++) {
		const struct store_copy_table *t = &report.tables[i];
		rows += t->source.rows;
		json_array_append_new(tables, json_pack("{s:s, s:I, s:s}", "table", t->name, "rows",
							(json_int_t)t->source.rows, "checksum",
							t->source.checksum));
	}
	if (json)
		cli_json_print(json_pack("{s:O}", "tables", tables));
	fprintf(stderr,
		"benchline: copied %zu rows of %d tables from '%s' to '%s'; counts and checksums "
		"agree\n",
		rows, STORE_COPY_NTABLES, store_name(from), store_name(to));
	ret = 0;
done:
	json_decref(tables);
	store_free(from);
	store_free(to);
	bl_error_release(&err);
	return ret;
}
