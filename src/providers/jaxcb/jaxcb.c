/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "bpf/probes.h"
#include "bpf/uprobe.h"
#include "process/pyver.h"
#include "decode.h"
#include "events.h"
#include "ffi.h"
#include "ffi_abi.h"
#include "gpu.h"
#include "hold.h"
#include "jaxcb.h"
#include "layout.h"
#include "legacy.h"
#include "namer.h"
#include "nfstop.h"
#include "sitecache.h"
#include "textprobe.h"
#include "thunkprobe.h"

/* ti->probe_off[]: where the probes go; and, not probes, where the
 * library's own code reads the execution context's and the run options'
 * device ordinals, plus one (0: its code is not the function known,
 * ffi.h), and whether the callbacks are the legacy ones (legacy.h).
 * HANDLER is the legacy callback there, and RUN.. the run sites.  INNER:
 * the handler's inner function, which calls the Python callable
 * (pycall.bpf.c; 0: not found).  On CUDA (gpu.h) HANDLER is
 * kXlaFfiPythonGpuCallback, and GPU_COPY, GPU_SYNC the copy and
 * synchronisation sites; GPU_SYNC is 0 on CPU. */
enum { THUNK, HANDLER, BUFFER_HANDLER, CTX_DEVICE, RUN_DEVICE, LEGACY, INNER, RUN,
       GPU_COPY = RUN + HCB_JAXLEGACY_RUN_SITES, GPU_SYNC };

_Static_assert(GPU_SYNC < sizeof(((struct hcb_target_info *)0)->probe_off) / sizeof(uint64_t),
	       "probe_off holds every run site and the CUDA sites");

/* libjax_common.so (jaxlib 0.6 on), else the legacy callbacks of
 * xla_extension.so (0.4.26 to 0.5.3). */
static int find_target(pid_t pid, struct hcb_jaxffi_target *t)
{
	int err = hcb_jaxffi_find(pid, t);

	return err == -ENOENT ? hcb_jaxlegacy_find(pid, t) : err;
}

/* A jaxlib whose jax sends host_callback's taps as outfeed by default
 * (up to 0.4.33), but one the xla-outfeed provider does not read (all but
 * 0.4.31). */
static int outfeed_era(const char *version)
{
	unsigned int patch;
	char rest;

	return sscanf(version, "0.4.%u%c", &patch, &rest) == 1 && patch <= 33 && patch != 31;
}

/*
 * jax's CUDA plugin, if the process maps it (it runs on the GPU then; its
 * CPU callbacks are not read): -ENOENT if not.  Its device ordinal must be
 * read where the PJRT plugin's code reads it, or the target is refused;
 * late (find_late): a PJRT plugin not mapped yet is waited for (-ENOENT).
 */
static int find_gpu(pid_t pid, struct hcb_target_info *ti, int late)
{
	struct hcb_jaxgpu_target *g = malloc(sizeof(*g));
	int err = g ? hcb_jaxgpu_find(pid, g) : -ENOMEM;

	if (err == -ENOENT || err == -ENOMEM || (late && !err && !g->pjrt[0])) {
		free(g);
		return err ? err : -ENOENT;
	}
	snprintf(ti->path, sizeof(ti->path), "%s", g->lib);
	snprintf(ti->version, sizeof(ti->version), "%s", g->version);
	snprintf(ti->platform, sizeof(ti->platform), "cuda");
	if (err == -ENOEXEC)
		snprintf(ti->why, sizeof(ti->why), "%s", g->why);
	if (!err && g->ctx_device_off < 0) {
		snprintf(ti->why, sizeof(ti->why), "the device ordinal cannot be proven: %s",
			 g->pjrt[0] ? "the PJRT plugin's XLA_FFI_DeviceOrdinal_Get is not the "
			 "code known" : "no jax CUDA PJRT plugin (xla_cuda_plugin.so) mapped");
		err = -ENOEXEC;
	}
	if (!err) {
		ti->probe_off[HANDLER] = g->s.handler_off;
		ti->probe_off[GPU_COPY] = g->s.copy_off;
		ti->probe_off[GPU_SYNC] = g->s.sync_off;
		ti->probe_off[CTX_DEVICE] = (uint64_t)g->ctx_device_off + 1;
	}
	free(g);
	return err;
}

static int find(pid_t pid, struct hcb_target_info *ti)
{
	struct hcb_jaxffi_target t;
	int err = find_gpu(pid, ti, 0);

	if (err != -ENOENT)
		return err;
	err = find_target(pid, &t);

	ti->notice[0] = '\0';
	snprintf(ti->path, sizeof(ti->path), "%s", t.lib);
	snprintf(ti->version, sizeof(ti->version), "%s", t.version);
	/* str(device) is TFRT_CPU_0 in these versions, but jax.debug.print and
	 * the callbacks' device arguments say cpu:0: so does hcbtrace */
	snprintf(ti->platform, sizeof(ti->platform), "cpu");
	/* jax numbers a job's CPU devices across its processes (process 1's
	 * first is 2048 on jax 0.12), and XLA hands a callback that number */
	ti->global_ids = 1;
	if (err)
		return err;
	ti->probe_off[THUNK] = t.thunk_off;
	ti->probe_off[HANDLER] = t.handler_off;
	ti->probe_off[BUFFER_HANDLER] = t.buffer_off;
	ti->probe_off[CTX_DEVICE] = t.ctx_device_off >= 0 ? (uint64_t)t.ctx_device_off + 1 : 0;
	ti->probe_off[RUN_DEVICE] = t.run_device_off >= 0 ? (uint64_t)t.run_device_off + 1 : 0;
	ti->probe_off[LEGACY] = (uint64_t)t.legacy;
	ti->probe_off[INNER] = t.legacy ? 0 : t.inner_off;
	if (!t.legacy && !t.inner_off)
		snprintf(ti->notice, sizeof(ti->notice), "jaxlib %s has no XlaFfiPythonCpuCallback "
			 "hcbtrace knows: its callbacks are shown without the Python side (the "
			 "text jax.debug.print writes, the function called)", t.version);
	ti->unread = t.legacy && outfeed_era(t.version) ? HCB_UNREAD_OUTFEED : 0;
	for (unsigned int i = 0; i < t.nrun; i++)
		ti->probe_off[RUN + i] = t.run_off[i];
	return 0;
}

/*
 * A CPU jaxlib attached before jax loaded its CUDA plugin (jax loads it
 * when it starts its backends, after `record -- CMD` attached on seeing
 * jaxlib mapped): the plugin, with the CUDA driver and the PJRT plugin
 * mapped too, is a target of its own, found and checked as find() does.
 * Cheap while it is not there: hcb_jaxgpu_find reads /proc/PID/maps and
 * stops at a missing plugin or driver.
 */
static int find_late(const struct hcb_target_info *had, struct hcb_target_info *ti)
{
	if (had->probe_off[GPU_SYNC])
		return -EOPNOTSUPP;
	return find_gpu(had->pid, ti, 1);
}

static int is_library(const char *path)
{
	return hcb_jaxffi_is_library(path) || hcb_jaxlegacy_is_library(path) ||
	       hcb_jaxgpu_is_library(path);
}

/*
 * A test's own layout shift (HCBTRACE_TEST_JAXFFI_SHIFT, bytes added to
 * the thunk's and the execute parameters' offsets, and to the size of a
 * legacy descriptor's Arg): a real process read through a wrong layout,
 * which the layout check must refuse (tests/bats/modern.bats,
 * jaxlegacy.bats).  0 otherwise.
 */
static uint32_t test_shift(void)
{
	const char *s = getenv("HCBTRACE_TEST_JAXFFI_SHIFT");
	unsigned long v = s ? strtoul(s, NULL, 10) : 0;

	return v <= 64 ? (uint32_t)v : 0;
}

/* A test's thunks not seen (HCBTRACE_TEST_JAXFFI_NOTHUNK=K: one in K, at
 * random, as a call begun before the probe was in place): calls named by
 * their callables on a real process (tests/bats/dense.bats).  0 otherwise. */
static uint32_t test_nothunk(void)
{
	const char *s = getenv("HCBTRACE_TEST_JAXFFI_NOTHUNK");
	unsigned long v = s ? strtoul(s, NULL, 10) : 0;

	return v <= 1000 ? (uint32_t)v : 0;
}

/*
 * How a test has an operand's argument type checked
 * (HCBTRACE_TEST_JAXFFI_TYPES): "read" reads it for every operand, as
 * where a buffer says another size than the C API's; "refuse" reads it
 * and takes none as a buffer, so every call is a counted loss
 * (tests/bats/modern.bats).  Otherwise a buffer's size says it is one.
 * And its call's device (HCBTRACE_TEST_JAXFFI_SPAN=frame): read apart
 * from the frame, as where the execution context is not right after it.
 */
static void test_types(struct hcb_capture_bpf *skel)
{
	const char *s = getenv("HCBTRACE_TEST_JAXFFI_TYPES");
	const char *span = getenv("HCBTRACE_TEST_JAXFFI_SPAN");

	/* "frame": the frame read alone, its device apart (ffi.bpf.c) */
	if (span && !strcmp(span, "frame"))
		skel->rodata->jaxffi_frame_span = sizeof(struct jaxffi_xla_frame);

	if (!s || (strcmp(s, "read") && strcmp(s, "refuse")))
		return;
	skel->rodata->jaxffi_buffer_size = 0;
	if (!strcmp(s, "refuse"))
		skel->rodata->jaxffi_arg_buffer = 0;
}

/*
 * Where a test has the Python handler's call probed
 * (HCBTRACE_TEST_JAXFFI_INNER): "handler" on the handler itself, as where
 * no inner function is known; "shift" at the inner function, its frame
 * read 8 bytes off, a layout every call's proof must refuse
 * (tests/bats/sites.bats).  Otherwise at the inner function.
 */
enum inner_test { INNER_AS_IS, INNER_HANDLER, INNER_SHIFT };

static enum inner_test inner_test(void)
{
	const char *s = getenv("HCBTRACE_TEST_JAXFFI_INNER");

	if (s && !strcmp(s, "handler"))
		return INNER_HANDLER;
	return s && !strcmp(s, "shift") ? INNER_SHIFT : INNER_AS_IS;
}

/*
 * The legacy callbacks' thunk (0.4.31 to 0.5.3): its custom call
 * parameters keep the device where XLA_FFI_INTERNAL_DeviceOrdinal_Get
 * reads it (they are copied into the FFI's context whole: after the run id
 * from 0.5.1, first before), and the collective parameters keep it too,
 * which the check compares.  The classic runtime's run options keep it
 * where ExecutableRunOptions::device_ordinal reads it.
 */
static void prepare_legacy(struct hcb_capture_bpf *skel, const struct hcb_target_info *ti,
			   uint32_t shift)
{
	const struct hcb_jaxffi_layout *l = hcb_jaxffi_layout();

	skel->rodata->jaxffi_ccp_device_off = ti->probe_off[CTX_DEVICE] ?
		(uint32_t)ti->probe_off[CTX_DEVICE] - 1 : 0;
	skel->rodata->jaxffi_params_coll_off = l->params_coll_off + shift;
	skel->rodata->jaxffi_coll_device_off = l->coll_device_off;
	skel->rodata->jaxlegacy_run_device_off = ti->probe_off[RUN_DEVICE] ?
		(uint32_t)ti->probe_off[RUN_DEVICE] - 1 : l->run_device_off;
	skel->rodata->jaxlegacy_arg_size = l->legacy_arg_size + shift;
}

/*
 * How long no new call site must come before the custom-call thunk's probe
 * goes off (thunkoff.c): a second of the calls' time, the program's loop
 * round at least once.  A test's own (HCBTRACE_TEST_THUNK): "on" keeps it
 * on, "quiet:MS" MS milliseconds (tests/bats/thunkoff.bats).
 */
static uint64_t thunk_quiet_ns(void)
{
	const char *s = getenv("HCBTRACE_TEST_THUNK");
	unsigned long ms;

	if (s && !strcmp(s, "on"))
		return UINT64_MAX;
	if (s && sscanf(s, "quiet:%lu", &ms) == 1 && ms <= 60000)
		return ms * 1000000ull;
	return 1000000000ull;
}

/* The inner function's return, loaded where a text may be probed
 * (textprobe.h: attached only with the text probe). */
static int ends_probed(const struct hcb_target_info *ti)
{
	return ti->probe_off[INNER] && !(ti->without & HCB_WITHOUT_TEXT);
}

/* The XLA internals the programs read: read-only variables, so they are
 * set before the programs load; the decoder proves them on the first call. */
static int prepare(struct hcb_probes *probes, const struct hcb_target_info *ti)
{
	const struct hcb_jaxffi_layout *l = hcb_jaxffi_layout();
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	uint32_t shift = test_shift();
	int gpu = !!ti->probe_off[GPU_SYNC];

	skel->rodata->jaxffi_thunk_arg = l->thunk_arg;
	skel->rodata->jaxffi_test_nothunk = test_nothunk();
	skel->rodata->jaxffi_test_frame_shift = inner_test() == INNER_SHIFT ? 8 : 0;
	test_types(skel);
	skel->rodata->jaxffi_op_off = l->op_off + shift;
	skel->rodata->jaxffi_module_off = l->module_off + shift;
	for (unsigned int i = 0; i < HCB_JAXFFI_TARGET_PLACES; i++)
		skel->rodata->jaxffi_target_offs[i] = l->target_offs[i] + shift;
	skel->rodata->jaxffi_params_ccp_off = l->params_ccp_off + shift;
	skel->rodata->jaxffi_ccp_device_off = l->ccp_device_off;
	/* as the library's code reads it, where that proves it; not shifted:
	 * a device read wrong there is a loss on device 0 (counted
	 * unreadable), never a value shown */
	skel->rodata->jaxffi_ctx_device_off = ti->probe_off[CTX_DEVICE] ?
		(uint32_t)ti->probe_off[CTX_DEVICE] - 1 : l->ctx_device_off;
	if (ti->probe_off[LEGACY])
		prepare_legacy(skel, ti, shift);
	/* only the probes this jaxlib's callbacks need are verified */
	skel->rodata->jaxgpu_ctx_device_off = gpu ? (uint32_t)ti->probe_off[CTX_DEVICE] - 1 : 0;
	bpf_program__set_autoload(skel->progs.jaxffi_thunk, !gpu);
	bpf_program__set_autoload(skel->progs.jaxffi_call, !gpu && !ti->probe_off[LEGACY]);
	bpf_program__set_autoload(skel->progs.jaxlegacy_call, !!ti->probe_off[LEGACY]);
	bpf_program__set_autoload(skel->progs.jaxlegacy_run, !!ti->probe_off[LEGACY]);
	/* at the inner function, the call's probe does the entry too */
	bpf_program__set_autoload(skel->progs.jaxffi_inner, ti->probe_off[INNER] &&
				  inner_test() == INNER_HANDLER);
	bpf_program__set_autoload(skel->progs.jaxffi_inner_ret, ends_probed(ti));
	bpf_program__set_autoload(skel->progs.jaxgpu_enter, gpu);
	bpf_program__set_autoload(skel->progs.jaxgpu_copy, gpu);
	bpf_program__set_autoload(skel->progs.jaxgpu_sync, gpu);
	bpf_program__set_autoload(skel->progs.pytext_concat, ti->probe_off[INNER] &&
				  !(ti->without & HCB_WITHOUT_TEXT));
	return 0;
}

/* One uprobe at a file offset (by name, libbpf would read the 300 MB
 * library's symbols once more per probe). */
static int attach_at(struct hcb_probes *probes, struct bpf_program *prog,
		     const struct hcb_target_info *ti, uint64_t off, uint64_t cookie)
{
	struct hcb_uprobe u = { .off = off, .cookie = cookie,
				.retprobe = prog == hcb_probes_skel(probes)->progs.jaxffi_inner_ret };

	return hcb_uprobe_attach(probes, prog, ti->pid, ti->path, &u);
}

/* The run sites first, then the thunk: a callback then always finds
 * its device and call site. */
static int attach_legacy(struct hcb_probes *probes, const struct hcb_target_info *ti)
{
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	int err = 0;

	for (unsigned int i = RUN; !err && i < RUN + HCB_JAXLEGACY_RUN_SITES && ti->probe_off[i]; i++)
		err = attach_at(probes, skel->progs.jaxlegacy_run, ti, ti->probe_off[i], 0);
	if (!err && ti->probe_off[THUNK])
		err = attach_at(probes, skel->progs.jaxffi_thunk, ti, ti->probe_off[THUNK], 0);
	if (!err)
		err = attach_at(probes, skel->progs.jaxlegacy_call, ti, ti->probe_off[HANDLER],
				HCB_JAXFFI_PYTHON);
	return err;
}

/*
 * The thunk first: a handler call then always finds its call site; the
 * inner function's return (where a text is probed) before its entry, so
 * that an entry seen always has its end.  The Python handler's call is
 * probed at its inner function where that is known (ffi.bpf.c: one trap
 * and one program run for the call and its callable's entry, the call's
 * records first, as the decoder needs them); else on the handler, and
 * the entry by a program of its own.
 */
static int attach_ffi(struct hcb_probes *probes, const struct hcb_target_info *ti,
		      struct hcb_jaxcb_text *text, struct hcb_jaxcb_thunk *thunk)
{
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	int at_inner = ti->probe_off[INNER] && inner_test() != INNER_HANDLER;
	int err = hcb_jaxcb_thunk_attach(thunk, probes, ti->pid, ti->path, ti->probe_off[THUNK]);

	if (!err && ti->probe_off[INNER])
		err = hcb_jaxcb_text_attach_ret(text, probes, ti, ti->probe_off[INNER]);
	if (!err && ti->probe_off[INNER] && !at_inner)
		err = attach_at(probes, skel->progs.jaxffi_inner, ti, ti->probe_off[INNER], 0);
	if (!err && at_inner)
		err = attach_at(probes, skel->progs.jaxffi_call, ti, ti->probe_off[INNER],
				HCB_JAXFFI_PYTHON | HCB_JAXFFI_AT_INNER | HCB_JAXFFI_WITH_ENTRY);
	else if (!err)
		err = attach_at(probes, skel->progs.jaxffi_call, ti, ti->probe_off[HANDLER],
				HCB_JAXFFI_PYTHON);
	if (!err && ti->probe_off[BUFFER_HANDLER])
		err = attach_at(probes, skel->progs.jaxffi_call, ti, ti->probe_off[BUFFER_HANDLER],
				HCB_JAXFFI_BUFFER);
	return err;
}

/* The copies' sites first, the handler's entry last: a call begun is then
 * always followed through. */
static int attach_gpu(struct hcb_probes *probes, const struct hcb_target_info *ti)
{
	struct hcb_capture_bpf *skel = hcb_probes_skel(probes);
	int err = attach_at(probes, skel->progs.jaxgpu_sync, ti, ti->probe_off[GPU_SYNC], 0);

	if (!err)
		err = attach_at(probes, skel->progs.jaxgpu_copy, ti, ti->probe_off[GPU_COPY], 0);
	if (!err)
		err = attach_at(probes, skel->progs.jaxgpu_enter, ti, ti->probe_off[HANDLER], 0);
	return err;
}

/* The Python side, where the inner function is probed: the target's
 * Python found once, for the site names and the text probe both. */
static int open_python(struct hcb_jaxffi *x, struct hcb_probes *probes,
		       struct hcb_target_info *ti, const struct hcb_decoder_ops *ops, void *ctx,
		       struct hcb_jaxcb_text *text)
{
	const struct hcb_pyoffsets *o;
	struct hcb_pyver *v = malloc(sizeof(*v));
	char why[256], msg[320];
	int err;

	if (!v)
		return -ENOMEM;
	err = hcb_pyver_open(ti->pid, v, &o, why, sizeof(why));
	if (!err)
		err = hcb_jaxffi_name_by_python(x, ti->pid, o);
	else if (err == -ENOTSUP && ops->notice) {   /* a Python not read is said once */
		snprintf(msg, sizeof(msg), "%s: call sites keep XLA's names", why);
		ops->notice(ctx, msg);
	}
	/* --no-text: the names stay, the concatenation goes unprobed */
	if (err != -ENOMEM && !(ti->without & HCB_WITHOUT_TEXT) && !hcb_jaxcb_text_format_test())
		hcb_jaxcb_text_attach(text, probes, ti, err ? NULL : v, o, why);
	free(v);
	return err == -ENOMEM ? err : 0;
}

/* The session's state: the decoder, and the BPF object its programs are
 * in (the probe's own NaN check is set there). */
struct jaxcb_state {
	struct hcb_jaxffi *dec;
	struct hcb_probes *probes;
	struct hcb_jaxcb_text text;         /* the probes a print's text needs */
	struct hcb_jaxcb_thunk thunk;       /* the probe a site's names need */
	struct hcb_jaxcb_hold hold;         /* a process hcbtrace started */
};

static void text_mode(struct jaxcb_state *st, const struct hcb_target_info *ti)
{
	enum hcb_jaxffi_text_mode mode = HCB_JAXFFI_TEXT_AUTO;

	if (ti->without & HCB_WITHOUT_MADE_TEXT)
		mode = HCB_JAXFFI_TEXT_PROBE;
	else if (hcb_jaxcb_text_format_test())
		mode = HCB_JAXFFI_TEXT_FORMAT;
	hcb_jaxffi_text_mode(st->dec, mode, hcb_jaxcb_text_on(&st->text) ? hcb_jaxcb_text_off :
			     NULL, &st->text);
	/* the return goes with the text probe; without it, never probed */
	if (hcb_jaxcb_text_ends(&st->text))
		hcb_jaxffi_ends_with_text(st->dec);
	else if (ti->probe_off[INNER])
		hcb_jaxffi_no_ends(st->dec);
}

static int open_jaxcb(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
		      const struct hcb_decoder_ops *ops, void *ctx)
{
	struct jaxcb_state *st = calloc(1, sizeof(*st));
	int err = st ? hcb_jaxffi_new(&st->dec, ops, ctx) : -ENOMEM;

	if (err) {
		free(st);
		return err;
	}
	st->probes = probes;
	hcb_jaxcb_text_init(&st->text);
	hcb_jaxcb_thunk_init(&st->thunk);
	if (ti->probe_off[CTX_DEVICE] && !ti->probe_off[LEGACY])
		hcb_jaxffi_device_proven(st->dec);
	if (ti->probe_off[INNER])
		hcb_jaxffi_inner_probed(st->dec);
	if (ti->without & HCB_WITHOUT_TEXT)
		hcb_jaxffi_text_off(st->dec);
	/* the Python side first: attached to a running program, the first
	 * call sent has its text probed and its namer ready */
	if (ti->probe_off[INNER])
		err = open_python(st->dec, probes, ti, ops, ctx, &st->text);
	hcb_jaxcb_hold_open(&st->hold, probes, ti->pid,
			    !err && ti->probe_off[INNER] && ti->hold_sites);
	if (!err && !ti->probe_off[GPU_SYNC] && !ti->probe_off[LEGACY])   /* sites learned once */
		hcb_jaxcb_sitecache_open(st->dec, probes);
	if (!err && ti->probe_off[GPU_SYNC])
		err = attach_gpu(probes, ti);
	else if (!err)
		err = ti->probe_off[LEGACY] ? attach_legacy(probes, ti) :
		      attach_ffi(probes, ti, &st->text, &st->thunk);
	text_mode(st, ti);
	if (!err && hcb_uprobe_link_on(&st->thunk.link))
		hcb_jaxffi_thunk_switch(st->dec, hcb_jaxcb_thunk_set, &st->thunk, thunk_quiet_ns());
	if (err) {
		hcb_jaxcb_thunk_close(&st->thunk);
		hcb_jaxcb_text_close(&st->text);
		hcb_jaxffi_free(st->dec);
		free(st);
		return err;
	}
	*state = st;
	return 0;
}

static int feed(void *state, const void *rec, size_t len)
{
	struct jaxcb_state *st = state;
	int err;

	hcb_jaxcb_hold_before(&st->hold, rec, len);
	err = hcb_jaxffi_feed(st->dec, rec, len);
	hcb_jaxcb_hold_after(&st->hold, rec, len);   /* its site is named now */
	return err;
}

static int tick(void *state, uint64_t now_ns)
{
	return hcb_jaxffi_tick(((struct jaxcb_state *)state)->dec, now_ns);
}

static unsigned int pending(const void *state)
{
	return hcb_jaxffi_pending(((const struct jaxcb_state *)state)->dec);
}

/* The probes are off (hcb_capture_end). */
static int finish(void *state)
{
	struct jaxcb_state *st = state;

	hcb_jaxcb_hold_end(&st->hold, st->probes);
	hcb_jaxffi_finish(st->dec);
	return 0;
}

/* The FFI probe checks every call's operands alike: not by consumer. */
static int stop_nonfinite(void *state, const struct hcb_consumer *cons,
			  const struct hcb_devset *devices)
{
	struct jaxcb_state *st = state;

	return cons ? -EOPNOTSUPP : hcb_jaxcb_stop_nonfinite(st->probes, devices);
}

static int stop_arm(void *state, int on)
{
	return hcb_jaxcb_stop_arm(((struct jaxcb_state *)state)->probes, on);
}

static const struct hcb_stream_stats *stats(const void *state, uint32_t device)
{
	return hcb_jaxffi_stats(((const struct jaxcb_state *)state)->dec, device);
}

static struct hcb_registry *registry(void *state)
{
	return hcb_jaxffi_registry(((struct jaxcb_state *)state)->dec);
}

static void close_jaxcb(void *state)
{
	struct jaxcb_state *st = state;

	hcb_jaxcb_thunk_close(&st->thunk);
	hcb_jaxcb_text_close(&st->text);
	hcb_jaxcb_hold_drop(&st->hold);
	hcb_jaxffi_free(st->dec);
	free(st);
}

static const char *const programs[] = { "jaxffi_thunk", "jaxffi_call", "jaxlegacy_call",
					"jaxlegacy_run", "jaxffi_inner", "jaxffi_inner_ret",
					"jaxgpu_enter", "jaxgpu_copy", "jaxgpu_sync",
					"pytext_concat", NULL };
/* the legacy call's operands may be in pages not in memory, the CUDA
 * call's host copies are fresh ones; the FFI call's XLA has just written */
static const char *const sleepable[] = { "jaxlegacy_call", "jaxgpu_sync", NULL };

const struct hcb_provider hcb_prov_jaxcb = {
	.name = "jax-callback",
	.flags = HCB_PROV_SEQ | HCB_PROV_ON_MAP | HCB_PROV_UNORDERED | HCB_PROV_DEVIDS,
	.supported = hcb_jaxffi_supported,
	.programs = programs,
	.sleepable = sleepable,
	.is_library = is_library,
	.find = find,
	.find_late = find_late,
	.prepare = prepare,
	.open = open_jaxcb,
	.feed = feed,
	.tick = tick,
	.pending = pending,
	.finish = finish,
	.stop_nonfinite = stop_nonfinite,
	.stop_arm = stop_arm,
	.stats = stats,
	.registry = registry,
	.close = close_jaxcb,
};
