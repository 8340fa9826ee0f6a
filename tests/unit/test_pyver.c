/* SPDX-License-Identifier: MIT */
/*
 * test_pyver.c - the target's Python version and offsets (src/process/pyver.h):
 * names of interpreters read as versions, each version's table as its
 * headers lay it out, and, against real processes of every Python on the
 * machine (pyenv's 3.10 .. 3.13, Debian's static 3.11), the version found
 * and every offset used to read a function, its code, closure cell, a
 * functools.partial, a tuple and str of each kind; 3.13's _Py_DebugOffsets
 * agreeing with the table.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "process/pyver.h"
#include "process/target.h"
#include "testpyproc.h"

static void test_names(void **state)
{
	unsigned int a, b;
	int ft;

	(void)state;
	assert_int_equal(hcb_pyver_from_name("/usr/lib/libpython3.10.so.1.0", &a, &b, &ft), 0);
	assert_true(a == 3 && b == 10 && !ft);
	assert_int_equal(hcb_pyver_from_name("/x/libpython3.13t.so.1.0", &a, &b, &ft), 0);
	assert_true(b == 13 && ft);
	assert_int_equal(hcb_pyver_from_name("/usr/bin/python3.11", &a, &b, &ft), 0);
	assert_true(b == 11 && !ft);
	assert_int_equal(hcb_pyver_from_name("/usr/bin/python3.14t", &a, &b, &ft), 0);
	assert_true(b == 14 && ft);
	assert_int_equal(hcb_pyver_from_name("/x/libpython3.so", &a, &b, &ft), -ENOENT);
	assert_int_equal(hcb_pyver_from_name("/x/python3.11-config", &a, &b, &ft), -ENOENT);
	assert_int_equal(hcb_pyver_from_name("/x/libjax.so", &a, &b, &ft), -ENOENT);
	assert_int_equal(hcb_pyver_from_name("/x/python2.7", &a, &b, &ft), -ENOENT);
}

/* What each version's headers say (offsetof on x86-64), the moves in it. */
static void test_tables(void **state)
{
	static const struct { unsigned int minor; uint16_t ascii, compact, line, file, qual; } want[] = {
		{ 10, 48, 72, 40, 104, 0 },
		{ 11, 48, 72, 72, 112, 128 },
		{ 12, 40, 56, 68, 112, 128 },
		{ 13, 40, 56, 68, 112, 128 },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		const struct hcb_pyoffsets *o = hcb_pyoffsets_get(want[i].minor);

		assert_non_null(o);
		assert_int_equal(o->str_ascii_data, want[i].ascii);
		assert_int_equal(o->str_compact_data, want[i].compact);
		assert_int_equal(o->code_firstlineno, want[i].line);
		assert_int_equal(o->code_filename, want[i].file);
		assert_int_equal(o->code_qualname, want[i].qual);
		assert_int_equal(o->func_code, 48);
		assert_int_equal(o->func_closure, 72);
		assert_int_equal(o->func_qualname, 40);
		assert_int_equal(o->tuple_items, 24);
		assert_int_equal(o->partial_fn, 16);
		assert_int_equal(o->managed_dict, want[i].minor >= 11);
	}
	assert_null(hcb_pyoffsets_get(9));
	assert_null(hcb_pyoffsets_get(14));
}

static const char script[] =
	"import sys, functools\n"
	"def outer():\n"
	"    x = 'cell value'\n"
	"    def inner(a):\n"
	"        return x\n"
	"    return inner\n"
	"f = outer()\n"
	"lat = 'caf\\xe9 {x}'\n"
	"wide = 'euro \\u20ac'\n"
	"p = functools.partial(f, lat)\n"
	"print(sys.hexversion, id(f), id(f.__closure__[0].cell_contents), id(p), id(lat),\n"
	"      id(wide), flush=True)\n"
	"sys.stdin.read()\n";

static uint64_t rd_u64(pid_t pid, uint64_t addr)
{
	uint64_t v = 0;

	assert_int_equal(hcb_target_read(pid, addr, &v, sizeof(v)), 0);
	return v;
}

/* the type's tp_name of the object at addr */
static void assert_type(pid_t pid, const struct hcb_pyoffsets *o, uint64_t addr, const char *name)
{
	char s[64] = "";
	uint64_t type = rd_u64(pid, addr + o->ob_type);

	assert_int_equal(hcb_target_read(pid, rd_u64(pid, type + o->tp_name), s, sizeof(s) - 1), 0);
	assert_string_equal(s, name);
}

/* the str at addr: its length, kind, and its first bytes as stored */
static void assert_str(pid_t pid, const struct hcb_pyoffsets *o, uint64_t addr, const char *data,
		       size_t len, unsigned int kind)
{
	uint32_t st = 0;
	char s[64] = "";
	int ascii;

	assert_type(pid, o, addr, "str");
	assert_int_equal(rd_u64(pid, addr + o->str_length), len);
	assert_int_equal(hcb_target_read(pid, addr + o->str_state, &st, sizeof(st)), 0);
	assert_int_equal(st >> HCB_PYSTR_KIND_SHIFT & HCB_PYSTR_KIND_MASK, kind);
	assert_true(st & HCB_PYSTR_COMPACT);
	ascii = !!(st & HCB_PYSTR_ASCII);
	assert_int_equal(ascii, kind == 1 && !memchr(data, 0xe9, len));
	assert_int_equal(hcb_target_read(pid, addr + (ascii ? o->str_ascii_data :
						       o->str_compact_data), s, len * kind), 0);
	assert_memory_equal(s, data, len * kind);
}

static void check_process(const struct pyproc *p)
{
	unsigned long long hex, f, cellv, part, lat, wide;
	const struct hcb_pyoffsets *o;
	struct hcb_pyver v;
	uint64_t code, clo, args;
	int32_t line = 0;
	char msg[256];

	assert_int_equal(sscanf(p->line, "%llu %llu %llu %llu %llu %llu", &hex, &f, &cellv, &part,
				&lat, &wide), 6);
	assert_int_equal(hcb_pyver_find(p->pid, &v), 0);
	assert_int_equal(v.major, 3);
	assert_int_equal(v.minor, hex >> 16 & 0xff);
	if (v.minor >= 11)
		assert_int_equal(v.hexversion, hex);
	o = hcb_pyoffsets_get(v.minor);
	assert_non_null(o);
	assert_type(p->pid, o, f, "function");
	assert_str(p->pid, o, rd_u64(p->pid, f + o->func_qualname), "outer.<locals>.inner", 20, 1);
	code = rd_u64(p->pid, f + o->func_code);
	assert_type(p->pid, o, code, "code");
	assert_str(p->pid, o, rd_u64(p->pid, code + o->code_filename), "<string>", 8, 1);
	assert_str(p->pid, o, rd_u64(p->pid, code + o->code_name), "inner", 5, 1);
	if (o->code_qualname)
		assert_str(p->pid, o, rd_u64(p->pid, code + o->code_qualname),
			   "outer.<locals>.inner", 20, 1);
	assert_int_equal(hcb_target_read(p->pid, code + o->code_firstlineno, &line, 4), 0);
	assert_int_equal(line, 4);
	clo = rd_u64(p->pid, f + o->func_closure);
	assert_type(p->pid, o, clo, "tuple");
	assert_int_equal(rd_u64(p->pid, clo + o->ob_size), 1);
	assert_type(p->pid, o, rd_u64(p->pid, clo + o->tuple_items), "cell");
	assert_int_equal(rd_u64(p->pid, rd_u64(p->pid, clo + o->tuple_items) + o->cell_ref), cellv);
	assert_type(p->pid, o, part, "functools.partial");
	assert_int_equal(rd_u64(p->pid, part + o->partial_fn), f);
	args = rd_u64(p->pid, part + o->partial_args);
	assert_int_equal(rd_u64(p->pid, args + o->ob_size), 1);
	assert_int_equal(rd_u64(p->pid, args + o->tuple_items), lat);
	assert_str(p->pid, o, lat, "caf\xe9 {x}", 8, 1);
	assert_str(p->pid, o, wide, "e\0u\0r\0o\0 \0\xac\x20", 6, 2);
	if (v.minor >= 13) {
		struct hcb_pyoffsets shifted = *o;

		assert_int_equal(hcb_pyver_check_debug(p->pid, &v, o, msg, sizeof(msg)), 0);
		/* a table a word off where the process publishes it: refused */
		shifted.code_filename += 8;
		assert_int_equal(hcb_pyver_check_debug(p->pid, &v, &shifted, msg, sizeof(msg)),
				 -EPROTO);
		assert_non_null(strstr(msg, "co_filename"));
	} else
		assert_int_equal(hcb_pyver_check_debug(p->pid, &v, o, msg, sizeof(msg)), -ENOENT);
}

static void test_real_processes(void **state)
{
	unsigned int seen = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(test_pythons) / sizeof(test_pythons[0]); i++) {
		struct pyproc p;
		int err = pyproc_start(&p, test_pythons[i], script);

		if (err == -ENOENT)
			continue;
		assert_int_equal(err, 0);
		print_message("%s: %s", test_pythons[i], p.line);
		check_process(&p);
		pyproc_stop(&p);
		seen++;
	}
	if (!seen)
		skip();
}

/* A process with no Python in it, one that is gone, and an older Python. */
static void test_no_python(void **state)
{
	struct hcb_pyver v;
	struct pyproc p;

	(void)state;
	if (pyproc_start(&p, "/root/.pyenv/versions/3.9.18/bin/python3.9",
			 "import sys; print(1, flush=True); sys.stdin.read()") == 0) {
		assert_int_equal(hcb_pyver_find(p.pid, &v), -ENOTSUP);
		assert_int_equal(v.minor, 9);
		pyproc_stop(&p);
	}
	assert_int_equal(hcb_pyver_find(getpid(), &v), -ENOENT);
	assert_int_equal(hcb_pyver_find(999999999, &v), -ESRCH);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_tables),
		cmocka_unit_test(test_real_processes),
		cmocka_unit_test(test_no_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
