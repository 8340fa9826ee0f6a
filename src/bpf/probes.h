/* SPDX-License-Identifier: MIT */
/*
 * probes.h - the BPF side of a live session: the one BPF object that holds
 * every provider's programs (src/bpf/), loaded before anything is attached,
 * its ring buffer read into a callback, the per-device counters, and the
 * watch for the target exec'ing a new program.  A provider attaches its own
 * programs (hcb_probes_skel) and hands the links over (hcb_probes_own).
 *
 * Lifecycle: hcb_probes_new() (the ring buffer), hcb_probes_load() (the
 * provider's programs), the provider attaches,
 * hcb_probes_watch_exec(), hcb_probes_poll() until done, hcb_probes_detach()
 * (every link goes: the target's probes are released), hcb_probes_drain()
 * (what was already copied), hcb_probes_close().
 */
#ifndef HCB_PROBES_H
#define HCB_PROBES_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "ring.h"
#include "verdict.h"

struct hcb_probes;
struct hcb_capture_bpf;   /* the skeleton (capture.skel.h) */
struct bpf_link;

/* One ring-buffer record, in order; a negative return stops the poll and
 * is returned from it.  HCB_EV_EXEC records are the probes' own: never passed on. */
typedef int (*hcb_probes_record_fn)(void *ctx, const void *data, size_t len);

/*
 * Open the BPF object and make its ring buffer of ring_bytes (a power of
 * two, page multiple), before anything is loaded or attached, so that a
 * caller knows about privilege and memory before it starts a program.
 * -EPERM/-EACCES: not enough privilege; -ENOSYS/-EOPNOTSUPP: no BPF in this
 * kernel; -ENOMEM/-E2BIG: no room for the ring buffer.
 */
int hcb_probes_new(struct hcb_probes **out, uint64_t ring_bytes, hcb_probes_record_fn fn, void *ctx);
/*
 * Load the programs named (NULL-terminated: a provider's; less those its
 * prepare() turned off for this target) and the exec watch; the others
 * are never verified.  Once, before attaching.  0, or:
 *   -HCB_REFUSED (-EBADSLT, verdict.h): the kernel refused one of them,
 *     the verifier or bpf() before it: hcb_verdict_last() says which
 *     program, its -errno and the verifier's last lines.  Never a lack of
 *     privilege, whatever the kernel's errno (the verifier's own refusal
 *     is -EACCES as often as not);
 *   -EPERM, -EACCES: not enough privilege (to load a program, make a map);
 *   else the load's -errno (libbpf's: maps, BTF, relocations).
 */
int hcb_probes_load(struct hcb_probes *p, const char *const *programs,
		    const char *const *sleepable);
/*
 * For `hcbtrace check` (verify.h), before hcb_probes_load: keep the
 * verifier's log of each program at log_level (BPF_LOG_* bits; 0: 4, its
 * error and figures), up to log_bytes (0: load.h's size), and load the
 * exec watch only if named.
 */
void hcb_probes_set_verify(struct hcb_probes *p, unsigned int log_level, size_t log_bytes);
/* The verifier's log of the program called program, as hcb_probes_load
 * left it ("" if it kept none). */
const char *hcb_probes_log(struct hcb_probes *p, const char *program);
/* The skeleton: for a provider to set its programs' read-only variables
 * before hcb_probes_load, and to attach them and set the others after. */
struct hcb_capture_bpf *hcb_probes_skel(struct hcb_probes *p);
/* Keep link (a provider's attached program) until hcb_probes_detach. */
int hcb_probes_own(struct hcb_probes *p, struct bpf_link *link);
/* Keep fd, a link made by BPF_LINK_CREATE itself (uprobe.c), as above. */
int hcb_probes_own_fd(struct hcb_probes *p, int fd);
/* 1 if the programs were loaded for uprobe_multi links (load.h). */
int hcb_probes_multi(const struct hcb_probes *p);
/* n USDT spec ids not given out before, of max: the first, or -ENOSPC. */
int hcb_probes_take_ids(struct hcb_probes *p, unsigned int n, unsigned int max);
/* Watch pid for exec'ing a new program; a session runs on without it (an
 * exec then shows only as the end of its taps): hcb_probes_exec_watch()
 * says why not. */
void hcb_probes_watch_exec(struct hcb_probes *p, pid_t pid);
/* 0 if execs are watched for, else why not: -ENOENT without the kernel's
 * BTF, or the attach's -errno. */
int hcb_probes_exec_watch(const struct hcb_probes *p);
/* 1 once the target has exec'd: its probes are gone, and records after the
 * exec (of a new image) are discarded. */
int hcb_probes_exec_seen(const struct hcb_probes *p);
/* Wait up to timeout_ms for records and pass them on.  Returns the number
 * of records, 0 on EINTR, or the callback's or ring buffer's -errno. */
int hcb_probes_poll(struct hcb_probes *p, int timeout_ms);
/* Let the reader fall at most max_ns behind (lag.h), as measured by the
 * polls from now on; 0: as far as the ring holds (the default). */
void hcb_probes_set_max_lag(struct hcb_probes *p, uint64_t max_ns);
/* Called from the record callback: the record being handled completed a
 * packet, which is delivered (written) by the time the callback returns;
 * what was read before it no longer counts toward the lag. */
void hcb_probes_delivered(struct hcb_probes *p);
/* Release every attached program: the target's probes go. */
void hcb_probes_detach(struct hcb_probes *p);
/* Pass on every record already in the ring. */
int hcb_probes_drain(struct hcb_probes *p);
/* A file descriptor that polls readable when records are waiting. */
int hcb_probes_fd(struct hcb_probes *p);
/*
 * Ring positions in bytes: how far the BPF side has reserved, and how far
 * this reader has consumed.  Once read passes a written value taken after
 * a packet's probe returned, the packet's records have all been passed on.
 */
/* The ring's size in bytes, as made. */
uint64_t hcb_probes_ring_size(const struct hcb_probes *p);
uint64_t hcb_probes_ring_written(const struct hcb_probes *p);
uint64_t hcb_probes_ring_read(const struct hcb_probes *p);
/* The BPF side's counters for the device in slot dev (zeros if never
 * seen). */
int hcb_probes_dev_stats(struct hcb_probes *p, uint32_t dev, struct hcb_dev_stats *out);
/* The id of the device the probes gave slot dev (ring.h): 0 and *id, or
 * -ENOENT for a slot not handed out (by a provider that numbers its
 * devices so: provider.h, HCB_PROV_DEVIDS).  A read of the object's data,
 * no system call. */
int hcb_probes_device_id(const struct hcb_probes *p, uint32_t dev, uint32_t *id);
/* What the probes counted on no device (enum hcb_nodev, ring.h). */
void hcb_probes_nodev(const struct hcb_probes *p, uint64_t out[HCB_NODEV_COUNTERS]);
/* Every device id past the slots and the calls of it lost, in no order
 * (at most HCB_DEVOVER_IDS): fn's negative return stops the walk and is
 * returned; else 0. */
int hcb_probes_over_ids(struct hcb_probes *p, int (*fn)(void *ctx, uint32_t id, uint64_t lost),
			void *ctx);
/* 1 if the programs were loaded to read only what is in memory: this
 * kernel has no sleepable uprobe programs (Linux 6.0), so a tap whose
 * bytes are in a page not in memory is lost, counted unreadable. */
int hcb_probes_no_sleep(const struct hcb_probes *p);
void hcb_probes_close(struct hcb_probes *p);

#endif
