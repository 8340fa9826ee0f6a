/* SPDX-License-Identifier: MIT */
/*
 * hcb_wire.h - the wire between a traced program (libhcbtap) and hcbtrace.
 *
 * This is the one header both sides include, so they cannot drift apart:
 * libhcbtap fills these structures in the target's memory, hcbtrace reads
 * them through BPF (packets) or process_vm_readv (the registry).  Only fixed
 * width types, no pointers (addresses are u64), no padding holes.
 */
#ifndef HCB_WIRE_H
#define HCB_WIRE_H

#if defined(__bpf__)
/* the BPF side: vmlinux.h was included first */
#define HCB_WIRE_U32 __u32
#define HCB_WIRE_U64 __u64
#else
#include <stdint.h>
#define HCB_WIRE_U32 uint32_t
#define HCB_WIRE_U64 uint64_t
#endif

/* XLA's outfeed header: u32[2] {HCB_OUTFEED_MAGIC, consumer_id}. */
#define HCB_OUTFEED_MAGIC 271828u

/*
 * A packet the emitter could not send (a CUDA tap that found no staging
 * memory, say) still fires the probe, so that it takes its seq and a
 * tracer counts it lost: magic HCB_LOST_MAGIC, no leaves, and why in
 * leaf_bytes (hcbtap.h: enum hcbtap_lost_reason, the same numbers).
 */
#define HCB_LOST_MAGIC 0x54534f4cu /* "LOST" little endian */
enum hcb_lost_reason {
	HCB_LOST_NO_STAGING = 1,      /* the device's staging memory was full */
	HCB_LOST_DEVICE_ERROR = 2,    /* copying the leaves off the device failed */
	HCB_LOST_NO_RUNTIME = 3,      /* no device runtime to copy them with */
	HCB_LOST_REASONS
};
/* consumer id 0 is reserved, as in XLA (it shuts the receiver down there). */
#define HCB_CONSUMER_RESERVED 0u

/* USDT provider and probe names; the semaphore is <provider>_<probe>_semaphore. */
#define HCB_USDT_PROVIDER "hcbtap"
#define HCB_USDT_PACKET "packet"

/* Exported symbol in libhcbtap that `hcbtrace list` reads. */
#define HCB_REGISTRY_SYMBOL "hcbtap_registry"

#define HCB_MAX_LEAVES 4096u
#define HCB_MAX_DIMS 8u
#define HCB_MAX_DEVICES 256u
#define HCB_MAX_REG_BYTES (1u << 20) /* a registration blob, all text included */
#define HCB_MAX_NAME 256u

/* Element types, numpy's names (see hcb_dtype_name()).  Values are ABI. */
enum hcb_dtype {
	HCB_DT_INVALID = 0,
	HCB_DT_BOOL = 1,
	HCB_DT_INT8 = 2,
	HCB_DT_INT16 = 3,
	HCB_DT_INT32 = 4,
	HCB_DT_INT64 = 5,
	HCB_DT_UINT8 = 6,
	HCB_DT_UINT16 = 7,
	HCB_DT_UINT32 = 8,
	HCB_DT_UINT64 = 9,
	HCB_DT_FLOAT16 = 10,
	HCB_DT_BFLOAT16 = 11,
	HCB_DT_FLOAT32 = 12,
	HCB_DT_FLOAT64 = 13,
	HCB_DT_COMPLEX64 = 14,
	HCB_DT_COMPLEX128 = 15,
	HCB_DT_FLOAT8_E4M3FN = 16,
	HCB_DT_FLOAT8_E5M2 = 17,
	/* ml_dtypes' other float8 kinds, float4 and the sub-byte integers
	 * (names as jax.numpy's).  A sub-byte element takes one byte, in its
	 * low bits, the bits above zero: as numpy holds ml_dtypes' arrays. */
	HCB_DT_FLOAT8_E3M4 = 18,
	HCB_DT_FLOAT8_E4M3 = 19,
	HCB_DT_FLOAT8_E4M3FNUZ = 20,
	HCB_DT_FLOAT8_E4M3B11FNUZ = 21,
	HCB_DT_FLOAT8_E5M2FNUZ = 22,
	HCB_DT_FLOAT8_E8M0FNU = 23,
	HCB_DT_FLOAT4_E2M1FN = 24,
	HCB_DT_INT2 = 25,
	HCB_DT_INT4 = 26,
	HCB_DT_UINT2 = 27,
	HCB_DT_UINT4 = 28,
	HCB_DT__COUNT
};

/*
 * A consumer registration blob, immutable once published:
 *   struct hcb_wire_reg
 *   struct hcb_wire_leaf leaves[nleaves]
 *   char name[name_len]          (no NUL)
 *   char kwargs[kwargs_len]      ("key\0value\0" pairs, in the caller's order)
 *   char tree[tree_len]          (pytree structure, see src/core/tree.h; no NUL)
 * total_len covers all of it.
 */
#define HCB_REG_MAGIC 0x52424348u /* "HCBR" little endian */
#define HCB_REG_VERSION 1u

struct hcb_wire_reg {
	HCB_WIRE_U32 magic;
	HCB_WIRE_U32 version;
	HCB_WIRE_U32 total_len;
	HCB_WIRE_U32 consumer_id;
	HCB_WIRE_U32 nleaves;
	HCB_WIRE_U32 name_len;
	HCB_WIRE_U32 kwargs_len;
	HCB_WIRE_U32 tree_len;
};

struct hcb_wire_leaf {
	HCB_WIRE_U32 dtype;  /* enum hcb_dtype */
	HCB_WIRE_U32 ndim;
	HCB_WIRE_U64 dims[HCB_MAX_DIMS];
};

/*
 * The argument of the hcbtap:packet USDT probe: one firing of a consumer on
 * one device.  Built on the emitting thread's stack; BPF reads it, then the
 * leaves straight from the program's own buffers.
 *
 * A small packet also has a struct hcb_wire_inline right after the
 * header, and its leaves after that, back to back; the probe's second
 * argument says how many bytes of leaves (0: none of this follows; at most
 * HCB_WIRE_INLINE_MAX).  A tracer then takes it all in one read, and the
 * time from the program's own clock_gettime(), which costs the program
 * less than a kernel clock read from BPF does.  A tracer that reads only
 * the first argument finds the leaves through data_addrs as ever.
 */
#define HCB_WIRE_INLINE_MAX 1024u

struct hcb_wire_packet {
	HCB_WIRE_U32 magic;        /* HCB_OUTFEED_MAGIC */
	HCB_WIRE_U32 consumer_id;
	HCB_WIRE_U32 device;
	HCB_WIRE_U32 nleaves;
	HCB_WIRE_U64 seq;          /* per device, from 0, only counted while attached;
				    * packets of a device fire the probe in seq order */
	HCB_WIRE_U64 reg_addr;     /* struct hcb_wire_reg of this consumer */
	HCB_WIRE_U64 reg_len;
	HCB_WIRE_U64 data_addrs;   /* u64[nleaves]: where each leaf's bytes are */
	HCB_WIRE_U64 leaf_bytes;   /* u64[nleaves]: how many bytes each leaf has */
	HCB_WIRE_U64 total_bytes;  /* sum of leaf_bytes */
};

/* What follows a small packet's header (see HCB_WIRE_INLINE_MAX). */
struct hcb_wire_inline {
	HCB_WIRE_U64 ts_ns;        /* CLOCK_MONOTONIC as the probe fired */
	/* then the payload: total_bytes of it, leaves back to back */
};

/*
 * The registry root, exported by libhcbtap as HCB_REGISTRY_SYMBOL, read by
 * `hcbtrace list` (and as a fallback by attach) with process_vm_readv.
 * Consumers form an append-only list; nodes are never freed or changed.
 */
#define HCB_REGISTRY_MAGIC 0x47524348u /* "HCRG" */
#define HCB_REGISTRY_VERSION 2u

struct hcb_wire_node {
	HCB_WIRE_U64 next;      /* address of the next node, 0 at the end */
	HCB_WIRE_U64 reg_addr;
	HCB_WIRE_U64 reg_len;
};

struct hcb_wire_registry {
	HCB_WIRE_U32 magic;
	HCB_WIRE_U32 version;
	HCB_WIRE_U32 nconsumers;
	HCB_WIRE_U32 ndevices;      /* 1 + highest device ordinal declared or seen */
	HCB_WIRE_U64 head;          /* newest node first */
	char platform[16];          /* "cpu", "cuda", ... NUL terminated */
	HCB_WIRE_U64 device_mask[HCB_MAX_DEVICES / 64];
	/*
	 * Packets issued per device: the next seq.  A packet's seq is taken
	 * and this count raised before its probe fires, so once a tracer has
	 * read issued[d], every later packet of d reaches the tracer's probe
	 * (the barrier's and the drop accounting's starting point).
	 */
	HCB_WIRE_U64 issued[HCB_MAX_DEVICES];
};

/* ---- the CUPTI injection library (hcbtap/cupti_inject.c), as hcbtrace reads it ---- */

/* Its USDT probe with a tap's device-side copy times (hcbtap_cupti.h). */
#define HCB_CUPTI_USDT_PROVIDER "hcbtap_cupti"
#define HCB_CUPTI_USDT_COPY "tap_copy"
#define HCB_CUPTI_LIBRARY "libhcbtap_cupti.so"

/*
 * The library's state, exported as HCBTAP_CUPTI_STATUS_SYMBOL for hcbtrace
 * to read (process_vm_readv at the symbol's address in the library's
 * mapping).  The library itself prints nothing.
 */
#define HCBTAP_CUPTI_STATUS_SYMBOL "hcbtap_cupti_status"
#define HCBTAP_CUPTI_MAGIC 0x50554348u /* "HCUP" little endian */
#define HCBTAP_CUPTI_STATUS_VERSION 1u

enum hcbtap_cupti_state {
	HCBTAP_CUPTI_IDLE = 0,      /* InitializeInjection never called: no CUDA
				     * driver initialised (no GPU) so far */
	HCBTAP_CUPTI_ACTIVE = 1,    /* recording copies and kernels */
	HCBTAP_CUPTI_FAILED = 2,    /* gave up: step and error say where, why */
};

enum hcbtap_cupti_step {
	HCBTAP_CUPTI_STEP_NONE = 0,
	HCBTAP_CUPTI_STEP_DLOPEN,   /* libcupti not found (error: 0) */
	HCBTAP_CUPTI_STEP_SYMBOLS,  /* libcupti lacks a function we need */
	HCBTAP_CUPTI_STEP_CALLBACKS,/* cuptiActivityRegisterCallbacks */
	HCBTAP_CUPTI_STEP_ENABLE,   /* cuptiActivityEnable */
};

struct hcbtap_cupti_status {
	uint32_t magic;             /* HCBTAP_CUPTI_MAGIC */
	uint32_t version;           /* HCBTAP_CUPTI_STATUS_VERSION */
	int32_t state;              /* enum hcbtap_cupti_state */
	uint32_t step;              /* enum hcbtap_cupti_step, when FAILED */
	int32_t error;              /* the CUptiResult of that step */
	uint32_t cupti_version;     /* cuptiGetVersion(), 0 if unknown */
	int32_t driver_version;     /* cuDriverGetVersion(), 0 if unknown */
	uint32_t clock;             /* 1: times are CLOCK_MONOTONIC ns (as BPF's
				     * ts_ns); 0: CUPTI's own (CLOCK_REALTIME ns) */
	uint64_t memcpy_records;    /* activity records seen, per kind */
	uint64_t kernel_records;
	uint64_t taps_timed;        /* tap_copy probes fired */
	uint64_t taps_unmatched;    /* taps forgotten before all of their
				     * records came (table full, or abandoned) */
	uint64_t records_dropped;   /* CUPTI's own count of dropped records */
	char message[128];          /* the failed step in words, NUL ended */
};

#endif /* HCB_WIRE_H */
