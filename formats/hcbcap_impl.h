/* SPDX-License-Identifier: MIT */
/*
 * hcbcap_impl.h - the .hcbcap layout (formats/HCBCAP.md) that its writer
 * (hcbcap.c) and its reader (hcbcap_read.c) share.  Private to formats/.
 */
#ifndef HCB_HCBCAP_IMPL_H
#define HCB_HCBCAP_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include <libdeflate.h>

#include "core/record.h"

#define CAP_MAGIC "HCBCAP\x1a\n"        /* 8 bytes, no NUL */
#define CAP_MAGIC_LEN 8
#define CAP_VERSION 1u
#define CAP_HEADER 16                   /* magic, u32 version, u32 flags */
#define FRAME_HEAD 16                   /* u32 type, u64 length, u32 header CRC */
#define FRAME_TAIL 4                    /* u32 CRC of head and body */
#define TAP_HEAD 32                     /* device, consumer, seq, ts_ns, pid, tid */
#define SESSION_HEAD 24
#define DROP_HEAD 16
/* a flight recorder's trigger: u32 device, u64 seq, i64 leaf, i64 element,
 * f64 value, u64 ts_ns, u32 oversize, u32 consumer length, u32 condition
 * length, then the two strings */
#define TRIGGER_HEAD 56
/* a job's or an exit's trigger: u32 by_pid, i64 by_process, u32 exited,
 * i32 exit_status, i32 exit_signal after the strings */
#define TRIGGER_TAIL 24
/* a fleet's trigger (record --fleet-dir): after the tail, u32 by_host
 * length H (1 to HCB_HOST_MAX), H bytes by_host */
#define TRIGGER_FLEET_MAX (4 + HCB_HOST_MAX)
#define TRIGGER_MAX_BODY (TRIGGER_HEAD + 127 + 255 + TRIGGER_TAIL + TRIGGER_FLEET_MAX)
#define COPY_BODY 16                    /* a tap's copy times: u64 start, u64 end */
#define CAP_MAX_TEXT (UINT64_C(1) << 20)      /* a tap's text: 1 MiB */
#define CAP_MAX_PAYLOAD (UINT64_C(1) << 30)   /* one tap's payload: 1 GiB */
#define CAP_MAX_BODY (CAP_MAX_PAYLOAD + TAP_HEAD)
#define CAP_SKIPPABLE 0x80000000u       /* type bit: readers may skip what they do not know */

enum cap_type {
	CAP_SESSION = 1,
	CAP_CONSUMER = 2,
	CAP_TAP = 3,
	CAP_DROP = 4,
	CAP_BARRIER = 5,
	CAP_END = 6,
	/* skippable: the device copy times of the tap frame that follows
	 * (readers that do not know it read the tap without them) */
	CAP_COPY = CAP_SKIPPABLE | 1,
	/* skippable: a flight recorder's trigger record (a reader that does
	 * not know it reads the taps around it) */
	CAP_TRIGGER = CAP_SKIPPABLE | 2,
	/* skippable: the text a jax.debug.print wrote (UTF-8), of the tap
	 * frame that follows (its copy times between); readers that do not
	 * know it read the tap without it */
	CAP_TEXT = CAP_SKIPPABLE | 3,
	/* skippable: who the session's process is and its devices, of the
	 * session frame that follows (hcbcap_who.c); readers that do not know
	 * it read the session without them */
	CAP_WHO = CAP_SKIPPABLE | 4,
};

/* the who frame: u32 host length, process index, process count, source
 * length, job length, device count; the three strings; then per device
 * u32 device, u64 global id, u32 platform length, the platform */
#define WHO_HEAD 24
#define WHO_DEVICE 16
#define WHO_MAX_BODY (WHO_HEAD + HCB_HOST_MAX + 15 + HCB_JOB_MAX - 1 + \
		      HCB_SESSION_DEVICES * (WHO_DEVICE + 15) + 4 + HCB_COMMAND_MAX)
/* Its body's size for s (0: s says nothing of who or which devices), the
 * body written at b, and read back (devs: room for HCB_SESSION_DEVICES):
 * 0, or -EBADMSG. */
/* A trigger frame's tail (TRIGGER_TAIL bytes at b) from t, and a
 * fleet's by_host after it where t has one: its length. */
size_t cap_trigger_tail_put(unsigned char *b, const struct hcb_trigger_info *t);
/* The len bytes after the strings (0: no tail) into t: 0, or -EBADMSG. */
int cap_trigger_tail_get(const unsigned char *b, uint64_t len, struct hcb_trigger_info *t);
size_t cap_who_size(const struct hcb_session_info *s);
void cap_who_put(unsigned char *b, const struct hcb_session_info *s);
int cap_who_parse(const unsigned char *b, uint64_t len, struct hcb_session_info *s,
		  struct hcb_session_device *devs);

/* The CRC-32 of the frames: zlib's (ISO-HDLC), as libdeflate computes it
 * (carry-less multiplication: memory speed, where zlib 1.2 walks bytes). */
static inline uint32_t cap_crc(const unsigned char *p, size_t n)
{
	return libdeflate_crc32(0, p, n);
}

#endif
