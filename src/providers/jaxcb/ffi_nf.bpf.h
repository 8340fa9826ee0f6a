/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * ffi_nf.bpf.h - --on-trigger stop with --until nonfinite, in the call's
 * own probe (ffi.bpf.c): a call just sent whole whose device is checked
 * here, and one of whose small float operands holds a NaN or infinity,
 * stops the target from its own thread, before its next step.  The user
 * side reads the same call and fires.  The operands are ffi.bpf.c's
 * read_operand()'s (call.bpf.h), the kept ones of the measuring pass.
 * ffi.bpf.c alone includes it: the map is defined here.
 */
#ifndef HCB_FFI_NF_BPF_H
#define HCB_FFI_NF_BPF_H

#include "bpf/nonfinite.bpf.h"
#include "call.bpf.h"
#include "events.h"
#include "ffi_run.bpf.h"

/* --on-trigger stop with --until nonfinite: which devices' calls the probe
 * checks itself (events.h, struct hcb_jaxffi_nf) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct hcb_jaxffi_nf);
} jaxffi_nf SEC(".maps");

#define NF_SPANS_PER_OPERAND (HCB_JAXFFI_NF_BYTES / HCB_NF_SPAN)

static __always_inline __u32 nf_kind(__u32 dtype)
{
	switch (dtype) {
	case JAXFFI_XLA_F16: return HCB_NF_F16;
	case JAXFFI_XLA_BF16: return HCB_NF_BF16;
	case JAXFFI_XLA_F32: return HCB_NF_F32;
	case JAXFFI_XLA_F64: return HCB_NF_F64;
	}
	return 0;
}

/* Operand i: noted if it is a float small enough to check here (arg: a
 * loop_ref to the run). */
static long nf_pick(__u32 i, void *arg)
{
	struct ffi_run *f = ((struct loop_ref *)arg)->state;
	struct nf_operands *x = &f->nf;
	__u32 kind, n = x->n;

	if (i >= f->r.w.nargs || n >= HCB_JAXFFI_NF_OPERANDS)
		return 1;
	if (read_operand(&f->r, i, f->r.dims) != 0)
		return 0;
	kind = nf_kind(f->r.o.b.dtype);
	if (!kind || f->r.o.nbytes == 0 || f->r.o.nbytes > HCB_JAXFFI_NF_BYTES)
		return 0;
	x->data[n] = f->r.o.b.data;
	x->len[n] = (__u32)f->r.o.nbytes;
	x->kind[n] = kind;
	x->n = n + 1;
	return 0;
}

/* Span k % NF_SPANS_PER_OPERAND of picked operand k / NF_SPANS_PER_OPERAND. */
static long nf_operand_span(__u32 k, void *arg)
{
	struct ffi_run *f = ((struct loop_ref *)arg)->state;
	struct nf_operands *x = &f->nf;
	__u32 op = k / NF_SPANS_PER_OPERAND, at = (k % NF_SPANS_PER_OPERAND) * HCB_NF_SPAN, len;

	if (op >= x->n || op >= HCB_JAXFFI_NF_OPERANDS)
		return 1;
	if (at >= x->len[op])
		return 0;
	len = x->len[op] - at;
	if (len > HCB_NF_SPAN)
		len = HCB_NF_SPAN;
	x->found = nf_scan_span((const void *)(x->data[op] + at), len, x->kind[op], f->nf_buf);
	return x->found;
}

/* 1 if the probe checks the calls of device id (nf: the setting). */
static __noinline int nf_device(const struct hcb_jaxffi_nf *nf, __u32 id)
{
	if (nf->all)
		return 1;
	for (__u32 i = 0; i < HCB_JAXFFI_NF_DEVICES; i++) {
		if (i >= nf->n)
			break;
		if (nf->ids[i] == id)
			return 1;
	}
	return 0;
}

/*
 * A call just sent whole: if the probe is to check its device's calls, and
 * a small float operand holds a NaN or infinity, stop the target from
 * this, its own thread.  The user side reads the same call and fires.
 */
static __noinline void nf_stop_check(struct ffi_run *f)
{
	struct loop_ref ref = { f };
	__u32 zero = 0;
	struct hcb_jaxffi_nf *nf = bpf_map_lookup_elem(&jaxffi_nf, &zero);

	if (!nf || !nf->on || !nf_device(nf, f->r.w.device_id))
		return;
	__builtin_memset(&f->nf, 0, sizeof(f->nf));
	bpf_loop(HCB_MAX_LEAVES, nf_pick, &ref, 0);
	if (!f->nf.n)
		return;
	bpf_loop(HCB_JAXFFI_NF_OPERANDS * NF_SPANS_PER_OPERAND, nf_operand_span, &ref, 0);
	if (f->nf.found)
		bpf_send_signal(NF_SIGSTOP);
}

#endif
