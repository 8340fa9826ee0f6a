/* SPDX-License-Identifier: MIT */
/*
 * cupti_join.h - the CUPTI injection library's matching of a tap's
 * device-to-host copies, as CUPTI reports them, with the packet the tap
 * became.  Three things arrive in any order but the first:
 *   begin      the handler is about to make the tap's ncopies copies
 *   corr       CUPTI: API call correlation_id ran under the tap's id
 *              (an external correlation record)
 *   copy       CUPTI: the copy made by API call correlation_id ran on the
 *              device from start to end (a memcpy record)
 *   emitted    the handler: the tap is packet seq of its device
 * When a tap has its seq and all of its copies, done() gets them.  Memory
 * is fixed: taps and correlation ids live in tables of a fixed size, and
 * a tap pushed out before it was complete is counted as unmatched.
 */
#ifndef HCBTAP_CUPTI_JOIN_H
#define HCBTAP_CUPTI_JOIN_H

#include <pthread.h>
#include <stdint.h>

struct hcb_join_done {
	uint32_t device;
	uint32_t ncopies;
	uint64_t seq;
	uint64_t start, end;        /* first copy's start, last copy's end */
	uint64_t bytes;
};

typedef void (*hcb_join_cb)(const struct hcb_join_done *done, void *ctx);

struct hcb_join_tap {
	uint64_t tap_id;            /* 0: free */
	uint32_t device, ncopies, seen, have_seq;
	uint64_t seq, start, end, bytes;
};

struct hcb_join_corr {
	uint32_t correlation_id;
	uint64_t tap_id;            /* 0: free */
};

#define HCB_JOIN_TAPS 4096u
#define HCB_JOIN_CORRS 16384u

struct hcb_join {
	pthread_mutex_t lock;
	hcb_join_cb done;
	void *ctx;
	uint64_t unmatched;
	struct hcb_join_tap taps[HCB_JOIN_TAPS];
	struct hcb_join_corr corrs[HCB_JOIN_CORRS];
};

void hcb_join_init(struct hcb_join *j, hcb_join_cb done, void *ctx);
void hcb_join_begin(struct hcb_join *j, uint64_t tap_id, uint32_t device, uint32_t ncopies);
void hcb_join_corr(struct hcb_join *j, uint32_t correlation_id, uint64_t tap_id);
void hcb_join_copy(struct hcb_join *j, uint32_t correlation_id, uint64_t start, uint64_t end,
		   uint64_t bytes);
void hcb_join_emitted(struct hcb_join *j, uint64_t tap_id, uint32_t device, uint64_t seq);
void hcb_join_abandon(struct hcb_join *j, uint64_t tap_id);
uint64_t hcb_join_unmatched(struct hcb_join *j);

#endif /* HCBTAP_CUPTI_JOIN_H */
