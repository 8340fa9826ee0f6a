/* SPDX-License-Identifier: MIT */
/*
 * testtmp.h - a unit test's own temporary folder, made before its tests
 * and removed after: `static char tmpdir[] = "/tmp/test_NAME.XXXXXX";`
 * before including, then cmocka_run_group_tests(tests, setup, teardown).
 * tmp_path(NAME) names a file in it (the last four names stay valid).
 */
#ifndef HCB_TESTTMP_H
#define HCB_TESTTMP_H

#include <stdio.h>
#include <stdlib.h>

static int setup(void **state)
{
	(void)state;
	return mkdtemp(tmpdir) ? 0 : -1;
}

static int teardown(void **state)
{
	char cmd[300];

	(void)state;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

/* tmpdir/name, in one of four buffers used in turn */
static inline const char *tmp_path(const char *name)
{
	static char path[4][256];
	static int k;

	k = (k + 1) % 4;
	snprintf(path[k], sizeof(path[k]), "%s/%s", tmpdir, name);
	return path[k];
}

#endif
