/* SPDX-License-Identifier: MIT */
/*
 * live.h - the hcbtap provider: BPF on the hcbtap:packet USDT probe of one
 * running process, its ring buffer fed to a decoder.
 *
 * Lifecycle: hcb_live_new() (load), hcb_live_attach(), hcb_live_poll() until done,
 * hcb_live_detach() (the target's semaphore drops back), hcb_live_drain()
 * (what was already copied), hcb_live_close().
 */
#ifndef HCB_LIVE_H
#define HCB_LIVE_H

#include <stdint.h>
#include <sys/types.h>

#include "bpf/hcbtap_events.h"
#include "decode.h"

struct hcb_live;

/*
 * Open and load the BPF side with a ring buffer of ring_bytes (a power of
 * two, page multiple), feeding dec.  Fails before anything is attached, so
 * a caller can check privileges before it starts a program.
 * -EPERM/-EACCES: not enough privilege; -ENOSYS: no BPF in this kernel.
 */
int hcb_live_new(struct hcb_live **out, uint64_t ring_bytes, struct hcb_decoder *dec);
/*
 * Attach to pid's hcbtap:packet probe in lib_path (libhcbtap as that process
 * maps it, see hcb_target_find_lib).  -ENOENT: no uprobe support or no probe.
 */
int hcb_live_attach(struct hcb_live *l, pid_t pid, const char *lib_path);
/*
 * Attach instead to XLA's legacy CPU outfeed in pid's jaxlib (DESIGN 4.2):
 * an uprobe on HCB_XLA_OUTFEED_SYMBOL in xla_path, whose leaves go to xdec
 * (records of the hcbtap kind still go to the decoder).  device_offset:
 * where ExecutableRunOptions keeps the device ordinal in that jaxlib.
 */
#define HCB_XLA_OUTFEED_SYMBOL "__xla_cpu_runtime_ReleaseOutfeedBufferAfterPopulation"
struct hcb_outfeed;
int hcb_live_attach_outfeed(struct hcb_live *l, pid_t pid, const char *xla_path,
			    unsigned int device_offset, struct hcb_outfeed *xdec);
/* Wait up to timeout_ms for records and decode them.  Returns the number of
 * records, 0 on EINTR, or the decoder's or ring buffer's -errno. */
int hcb_live_poll(struct hcb_live *l, int timeout_ms);
void hcb_live_detach(struct hcb_live *l);
int hcb_live_drain(struct hcb_live *l);
/* A file descriptor that polls readable when records are waiting. */
int hcb_live_fd(struct hcb_live *l);
/*
 * Ring positions in bytes: how far the BPF side has reserved, and how far
 * this reader has consumed.  Once read passes a written value taken after
 * a packet's probe returned, the packet's records have all been decoded.
 */
uint64_t hcb_live_ring_written(struct hcb_live *l);
uint64_t hcb_live_ring_read(struct hcb_live *l);
/* 1 once the target has exec'd: its probes are gone, and records after the
 * exec (of a new image that maps libhcbtap) are discarded. */
int hcb_live_exec_seen(struct hcb_live *l);
/* 0 if an exec of the target is being watched for (hcb_live_exec_seen
 * can tell), else why not: -ENOENT without the kernel's BTF, or the
 * attach's -errno.  Known once attached. */
int hcb_live_exec_watch(const struct hcb_live *l);
/* The BPF side's counters for device dev (zeros if never seen). */
int hcb_live_dev_stats(struct hcb_live *l, uint32_t dev, struct hcb_dev_stats *out);
void hcb_live_close(struct hcb_live *l);

/* libbpf's own messages go to stderr only when HCBTRACE_DEBUG is set. */
void hcb_live_quiet_libbpf(void);

#endif
