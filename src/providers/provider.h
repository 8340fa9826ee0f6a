/* SPDX-License-Identifier: MIT */
/*
 * provider.h - where a live session's packets come from.  A provider knows
 * one kind of program: how to recognise it in /proc (the library it maps),
 * which BPF programs to attach where, and how to turn their ring records
 * back into packets.  The capture engine (capture.h) drives whichever
 * provider recognises the target, through this table of operations; the
 * rest (accounting, barriers, receivers, session files) is the engine's.
 *
 * Adding a provider: a folder src/providers/NAME/ whose files define
 * hcb_prov_NAME (these operations), its decoder and its BPF programs
 * (added to the one object by its meson.build), and NAME in the list of
 * src/providers/meson.build, from which the build makes hcb_providers[].
 * docs/ARCHITECTURE.md walks through it.
 */
#ifndef HCB_PROVIDER_H
#define HCB_PROVIDER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/filter.h"
#include "core/packet.h"
#include "core/registry.h"

struct hcb_probes;
struct hcb_provider;

/* A process as a provider sees it; filled by find(), kept for the session. */
struct hcb_target_info {
	pid_t pid;
	char comm[256];              /* its command line, for messages */
	char path[4096];             /* the library the provider attaches to */
	uint64_t base;               /* where that library is loaded */
	char version[64];            /* its version, where it has one ("" if not) */
	char platform[16];           /* names devices: "cpu" -> cpu:0, "TFRT_CPU_%u" */
	int global_ids;              /* 1: its device numbers are the runtime's ids
				      * across a job (jax's CPU devices) */
	uint64_t counters;           /* where the target's issued counters are, 0: unknown */
	uint64_t probe_off[16];      /* file offsets in path where the provider's
				      * probes go, as find() found them (0: none) */
	unsigned int unread;         /* HCB_UNREAD_*: what such a target may send
				      * that this provider does not read */
	char notice[320];            /* what the provider shows less of for this
				      * target than it could, and why, in one
				      * line the session says once ("": none) */
	char why[256];               /* find()'s -ENOEXEC: what of the library's
				      * code did not check out, in one line ("":
				      * its functions are missing) */
	unsigned int without;        /* HCB_WITHOUT_*: probes the session asked
				      * for none of (set before prepare()) */
	int hold_sites;              /* 1: a process hcbtrace started (its
				      * parent is hcbtrace, or one it started):
				      * it may be stopped a moment where a
				      * provider must read it before it goes on
				      * (jaxcb/hold.h) */
	const struct hcb_provider *provider;
};

/* hcb_target_info.unread */
enum hcb_unread {
	/* host_callback's outfeed (id_tap, id_print): jax's default for them
	 * up to 0.4.33, read by the xla-outfeed provider on jaxlib 0.4.31 only */
	HCB_UNREAD_OUTFEED = 1 << 0,
};

/* hcb_target_info.without, hcb_capture_opts.without */
enum hcb_without {
	/* jax.debug.print's text: the probe on the target's Python's string
	 * concatenation costs every concatenation of the whole program
	 * (about 0.8 us each) while attached; prints keep their operands */
	HCB_WITHOUT_TEXT = 1 << 0,
	/* --text-probe: without the line hcbtrace makes; the probe stays on
	 * for the whole session (jaxcb/textproof.c says why it goes by
	 * default) */
	HCB_WITHOUT_MADE_TEXT = 1 << 1,
};

enum hcb_provider_flags {
	/* The target counts what it issued per device (hcbtap's registry):
	 * a barrier can be served, and accounting starts from those counts. */
	HCB_PROV_ISSUED = 1 << 0,
	/* Packets are numbered per device as the probe's handled counter
	 * counts them, so a jump in seq is a loss; otherwise losses are known
	 * only as the decoder's problems. */
	HCB_PROV_SEQ = 1 << 1,
	/* No start-up handshake: `record -- CMD` attaches as soon as CMD maps
	 * the library. */
	HCB_PROV_ON_MAP = 1 << 2,
	/* A device's packets may arrive out of seq order (its calls run on
	 * several threads): losses are counted, not placed (acct.h). */
	HCB_PROV_UNORDERED = 1 << 3,
	/* Its records carry a device's slot, which its probes hand each
	 * device id they meet (bpf/devices.bpf.h): the engine reads a slot's
	 * id (hcb_probes_device_id).  Without it, the slot is the id
	 * (libhcbtap's devices are dense, below HCB_MAX_DEVICES). */
	HCB_PROV_DEVIDS = 1 << 4,
};

struct hcb_provider {
	const char *name;            /* in session records and messages */
	unsigned int flags;
	/* Optional: the library versions it reads, for messages ("0.4.31"). */
	const char *(*supported)(void);
	/* Its BPF programs (src/bpf/), by name, NULL-terminated: a session
	 * loads only these. */
	const char *const *programs;
	/* Those of them that read the target where a page may not be in, and
	 * fault it in: loaded sleepable where the kernel has sleepable uprobe
	 * programs (6.0 on); as they are elsewhere, reading only what is in
	 * memory.  NULL-terminated; NULL: none. */
	const char *const *sleepable;
	/* 1 if path (from /proc/PID/maps) is this provider's library. */
	int (*is_library)(const char *path);
	/*
	 * Does pid map this provider's library?  0: yes, ti filled (path,
	 * base, version, platform); -ENOENT: no; -EPROTONOSUPPORT: yes, in a
	 * version it cannot read (ti->path, ti->version set); -ESRCH: no such
	 * process; -EACCES: its memory map is not readable.
	 */
	int (*find)(pid_t pid, struct hcb_target_info *ti);
	/*
	 * Optional: after the attach to had, does the process map a library
	 * now that needs probes of its own (jax's CUDA plugin, loaded when jax
	 * starts its backends, after `record -- CMD` attached on seeing
	 * jaxlib)?  0: yes, ti filled as find() fills it, for a slot of its
	 * own; -ENOENT: not (yet); -EOPNOTSUPP: had never grows so (ask no
	 * more); else find()'s failures (-ENOEXEC: ti->why, ti->path).  The
	 * engine asks every 100 ms at first, then every second
	 * (capture_late.c): it must be cheap while nothing is found (a read of
	 * /proc/PID/maps).
	 */
	int (*find_late)(const struct hcb_target_info *had, struct hcb_target_info *ti);
	/* Optional: before its programs are loaded, set their read-only
	 * variables for ti's process (hcb_probes_skel). */
	int (*prepare)(struct hcb_probes *probes, const struct hcb_target_info *ti);
	/*
	 * Attach to ti's process (its programs are loaded): into probes
	 * (hcb_probes_own),
	 * its decoder delivering packets to ops/ctx.  May refine ti (the
	 * platform, where the counters are).  *state is the provider's own.
	 */
	int (*open)(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
		    const struct hcb_decoder_ops *ops, void *ctx);
	/* One ring record of this provider's programs: 0, or the packet
	 * callback's negative value, or -ENOMEM. */
	int (*feed)(void *state, const void *rec, size_t len);
	/* Optional: time passes (CLOCK_MONOTONIC now_ns); deliver what waits for quiet. */
	int (*tick)(void *state, uint64_t now_ns);
	/* Packets whose records are still coming. */
	unsigned int (*pending)(const void *state);
	/* End of input: deliver what is whole, count what is not. */
	int (*finish)(void *state);
	/*
	 * Optional (--on-trigger stop with --until nonfinite): the provider's
	 * probe checks taps for a NaN or an infinity itself, on the devices of
	 * the set (by id), and stops the target (SIGSTOP,
	 * from the target's own thread) at the very tap, not steps later.
	 * cons: that consumer's taps; NULL: every consumer's, where the probe
	 * checks them all alike.  The checks count once armed (stop_arm).
	 * 0; -E2BIG: cons's taps are too large or hold no float the probe
	 * checks; -EOPNOTSUPP: the probe does not check that way (by consumer,
	 * or all alike); -ENOENT: an empty set, or none of its devices can be
	 * this provider's; -errno from BPF.
	 */
	int (*stop_nonfinite)(void *state, const struct hcb_consumer *cons,
			      const struct hcb_devset *devices);
	/* Optional: arm (on 1) the checks stop_nonfinite set, or disarm them
	 * (0: the recorder fired).  0; -ENOENT: none set; -errno from BPF. */
	int (*stop_arm)(void *state, int on);
	/* Optional: 1 if device-side copy times of taps will come (CUPTI,
	 * `run --cuda`), else 0 and why not in words. */
	int (*timing)(void *state, char *why, size_t size);
	/* Optional (HCB_PROV_ISSUED): the target's issued counters now
	 * (HCB_MAX_DEVICES), read at ti->counters (found first if 0);
	 * -ESRCH/-EFAULT once it is gone, -EBADMSG if they do not validate. */
	int (*issued)(const struct hcb_target_info *ti, uint64_t *issued);
	/* Optional: what the target declares without a session: its devices
	 * (device_mask: HCB_MAX_DEVICES bits), its platform (into ti), and its
	 * consumers into reg (may be NULL).  -EBADMSG: a declaration of another
	 * version than this hcbtrace reads. */
	int (*describe)(struct hcb_target_info *ti, uint64_t *device_mask, struct hcb_registry *reg);
	/* Per-device figures, by slot (HCB_PROV_DEVIDS), NULL for a device
	 * never heard of; device HCB_MAX_DEVICES: every device out of range
	 * together (NULL for a provider whose decoder does not keep them). */
	const struct hcb_stream_stats *(*stats)(const void *state, uint32_t device);
	struct hcb_registry *(*registry)(void *state);
	void (*close)(void *state);
};

/* Every provider, in the order a process is matched against them (made by
 * the build: src/providers/table.c.in). */
extern const struct hcb_provider *const hcb_providers[];

/*
 * The provider for pid: the first that finds its library.  0 and ti filled;
 * ti->pid and ti->comm are filled in every case (comm "?" if unreadable);
 * else the most telling failure: -EPROTONOSUPPORT (a library of a version
 * no provider reads: ti->provider, ti->path, ti->version say which),
 * -ENOENT (nothing to attach to), -ESRCH, -EACCES (its maps, or its
 * memory, which a provider found reads, are not readable).  only: bit i lets
 * hcb_providers[i] be found (0: every one).
 */
int hcb_provider_find(pid_t pid, unsigned int only, struct hcb_target_info *ti);
/*
 * What the target of ti (found by hcb_provider_find) has issued per device
 * now, into issued[HCB_MAX_DEVICES]: the counts a barrier waits for.
 * -EOPNOTSUPP: its provider counts nothing (no HCB_PROV_ISSUED); else the
 * provider's describe() or issued() -errno (-EBADMSG: a library of another
 * version, -ESRCH: gone, -EFAULT: its memory unreadable).
 */
int hcb_provider_issued(struct hcb_target_info *ti, uint64_t *issued);
/* Providers with all of flags, as a mask for hcb_provider_find's only. */
unsigned int hcb_provider_mask(unsigned int flags);
/* The index in hcb_providers[] of the provider called name, or -ENOENT. */
int hcb_provider_index(const char *name);
/* Processes that map any provider's library, ascending; *pids is malloc'ed. */
int hcb_provider_list(pid_t **pids, size_t *n);

#endif
