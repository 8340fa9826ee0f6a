/* SPDX-License-Identifier: MIT */
/*
 * record.h - what a session produces and a recording holds, one record at a
 * time: the session's start, taps, drops, barriers and its end.  Live
 * providers and file readers produce these; text, JSONL, .hcbcap and .npz
 * writers consume them (docs/ARCHITECTURE.md).
 */
#ifndef HCB_RECORD_H
#define HCB_RECORD_H

#include <stdint.h>

#include "consumer.h"

enum hcb_record_kind {
	HCB_REC_SESSION = 1,
	HCB_REC_TAP,
	HCB_REC_DROP,
	HCB_REC_BARRIER,
	HCB_REC_END,
	HCB_REC_TRIGGER,        /* a flight recorder fired (src/watch/flight.h) */
};

/*
 * A tap in a record: a packet the engine took in (or a file held), its
 * times on CLOCK_REALTIME, as every record's and every file's are (the
 * "ts_ns" of JSONL and .hcbcap).  consumer and payload belong to the
 * record's producer and stay valid until its next record.
 */
struct hcb_tap {
	uint32_t device;
	uint64_t seq;
	uint64_t wall_ns;                   /* when the probe fired */
	uint32_t pid, tid;
	const struct hcb_consumer *consumer;
	const unsigned char *payload;       /* leaves back to back, consumer->total_bytes */
	/* the device-side start and end of the tap's device-to-host copy
	 * (CUPTI, `run --cuda`); copy_end_ns 0: not known */
	uint64_t copy_start_ns, copy_end_ns;
	/* a JAX Python callback's callable (packet.h); 0: not known */
	uint64_t py_callable;
	/* a jax.debug.print's line as the program wrote it (packet.h); NULL: none */
	const char *text;
	uint32_t text_len;
};

/* Who a session's process is, in a job of several (issue 36): its place
 * among the job's processes, and whose word that is.  Known only with a
 * source: a record zeroed knows none. */
#define HCB_PROCESS_MAX (1u << 20)    /* a job's processes, at most */
#define HCB_HOST_MAX 64               /* a host's name: HOST_NAME_MAX bytes */
#define HCB_JOB_MAX 64                /* a job's name: at most 63 bytes */
#define HCB_COMMAND_MAX 255           /* a command line: at most 255 bytes */
struct hcb_process_id {
	uint32_t index;
	uint32_t count;         /* 0: not known; else index < count */
	char source[16];        /* whose word it is: "jax", "slurm", ...; "": none
				 * (index and count mean nothing) */
};

/* A device the session saw, and what names it. */
#define HCB_GLOBAL_NONE UINT64_MAX    /* global_id: not known */
#define HCB_SESSION_DEVICES 256u      /* devices a session record lists, at most */
struct hcb_session_device {
	uint32_t device;        /* as taps and drops give it */
	uint64_t global_id;     /* the runtime's id of it across the job */
	char platform[16];      /* names it, as the session's platform does */
};

struct hcb_session_info {
	int version;            /* of the recording format; 1 */
	int32_t pid;
	char provider[32];      /* "hcbtap" */
	char platform[16];      /* names devices: "cpu" -> "cpu:0" */
	uint64_t start_ns;      /* CLOCK_REALTIME */
	char host[HCB_HOST_MAX + 1];   /* the process's host name ("": not known) */
	struct hcb_process_id process;
	char job[HCB_JOB_MAX];  /* the job's name ("": none) */
	/* its command line, arguments joined by spaces, printable ASCII
	 * (another byte a '?'), cut at HCB_COMMAND_MAX bytes ("": not known) */
	char command[HCB_COMMAND_MAX + 1];
	/* the devices seen so far, in order: the record's producer's, valid
	 * until it produces its next session record (a session writes its
	 * record again as devices come: the last one read is the whole) */
	const struct hcb_session_device *devices;
	uint32_t ndevices;
};

struct hcb_drop_info {
	uint32_t device;
	uint64_t count;
	char reason[128];
};

struct hcb_barrier_info {
	uint64_t wall_ns;       /* CLOCK_REALTIME */
	uint64_t taps;          /* taps written when the barrier was reached */
};

struct hcb_end_info {
	uint64_t taps;
	uint64_t drops;
	uint64_t end_ns;
};

/* Why a flight recorder wrote what it kept: the tap that fired a
 * condition (device, seq, consumer; the leaf, element and value that
 * decided), or a signal (seq HCB_TRIGGER_NO_TAP, no consumer). */
#define HCB_TRIGGER_NO_TAP UINT64_MAX
struct hcb_trigger_info {
	uint32_t device;
	uint64_t seq;           /* HCB_TRIGGER_NO_TAP: not a tap's (a signal) */
	char consumer[128];     /* "" with no tap */
	int64_t leaf;           /* -1: none */
	int64_t element;        /* -1: none (mean, sum: the whole tap) */
	double value;           /* the element's or the statistic's; NaN too */
	uint64_t wall_ns;         /* CLOCK_REALTIME, the tap's or the signal's */
	uint32_t oversize;      /* 1: the ring held a tap larger than itself, alone */
	char condition[256];    /* "nonfinite", "loss: max > 1e4", "signal", "job", "exit",
				 * "fleet" */
	/* "job" (or "fleet"): another process of the job fired; the one that did */
	uint32_t by_pid;        /* 0: none */
	int64_t by_process;     /* its process index; -1: not known */
	/* "fleet": another host's hcbtrace fired (record --fleet-dir), by_pid
	 * and by_process then its process's; "" none */
	char by_host[HCB_HOST_MAX + 1];
	/* "exit": how the traced process ended */
	uint32_t exited;        /* 1: exit_status or exit_signal says */
	int32_t exit_status;    /* its exit status (exited, no signal) */
	int32_t exit_signal;    /* the signal that killed it; 0: none */
};

/* One record.  Every time in a record is CLOCK_REALTIME. */
struct hcb_record {
	enum hcb_record_kind kind;
	union {
		struct hcb_session_info session;
		struct hcb_tap tap;
		struct hcb_drop_info drop;
		struct hcb_barrier_info barrier;
		struct hcb_end_info end;
		struct hcb_trigger_info trigger;
	};
};

#endif
