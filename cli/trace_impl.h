/* SPDX-License-Identifier: MIT */
/* trace_impl.h - a live session's state, shared by trace.c (the session's
 * life) and trace_acct.c (loss accounting and barriers). */
#ifndef HCB_CLI_TRACE_IMPL_H
#define HCB_CLI_TRACE_IMPL_H

#include <stdint.h>
#include <time.h>

#include "decode.h"
#include "live.h"
#include "recfile.h"
#include "session.h"
#include "trace.h"

/* One device as this session accounts for it (see struct hcb_sess_dev). */
struct dev_acct {
	uint64_t base;          /* issued when attached */
	uint64_t through;       /* seqs below are written or recorded as lost */
	int started;            /* a packet of it (or a loss) has been seen */
	uint64_t delivered, written, dropped;
	/* losses already put in drop records, per cause, to tell the causes
	 * of the next gap apart */
	uint64_t told_ring, told_read, told_bad;
};

/* A barrier being served (one at a time; later requests wait their turn). */
struct barrier_state {
	uint64_t req;           /* the request being served, 0: none */
	uint64_t done;          /* the last request satisfied */
	int stage;              /* 1: packets passing the probe, 2: ring draining */
	uint64_t ring_mark;     /* stage 2 ends when the reader passes this */
	uint64_t issued[HCB_MAX_DEVICES];
};

struct trace {
	const struct trace_opts *o;
	struct hcb_decoder *dec;
	struct hcb_live *live;
	pid_t pid;
	char comm[256];
	char platform[16];
	struct hcb_writer *w;    /* stdout (text or JSONL) or the recording */
	const char *wname;       /* for messages: "standard output" or the file */
	uint64_t printed;
	uint64_t mono_to_real;   /* add to CLOCK_MONOTONIC for CLOCK_REALTIME */
	int write_err;           /* the writer's -errno */
	int done;                /* -c reached */
	unsigned int warnings[HCB_DECODE_PROBLEMS];
	uint64_t reg_addr;       /* the target's registry, 0 if unknown */
	struct dev_acct acct[HCB_MAX_DEVICES];
	struct hcb_sess *sess;   /* NULL when it could not be published */
	struct hcb_outfeed *xdec;   /* legacy XLA outfeed session (DESIGN 4.2), else NULL */
	struct barrier_state bar;
};

uint64_t trace_clock_ns(clockid_t id);
const struct hcb_decoder_ops *trace_decoder_ops(void);

/*
 * Attach to pid's legacy XLA outfeed (trace_outfeed.c).  Returns an exit
 * code, or -1 when pid has no jaxlib: not a legacy session either.
 */
int trace_attach_outfeed(struct trace *t, pid_t pid);
/* What the session's decoder knows of device d. */
const struct hcb_stream_stats *trace_stream_stats(struct trace *t, uint32_t d);
int trace_write_record(struct trace *t, const struct hcb_record *rec);

/* Account for packet seq of device before it is written: a jump past the
 * next expected seq becomes drop records first.  Returns the writer's error. */
int trace_account(struct trace *t, uint32_t device, uint64_t seq);
/* Packets below upto that passed the probe and never arrived are lost:
 * record them (at a barrier and at the end, once the ring is drained). */
int trace_account_upto(struct trace *t, uint32_t device, uint64_t upto);
/* A tap of device was written out. */
void trace_count_written(struct trace *t, uint32_t device);
/* Every device: what passed the probe (the BPF side's handled count). */
int trace_account_all(struct trace *t);

/* Publish the session for `hcbtrace barrier` (a warning if it cannot be). */
void trace_publish(struct trace *t);
/* Serve barrier requests; call after each poll.  Returns the writer's error. */
int trace_serve_barrier(struct trace *t);
/* At the end, ring drained: answer a barrier if nothing it waits for is
 * still missing (the target exited), else leave it unanswered. */
int trace_serve_barrier_final(struct trace *t);
/* 1 while a barrier waits for packets to arrive: poll more often. */
int trace_barrier_pending(const struct trace *t);
/* Final figures into the session's status, then withdraw it. */
void trace_unpublish(struct trace *t);

#endif
