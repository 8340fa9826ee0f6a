/* SPDX-License-Identifier: MIT */
#include <stdio.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "probes.h"
#include "verify.h"

/* The ring a session would make, as small as the kernel takes: nothing
 * is written to it. */
#define VERIFY_RING (64u << 10)

static int no_records(void *ctx, const void *data, size_t len)
{
	(void)ctx;
	(void)data;
	(void)len;
	return 0;
}

static void figures(struct hcb_verdict *v, const char *log)
{
	hcb_verdict_stack(log, v->stack, sizeof(v->stack));
	v->insns = hcb_verdict_insns(log);
	hcb_verdict_keep(v->log, sizeof(v->log), log);
}

/* One load of name at log_level; 0 loaded, -HCB_REFUSED, or -errno. */
static int load_one(const char *name, int sleepable, unsigned int log_level, size_t log_bytes,
		    struct hcb_verdict *v)
{
	const char *const names[] = { name, NULL };
	struct bpf_program *prog;
	struct hcb_probes *p;
	int err = hcb_probes_new(&p, VERIFY_RING, no_records, NULL);

	if (err)
		return err;
	prog = bpf_object__find_program_by_name(hcb_probes_skel(p)->obj, name);
	if (!prog) {
		hcb_probes_close(p);
		return -ENOENT;
	}
	hcb_probes_set_verify(p, log_level, log_bytes);
	err = hcb_probes_load(p, names, sleepable ? names : NULL);
	v->sleepable = !!(bpf_program__flags(prog) & BPF_F_SLEEPABLE);
	if (!err)
		figures(v, hcb_probes_log(p, name));
	hcb_probes_close(p);
	return err;
}

/* The refusal's full log (level 1, and the figures), where it fits. */
static void explain_refusal(const char *name, int sleepable, struct hcb_verdict *v)
{
	struct hcb_verdict full = { 0 };
	struct hcb_refusal r;

	if (load_one(name, sleepable, 1 | 4, HCB_VERIFY_EXPLAIN, &full) != -HCB_REFUSED ||
	    hcb_verdict_last(&r) || strcmp(r.prog, name) || !hcb_verdict_whole_end(r.log))
		return;
	memcpy(v->log, r.log, sizeof(v->log));
	v->explained = 1;
}

int hcb_probes_verify(const char *name, int sleepable, int explain, struct hcb_verdict *v)
{
	struct hcb_refusal r;
	int err;

	memset(v, 0, sizeof(*v));
	v->insns = -1;
	err = load_one(name, sleepable, 0, 0, v);
	if (!err) {
		v->loaded = 1;
		return 0;
	}
	if (err != -HCB_REFUSED || hcb_verdict_last(&r))
		return err;
	v->err = r.err;
	hcb_verdict_reason(r.log, v->reason, sizeof(v->reason));
	figures(v, r.log);
	if (explain)
		explain_refusal(name, sleepable, v);
	return 0;
}
