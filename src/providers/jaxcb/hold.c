/* SPDX-License-Identifier: MIT */
/* hold.c - a process hcbtrace started waits for its sites' names (hold.h). */
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "events.h"
#include "hold.h"
#include "pycall_events.h"

static int get(struct hcb_probes *probes, struct hcb_pycall_hold *v)
{
	struct bpf_map *map = hcb_probes_skel(probes)->maps.pycall_hold;
	uint32_t zero = 0;

	if (bpf_map__lookup_elem(map, &zero, sizeof(zero), v, sizeof(*v), 0))
		return errno ? -errno : -EIO;
	return 0;
}

static int set_on(struct hcb_probes *probes, uint32_t on)
{
	struct bpf_map *map = hcb_probes_skel(probes)->maps.pycall_hold;
	struct hcb_pycall_hold v;
	uint32_t zero = 0;
	int err = get(probes, &v);

	if (err)
		return err;
	v.on = on;
	if (bpf_map__update_elem(map, &zero, sizeof(zero), &v, sizeof(v), BPF_ANY))
		return errno ? -errno : -EIO;
	return 0;
}

/* HCBTRACE_TEST_HOLD's delay in ms (0: none) */
static int test_slow_ms(const char *s)
{
	const char *slow = s ? strstr(s, "slow:") : NULL;
	int ms;

	if (!slow || sscanf(slow, "slow:%d", &ms) != 1 || ms < 0)
		return 0;
	return ms < 5000 ? ms : 5000;
}

void hcb_jaxcb_hold_open(struct hcb_jaxcb_hold *h, struct hcb_probes *probes, pid_t pid,
			 int want)
{
	const char *test = getenv("HCBTRACE_TEST_HOLD");

	*h = (struct hcb_jaxcb_hold){ .pid = pid, .test_slow_ms = test_slow_ms(test) };
	h->on = want && !(test && !strncmp(test, "off", 3)) && !set_on(probes, 1);
}

/* 1 if rec (len bytes) holds a callable's entry, into *e: an
 * HCB_EV_JPYCALL record, or a small call's that carries one
 * (HCB_EV_JCALL_ARG, events.h). */
static int is_entry(const void *rec, size_t len, struct hcb_ev_jpycall *e)
{
	uint32_t type;

	if (len < sizeof(type))
		return 0;
	memcpy(&type, rec, sizeof(type));
	if (type == HCB_EV_JCALL_ARG && len >= sizeof(struct hcb_ev_jcall_arg))
		memcpy(e, (const char *)rec + offsetof(struct hcb_ev_jcall_arg, entry), sizeof(*e));
	else if (len >= sizeof(*e))
		memcpy(e, rec, sizeof(*e));
	else
		return 0;
	return e->type == HCB_EV_JPYCALL;
}

void hcb_jaxcb_hold_before(struct hcb_jaxcb_hold *h, const void *rec, size_t len)
{
	struct timespec ts = { h->test_slow_ms / 1000, (long)(h->test_slow_ms % 1000) * 1000000L };
	struct hcb_ev_jpycall e;

	if (h->test_slow_ms && is_entry(rec, len, &e)) {
		nanosleep(&ts, NULL);
		h->test_slow_ms = 0;
	}
}

void hcb_jaxcb_hold_after(struct hcb_jaxcb_hold *h, const void *rec, size_t len)
{
	struct hcb_ev_jpycall e;

	/* the probe stops only the process it is attached to */
	if (!h->on || !is_entry(rec, len, &e) || !(e.flags & HCB_JPY_F_HELD) ||
	    (pid_t)e.pid != h->pid)
		return;
	kill(h->pid, SIGCONT);
	h->released++;
}

void hcb_jaxcb_hold_end(struct hcb_jaxcb_hold *h, struct hcb_probes *probes)
{
	struct hcb_pycall_hold v;

	if (!h->on)
		return;
	/* detached, no program runs: the count read is the last */
	if (set_on(probes, 0) || get(probes, &v) || v.sent > h->released)
		kill(h->pid, SIGCONT);
	h->on = 0;
}

void hcb_jaxcb_hold_drop(struct hcb_jaxcb_hold *h)
{
	if (h->on)
		kill(h->pid, SIGCONT);
	h->on = 0;
}
