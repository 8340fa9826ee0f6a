/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_unsited.c - calls of the FFI handler no thunk named
 * (src/providers/jaxcb/deliver.c, sites.c): begun before the thunk's
 * probe was in place (attached mid-run), or after another custom call's
 * thunk on their thread.  Each is named by its Python callable as a call
 * of that callable with a thunk named it, before that call or after (it
 * waits, whole, and is not shown before), where the callable's objects
 * say the site's words and its operands have the site's shapes; else,
 * after a while or at the end of the input, after its index (its name
 * still its code's, a site of its own), one problem.  And the thunk's
 * probe, which such naming lets go once the sites are named (thunkoff.c).
 * Hand-built records, as ffi.bpf.c and pycall.bpf.c write them: a call
 * with no thunk as its record's head alone.
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

#include "core/dtype.h"
#include "core/registry.h"
#include "providers/bounds.h"
#include "providers/jaxcb/decode_impl.h"
#include "providers/jaxcb/names.h"
#include "providers/jaxcb/pycall_events.h"
#include "providers/jaxcb/pysite.h"
#include "testjaxffi.h"

/* The program's callables: what each one's objects say, as the walker
 * would read them; another's once the address was reused. */
struct program {
	int asked;
	int reused;           /* 0xa000's address is another function's now */
	int gone;             /* the process ended */
	int freed;            /* its objects freed (the interpreter ending) */
};

/* the index attribute of the calls call() makes */
static uint64_t call_index = 3;

static int program_namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	struct program *p = ctx;

	p->asked++;
	if (p->gone)
		return -ESRCH;
	if (p->freed)
		return -EFAULT;
	memset(out, 0, sizeof(*out));
	out->kind = HCB_PYSITE_CALLBACK;
	snprintf(out->file, sizeof(out->file), "/work/train.py");
	if (callable == 0xa000 && !p->reused) {
		snprintf(out->qualname, sizeof(out->qualname), "log_x");
		out->line = 10;
	} else if (callable == 0xa000 || callable == 0xc000) {
		snprintf(out->qualname, sizeof(out->qualname), "other");
		out->line = 20;
	} else {
		return -EPROTO;
	}
	return 0;
}

/* A whole call of callable on thread tid, of n float32[3] operands
 * (n: 1 or 2), its Python side entered and ended; with a thunk of op
 * debug_callback.1 (op non-NULL: its names; "": another custom call's
 * thunk), or none. */
static void call(struct hcb_jaxffi *x, uint64_t seq, uint32_t tid, const char *op,
		 uint64_t callable, unsigned int n)
{
	static const uint64_t d3[] = { 3 };
	float v[6] = { 1, 2, 3, 4, 5, 6 };
	struct hcb_ev_jcall e = jcall(0, seq, tid, op ? op : "", n, 12 * n);

	e.index = call_index;

	if (!op || !*op) {
		memset(e.op, 0, sizeof(e.op));
		memset(e.module, 0, sizeof(e.module));
		memset(e.target, 0, sizeof(e.target));
		e.op_len = e.module_len = 0;
		memset(e.target_len, 0, sizeof(e.target_len));
		if (!op)
			e.flags &= ~HCB_JAXFFI_F_THUNK;
		else
			snprintf(e.target[0], sizeof(e.target[0]), "xla.cpu.lapack_sgetrf");
		e.thunk_device = op ? 0 : ~0u;
	}
	/* with no thunk, the record's head alone, as ffi.bpf.c sends it */
	assert_int_equal(hcb_jaxffi_feed(x, &e, op ? sizeof(e) : HCB_JAXFFI_CALL_HEAD), 0);
	for (unsigned int i = 0; i < n; i++) {
		feed_arg(x, 0, seq, i, JAXFFI_XLA_F32, 1, d3, 12);
		feed_data(x, 0, seq, i, 12 * i, 12 * n, v + 3 * i, 12);
	}
	py_entry(x, tid, callable, call_index, 0);
	py_end(x, tid);
}

/* the kwarg key of the last packet's consumer, or NULL */
static const char *kwarg(const struct seen *s, const char *key)
{
	for (unsigned int i = 0; i < s->consumer->nkwargs; i++)
		if (!strcmp(s->consumer->kwargs[i].key, key))
			return s->consumer->kwargs[i].value;
	return NULL;
}

static struct hcb_jaxffi *decoder(struct seen *s, struct program *p)
{
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &ops, s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, program_namer, NULL, p);
	return x;
}

/* Before any call with a thunk (the layout not yet proven): it waits, and
 * goes named as its callable's site once a call of it with a thunk came;
 * after that, at once.  Another custom call's thunk is no thunk of it. */
static void test_named_by_callable(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);
	const struct hcb_consumer *site;

	(void)state;
	call(x, 0, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 0);
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	/* its thread goes on: it still waits */
	call(x, 1, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.seq, 0);
	site = s.consumer;
	assert_string_equal(site->name, "log_x");
	assert_string_equal(kwarg(&s, "op"), "debug_callback.1");
	assert_string_equal(kwarg(&s, "module"), "jit_step");
	call(x, 2, 12, NULL, 0xa000, 1);
	call(x, 3, 12, "", 0xa000, 1);
	assert_int_equal(s.packets, 4);
	assert_ptr_equal(s.consumer, site);
	assert_int_equal(hcb_registry_count(hcb_jaxffi_registry(x)), 1);
	assert_int_equal(x->named_by_callable, 3);
	assert_true(no_problems(&s));
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

/* Not proven: a callable no call with a thunk had, or whose address is
 * another function's now, or operands of other shapes: after a while, or
 * at the end of the input, op and module after its index, one problem
 * each; never a site it is not. */
static void test_not_proven(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(s.packets, 1);
	call(x, 1, 11, NULL, 0xc000, 1);
	call(x, 2, 11, NULL, 0xa000, 2);
	assert_int_equal(s.packets, 1);
	assert_int_equal(hcb_jaxffi_tick(x, 1), 0);
	assert_int_equal(hcb_jaxffi_tick(x, 1 + HCB_BOUNDS_EXPIRY_NS + 1), 0);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	/* its own site, by its objects: another than log_x's */
	assert_string_equal(s.consumer->name, "log_x #2");
	assert_string_equal(kwarg(&s, "op"), "callback-3");
	assert_string_equal(kwarg(&s, "module"), "unknown");
	assert_non_null(strstr(s.warning, "named after its index"));
	p.reused = 1;
	call(x, 3, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 3);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 4);
	assert_string_equal(s.consumer->name, "other");
	assert_string_equal(kwarg(&s, "op"), "callback-3");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 3);
	/* none was lost */
	assert_int_equal(hcb_jaxffi_stats(x, 0)->packets, 4);
	hcb_jaxffi_free(x);
}

/* The layout never proven: a call that waited goes unshown, counted. */
static void test_never_proven(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	call(x, 0, 11, NULL, 0xa000, 1);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 0);
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_non_null(strstr(s.warning, "layout not yet proven"));
	hcb_jaxffi_free(x);
}

/* Its last calls read after the process ended: its objects say nothing
 * now, and no callable was made since; the call's index in its
 * executable's list must be the site's. */
static void test_process_gone(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	p.gone = 1;
	call(x, 1, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 2);
	assert_string_equal(s.consumer->name, "log_x");
	call_index = 4;
	call(x, 2, 11, NULL, 0xa000, 1);
	call_index = 3;
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 3);
	/* its objects unread: XLA's name, after its index */
	assert_string_equal(s.consumer->name, "callback-4");
	assert_string_equal(kwarg(&s, "module"), "unknown");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	hcb_jaxffi_free(x);
}

/* Its objects unreadable (freed as the interpreter ends, before its
 * calls were read): a call without a thunk between two of its callable
 * with one is that site's; one after the last is not proven. */
static void test_between(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	p.freed = 1;
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	call(x, 1, 11, NULL, 0xa000, 1);
	call(x, 2, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 1);
	call(x, 3, 12, "debug_callback.1", 0xa000, 1);
	assert_int_equal(s.packets, 4);
	assert_string_equal(s.consumer->name, "debug_callback.1");
	call(x, 4, 11, NULL, 0xa000, 1);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 5);
	assert_string_equal(s.consumer->name, "callback-3");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	assert_int_equal(hcb_registry_count(hcb_jaxffi_registry(x)), 2);
	hcb_jaxffi_free(x);
}

/* Its last calls read as the interpreter ended (its objects freed): they
 * wait; at the end of the input the process is gone, and asked again, the
 * site's index names them.  One of another index is not proven. */
static void test_freed_then_gone(void **state)
{
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	p.freed = 1;
	call(x, 1, 11, NULL, 0xa000, 1);
	call(x, 2, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 1);
	p.gone = 1;
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 3);
	assert_string_equal(s.consumer->name, "log_x");
	assert_string_equal(kwarg(&s, "op"), "debug_callback.1");
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);

	memset(&s, 0, sizeof(s));
	p = (struct program){ 0 };
	x = decoder(&s, &p);
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	p.freed = 1;
	call_index = 4;
	call(x, 1, 11, NULL, 0xa000, 1);
	call_index = 3;
	p.gone = 1;
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 2);
	assert_string_equal(s.consumer->name, "callback-4");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 1);
	hcb_jaxffi_free(x);
}

/* More calls read after the program's end than may be under way, each
 * waiting, whole, for the end of the input to name it: at the bound the
 * oldest goes as it is (after its index, one problem), never lost; the
 * rest are named at the end, as ever. */
static void test_freed_past_the_bound(void **state)
{
	const struct hcb_bounds *b;
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	b = hcb_jaxffi_bounds(x);
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	p.freed = 1;
	for (uint64_t i = 1; i <= JX_MAX_INFLIGHT + 2; i++)
		call(x, i, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.seq, 2);
	assert_string_equal(s.consumer->name, "callback-3");
	assert_int_equal(b->passed[HCB_BOUND_PACKET_MEM], 0);
	p.gone = 1;
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, JX_MAX_INFLIGHT + 3);
	assert_string_equal(s.consumer->name, "log_x");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	assert_int_equal(s.problems[HCB_OVER_BOUND], 0);
	hcb_jaxffi_free(x);
}

/* The thunk's probe as the decoder switches it (thunkoff.c). */
struct switch_log {
	int on;
	int offs, ons;
};

static int thunk_set(void *ctx, int on)
{
	struct switch_log *l = ctx;

	l->on = on;
	if (on)
		l->ons++;
	else
		l->offs++;
	return 0;
}

/* Off once the sites seen are named and one comes round (no quiet time
 * here), their calls named by their callables from then on; on again for
 * a callable that names no site, whose call waits for one of it with a
 * thunk; off again once that site came and another came round. */
static void test_thunk_switch(void **state)
{
	struct switch_log l = { .on = 1 };
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);
	const struct hcb_consumer *site;

	(void)state;
	hcb_jaxffi_thunk_switch(x, thunk_set, &l, 0);
	call(x, 0, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(l.offs, 0);
	site = s.consumer;
	call(x, 1, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(l.offs, 1);
	assert_false(l.on);
	call(x, 2, 11, NULL, 0xa000, 1);
	assert_int_equal(s.packets, 3);
	assert_ptr_equal(s.consumer, site);
	assert_int_equal(l.ons, 0);
	/* a function compiled since: the probe comes back, its call waits */
	call(x, 3, 11, NULL, 0xc000, 1);
	assert_int_equal(l.ons, 1);
	assert_true(l.on);
	assert_int_equal(s.packets, 3);
	call(x, 4, 11, "debug_callback.2", 0xc000, 1);
	assert_int_equal(s.packets, 5);
	assert_string_equal(s.consumer->name, "other");
	assert_string_equal(kwarg(&s, "op"), "debug_callback.2");
	assert_int_equal(l.offs, 1);
	call(x, 5, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(l.offs, 2);
	call(x, 6, 11, NULL, 0xc000, 1);
	assert_int_equal(s.packets, 7);
	assert_string_equal(kwarg(&s, "op"), "debug_callback.2");
	assert_int_equal(l.ons, 1);
	assert_int_equal(x->named_by_callable, 3);
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

/* Kept on (no quiet time is long enough), or its objects not read: it
 * never goes. */
static void test_thunk_kept(void **state)
{
	struct switch_log l = { .on = 1 };
	struct program p = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &p);

	(void)state;
	hcb_jaxffi_thunk_switch(x, thunk_set, &l, UINT64_MAX);
	for (unsigned int i = 0; i < 4; i++)
		call(x, i, 11, "debug_callback.1", 0xa000, 1);
	assert_int_equal(l.offs, 0);
	hcb_jaxffi_free(x);
	/* a site whose objects say nothing hcbtrace reads (0xb000) */
	memset(&s, 0, sizeof(s));
	x = decoder(&s, &p);
	hcb_jaxffi_thunk_switch(x, thunk_set, &l, 0);
	for (unsigned int i = 0; i < 4; i++)
		call(x, i, 11, i % 2 ? "debug_callback.1" : "debug_callback.2",
		     i % 2 ? 0xa000 : 0xb000, 1);
	assert_int_equal(s.packets, 4);
	assert_int_equal(l.offs, 0);
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_named_by_callable),
		cmocka_unit_test(test_not_proven),
		cmocka_unit_test(test_never_proven),
		cmocka_unit_test(test_process_gone),
		cmocka_unit_test(test_between),
		cmocka_unit_test(test_freed_then_gone),
		cmocka_unit_test(test_freed_past_the_bound),
		cmocka_unit_test(test_thunk_switch),
		cmocka_unit_test(test_thunk_kept),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
