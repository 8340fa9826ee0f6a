/* SPDX-License-Identifier: MIT */
/*
 * test_pydist.c - jax's distributed state read from outside
 * (src/process/pydist.h, pydict.h), on real processes of every Python on
 * the machine (pyenv's 3.10 .. 3.13, Debian's static 3.11): a module named
 * jax._src.distributed whose global_state is a State as jax's is, in each
 * shape CPython keeps an instance's attributes in (values inline, shared
 * keys, a dict made, a dict past the shared keys), and each way it can be
 * wrong: no client, a client None, no module, an index past the count, a
 * bool or a huge int, a module or class of another name, a table that is
 * off.  Each says what jax would, or nothing: never a wrong value.  The
 * real jax.distributed is tests/bats/identity.bats's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cmocka.h>

#include "process/pydist.h"
#include "process/pyver.h"
#include "process/target.h"
#include "testpyproc.h"

/* The program: a State set as jax.distributed.initialize() sets it, then
 * CASE's change, then "ready". */
static const char script[] =
	"import sys, types\n"
	"m = types.ModuleType('jax._src.distributed')\n"
	"class State:\n"
	"    process_id = 0\n"
	"    num_processes = 1\n"
	"    client = None\n"
	"s = State()\n"
	"s.process_id = 3\n"
	"s.num_processes = 8\n"
	"s.client = object()\n"
	"m.State = State\n"
	"m.global_state = s\n"
	"sys.modules['jax._src.distributed'] = m\n"
	"%s\n"
	"print('ready', flush=True)\n"
	"sys.stdin.read()\n";

struct dist_case {
	const char *change;
	int err;              /* what the read answers */
	uint32_t index, count;
};

static const struct dist_case cases[] = {
	{ "", 0, 3, 8 },
	/* the instance's dict made (vars()): read through it */
	{ "vars(s)", 0, 3, 8 },
	/* more attributes than the class's shared keys hold */
	{ "for i in range(40): setattr(s, 'a%d' % i, i)", 0, 3, 8 },
	/* many modules before and after */
	{ "[sys.modules.setdefault('m%d' % i, types.ModuleType('m%d' % i)) for i in range(3000)]",
	  0, 3, 8 },
	{ "s.process_id = 0; s.num_processes = 1", 0, 0, 1 },
	{ "s.process_id = 1048575; s.num_processes = 1048576", 0, 1048575, 1048576 },
	/* jax says nothing of a job */
	{ "del s.client", -ENOENT, 0, 0 },
	{ "s.client = None", -ENOENT, 0, 0 },
	{ "del sys.modules['jax._src.distributed']", -ENOENT, 0, 0 },
	{ "s2 = State(); s2.process_id = 1; m.global_state = s2", -ENOENT, 0, 0 },
	/* what no jax sets: refused, never taken */
	{ "s.process_id = 8", -EPROTO, 0, 0 },
	{ "s.process_id = True", -EPROTO, 0, 0 },
	{ "s.process_id = -1", -EPROTO, 0, 0 },
	{ "s.process_id = 2**40; s.num_processes = 2**41", -EPROTO, 0, 0 },
	{ "s.num_processes = 3.0", -EPROTO, 0, 0 },
	{ "m.__name__ = 'other'", -EPROTO, 0, 0 },
	{ "class Other: pass\no = Other(); o.__dict__.update(vars(s)); m.global_state = o",
	  -EPROTO, 0, 0 },
	{ "m.global_state = 7", -EPROTO, 0, 0 },
	{ "del m.global_state", -EPROTO, 0, 0 },
};

static int read_one(const char *python, const struct dist_case *c, struct hcb_process_id *p,
		    char *why, size_t cap)
{
	char text[4096];
	struct pyproc proc;
	int err;

	snprintf(text, sizeof(text), script, c->change);
	err = pyproc_start(&proc, python, text);
	if (err)
		return err == -ENOENT ? 1 : err;
	err = hcb_pydist_read(proc.pid, p, why, cap);
	pyproc_stop(&proc);
	return err;
}

static void test_cases(void **state)
{
	unsigned int tried = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(test_pythons) / sizeof(test_pythons[0]); k++) {
		if (access(test_pythons[k], X_OK))
			continue;
		tried++;
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			struct hcb_process_id p = { 0 };
			char why[256] = "";
			int err = read_one(test_pythons[k], &cases[i], &p, why, sizeof(why));

			if (err != cases[i].err)
				fail_msg("%s, case %zu (%s): %d, expected %d (%s)", test_pythons[k], i,
					 cases[i].change, err, cases[i].err, why);
			if (err == -EPROTO && !strstr(why, "did not check out"))
				fail_msg("%s, case %zu: why '%s'", test_pythons[k], i, why);
			if (err)
				continue;
			if (p.index != cases[i].index || p.count != cases[i].count ||
			    strcmp(p.source, "jax"))
				fail_msg("%s, case %zu: %u of %u (%s)", test_pythons[k], i, p.index,
					 p.count, p.source);
		}
	}
	assert_true(tried >= 4);
}

/* A table off by a word anywhere on the way finds nothing it takes: a
 * line, never a value. */
static void test_wrong_table(void **state)
{
	static const size_t fields[] = {
		offsetof(struct hcb_pyoffsets, runtime_main),
		offsetof(struct hcb_pyoffsets, interp_modules),
		offsetof(struct hcb_pyoffsets, dict_keys),
		offsetof(struct hcb_pyoffsets, module_dict),
		offsetof(struct hcb_pyoffsets, ht_cached_keys),
		offsetof(struct hcb_pyoffsets, long_digits),
	};
	unsigned int tried = 0;

	(void)state;
	for (size_t k = 0; k < sizeof(test_pythons) / sizeof(test_pythons[0]); k++) {
		const struct hcb_pyoffsets *table;
		struct hcb_pyver v;
		struct pyproc proc;
		char text[4096], why[256];
		uint64_t runtime;

		snprintf(text, sizeof(text), script, "");
		if (pyproc_start(&proc, test_pythons[k], text))
			continue;
		assert_int_equal(hcb_pyver_open(proc.pid, &v, &table, why, sizeof(why)), 0);
		assert_int_equal(hcb_target_symbol_offset(v.path, "_PyRuntime", &runtime), 0);
		for (size_t f = 0; f < sizeof(fields) / sizeof(fields[0]); f++) {
			struct hcb_pyoffsets o = *table;
			struct hcb_pyreader r;
			struct hcb_process_id p;
			uint16_t *field = (uint16_t *)((char *)&o + fields[f]);
			int err;

			/* 3.10 keeps an instance's attributes in a dict of its own */
			if (v.minor == 10 && fields[f] == offsetof(struct hcb_pyoffsets, ht_cached_keys))
				continue;

			/* the dict a table off finds must not be one: on 3.13 the
			 * interpreter's own offsets stand in for the table's */
			hcb_pyver_debug_interp(proc.pid, &v, &o);
			*field += 8;
			hcb_pyreader_init(&r, proc.pid, &o);
			err = hcb_pydist_walk(&r, v.base + runtime, &p, why, sizeof(why));
			if (err != -EPROTO && err != -EFAULT)
				fail_msg("%s, field %zu off: %d (%u of %u)", test_pythons[k], f, err,
					 p.index, p.count);
		}
		pyproc_stop(&proc);
		tried++;
	}
	assert_true(tried >= 4);
}

/* What a read costs, with thousands of modules. */
static void test_cost(void **state)
{
	static const struct dist_case many = {
		"[sys.modules.setdefault('m%d' % i, types.ModuleType('m%d' % i)) for i in range(20000)]",
		0, 3, 8
	};
	struct hcb_process_id p;
	struct timespec a, b;
	char why[256];

	(void)state;
	for (size_t k = 0; k < sizeof(test_pythons) / sizeof(test_pythons[0]); k++) {
		int err;

		clock_gettime(CLOCK_MONOTONIC, &a);
		err = read_one(test_pythons[k], &many, &p, why, sizeof(why));
		if (err == 1)
			continue;
		clock_gettime(CLOCK_MONOTONIC, &b);
		assert_int_equal(err, 0);
		print_message("%s: 20000 modules, started and read in %.0f ms\n", test_pythons[k],
			      (double)(b.tv_sec - a.tv_sec) * 1e3 + (double)(b.tv_nsec - a.tv_nsec) / 1e6);
		assert_int_equal(p.index, 3);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cases),
		cmocka_unit_test(test_wrong_table),
		cmocka_unit_test(test_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
