/* SPDX-License-Identifier: MIT */
/*
 * test_pysite.c - call sites named by the user's code (src/providers/jaxcb/pysite.h), on
 * real jax processes: tests/data/pysite/sites.py runs one jitted function
 * with jax.debug.print (named fields and a format spec; non-ASCII and
 * ordered), debug.callback (a function, a lambda), io_callback and
 * pure_callback, and prints every callable jax registered for the host with
 * the site Python's own introspection gives it.  The walker must name each
 * the same, from outside; again from its cache; and, fed a table a word off
 * anywhere or an object of another kind, refuse (-EPROTO), never name a
 * site otherwise.  Once per jax venv found: $HCB_VENV_JAX12 (jax 0.12 on
 * 3.12), $HCB_VENV_JAX (0.10 on 3.11), $HCB_VENV_JAX6 (0.6 on 3.10),
 * $HCB_VENV_JAX12_PY313 (0.12 on 3.13), else BUILD/venv-jax12, venv-jax10,
 * venv-jax6-py310, venv-jax12-py313.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cmocka.h>
#include <jansson.h>

#include "process/pyobj.h"
#include "process/pyver.h"
#include "providers/jaxcb/pysite.h"
#include "testpyproc.h"

/* the site Python gave, as the walker must give it; 1 if it must refuse */
static int expected(json_t *j, struct hcb_pysite *want)
{
	memset(want, 0, sizeof(*want));
	if (json_object_get(j, "err"))
		return 1;
	want->kind = (int)json_integer_value(json_object_get(j, "kind"));
	want->ordered = (int)json_integer_value(json_object_get(j, "ordered"));
	if (want->kind == HCB_PYSITE_PRINT) {
		json_t *o = json_object_get(j, "opts");

		snprintf(want->fmt, sizeof(want->fmt), "%s",
			 json_string_value(json_object_get(j, "fmt")));
		want->opts_ok = (int)json_integer_value(json_object_get(j, "opts_ok"));
		want->opts = (struct hcb_print_opts){
			(uint64_t)json_integer_value(json_array_get(o, 0)),
			(int)json_integer_value(json_array_get(o, 1)),
			(int)json_integer_value(json_array_get(o, 2)),
			(int)json_integer_value(json_array_get(o, 3)),
			(int)json_integer_value(json_array_get(o, 4)), -1 };
	} else {
		snprintf(want->qualname, sizeof(want->qualname), "%s",
			 json_string_value(json_object_get(j, "qualname")));
		snprintf(want->file, sizeof(want->file), "%s",
			 json_string_value(json_object_get(j, "file")));
		want->line = (unsigned int)json_integer_value(json_object_get(j, "line"));
	}
	return 0;
}

static int same_site(const struct hcb_pysite *a, const struct hcb_pysite *b)
{
	/* a print's options, where read, as numpy had them (issue 39) */
	if (a->opts_ok != b->opts_ok ||
	    (a->opts_ok && memcmp(&a->opts, &b->opts, sizeof(a->opts))))
		return 0;
	return a->kind == b->kind && a->ordered == b->ordered && !strcmp(a->fmt, b->fmt) &&
	       !strcmp(a->qualname, b->qualname) && !strcmp(a->file, b->file) &&
	       a->line == b->line;
}

/* every callable named as Python names it, twice (the second from cache) */
static void check_all(struct hcb_pysites *s, json_t *sites)
{
	unsigned int prints = 0, callbacks = 0;
	size_t i;
	json_t *j;

	json_array_foreach(sites, i, j) {
		uint64_t id = (uint64_t)json_integer_value(json_object_get(j, "id"));
		struct hcb_pysite want, got;
		int refuse = expected(j, &want);

		for (int pass = 0; pass < 2; pass++) {
			int err = hcb_pysite_lookup(s, id, &got);

			if (refuse) {
				assert_int_equal(err, -EPROTO);
				continue;
			}
			if (err)
				fail_msg("site %zu (%s): %d", i, json_string_value(json_object_get(j,
					 want.kind == HCB_PYSITE_PRINT ? "fmt" : "qualname")), err);
			if (!same_site(&got, &want))
				fail_msg("site %zu: got kind %d '%s' '%s' %s:%u ordered %d opts %d "
					 "(precision %d)", i, got.kind, got.fmt, got.qualname,
					 got.file, got.line, got.ordered, got.opts_ok,
					 got.opts.precision);
		}
		prints += !refuse && want.kind == HCB_PYSITE_PRINT;
		callbacks += !refuse && want.kind == HCB_PYSITE_CALLBACK;
	}
	/* the three prints, the ordered one's inner wrapper */
	assert_true(prints >= 4);
	assert_true(callbacks >= 2);
}

#define FIELD(name) offsetof(struct hcb_pyoffsets, name)

/* A table a word off at field (offset from the table's start): every
 * lookup refuses or names the site Python gave, never another; at least
 * one site it named before is refused. */
static void check_shifted(pid_t pid, const struct hcb_pyoffsets *o, json_t *sites, size_t field,
			  int delta)
{
	struct hcb_pyoffsets bad = *o;
	struct hcb_pysites *s;
	unsigned int refused = 0;
	uint16_t *f = (uint16_t *)((char *)&bad + field);
	size_t i;
	json_t *j;

	*f = (uint16_t)(*f + delta);
	assert_int_equal(hcb_pysites_open_with(&s, pid, &bad), 0);
	json_array_foreach(sites, i, j) {
		uint64_t id = (uint64_t)json_integer_value(json_object_get(j, "id"));
		struct hcb_pysite want, got;
		int refuse = expected(j, &want), err = hcb_pysite_lookup(s, id, &got);

		if (err) {
			assert_true(err == -EPROTO || err == -EFAULT);
			refused += !refuse;
		} else {
			assert_false(refuse);
			assert_true(same_site(&got, &want));
		}
	}
	/* member_offset is read only for a _FlatCallback's slots (jax 0.10+),
	 * and - 8 reads the member's type, T_OBJECT_EX = 16, which is
	 * callback_func's offset as well: right by chance, not refused */
	if (!refused && field != FIELD(member_offset))
		fail_msg("a table off by %d at byte %zu of it: nothing refused", delta, field);
	hcb_pysites_free(s);
}

static const size_t shifted_fields[] = {
	FIELD(ob_type), FIELD(ob_size), FIELD(tp_name), FIELD(str_length), FIELD(str_state),
	FIELD(str_ascii_data), FIELD(str_compact_data), FIELD(tuple_items), FIELD(cell_ref),
	FIELD(func_qualname), FIELD(func_code), FIELD(func_closure), FIELD(code_filename),
	FIELD(partial_fn), FIELD(partial_args), FIELD(member_offset),
};

static void check_venv(const char *python, const char *script)
{
	const struct hcb_pyoffsets *o;
	struct hcb_pysites *s;
	struct hcb_pyver v;
	struct pyproc p;
	json_error_t jerr;
	json_t *sites;
	unsigned long reads;

	assert_int_equal(pyproc_run(&p, python, script, 1), 0);
	sites = json_loads(p.line, 0, &jerr);
	assert_non_null(sites);
	assert_int_equal(hcb_pyver_find(p.pid, &v), 0);
	print_message("%s: Python 3.%u.%u, %zu callables\n", python, v.minor, v.micro,
		      json_array_size(sites));
	assert_int_equal(hcb_pysites_open(&s, p.pid), 0);
	check_all(s, sites);
	reads = hcb_pysites_reads(s);
	check_all(s, sites);
	/* from the cache: one read of the callable's head each */
	assert_int_equal(hcb_pysites_reads(s) - reads, 2 * json_array_size(sites));
	hcb_pysites_free(s);
	o = hcb_pyoffsets_get(v.minor);
	for (size_t i = 0; i < sizeof(shifted_fields) / sizeof(shifted_fields[0]); i++) {
		check_shifted(p.pid, o, sites, shifted_fields[i], 8);
		check_shifted(p.pid, o, sites, shifted_fields[i], -8);
	}
	json_decref(sites);
	pyproc_stop(&p);
}

static void test_jax_processes(void **state)
{
	char python[4200], script[4200];
	const char *data = *state;
	unsigned int seen = 0;

	snprintf(script, sizeof(script), "%s/pysite/sites.py", data);
	for (size_t i = 0; i < sizeof(test_venvs) / sizeof(test_venvs[0]); i++) {
		test_venv_python(i, python, sizeof(python));
		if (!python[0]) {
			print_message("no %s: that jax not checked\n", test_venvs[i].env);
			continue;
		}
		check_venv(python, script);
		seen++;
	}
	if (!seen)
		skip();
}

/* A type's name read across a page's end (the next page mapped), and one
 * that ends before an unmapped page: both read; a name with no NUL before
 * the unmapped page is refused.  The objects are this process's own. */
static void test_type_name_at_page_end(void **state)
{
	const struct hcb_pyoffsets *o = hcb_pyoffsets_get(12);
	long page = sysconf(_SC_PAGESIZE);
	char *m = mmap(NULL, 3 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);
	uint64_t obj[4] = { 1, 0, 0, 0 }, type[64] = { 0 };
	struct hcb_pyreader r;
	char name[40];

	(void)state;
	assert_true(m != MAP_FAILED);
	assert_int_equal(mprotect(m + 2 * page, (size_t)page, PROT_NONE), 0);
	obj[1] = (uint64_t)(uintptr_t)type;
	hcb_pyreader_init(&r, getpid(), o);
	/* "functools.partial" from 6 bytes before page 1's end: across it */
	memcpy(m + page - 6, "functools.partial", 18);
	type[o->tp_name / 8] = (uint64_t)(uintptr_t)(m + page - 6);
	assert_int_equal(hcb_pyobj_type(&r, (uint64_t)(uintptr_t)obj, name), 0);
	assert_string_equal(name, "functools.partial");
	/* "str" ending right before the unmapped page */
	memcpy(m + 2 * page - 4, "str", 4);
	type[o->tp_name / 8] = (uint64_t)(uintptr_t)(m + 2 * page - 4);
	r.ntypes = 0;
	assert_int_equal(hcb_pyobj_type(&r, (uint64_t)(uintptr_t)obj, name), 0);
	assert_string_equal(name, "str");
	/* no NUL before it: refused, not read past */
	memcpy(m + 2 * page - 4, "strx", 4);
	r.ntypes = 0;
	assert_int_not_equal(hcb_pyobj_type(&r, (uint64_t)(uintptr_t)obj, name), 0);
	munmap(m, 3 * (size_t)page);
}

/* No Python in the process: said so, not a crash. */
static void test_no_python(void **state)
{
	struct hcb_pysites *s;

	(void)state;
	assert_int_equal(hcb_pysites_open(&s, getpid()), -ENOENT);
}

int main(int argc, char **argv)
{
	const char *data = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_jax_processes, (void *)data),
		cmocka_unit_test(test_type_name_at_page_end),
		cmocka_unit_test(test_no_python),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
