/* SPDX-License-Identifier: MIT */
/*
 * test_jaxffi_pycall.c - the Python side of JAX's callbacks joined to
 * their calls (src/providers/jaxcb/pycall.c): a Python handler's tap is held until
 * its thread's inner function returned, and carries the callable; calls
 * made from inside a callback end first, each with its own text; an end
 * that does not come holds it no longer than a while without progress or
 * the end of the input (the thread's next call, where its entry did not
 * come either), each counted, its text not shown; the buffer handler's
 * taps and a decoder without the inner probe go at once.  A print's line
 * made by hcbtrace (textproof.c) replaces the probed one only once proven.
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
#include "providers/bounds.h"
#include "bpf/ring.h"
#include "providers/jaxcb/events.h"
#include "providers/jaxcb/decode.h"
#include "providers/jaxcb/ffi_abi.h"
#include "providers/jaxcb/names.h"
#include "providers/jaxcb/pycall_events.h"
#include "providers/jaxcb/pysite.h"
#include "text/idprint.h"
#include "text/pyformat.h"
#include "testjaxffi.h"

/* A text record as pycall.bpf.c sends it: n bytes of kind, in a record
 * padded to a class size. */
static int feed_text(struct hcb_jaxffi *x, uint32_t tid, uint32_t kind, int ascii, uint64_t length,
		     const void *d, uint32_t flags)
{
	unsigned char rec[sizeof(struct hcb_ev_jpytext) + 256] = { 0 };
	struct hcb_ev_jpytext e = { .type = HCB_EV_JPYTEXT, .pid = 7, .tid = tid, .flags = flags,
				    .kind = kind, .ascii = (uint32_t)ascii, .length = length,
				    .nbytes = flags ? 0 : length * kind };

	assert_true(e.nbytes <= 256);
	memcpy(rec, &e, sizeof(e));
	memcpy(rec + sizeof(e), d, e.nbytes);
	return hcb_jaxffi_feed(x, rec, sizeof(rec));
}

/* One print call on thread 11, its Python side with the texts fed by
 * texts(): the packet it made, in s. */
static void print_call(struct hcb_jaxffi *x, struct seen *s, uint64_t seq,
		       void (*texts)(struct hcb_jaxffi *x))
{
	float v[3] = { 1, 2, 3 };
	int before = s->packets;

	f32_call(x, 0, seq, 11, "debug_print.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	texts(x);
	py_end(x, 11);
	assert_int_equal(s->packets, before + 1);
}

static void ascii_texts(struct hcb_jaxffi *x)
{
	/* numpy's own lines first; the print's, msg + "\n", last */
	assert_int_equal(feed_text(x, 11, 1, 1, 4, "[1. ", 0), 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 14, "x=[1. 2.]\ny=3", 0), 0);
}

static void latin1_texts(struct hcb_jaxffi *x)
{
	assert_int_equal(feed_text(x, 11, 1, 0, 4, "\xb5=\xe9!", 0), 0);
}

static void ucs2_texts(struct hcb_jaxffi *x)
{
	static const uint16_t d[] = { 0x3b1, '=', 0x20ac };

	assert_int_equal(feed_text(x, 11, 2, 0, 3, d, 0), 0);
}

static void ucs4_texts(struct hcb_jaxffi *x)
{
	static const uint32_t d[] = { 0x1f600, ' ', 'k' };

	assert_int_equal(feed_text(x, 11, 4, 0, 3, d, 0), 0);
}

static void long_texts(struct hcb_jaxffi *x)
{
	assert_int_equal(feed_text(x, 11, 1, 1, 4, "good", 0), 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 100000, "", HCB_JPY_T_LONG), 0);
}

static void bad_texts(struct hcb_jaxffi *x)
{
	static const uint32_t past[] = { 0x110000 };

	assert_int_equal(feed_text(x, 11, 1, 1, 0, "", HCB_JPY_T_BAD), 0);
	/* what the record claims must hold too: a kind, ASCII, a code point */
	assert_int_equal(feed_text(x, 11, 3, 0, 1, "abc", 0), 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 1, "\xe9", 0), 0);
	assert_int_equal(feed_text(x, 11, 4, 0, 1, past, 0), 0);
}

/* The last text of the call goes with its tap, as UTF-8, whatever kind
 * CPython kept it in; a text too long or not a str: none, one notice. */
static void test_text(void **state)
{
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	print_call(x, &s, 0, ascii_texts);
	assert_int_equal(s.last.text_len, 14);
	assert_memory_equal(s.last.text, "x=[1. 2.]\ny=3", 14);
	assert_string_equal(s.text, "callback: debug_print.1 device: cpu:0 module: jit_step\n"
			    "[1. 2. 3.]\n");
	print_call(x, &s, 1, latin1_texts);
	assert_int_equal(s.last.text_len, 6);
	assert_memory_equal(s.last.text, "\xc2\xb5=\xc3\xa9!", 6);
	print_call(x, &s, 2, ucs2_texts);
	assert_int_equal(s.last.text_len, 6);
	assert_memory_equal(s.last.text, "\xce\xb1=\xe2\x82\xac", 6);
	print_call(x, &s, 3, ucs4_texts);
	assert_int_equal(s.last.text_len, 6);
	assert_memory_equal(s.last.text, "\xf0\x9f\x98\x80 k", 6);
	assert_true(no_problems(&s));
	print_call(x, &s, 4, long_texts);
	assert_null(s.last.text);
	assert_non_null(strstr(s.warning, "longer than hcbtrace takes"));
	print_call(x, &s, 5, bad_texts);
	assert_null(s.last.text);
	/* one notice for the site */
	assert_int_equal(s.problems[HCB_OVER_BOUND], 1);
	/* another callback's Python that ends a line (a traceback it logs):
	 * no text with its tap */
	{
		float v[3] = { 1, 2, 3 };

		f32_call(x, 0, 6, 11, "pure_callback.1", v);
		py_entry(x, 11, 0x2000, 3, 0);
		assert_int_equal(feed_text(x, 11, 1, 1, 9, "Traceback", 0), 0);
		py_end(x, 11);
		assert_int_equal(s.packets, 7);
		assert_null(s.last.text);
		assert_int_equal(s.problems[HCB_OVER_BOUND], 1);
	}
	/* a text of no call in flight: passed over */
	assert_int_equal(feed_text(x, 11, 1, 1, 2, "hi", 0), 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 2, "hi", 0), 0);
	assert_int_equal(s.packets, 7);
	hcb_jaxffi_free(x);
}

static uint64_t unended(const struct hcb_jaxffi *x)
{
	return hcb_jaxffi_bounds(x)->passed[HCB_BOUND_EXPIRED];
}

/* Held until the end, then shown with its callable. */
static void test_held_until_end(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	f32_call(x, 0, 0, 11, "debug_print.1", v);
	assert_int_equal(s.packets, 0);
	assert_int_equal(hcb_jaxffi_pending(x), 1);
	py_entry(x, 11, 0x7f0012345670, 3, 0);
	assert_int_equal(s.packets, 0);
	/* another thread's end is not this call's */
	py_end(x, 12);
	assert_int_equal(s.packets, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.py_callable, 0x7f0012345670);
	assert_memory_equal(s.payload, v, 12);
	/* a callable the probe could not read: 0, the tap as before */
	f32_call(x, 0, 1, 11, "debug_print.1", v);
	py_entry(x, 11, 0x1234, 3, HCB_JPY_F_NOCALLABLE);
	py_end(x, 11);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.py_callable, 0);
	assert_int_equal(unended(x), 0);
	/* a print with no text: one notice for its site, then quiet */
	assert_null(s.last.text);
	assert_int_equal(s.problems[HCB_OVER_BOUND], 1);
	assert_non_null(strstr(s.warning, "debug_print.1: the text it printed is not shown"));
	s.problems[HCB_OVER_BOUND] = 0;
	assert_true(no_problems(&s));
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

/* No end: a tick after a while or the end of the input let it go,
 * counted, its text not shown (it may be none of its own); the thread's
 * next calls meanwhile are its callback's, and go on their own.  No entry
 * either: the thread's next call lets it go.  The late end then finds
 * nothing. */
static void test_end_missing(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	f32_call(x, 0, 0, 11, "debug_print.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 2, "x=", 0), 0);
	/* its end lost: the thread's next calls, whole, go */
	f32_call(x, 0, 1, 11, "debug_print.2", v);
	py_entry(x, 11, 0x2000, 3, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	assert_int_equal(s.last.seq, 1);
	assert_int_equal(s.last.py_callable, 0x2000);
	assert_int_equal(unended(x), 0);
	/* a tick after a while */
	assert_int_equal(hcb_jaxffi_tick(x, 1), 0);
	assert_int_equal(s.packets, 1);
	assert_int_equal(hcb_jaxffi_tick(x, 1 + HCB_BOUNDS_EXPIRY_NS + 1), 0);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.seq, 0);
	assert_int_equal(s.last.py_callable, 0x1000);
	assert_null(s.last.text);
	assert_non_null(strstr(s.warning, "not seen whole"));
	assert_int_equal(unended(x), 1);
	/* no entry: the thread's next call lets it go */
	f32_call(x, 0, 2, 11, "debug_print.1", v);
	f32_call(x, 0, 3, 11, "debug_print.1", v);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.seq, 2);
	assert_int_equal(unended(x), 2);
	py_entry(x, 11, 0x1000, 3, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 4);
	/* the end of the input */
	f32_call(x, 0, 4, 12, "debug_print.1", v);
	py_entry(x, 12, 0x1000, 3, 0);
	hcb_jaxffi_finish(x);
	assert_int_equal(s.packets, 5);
	assert_int_equal(unended(x), 3);
	/* a late end finds nothing */
	py_end(x, 12);
	assert_int_equal(s.packets, 5);
	/* none was a lost tap */
	assert_int_equal(hcb_jaxffi_stats(x, 0)->packets, 5);
	assert_int_equal(hcb_jaxffi_stats(x, 0)->problems[HCB_INCOMPLETE], 0);
	hcb_jaxffi_free(x);
}

static void inner_text(struct hcb_jaxffi *x)
{
	assert_int_equal(feed_text(x, 11, 1, 1, 5, "inner", 0), 0);
}

/* A callback whose Python runs jax: the calls it makes on its thread come
 * before its end, and end first; each keeps its own text.  One of them
 * not sent (lost at the probe): its entry, text and end are no other's. */
static void test_nested(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	f32_call(x, 0, 0, 11, "debug_print.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	print_call(x, &s, 1, inner_text);
	assert_int_equal(s.last.seq, 1);
	assert_memory_equal(s.last.text, "inner", 5);
	/* one not sent: an entry and an end of its own */
	py_entry(x, 11, 0x3000, 3, 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 4, "lost", 0), 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	assert_int_equal(feed_text(x, 11, 1, 1, 5, "outer", 0), 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 2);
	assert_int_equal(s.last.seq, 0);
	assert_int_equal(s.last.py_callable, 0x1000);
	assert_int_equal(s.last.text_len, 5);
	assert_memory_equal(s.last.text, "outer", 5);
	assert_int_equal(unended(x), 0);
	assert_true(no_problems(&s));
	/* its own entry lost: one of another index (the call's is 3) says
	 * nothing of it; its end still ends it, its text not shown */
	f32_call(x, 0, 2, 11, "debug_print.1", v);
	py_entry(x, 11, 0x4000, 9, 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 4, "lost", 0), 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 2);
	py_end(x, 11);
	assert_int_equal(s.packets, 3);
	assert_int_equal(s.last.py_callable, 0);
	assert_null(s.last.text);
	assert_non_null(strstr(s.warning, "not seen whole"));
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

/* buffer_callback's handler has no inner Python function; a decoder whose
 * inner function is not probed waits for nothing. */
static void test_not_held(void **state)
{
	static const uint64_t d3[] = { 3 };
	float v[3] = { 1, 2, 3 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	struct hcb_ev_jcall e = jcall(0, 0, 11, "buffer_callback.1", 1, 12);

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	e.handler = HCB_JAXFFI_BUFFER;
	feed_call(x, &e);
	feed_arg(x, 0, 0, 0, JAXFFI_XLA_F32, 1, d3, 12);
	feed_data(x, 0, 0, 0, 0, 12, v, 12);
	assert_int_equal(s.packets, 1);
	hcb_jaxffi_free(x);

	memset(&s, 0, sizeof(s));
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	f32_call(x, 0, 0, 11, "debug_print.1", v);
	assert_int_equal(s.packets, 1);
	/* the Python side's records of a call not held are passed over */
	py_entry(x, 11, 0x1000, 3, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	assert_true(no_problems(&s));
	hcb_jaxffi_free(x);
}

/* Short or unknown records of the Python side: counted, nothing else. */
static void test_bad_records(void **state)
{
	struct hcb_ev_jpycall e = { .type = HCB_EV_JPYCALL };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	assert_int_equal(hcb_jaxffi_feed(x, &e, sizeof(e) - 1), 0);
	e.type = HCB_EV_JPYEND;
	assert_int_equal(hcb_jaxffi_feed(x, &e, 8), 0);
	assert_int_equal(s.problems[HCB_BAD_RECORD], 2);
	assert_int_equal(s.packets, 0);
	hcb_jaxffi_free(x);
}

/* A namer over a callable that lives while alive is set, as a program's
 * does until it ends: how often it was asked. */
struct mortal {
	int alive, asked;
};

static int mortal_namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	struct mortal *m = ctx;

	(void)callable;
	m->asked++;
	if (!m->alive)
		return -ESRCH;
	memset(out, 0, sizeof(*out));
	out->kind = HCB_PYSITE_PRINT;
	snprintf(out->fmt, sizeof(out->fmt), "step {i}");
	return 0;
}

/* A new site is named at its call's entry, while the callable lives: the
 * tap handed on after the program ended keeps the user's name; a site
 * named already asks nothing more.  A print is one by its objects, not
 * by XLA's op name. */
static void test_named_at_entry(void **state)
{
	float v[3] = { 1, 2, 3 };
	struct mortal m = { .alive = 1 };
	struct seen s = { 0 };
	struct hcb_jaxffi *x;

	(void)state;
	assert_int_equal(hcb_jaxffi_new(&x, &ops, &s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, mortal_namer, NULL, &m);
	f32_call(x, 0, 0, 11, "custom-call.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	assert_int_equal(m.asked, 1);
	assert_int_equal(feed_text(x, 11, 1, 1, 6, "step 0", 0), 0);
	m.alive = 0;                   /* the program ended before its end came */
	py_end(x, 11);
	assert_int_equal(s.packets, 1);
	assert_string_equal(s.consumer->name, "step {i}");
	/* a print by its objects, whatever XLA named its op: its text shown */
	assert_int_equal(s.last.text_len, 6);
	assert_memory_equal(s.last.text, "step 0", 6);
	/* the site's next call: named already, nothing asked */
	f32_call(x, 0, 1, 11, "custom-call.1", v);
	py_entry(x, 11, 0x1000, 3, 0);
	py_end(x, 11);
	assert_int_equal(s.packets, 2);
	assert_int_equal(m.asked, 1);
	assert_string_equal(s.consumer->name, "step {i}");
	/* a new site whose callable is gone at its entry already: XLA's name */
	f32_call(x, 0, 2, 11, "custom-call.2", v);
	py_entry(x, 11, 0x2000, 3, 0);
	assert_int_equal(feed_text(x, 11, 1, 1, 6, "step 1", 0), 0);
	py_end(x, 11);
	assert_int_equal(m.asked, 2);
	assert_string_equal(s.consumer->name, "custom-call.2");
	/* its kind unknown, its op no print's: the operands, no text */
	assert_null(s.last.text);
	assert_int_equal(hcb_jaxffi_pending(x), 0);
	hcb_jaxffi_free(x);
}

/* Print sites by callable: 0x1000 "x={}", 0x2000 "y={:.1f}" (a spec on
 * an array: not made), 0x3000 "z={}" (options numpy's defaults). */
static int print_namer(void *ctx, uint64_t callable, struct hcb_pysite *out)
{
	static const struct hcb_print_opts o = { 1000, 8, 75, 3, 0, -1 };

	(void)ctx;
	memset(out, 0, sizeof(*out));
	out->kind = HCB_PYSITE_PRINT;
	snprintf(out->fmt, sizeof(out->fmt), "%s", callable == 0x1000 ? "x={}" :
		 callable == 0x2000 ? "y={:.1f}" : "z={}");
	out->opts = o;
	out->opts_ok = 1;
	return 0;
}

static void probe_off(void *ctx)
{
	(*(int *)ctx)++;
}

/* One print of callable on its op, its probed text (NULL: none came). */
static void made_call(struct hcb_jaxffi *x, struct seen *s, uint64_t seq, const char *op,
		      uint64_t callable, const char *text)
{
	float v[3] = { 1, 2, 3 };
	int before = s->packets;

	f32_call(x, 0, seq, 11, op, v);
	py_entry(x, 11, callable, 3, 0);
	if (text)
		assert_int_equal(feed_text(x, 11, 1, 1, strlen(text), text, 0), 0);
	py_end(x, 11);
	assert_int_equal(s->packets, before + 1);
}

static void assert_text(const struct seen *s, const char *want)
{
	if (!want) {
		assert_null(s->last.text);
		return;
	}
	assert_non_null(s->last.text);
	assert_int_equal(s->last.text_len, strlen(want));
	assert_memory_equal(s->last.text, want, strlen(want));
}

/* A decoder whose print sites are named and whose lines hcbtrace makes,
 * in text mode mode: each probe_off counted in *offs. */
static struct hcb_jaxffi *made_decoder(struct seen *s, enum hcb_jaxffi_text_mode mode, int *offs)
{
	struct hcb_jaxffi *x;

	hcb_jaxffi_use_formatter(hcb_pyformat);
	assert_int_equal(hcb_jaxffi_new(&x, &ops, s), 0);
	hcb_jaxffi_inner_probed(x);
	hcb_jaxffi_set_namer(x, print_namer, NULL, NULL);
	hcb_jaxffi_text_mode(x, mode, probe_off, offs);
	return x;
}

/* Proven on its first probed call, the probe off when the site comes
 * again; then the made line; a site seen later: its made line. */
static void test_made_line(void **state)
{
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	int offs = 0;

	(void)state;
	x = made_decoder(&s, HCB_JAXFFI_TEXT_AUTO, &offs);
	made_call(x, &s, 0, "debug_print.1", 0x1000, "x=[1. 2. 3.]");
	assert_int_equal(offs, 0);
	made_call(x, &s, 1, "debug_print.1", 0x1000, "x=[1. 2. 3.]");
	assert_int_equal(offs, 1);
	made_call(x, &s, 2, "debug_print.1", 0x1000, NULL);
	assert_text(&s, "x=[1. 2. 3.]");
	made_call(x, &s, 3, "debug_print.3", 0x3000, NULL);
	assert_text(&s, "z=[1. 2. 3.]");
	/* a site seen late whose line is not made: operands, one notice */
	made_call(x, &s, 4, "debug_print.2", 0x2000, NULL);
	assert_text(&s, NULL);
	assert_non_null(strstr(s.warning, "--text-probe"));
	assert_int_equal(offs, 1);
	assert_true(s.problems[HCB_OVER_BOUND] == 1);
	hcb_jaxffi_free(x);
}

/* A made line that differs, or none made: the probe stays, its text is
 * the one shown, the made line never. */
static void test_made_line_refused(void **state)
{
	struct seen s = { 0 };
	struct hcb_jaxffi *x;
	int offs = 0;

	(void)state;
	x = made_decoder(&s, HCB_JAXFFI_TEXT_AUTO, &offs);
	made_call(x, &s, 0, "debug_print.1", 0x1000, "x=[1.0 2.0 3.0]");
	assert_non_null(strstr(s.warning, "differs"));
	made_call(x, &s, 1, "debug_print.1", 0x1000, "x=[1.0 2.0 3.0]");
	assert_text(&s, "x=[1.0 2.0 3.0]");
	made_call(x, &s, 2, "debug_print.2", 0x2000, "y=...");
	made_call(x, &s, 3, "debug_print.2", 0x2000, "y=...");
	assert_int_equal(offs, 0);
	made_call(x, &s, 4, "debug_print.1", 0x1000, NULL);
	assert_text(&s, NULL);
	hcb_jaxffi_free(x);
	/* --text-probe: never compared, never off */
	x = made_decoder(&s, HCB_JAXFFI_TEXT_PROBE, &offs);
	made_call(x, &s, 0, "debug_print.1", 0x1000, "x=[1. 2. 3.]");
	made_call(x, &s, 1, "debug_print.1", 0x1000, "x=[1. 2. 3.]");
	made_call(x, &s, 2, "debug_print.1", 0x1000, NULL);
	assert_text(&s, NULL);
	assert_int_equal(offs, 0);
	hcb_jaxffi_free(x);
	hcb_jaxffi_use_formatter(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_held_until_end),
		cmocka_unit_test(test_end_missing),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_not_held),
		cmocka_unit_test(test_bad_records),
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_named_at_entry),
		cmocka_unit_test(test_made_line),
		cmocka_unit_test(test_made_line_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
