/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_thunks.c - call sites learned once (src/providers/jaxcb/
 * thunks.c): a call named by its thunk and proven is handed to the probe
 * once, with what the probe compares; a later call of that thunk sent
 * without its names (F_KNOWN) is named and checked as one read whole;
 * what the probe did not take, or never had, names nothing.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/events.h"
#include "testjaxffi.h"

/* What the probe's map was handed (learn), and what it answers. */
struct probe_map {
	int writes;
	int answer;                    /* learn's return */
	struct hcb_jaxffi_site_key key;
	struct hcb_jaxffi_site site;
};

static int learn(void *ctx, const struct hcb_jaxffi_site_key *key,
		 const struct hcb_jaxffi_site *site)
{
	struct probe_map *m = ctx;

	m->writes++;
	m->key = *key;
	m->site = *site;
	return m->answer;
}

/* A call of thunk, read whole (its target where jaxlib 0.6 keeps it). */
static struct hcb_ev_jcall whole(uint64_t seq, uint64_t thunk, const char *op)
{
	struct hcb_ev_jcall e = jcall(0, seq, 1, op, 1, 12);

	memset(e.target[0], 0, sizeof(e.target[0]));
	snprintf(e.target[1], sizeof(e.target[1]), "xla_ffi_python_cpu_callback");
	e.target_len[1] = (uint32_t)strlen(e.target[1]);
	e.thunk = thunk;
	for (unsigned int i = 0; i < HCB_JAXFFI_HEAD_WORDS; i++)
		e.head[i] = thunk + i;
	return e;
}

/* A later call of thunk, its site known to the probe: no names read. */
static struct hcb_ev_jcall known(uint64_t seq, uint64_t thunk)
{
	struct hcb_ev_jcall e = jcall(0, seq, 1, "", 1, 12);

	memset(e.module, 0, sizeof(e.module));
	memset(e.target, 0, sizeof(e.target));
	e.op_len = e.module_len = 0;
	e.target_len[0] = 0;
	e.flags |= HCB_JAXFFI_F_KNOWN;
	e.thunk = thunk;
	return e;
}

/* e fed, with one float32[3] operand on device 0 */
static void feed(struct hcb_jaxffi *x, const struct hcb_ev_jcall *e)
{
	static const uint64_t d3[] = { 3 };
	static const float v[3] = { 1, 2, 3 };

	feed_call(x, e);
	feed_arg(x, 0, e->seq, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, e->seq, 0, 0, 12, v, 12);
}

/* A decoder that hands its thunks to m. */
static struct hcb_jaxffi *decoder(struct seen *s, struct probe_map *m)
{
	struct hcb_jaxffi *x;

	assert_int_equal(hcb_jaxffi_new(&x, &ops, s), 0);
	hcb_jaxffi_site_cache(x, learn, m);
	return x;
}

static void test_learned_once(void **state)
{
	struct probe_map m = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &m);
	struct hcb_ev_jcall e;

	(void)state;
	e = whole(0, 0x7f0000001000, "debug_callback.1");
	feed(x, &e);
	assert_int_equal(s.packets, 1);
	/* handed once: its key, the heads read, the names' first characters */
	assert_int_equal(m.writes, 1);
	assert_int_equal(m.key.pid, 7);
	assert_int_equal(m.key.thunk, 0x7f0000001000);
	assert_memory_equal(m.site.head, e.head, sizeof(e.head));
	assert_string_equal(m.site.op, "debug_callback.1");
	assert_string_equal(m.site.module, "jit_step");
	assert_int_equal(m.site.index, 3);
	assert_int_equal(m.site.has_index, 1);
	/* read whole again (a call under way as it was learned): not again */
	e = whole(1, 0x7f0000001000, "debug_callback.1");
	feed(x, &e);
	assert_int_equal(m.writes, 1);
	/* a name longer than the prefix: its first characters, no NUL */
	e = whole(11, 0x7f0000002000, "debug_callback.1_and_a_long_tail_past_32");
	feed(x, &e);
	assert_int_equal(m.writes, 2);
	assert_memory_equal(m.site.op, "debug_callback.1_and_a_long_tail", HCB_JAXFFI_SITE_PREFIX);
	/* the first thunk's later calls: named as it was, not handed again */
	e = known(2, 0x7f0000001000);
	feed(x, &e);
	assert_int_equal(s.packets, 4);
	assert_string_equal(s.consumer->name, "debug_callback.1");
	assert_string_equal(hcb_consumer_kwarg(s.consumer, "module"), "jit_step");
	assert_int_equal(m.writes, 2);
	assert_int_equal(hcb_jaxffi_known_calls(x), 1);
	assert_true(no_problems(&s));
	/* its device still checked call by call */
	e = known(3, 0x7f0000001000);
	e.thunk_device = 4;
	feed(x, &e);
	assert_int_equal(s.packets, 4);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 1);
	assert_non_null(strstr(s.warning, "0 in the execution context and 4 in the thunk's"));
	hcb_jaxffi_free(x);
}

static void test_not_learned(void **state)
{
	struct probe_map m = { .answer = -E2BIG };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &m);
	struct hcb_ev_jcall e;

	(void)state;
	/* the probe's map full: not kept here either */
	e = whole(0, 0x7f0000001000, "debug_callback.1");
	feed(x, &e);
	assert_int_equal(m.writes, 1);
	/* so a call said known of it (or of a thunk never seen) gets no names
	 * of a site: named after its index, counted */
	e = known(1, 0x7f0000001000);
	feed(x, &e);
	e = known(2, 0x7f0000009000);
	feed(x, &e);
	assert_int_equal(s.packets, 3);
	assert_string_equal(s.consumer->name, "callback-3");
	assert_int_equal(s.problems[HCB_UNKNOWN_CONSUMER], 2);
	assert_int_equal(hcb_jaxffi_known_calls(x), 0);
	/* learned again once the probe takes it */
	m.answer = 0;
	e = whole(3, 0x7f0000001000, "debug_callback.1");
	feed(x, &e);
	e = known(4, 0x7f0000001000);
	feed(x, &e);
	assert_int_equal(s.packets, 5);
	assert_string_equal(s.consumer->name, "debug_callback.1");
	/* another process's thunk at the same address is not this one */
	e = known(5, 0x7f0000001000);
	e.pid = 8;
	feed(x, &e);
	assert_string_equal(s.consumer->name, "callback-3");
	hcb_jaxffi_free(x);
}

/* Never more than the probe holds; a thunk proven again is written over. */
static void test_bounded(void **state)
{
	struct probe_map m = { 0 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x = decoder(&s, &m);
	struct hcb_ev_jcall e;

	(void)state;
	for (uint64_t i = 0; i <= HCB_JAXFFI_SITES; i++) {
		e = whole(i, 0x7f0000000000 + i * 0x100, "debug_callback.1");
		feed(x, &e);
	}
	assert_int_equal(m.writes, HCB_JAXFFI_SITES);
	/* the one past them: no names from a known call of it */
	e = known(HCB_JAXFFI_SITES + 1, 0x7f0000000000 + HCB_JAXFFI_SITES * 0x100);
	feed(x, &e);
	assert_string_equal(s.consumer->name, "callback-3");
	/* a kept thunk whose names changed (another executable there now) */
	e = whole(HCB_JAXFFI_SITES + 2, 0x7f0000000000, "debug_print.7");
	feed(x, &e);
	assert_int_equal(m.writes, HCB_JAXFFI_SITES + 1);
	assert_string_equal(m.site.op, "debug_print.7");
	e = known(HCB_JAXFFI_SITES + 3, 0x7f0000000000);
	feed(x, &e);
	assert_string_equal(s.consumer->name, "debug_print.7");
	hcb_jaxffi_free(x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_learned_once),
		cmocka_unit_test(test_not_learned),
		cmocka_unit_test(test_bounded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
