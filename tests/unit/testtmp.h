/* SPDX-License-Identifier: MIT */
/*
 * testtmp.h - a unit test's own temporary folder, made before its tests
 * and removed after: `static char tmpdir[] = "/tmp/test_NAME.XXXXXX";`
 * before including, then cmocka_run_group_tests(tests, setup, teardown).
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

#endif
