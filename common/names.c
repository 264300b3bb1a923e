/*
 * The names of the kinds and states the program keeps as enums (common/common.h): one table
 * each, the text the record format, the database (its CHECK constraints), JSON and the pages
 * use.
 */
#include <math.h>
#include <string.h>

#include "common/common.h"

static const char *const metric_kind_names[] = {
    [METRIC_TIMED] = "timed",
    [METRIC_COUNTED] = "counted",
    [METRIC_QUANTILE] = "quantile",
};

static const char *const metric_better_names[] = {"lower", "higher"};

static const char *const line_break_names[] = {
    [LINE_CONTINUES] = "", /* never stored: parses to nothing */
    [LINE_FIRST] = "first",	  [LINE_HARNESS] = "harness", [LINE_CONTENT] = "content",
    [LINE_BASELINE] = "baseline", [LINE_PINNED] = "pinned",
};

static const char *const suspect_side_names[] = {
    [SUSPECT_SLOWER] = "slower",
    [SUSPECT_FASTER] = "faster",
};

static const char *const suspect_kind_names[] = {
    [SUSPECT_BAND] = "band",
    [SUSPECT_CHANGE_POINT] = "change-point",
};

static const char *const suspect_state_names[] = {
    [SUSPECT_OPEN] = "open",	       [SUSPECT_CLEARED] = "cleared",
    [SUSPECT_CONFIRMED] = "confirmed", [SUSPECT_COVERED] = "covered",
    [SUSPECT_TRANSIENT] = "transient", [SUSPECT_IGNORED] = "ignored",
    [SUSPECT_PENDING] = "pending",
};

/* ALERT_NO_OUTCOME has no name: the store keeps it as NULL. */
static const char *const alert_outcome_names[] = {
    [ALERT_NO_OUTCOME] = NULL,
    [ALERT_CLEARED] = "cleared",
    [ALERT_CONFIRMED] = "confirmed",
    [ALERT_UNBUILDABLE] = "unbuildable",
    [ALERT_INCONCLUSIVE] = "inconclusive",
    [ALERT_TRANSIENT] = "transient",
};

static const char *const result_format_names[] = {
    [RESULT_AUTO] = "auto",	[RESULT_NATIVE] = "benchline",	  [RESULT_BMF] = "bmf",
    [RESULT_GBENCH] = "gbench", [RESULT_HYPERFINE] = "hyperfine", [RESULT_PYTEST] = "pytest",
    [RESULT_GOTEST] = "gotest", [RESULT_CRITERION] = "criterion", [RESULT_CATCH2] = "catch2",
    [RESULT_JMH] = "jmh",
};

static const char *const history_format_names[] = {
    [HISTORY_ASV] = "asv",
    [HISTORY_ASV_HTML] = "asv-html",
    [HISTORY_GAB] = "gab",
    [HISTORY_BENCHER] = "bencher",
};

#define NAMES_NR(t) (sizeof(t) / sizeof((t)[0]))

/* The index of name in names[0..n), or BL_EINVALID. */
static int name_index(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; name && i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return BL_EINVALID;
}

/* names[i], or "?" for a number no enum value has (a cast gone wrong, never stored). */
static const char *index_name(const char *const *names, size_t n, unsigned i)
{
	return i < n ? names[i] : "?";
}

const char *metric_kind_name(enum metric_kind k)
{
	return index_name(metric_kind_names, NAMES_NR(metric_kind_names), (unsigned)k);
}

int metric_kind_parse(enum metric_kind *out, const char *name)
{
	int i = name_index(metric_kind_names, NAMES_NR(metric_kind_names), name);
	if (i < 0)
		return i;
	*out = (enum metric_kind)i;
	return 0;
}

double metric_judged_value(enum metric_kind k, double median, double value)
{
	return k == METRIC_TIMED && !isnan(median) ? median : value;
}

const char *metric_better_name(int better_higher)
{
	return metric_better_names[better_higher != 0];
}

int metric_better_parse(int *better_higher, const char *name)
{
	int i = name_index(metric_better_names, NAMES_NR(metric_better_names), name);
	if (i < 0)
		return i;
	*better_higher = i;
	return 0;
}

const char *line_break_name(enum line_break b)
{
	if (b == LINE_CONTINUES)
		return NULL;
	return index_name(line_break_names, NAMES_NR(line_break_names), (unsigned)b);
}

int line_break_parse(enum line_break *out, const char *name)
{
	int i = name_index(line_break_names, NAMES_NR(line_break_names), name);
	if (i <= LINE_CONTINUES)
		return BL_EINVALID;
	*out = (enum line_break)i;
	return 0;
}

enum line_break line_break_at(int started, int64_t line_harness, const char *line_content,
			      int64_t harness, const char *content, int baseline)
{
	if (!started)
		return LINE_FIRST;
	if (harness != line_harness)
		return LINE_HARNESS;
	if ((content == NULL) != (line_content == NULL) ||
	    (content && strcmp(content, line_content)))
		return LINE_CONTENT;
	if (baseline)
		return LINE_BASELINE;
	return LINE_CONTINUES;
}

int line_pinned_at(const int64_t *pinned, size_t n, double last_place, double place)
{
	for (size_t i = 0; i < n; i++)
		if (last_place < (double)pinned[i] && (double)pinned[i] <= place)
			return 1;
	return 0;
}

const char *suspect_side_name(enum suspect_side s)
{
	return index_name(suspect_side_names, NAMES_NR(suspect_side_names), (unsigned)s);
}

int suspect_side_parse(enum suspect_side *out, const char *name)
{
	int i = name_index(suspect_side_names, NAMES_NR(suspect_side_names), name);
	if (i < 0)
		return i;
	*out = (enum suspect_side)i;
	return 0;
}

const char *suspect_kind_name(enum suspect_kind k)
{
	return index_name(suspect_kind_names, NAMES_NR(suspect_kind_names), (unsigned)k);
}

int suspect_kind_parse(enum suspect_kind *out, const char *name)
{
	int i = name_index(suspect_kind_names, NAMES_NR(suspect_kind_names), name);
	if (i < 0)
		return i;
	*out = (enum suspect_kind)i;
	return 0;
}

const char *suspect_state_name(enum suspect_state s)
{
	return index_name(suspect_state_names, NAMES_NR(suspect_state_names), (unsigned)s);
}

int suspect_state_parse(enum suspect_state *out, const char *name)
{
	int i = name_index(suspect_state_names, NAMES_NR(suspect_state_names), name);
	if (i < 0)
		return i;
	*out = (enum suspect_state)i;
	return 0;
}

const char *alert_outcome_name(enum alert_outcome o)
{
	return index_name(alert_outcome_names, NAMES_NR(alert_outcome_names), (unsigned)o);
}

int alert_outcome_parse(enum alert_outcome *out, const char *name)
{
	int i = name_index(alert_outcome_names, NAMES_NR(alert_outcome_names), name);
	if (i < 0)
		return i;
	*out = (enum alert_outcome)i;
	return 0;
}

const char *result_format_name(enum result_format f)
{
	return index_name(result_format_names, NAMES_NR(result_format_names), (unsigned)f);
}

int result_format_parse(enum result_format *out, const char *name)
{
	int i = name && !strcmp(name, "native")
		    ? RESULT_NATIVE
		    : name_index(result_format_names, NAMES_NR(result_format_names), name);
	if (i < 0)
		return i;
	*out = (enum result_format)i;
	return 0;
}

/* names[0..n) as "a, b, ... or z". */
static void list_names(struct strbuf *sb, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		strbuf_addf(sb, "%s%s", i == 0 ? "" : i + 1 == n ? " or " : ", ", names[i]);
}

void result_format_list(struct strbuf *sb)
{
	list_names(sb, result_format_names, NAMES_NR(result_format_names));
}

int history_format_parse(enum history_format *out, const char *name)
{
	int i = name_index(history_format_names, NAMES_NR(history_format_names), name);
	if (i < 0)
		return i;
	*out = (enum history_format)i;
	return 0;
}

void history_format_list(struct strbuf *sb)
{
	list_names(sb, history_format_names, NAMES_NR(history_format_names));
}

int machine_name_valid(const char *s)
{
	size_t n = strlen(s);
	if (!n || n > 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '.' || *s == '_' || *s == '-'))
			return 0;
	return 1;
}
