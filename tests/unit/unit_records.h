/*
 * What the unit tests of the formats share (test_adapters, test_history, test_native): a sink
 * that appends each record handed to it to a batch, and a record's metric by name. Include
 * after cmocka.h.
 */
#ifndef BENCHLINE_TESTS_UNIT_RECORDS_H
#define BENCHLINE_TESTS_UNIT_RECORDS_H

#include <string.h>

#include "common/common.h"
#include "ingest/ingest.h"

/* An ingest_record_fn: the record moved to the end of the batch data points to. */
static inline int unit_take_record(struct ingest_record *rec, void *data, struct bl_error *err)
{
	struct ingest_batch *b = data;
	(void)err;
	ALLOC_GROW(b->records, b->nr, b->alloc);
	b->records[b->nr++] = *rec;
	memset(rec, 0, sizeof(*rec));
	return 0;
}

/* The record's metric named name; the test fails when it has none. */
static inline const struct ingest_metric *unit_metric(const struct ingest_record *rec,
						      const char *name)
{
	for (size_t i = 0; i < rec->nmetrics; i++)
		if (!strcmp(rec->metrics[i].name, name))
			return &rec->metrics[i];
	fail_msg("%s: no metric %s", rec->benchmark, name);
	return NULL;
}

#endif
