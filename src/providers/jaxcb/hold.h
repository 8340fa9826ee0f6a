/* SPDX-License-Identifier: MIT */
/*
 * hold.h - a process hcbtrace started itself (record -- CMD, run) waits,
 * stopped, at each callable's first entry until its site is named
 * (pycall.bpf.c's pycall_hold, pycall_events.h): the probe stops it, the
 * session lets it go once it has read that record.  On a loaded machine
 * the reader may wake after a short program has ended, its callables
 * gone; stopped, it cannot end first.
 *
 * For tests (tests/bats/sites.bats): HCBTRACE_TEST_HOLD=off holds no
 * process, as if attached; slow:MS makes the session take MS ms (at most
 * 5000) over the first callable's entry it reads, before it names the
 * site, as a reader slow to wake would; "off slow:MS" both.
 */
#ifndef HCB_JAXCB_HOLD_H
#define HCB_JAXCB_HOLD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct hcb_probes;

struct hcb_jaxcb_hold {
	pid_t pid;
	int on;                  /* stops are sent, and let go */
	int test_slow_ms;        /* HCBTRACE_TEST_HOLD=slow:MS, until the first entry */
	uint64_t released;       /* stops let go */
};

/* pid's hold, on if want (and the probe's setting could be made, before
 * the probe is attached). */
void hcb_jaxcb_hold_open(struct hcb_jaxcb_hold *h, struct hcb_probes *probes, pid_t pid,
			 int want);
/* rec (len bytes), about to be decoded: a test's slow reader waits. */
void hcb_jaxcb_hold_before(struct hcb_jaxcb_hold *h, const void *rec, size_t len);
/* rec, just decoded: if it is a held entry, pid is let go (SIGCONT). */
void hcb_jaxcb_hold_after(struct hcb_jaxcb_hold *h, const void *rec, size_t len);
/* The probes are detached: stops off, and pid let go if a stop was sent
 * whose record was not read. */
void hcb_jaxcb_hold_end(struct hcb_jaxcb_hold *h, struct hcb_probes *probes);
/* The session is closed without its end (an error): pid let go if held. */
void hcb_jaxcb_hold_drop(struct hcb_jaxcb_hold *h);

#endif
