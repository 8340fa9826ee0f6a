/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_names.c - what jax call sites are called (src/providers/jaxcb/names.c)
 * when the decoder's namer reads a real jax process (the first venv of
 * testpyproc.h found, running tests/data/pysite/sites.py): a print by its
 * format string (kwargs op, module, ordered), a callback by its function
 * (kwargs file, line, op, module), a second site of one name "NAME #2", a
 * callable that does not check out by its op with one notice; and a name
 * made of a format string with controls and past the cut.
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
#include <jansson.h>

#include "providers/jaxcb/decode_impl.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/names.h"
#include "providers/jaxcb/namer.h"
#include "providers/jaxcb/pysite.h"
#include "testpyproc.h"

struct notes {
	int n;
	char last[512];
};

static int no_packet(void *ctx, const struct hcb_packet *p)
{
	(void)ctx;
	(void)p;
	return 0;
}

static void on_notice(void *ctx, const char *what)
{
	struct notes *n = ctx;

	n->n++;
	snprintf(n->last, sizeof(n->last), "%s", what);
}

static const struct hcb_decoder_ops ops = { .packet = no_packet, .notice = on_notice };

/* the value of key in n's kwargs, or NULL */
static const char *kwarg(const struct hcb_jx_name *n, const char *key)
{
	for (const char *const *kw = n->kwargs; kw[0]; kw += 2)
		if (!strcmp(kw[0], key))
			return kw[1];
	return NULL;
}

/* the name the site of callable id gets, as op (its kwargs may point
 * into the call: it lives on until the next) */
static void name_of(struct hcb_jaxffi *x, uint64_t id, const char *op, struct hcb_jx_name *n)
{
	static struct jcall c;

	memset(&c, 0, sizeof(c));
	snprintf(c.h.op, sizeof(c.h.op), "%s", op);
	snprintf(c.h.module, sizeof(c.h.module), "jit_step");
	c.py_callable = id;
	assert_int_equal(hcb_jx_site_name(x, &c, n), 0);
}

static void check_sites(struct hcb_jaxffi *x, json_t *sites, struct notes *notes)
{
	unsigned int fmt_twice = 0, i_op = 0, refused = 0;
	size_t i;
	json_t *j;

	json_array_foreach(sites, i, j) {
		uint64_t id = (uint64_t)json_integer_value(json_object_get(j, "id"));
		const char *fmt = json_string_value(json_object_get(j, "fmt"));
		const char *qual = json_string_value(json_object_get(j, "qualname"));
		struct hcb_jx_name n;
		char op[32];

		snprintf(op, sizeof(op), "custom-call.%u", i_op++);
		name_of(x, id, op, &n);
		assert_string_equal(kwarg(&n, "module"), "jit_step");
		if (json_object_get(j, "err")) {   /* kept the op's name, said once */
			assert_string_equal(n.name, op);
			assert_string_equal(kwarg(&n, "callback"), op);
			assert_non_null(strstr(notes->last, op));
			refused++;
			continue;
		}
		assert_string_equal(kwarg(&n, "op"), op);
		assert_string_equal(kwarg(&n, "callback"), n.name);
		if (fmt && !strcmp(fmt, "caf\u00e9 \u20ac {}")) {
			/* the ordered print's two wrappers: one name each, in order */
			assert_string_equal(n.name, fmt_twice++ ? "caf\u00e9 \u20ac {} #2" :
					    "caf\u00e9 \u20ac {}");
		} else if (fmt) {
			assert_string_equal(n.name, fmt);
			assert_null(kwarg(&n, "ordered"));
		} else {
			char line[16];

			snprintf(line, sizeof(line), "%lld",
				 json_integer_value(json_object_get(j, "line")));
			assert_true(!strcmp(n.name, qual) || !strncmp(n.name, qual, strlen(qual)));
			assert_string_equal(kwarg(&n, "file"),
					    json_string_value(json_object_get(j, "file")));
			assert_string_equal(kwarg(&n, "line"), line);
		}
	}
	assert_int_equal(fmt_twice, 2);
	assert_int_equal(notes->n, refused);   /* one notice each */
	assert_true(refused >= 2);
}

static void test_real_process(void **state)
{
	char python[4200], script[4200], why[256];
	const char *data = *state;
	const struct hcb_pyoffsets *o;
	struct hcb_pyver v;
	struct hcb_jaxffi *x;
	struct notes notes = { 0 };
	json_error_t jerr;
	struct pyproc p;
	json_t *sites;
	size_t i;

	for (i = 0; i < sizeof(test_venvs) / sizeof(test_venvs[0]); i++) {
		test_venv_python(i, python, sizeof(python));
		if (python[0])
			break;
	}
	if (!python[0])
		skip();
	snprintf(script, sizeof(script), "%s/pysite/sites.py", data);
	assert_int_equal(pyproc_run(&p, python, script, 1), 0);
	sites = json_loads(p.line, 0, &jerr);
	assert_non_null(sites);
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &notes), 0);
	assert_int_equal(hcb_pyver_open(p.pid, &v, &o, why, sizeof(why)), 0);
	assert_int_equal(hcb_jaxffi_name_by_python(x, p.pid, o), 0);
	check_sites(x, sites, &notes);
	hcb_jaxffi_free(x);
	json_decref(sites);
	pyproc_stop(&p);
}

/* A namer that gives one site: what a name is made of. */
static int one_site(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	memset(out, 0, sizeof(*out));
	out->kind = HCB_PYSITE_PRINT;
	snprintf(out->fmt, sizeof(out->fmt), "%s", (const char *)ctx);
	return callable == 1 ? 0 : -EPROTO;
}

static void test_name_made(void **state)
{
	static char fmt[1024];
	struct hcb_jaxffi *x;
	struct notes notes = { 0 };
	struct hcb_jx_name n;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &notes), 0);
	snprintf(fmt, sizeof(fmt), "a\tb\nc\x01 {x}");
	hcb_jaxffi_set_namer(x, one_site, NULL, fmt);
	name_of(x, 1, "debug_print.1", &n);
	assert_string_equal(n.name, "a\\tb\\nc\\x01 {x}");
	/* past the cut, at a character: "..." */
	memset(fmt, 0, sizeof(fmt));
	for (size_t i = 0; i < 150; i++)
		memcpy(fmt + 2 * i, "\xc3\xa9", 2);     /* 300 bytes of U+00E9 */
	name_of(x, 1, "debug_print.2", &n);
	assert_int_equal(strlen(n.name), 200 + 3);
	assert_memory_equal(n.name + 198, "\xc3\xa9...", 5);
	name_of(x, 1, "debug_print.3", &n);
	assert_int_equal(strlen(n.name), 200 + 3 + 3);
	assert_string_equal(n.name + 203, " #2");
	/* no callable known: the op, no notice */
	name_of(x, 0, "debug_print.4", &n);
	assert_string_equal(n.name, "debug_print.4");
	assert_int_equal(notes.n, 0);
	hcb_jaxffi_free(x);
}

int main(int argc, char **argv)
{
	const char *data = argc > 1 ? argv[1] : getenv("HCB_TEST_DATA");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_prestate(test_real_process, (void *)data),
		cmocka_unit_test(test_name_made),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
