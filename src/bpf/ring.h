/* SPDX-License-Identifier: MIT */
/*
 * ring.h - the records of the one ring buffer that every provider's BPF
 * programs write and the capture engine reads: one numbering for the whole
 * object, here, and the records that are no one provider's.  A record
 * begins with its type (a u32 of enum hcb_ring_record); each provider's
 * events header (providers/NAME/events.h) lays out its own records and
 * takes their numbers from here, so that no two record types can share
 * one, whichever programs a session loads.
 */
#ifndef HCB_BPF_RING_H
#define HCB_BPF_RING_H

#include "core/wire.h"

/* Every record type, numbered in this one list (append; never set a
 * value): who writes it, and where it is laid out. */
enum hcb_ring_record {
	HCB_EV_NONE,
	/* hcbtap (providers/hcbtap/events.h), per packet in this order: */
	HCB_EV_REG,          /* its consumer's registration blob, first sight
			      * only: struct hcb_ev_chunk */
	HCB_EV_PKT,          /* the packet: struct hcb_ev_pkt */
	HCB_EV_DATA,         /* its payload: struct hcb_ev_chunk */
	/* the engine's own (here): the target replaced its program image */
	HCB_EV_EXEC,
	/* xla-outfeed (providers/outfeed/events.h): */
	HCB_EV_XLEAF,        /* one leaf's header and shape */
	HCB_EV_XDATA,        /* its bytes: struct hcb_ev_chunk */
	/* jax-callback (providers/jaxcb/events.h), per call: */
	HCB_EV_JCALL,        /* the call: device, seq, site, operand count */
	HCB_EV_JARG,         /* an operand's dtype and shape */
	HCB_EV_JDATA,        /* its bytes: struct hcb_ev_chunk */
	/* hcbtap: a CUDA tap's device-side copy times (CUPTI) */
	HCB_EV_COPY,
	/* jax-callback's Python side (providers/jaxcb/pycall_events.h): */
	HCB_EV_JPYCALL,      /* the inner function entered: its callable */
	HCB_EV_JPYEND,       /* it returned: the call is whole */
	HCB_EV_JPYTEXT,      /* a line the callable wrote */
	/* hcbtap: a small packet as it was on the wire, in one record */
	HCB_EV_PKT_WIRE,
	/* record --follow's watch (follow.bpf.c), struct hcb_ev_fork: a
	 * followed process forked a new process, */
	HCB_EV_FORK,
	HCB_EV_FOLLOW_EXEC,  /* or exec'd a new program (ppid 0) */
	HCB_EV_FOLLOW_EXIT,  /* or ended (ppid 0; pad: its wait status) */
	/* jax-callback: an operand of few bytes, its JARG and its one JDATA
	 * chunk in one record (providers/jaxcb/events.h) */
	HCB_EV_JARG_BYTES,
	/* jax-callback: a call of one small operand whole in one record, its
	 * head and that operand's HCB_EV_JARG_BYTES (providers/jaxcb/events.h) */
	HCB_EV_JCALL_ARG,
	HCB_EV_TYPES
};

/* The engine reads a record's type as a u32 and passes the types it does
 * not know to the slot's provider, which counts one it does not know as a
 * bad record: the numbering must stay small and dense. */
_Static_assert(HCB_EV_TYPES <= 64, "ring record types are a dense set");

/*
 * A piece of a blob or payload, in size classes a factor 4 apart
 * (bpf/copy.bpf.h); offset-addressed, so that the decoder places each
 * where it belongs and sees what is missing.  HCB_EV_REG, HCB_EV_DATA,
 * HCB_EV_XDATA, HCB_EV_JDATA.
 */
struct hcb_ev_chunk {
	HCB_WIRE_U32 type;
	HCB_WIRE_U32 consumer_id;
	HCB_WIRE_U32 device;
	HCB_WIRE_U32 len;          /* valid bytes in data[] */
	HCB_WIRE_U64 seq;
	HCB_WIRE_U64 offset;       /* of data[0] in the blob or payload */
	HCB_WIRE_U64 total;        /* blob or payload size */
	/* followed by the chunk's bytes: len valid, padded to a size class */
};

/* HCB_EV_EXEC: the target exec'd; what follows comes from another program. */
struct hcb_ev_exec {
	HCB_WIRE_U32 type;         /* HCB_EV_EXEC */
	HCB_WIRE_U32 pid;
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC */
};

/* A process record --follow follows started another, or exec'd (forks.h). */
struct hcb_ev_fork {
	HCB_WIRE_U32 type;         /* HCB_EV_FORK, HCB_EV_FOLLOW_EXEC, HCB_EV_FOLLOW_EXIT */
	HCB_WIRE_U32 pid;          /* the new process (its tgid), or the one that exec'd */
	HCB_WIRE_U32 ppid;         /* the process that forked it; 0 for an exec */
	HCB_WIRE_U32 pad;          /* HCB_EV_FOLLOW_EXIT: the wait status; else 0 */
};

/* Per-device counters kept by the BPF side (array map "devstats"), for
 * every provider's programs. */
struct hcb_dev_stats {
	HCB_WIRE_U64 packets;      /* PKT records emitted */
	HCB_WIRE_U64 drops;        /* packets lost: ring buffer full */
	HCB_WIRE_U64 read_errors;  /* packets lost: target memory unreadable */
	HCB_WIRE_U64 lag_drops;    /* packets turned away: output over --max-lag */
	HCB_WIRE_U64 handled;      /* seq + 1 of the last packet through the probe,
				    * sent or lost (a device's packets come in order) */
	HCB_WIRE_U64 no_memory;    /* packets lost: no kernel memory for the probe's
				    * state (bpf/state.bpf.h) */
};

/*
 * The devices of a session's probes.  A runtime numbers its devices as it
 * likes (jax's CPU devices are process_index * 2048 + local, a multi-host
 * GPU job's may be global), so the probes of the providers whose ids are not dense
 * hand each id a slot of devstats in order of first sight
 * (bpf/devices.bpf.h), at most HCB_MAX_DEVICES, and their records carry
 * the slot; user space reads a slot's id in the array dev_ids once, the
 * first time the slot shows.  libhcbtap's devices are its own registry's,
 * dense and below HCB_MAX_DEVICES: the slot is the id there.
 *
 * What no device's counters can take, the object's nodev counters: a
 * call whose device could not be read, or that its runtime gave none, and
 * the calls of devices past the slots, each such id's in the hash
 * "devover" (at most HCB_DEVOVER_IDS ids; past that, counted unnamed).
 */
#define HCB_DEVOVER_IDS 1024u

/* The "nodev" counters, an array of u64 (in the object's data, which the
 * skeleton lays out without this header's types). */
enum hcb_nodev {
	HCB_NODEV_UNREADABLE,     /* lost: its device id could not be read, or
				   * read as none (negative) */
	HCB_NODEV_NO_MEMORY,      /* lost: no kernel memory for the probe's state,
				   * before its device was read */
	HCB_NODEV_UNKNOWN,        /* lost: its runtime said no device (legacy
				   * callbacks: no thunk, no run of the call seen) */
	HCB_NODEV_OVER,           /* lost: of a device past the slots */
	HCB_NODEV_OVER_UNNAMED,   /* of those, of ids past devover's room too */
	HCB_NODEV_COUNTERS
};

#endif
