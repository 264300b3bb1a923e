/*
 * Ignoring an alert: the one way a person, not a measurement, decides one (confirm.h,
 * confirm_ignore_alert). The command line and the web both call it.
 */
#include <stdlib.h>
#include <string.h>

#include "detect/confirm/confirm.h"
#include "store/store.h"

/* What the alert holds, kept as it is when its state moves. */
struct found_alert {
	int found;
	enum suspect_state state;
	enum alert_outcome outcome;
	char *rebench, *note;
};

static int take_alert(const struct store_alert *a, void *data)
{
	struct found_alert *f = data;
	f->found = 1;
	f->state = a->state;
	f->outcome = a->outcome;
	f->rebench = xstrdup_or_null(a->rebench);
	f->note = xstrdup_or_null(a->note);
	return 1;
}

int confirm_ignore_alert(enum suspect_state *was, struct store *st, int64_t alert_id,
			 const char *who, const char *why, struct bl_error *err)
{
	struct found_alert f = {0, SUSPECT_OPEN, ALERT_NO_OUTCOME, NULL, NULL};
	struct store_alert_filter filter;
	int64_t audit_id;
	int ret;

	*was = SUSPECT_OPEN;
	if (!why || !why[strspn(why, " \t\r\n")])
		return bl_error_set(err, BL_EINVALID,
				    "ignoring alert %lld needs a reason (why), kept in the audit",
				    (long long)alert_id);
	/* Free text from outside is bounded before it is kept (§13), as a record's strings are. */
	if (strlen(why) > INGEST_MAX_STRING)
		return bl_error_set(
		    err, BL_EINVALID,
		    "the reason to ignore alert %lld is %zu bytes: at most %d are kept "
		    "(link to the rest)",
		    (long long)alert_id, strlen(why), INGEST_MAX_STRING);
	memset(&filter, 0, sizeof(filter));
	filter.id = alert_id;
	if ((ret = store_begin(st, err)))
		return ret;
	if ((ret = store_each_alert(st, &filter, take_alert, &f, err)))
		goto done;
	if (!f.found) {
		ret = bl_error_set(err, BL_ENOTFOUND, "no alert %lld", (long long)alert_id);
		goto done;
	}
	*was = f.state;
	if (f.state == SUSPECT_IGNORED)
		goto done;
	if (!(ret = store_alert_set_outcome(st, alert_id, SUSPECT_IGNORED, f.outcome, f.rebench,
					    f.note, err)))
		ret = store_admin_audit(&audit_id, st, STORE_AUDIT_IGNORE, who, why, alert_id, 0,
					err);
done:
	if (ret || f.state == SUSPECT_IGNORED)
		store_rollback(st);
	else
		ret = store_commit(st, err);
	free(f.rebench);
	free(f.note);
	return ret;
}
