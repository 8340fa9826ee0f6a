/* SPDX-License-Identifier: MIT */
/*
 * hcbtap.h - emit host-callback taps that `hcbtrace` can attach to.
 *
 * A program registers each tap site (a "consumer") once, with its name,
 * id_print-style keyword arguments, pytree structure and leaf shapes, then
 * emits packets per device.  While no tracer is attached, hcbtap_emit() costs
 * one load of the USDT semaphore and a branch: no copy, no allocation, no
 * system call.  While hcbtrace is attached, the leaves are copied by BPF
 * straight out of the caller's buffers.
 *
 * All functions return 0 or a positive value on success and -errno on error;
 * none of them exits or prints.  Thread safe.
 */
#ifndef HCBTAP_H
#define HCBTAP_H

#include <stdint.h>
#include <errno.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Element types; numpy's names.  Same values as enum hcb_dtype on the wire. */
enum hcbtap_dtype {
	HCBTAP_BOOL = 1,
	HCBTAP_INT8, HCBTAP_INT16, HCBTAP_INT32, HCBTAP_INT64,
	HCBTAP_UINT8, HCBTAP_UINT16, HCBTAP_UINT32, HCBTAP_UINT64,
	HCBTAP_FLOAT16, HCBTAP_BFLOAT16, HCBTAP_FLOAT32, HCBTAP_FLOAT64,
	HCBTAP_COMPLEX64, HCBTAP_COMPLEX128,
	HCBTAP_FLOAT8_E4M3FN, HCBTAP_FLOAT8_E5M2,
};

#define HCBTAP_MAX_DIMS 8

/* One leaf of a consumer's tuple: row-major, dims[ndim] (ndim 0: a scalar). */
struct hcbtap_leaf {
	enum hcbtap_dtype dtype;
	unsigned int ndim;
	uint64_t dims[HCBTAP_MAX_DIMS];
};

/*
 * Register a tap site.
 *   name    what the site is called (for filters and recordings), 1..255 bytes
 *   kwargs  NULL, or "key", "value", ..., NULL: printed as id_print's kwargs
 *   tree    the pytree structure: "*" for one array, "( * * )" a tuple,
 *           "[ * * ]" a list, "{ a=* b=* }" a dict; tokens separated by
 *           spaces, nesting allowed; NULL means "*" (or a tuple of nleaves)
 *   leaves  nleaves leaf shapes, in the tree's left-to-right order
 * On success *consumer_id gets a nonzero id, the same for the same arguments
 * in every run, and 0 is returned.  Registering the same site again returns
 * the same id.  -EINVAL: bad arguments; -ENOMEM; -EEXIST never happens
 * (id collisions are resolved by probing).
 */
int hcbtap_register(const char *name, const char *const *kwargs,
		    const char *tree, const struct hcbtap_leaf *leaves,
		    unsigned int nleaves, uint32_t *consumer_id);

/* Optional: name the platform ("cpu" by default) and declare devices, so
 * `hcbtrace list` shows them before their first tap. */
int hcbtap_set_platform(const char *platform);
int hcbtap_declare_device(unsigned int device);

/* Packets issued on device so far (the next sequence number): only taps
 * emitted while a tracer was attached count.  -EINVAL for a bad device. */
int64_t hcbtap_issued(unsigned int device);

/*
 * host_callback's barrier_wait: return once every packet issued so far has
 * been written by every hcbtrace session attached to this process (each
 * marks the point with a barrier record), at once if none is attached.
 * Sessions are found in $HCBTRACE_RUNDIR (default /run/hcbtrace), as
 * `hcbtrace barrier` finds them, and only in a run directory that this
 * user or root owns and nobody else may write to.  timeout_ms < 0 waits
 * without limit; a session that cannot answer by then gives the barrier up.
 * 0, -ETIMEDOUT, -EPERM if the run directory is not to be trusted, or
 * -errno if it cannot be read.
 */
int hcbtap_barrier_wait(int timeout_ms);

/* Points at the USDT semaphore: nonzero while a tracer is attached. */
extern volatile unsigned short *const hcbtap_semaphore;

static inline int hcbtap_attached(void)
{
	return *hcbtap_semaphore != 0;
}

/* The slow path of hcbtap_emit(); call hcbtap_emit() instead. */
int64_t hcbtap_emit_attached(uint32_t consumer_id, unsigned int device,
			     const void *const *leaves);

/*
 * Why a packet was lost before it could be emitted (an emitter that stages
 * its leaves, such as the CUDA FFI handler, may find no room or fail to
 * copy them).
 */
enum hcbtap_lost_reason {
	HCBTAP_LOST_NO_STAGING = 1,   /* staging memory full */
	HCBTAP_LOST_DEVICE_ERROR = 2, /* copying the leaves off the device failed */
	HCBTAP_LOST_NO_RUNTIME = 3,   /* no device runtime to copy them with */
};

/*
 * A lost packet on the probe: magic HCBTAP_LOST_MAGIC instead of the
 * outfeed magic, nleaves 0, total_bytes 0, data_addrs 0, and the reason in
 * leaf_bytes.  It takes its seq like any packet, so a tracer sees the seq
 * go by (and a barrier waits for it) and counts the packet as lost.
 */
#define HCBTAP_LOST_MAGIC 0x54534f4cu /* "LOST" little endian */

/*
 * Account a packet of consumer_id on device that the caller could not
 * emit: while a tracer is attached, it takes device's next seq and fires
 * the probe as a lost packet (above).  Returns that seq, -ENOTCONN when no
 * tracer is attached (nothing counted), -ENOENT, -EINVAL as hcbtap_emit().
 */
int64_t hcbtap_emit_lost(uint32_t consumer_id, unsigned int device,
			 enum hcbtap_lost_reason reason);

/*
 * How consumer_id's packets are laid out: its leaf count, each leaf's size
 * in bytes (leaf_bytes[nleaves], valid for the life of the process) and
 * their sum.  0, or -ENOENT for an unknown consumer.
 */
int hcbtap_consumer_layout(uint32_t consumer_id, unsigned int *nleaves,
			   const uint64_t **leaf_bytes, uint64_t *total_bytes);

/*
 * Emit one packet of consumer_id on device: leaves[i] points at leaf i's
 * bytes (as registered).  Returns the packet's per-device sequence number
 * (>= 0) when a tracer was attached, -ENOTCONN when none was (nothing done),
 * -ENOENT for an unknown consumer, -EINVAL for a bad device.
 *
 * A device's packets reach tracers in sequence order: concurrent emitters
 * on one device take turns (a per-device lock, only while attached).  Not
 * async-signal-safe: do not emit from a signal handler.  A tap never waits
 * for a tracer that falls behind; the tracer counts what it loses.
 */
static inline int64_t hcbtap_emit(uint32_t consumer_id, unsigned int device,
				  const void *const *leaves)
{
	if (__builtin_expect(!hcbtap_attached(), 1))
		return -ENOTCONN;
	return hcbtap_emit_attached(consumer_id, device, leaves);
}

#ifdef __cplusplus
}
#endif
#endif /* HCBTAP_H */
