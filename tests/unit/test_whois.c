/* SPDX-License-Identifier: MIT */
/*
 * test_whois.c - the session record as the engine writes it
 * (src/engine/whois.h), against a receiver that keeps what it is handed:
 * the first record says who the process is; the devices a poll met go out
 * once, after it, each with its slot's platform and a global id where the
 * provider's numbers are the runtime's; a device of a slot whose platform
 * is not the session's (a CUDA plugin taken up late) goes out at once,
 * before its tap; a seen device costs nothing; past the table, one notice.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "core/procid.h"
#include "engine/capture_impl.h"
#include "engine/out.h"
#include "engine/whois.h"

static const struct hcb_provider cpu_prov = { .name = "jax-callback" };

struct kept {
	struct hcb_session_info last;
	struct hcb_session_device devs[HCB_SESSION_DEVICES];
	unsigned int sessions, notices;
};

static int keep(void *ctx, const struct hcb_record *rec)
{
	struct kept *k = ctx;

	assert_int_equal(rec->kind, HCB_REC_SESSION);
	k->last = rec->session;
	/* the table is the producer's: copied, as a writer would use it now */
	memcpy(k->devs, rec->session.devices, rec->session.ndevices * sizeof(k->devs[0]));
	k->last.devices = k->devs;
	k->sessions++;
	return 0;
}

static void notice(void *ctx, const struct hcb_warning *w)
{
	struct kept *k = ctx;

	assert_int_equal(w->kind, HCB_WARN_NOTICE);
	k->notices++;
}

static const struct hcb_receiver_ops keep_ops = { .record = keep };

static void setup_slots(struct hcb_slots *slots)
{
	memset(slots, 0, sizeof(*slots));
	slots->at[0].prov = &cpu_prov;
	slots->at[0].ti.pid = 4242;
	slots->at[0].ti.global_ids = 1;
	snprintf(slots->at[0].ti.platform, sizeof(slots->at[0].ti.platform), "cpu");
	slots->at[1].prov = &cpu_prov;
	slots->at[1].ti.pid = 4242;
	snprintf(slots->at[1].ti.platform, sizeof(slots->at[1].ti.platform), "cuda");
	slots->n = 2;
}

static void test_record(void **state)
{
	static struct hcb_whois w;
	static struct hcb_slots slots;
	struct kept k = { .sessions = 0 };
	struct hcb_out out;
	struct hcb_ident_flags flags = { .has_index = 1, .index = 1, .count = 2, .job = "nightly" };

	(void)state;
	setup_slots(&slots);
	hcb_out_init(&out, (struct hcb_receiver){ &keep_ops, &k },
		     (struct hcb_warner){ notice, &k }, 0, &slots);
	hcb_whois_init(&w, &flags);
	/* as hcb_whois_read leaves it for a process nothing else names (no
	 * pid: the first tap asks no jax) */
	w.id.process = (struct hcb_process_id){ .index = 1, .count = 2, .source = "flag" };
	snprintf(w.id.job, sizeof(w.id.job), "%s", w.flags.job);
	snprintf(w.id.host, sizeof(w.id.host), "node07");
	assert_int_equal(hcb_whois_begin(&w, &slots, &out), 0);
	assert_int_equal(k.sessions, 1);
	assert_string_equal(k.last.host, "node07");
	assert_true(hcb_session_in_job(&k.last));
	assert_string_equal(k.last.job, "nightly");
	assert_int_equal(k.last.ndevices, 0);
	/* a poll's devices: none out before the poll ends, then one record */
	assert_int_equal(hcb_whois_device(&w, &slots, &slots.at[0], 2048, &out), 0);
	assert_int_equal(hcb_whois_device(&w, &slots, &slots.at[0], 2049, &out), 0);
	assert_int_equal(hcb_whois_device(&w, &slots, &slots.at[0], 2048, &out), 0);
	assert_int_equal(k.sessions, 1);
	assert_int_equal(hcb_whois_flush(&w, &slots, &out), 0);
	assert_int_equal(k.sessions, 2);
	assert_int_equal(k.last.ndevices, 2);
	assert_int_equal(k.last.devices[0].device, 2048);
	assert_true(k.last.devices[0].global_id == 2048);
	assert_string_equal(k.last.devices[1].platform, "cpu");
	assert_true(k.last.start_ns > 0);
	/* nothing new: nothing again */
	assert_int_equal(hcb_whois_flush(&w, &slots, &out), 0);
	assert_int_equal(k.sessions, 2);
	/* a CUDA slot's device: out at once, named by its own platform, no id */
	assert_int_equal(hcb_whois_device(&w, &slots, &slots.at[1], 0, &out), 0);
	assert_int_equal(k.sessions, 3);
	assert_int_equal(k.last.ndevices, 3);
	assert_string_equal(hcb_session_platform(&k.last, 0), "cuda");
	assert_string_equal(hcb_session_platform(&k.last, 2049), "cpu");
	assert_true(k.last.devices[2].global_id == HCB_GLOBAL_NONE);
	assert_string_equal(hcb_whois_platform(&w, &slots, 0), "cuda");
	assert_string_equal(hcb_whois_platform(&w, &slots, 7), "cpu");
	assert_int_equal(hcb_whois_flush(&w, &slots, &out), 0);
	assert_int_equal(k.sessions, 3);
	hcb_out_free(&out);
}

/* Past the table: one notice, the later devices unlisted, nothing more. */
static void test_full(void **state)
{
	static struct hcb_whois w;
	static struct hcb_slots slots;
	struct kept k = { .sessions = 0 };
	struct hcb_out out;

	(void)state;
	setup_slots(&slots);
	hcb_out_init(&out, (struct hcb_receiver){ &keep_ops, &k },
		     (struct hcb_warner){ notice, &k }, 0, &slots);
	hcb_whois_init(&w, NULL);
	assert_int_equal(hcb_whois_begin(&w, &slots, &out), 0);
	for (uint32_t d = 0; d < 3 * HCB_SESSION_DEVICES; d++)
		assert_int_equal(hcb_whois_device(&w, &slots, &slots.at[0], UINT32_MAX - d, &out), 0);
	assert_int_equal(hcb_whois_flush(&w, &slots, &out), 0);
	assert_int_equal(k.sessions, 2);
	assert_int_equal(k.last.ndevices, HCB_SESSION_DEVICES);
	assert_int_equal(k.notices, 1);
	assert_string_equal(hcb_session_platform(&k.last, 0), "cpu");
	hcb_out_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record),
		cmocka_unit_test(test_full),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
