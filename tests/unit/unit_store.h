/*
 * What the unit tests that need a database share: a new store in a fresh temporary file, and
 * its removal with the WAL and shared-memory files SQLite leaves beside it. Include after
 * cmocka.h.
 */
#ifndef BENCHLINE_TESTS_UNIT_STORE_H
#define BENCHLINE_TESTS_UNIT_STORE_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "common/common.h"
#include "store/store.h"

/* Creates /tmp/NAME.XXXXXX (its path into path, size bytes) and opens a store on it. */
static inline struct store *unit_store_open(char *path, size_t size, const char *name)
{
	struct bl_error err = BL_ERROR_INIT;
	struct store *st = NULL;
	int fd;
	snprintf(path, size, "/tmp/%s.XXXXXX", name);
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	if (store_open(&st, path, STORE_CREATE, &err))
		fail_msg("%s", err.msg.buf);
	bl_error_release(&err);
	return st;
}

/* Closes the store and removes its files. */
static inline void unit_store_close(struct store *st, const char *path)
{
	char side[80];
	store_free(st);
	unlink(path);
	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

#endif
