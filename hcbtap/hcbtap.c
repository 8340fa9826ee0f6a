/* SPDX-License-Identifier: MIT */
/*
 * libhcbtap - the tap runtime programs link.  Registers consumers, publishes
 * them in an append-only registry that hcbtrace reads from outside, and
 * fires the hcbtap:packet USDT probe for each packet while a tracer is
 * attached.  Uses libc and the wire header only.
 */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/consumer.h"
#include "core/wire.h"
#include "session/barrier.h"
#include "hcbtap.h"

#define EXPORT __attribute__((visibility("default")))

/*
 * The USDT semaphore: the kernel bumps it while a uprobe is attached.  It is
 * not exported: an executable reading an exported variable gets its own copy
 * (a copy relocation) that the kernel never bumps.  Programs read it through
 * the exported constant pointer instead.
 */
__attribute__((section(".probes"), visibility("hidden")))
volatile unsigned short hcbtap_packet_semaphore;
EXPORT volatile unsigned short *const hcbtap_semaphore = &hcbtap_packet_semaphore;

EXPORT struct hcb_wire_registry hcbtap_registry = {
	.magic = HCB_REGISTRY_MAGIC,
	.version = HCB_REGISTRY_VERSION,
	.platform = "cpu",
};

_Static_assert((int)HCBTAP_BOOL == (int)HCB_DT_BOOL &&
	       (int)HCBTAP_FLOAT8_E5M2 == (int)HCB_DT_FLOAT8_E5M2,
	       "hcbtap.h dtypes must match the wire");
_Static_assert(HCBTAP_MAX_DIMS == HCB_MAX_DIMS, "rank limit must match the wire");
_Static_assert(HCBTAP_LOST_MAGIC != HCB_OUTFEED_MAGIC, "a lost packet must not pass for a tap");
_Static_assert(HCBTAP_LOST_MAGIC == HCB_LOST_MAGIC && (int)HCBTAP_LOST_NO_STAGING == (int)HCB_LOST_NO_STAGING &&
	       (int)HCBTAP_LOST_DEVICE_ERROR == (int)HCB_LOST_DEVICE_ERROR &&
	       (int)HCBTAP_LOST_NO_RUNTIME == (int)HCB_LOST_NO_RUNTIME,
	       "lost packets as the tracer reads them (hcb_wire.h)");

struct consumer {
	uint32_t id;
	unsigned int nleaves;
	void *blob;
	size_t blob_len;
	uint64_t *leaf_bytes;
	uint64_t total_bytes;
	struct hcb_wire_node node;
};

/* Open addressing by id; slots are published with release stores and never
 * change afterwards, so emitters look up without a lock. */
#define TABLE_SLOTS 16384u
#define MAX_CONSUMERS (TABLE_SLOTS / 2)
static struct consumer *_Atomic table[TABLE_SLOTS];
static pthread_mutex_t reg_lock = PTHREAD_MUTEX_INITIALIZER;
/*
 * One lock per device while attached: a device's packets take their seq
 * and fire the probe in one piece, so they reach every tracer in seq order
 * (XLA's per-device FIFO), and a tracer that has read issued[d] knows every
 * later packet of d will pass through its probe.  Held across fork, so a
 * child never inherits a lock some other thread was holding.
 */
static pthread_mutex_t device_lock[HCB_MAX_DEVICES] = {
	[0 ... HCB_MAX_DEVICES - 1] = PTHREAD_MUTEX_INITIALIZER
};

static struct consumer *lookup(uint32_t id)
{
	for (unsigned int i = 0; i < TABLE_SLOTS; i++) {
		struct consumer *c = atomic_load_explicit(&table[(id + i) % TABLE_SLOTS],
							  memory_order_acquire);
		if (!c || c->id == id)
			return c;
	}
	return NULL;
}

static void mark_device(unsigned int device)
{
	uint64_t bit = UINT64_C(1) << (device % 64);
	unsigned int n = device + 1;

	if (!(__atomic_load_n(&hcbtap_registry.device_mask[device / 64], __ATOMIC_RELAXED) & bit))
		__atomic_fetch_or(&hcbtap_registry.device_mask[device / 64], bit, __ATOMIC_RELEASE);
	/* ndevices only grows */
	for (unsigned int cur = __atomic_load_n(&hcbtap_registry.ndevices, __ATOMIC_RELAXED);
	     cur < n && !__atomic_compare_exchange_n(&hcbtap_registry.ndevices, &cur, n, 0,
						     __ATOMIC_RELEASE, __ATOMIC_RELAXED);)
		;
}

EXPORT int hcbtap_set_platform(const char *platform)
{
	size_t n;

	if (!platform || !(n = strlen(platform)) || n >= sizeof(hcbtap_registry.platform))
		return -EINVAL;
	pthread_mutex_lock(&reg_lock);
	memset(hcbtap_registry.platform, 0, sizeof(hcbtap_registry.platform));
	memcpy(hcbtap_registry.platform, platform, n);
	pthread_mutex_unlock(&reg_lock);
	return 0;
}

EXPORT int hcbtap_declare_device(unsigned int device)
{
	if (device >= HCB_MAX_DEVICES)
		return -EINVAL;
	mark_device(device);
	return 0;
}

/* The registration blob of a site (id 0: not chosen yet), malloc'ed. */
static int build_blob(const char *name, const char *const *kwargs, const char *tree,
		      const struct hcbtap_leaf *leaves, unsigned int nleaves,
		      void **blob, size_t *len)
{
	struct hcb_consumer_spec spec = {
		.name = name, .kwargs = kwargs, .tree = tree, .nleaves = nleaves,
	};
	struct hcb_leaf_spec *ls;
	int err;

	/* on the heap: a program's threads may have small stacks */
	ls = calloc(nleaves + 1, sizeof(*ls));
	if (!ls)
		return -ENOMEM;
	for (unsigned int i = 0; i < nleaves; i++) {
		ls[i].dtype = leaves[i].dtype;
		ls[i].ndim = leaves[i].ndim;
		memcpy(ls[i].dims, leaves[i].dims, sizeof(ls[i].dims));
	}
	spec.leaves = ls;
	err = hcb_reg_build(&spec, 0, blob, len);
	free(ls);
	return err;
}

/*
 * The id for the site of blob, from its hash: the same site registered
 * again gets its id back (1); a different site whose hash collides probes
 * on to the next free id (0).  Under reg_lock.
 */
static int site_id(const void *blob, size_t len, uint32_t *out)
{
	size_t head = sizeof(struct hcb_wire_reg);
	uint32_t id = hcb_reg_hash(blob, len);

	for (;; id = id + 1 ? id + 1 : 1) {
		struct consumer *old = lookup(id);

		*out = id;
		if (!old)
			return 0;
		if (old->blob_len == len && hcb_reg_hash(old->blob, len) == hcb_reg_hash(blob, len) &&
		    memcmp((char *)old->blob + head, (const char *)blob + head, len - head) == 0)
			return 1;
	}
}

/* A new consumer for blob, whose id is set: its byte counts derived
 * exactly as the tracer will derive them.  NULL with *err set. */
static struct consumer *new_consumer(void *blob, size_t len, uint32_t id, unsigned int nleaves,
				     int *err)
{
	struct hcb_consumer *parsed = NULL;
	struct consumer *c = calloc(1, sizeof(*c));

	*err = -ENOMEM;
	if (!c)
		return NULL;
	c->leaf_bytes = calloc(nleaves ? nleaves : 1, sizeof(*c->leaf_bytes));
	if (c->leaf_bytes)
		*err = hcb_consumer_from_reg(blob, len, &parsed);
	if (*err) {
		free(c->leaf_bytes);
		free(c);
		return NULL;
	}
	for (unsigned int i = 0; i < nleaves; i++)
		c->leaf_bytes[i] = parsed->leaves[i].nbytes;
	c->total_bytes = parsed->total_bytes;
	hcb_consumer_free(parsed);
	c->id = id;
	c->nleaves = nleaves;
	c->blob = blob;
	c->blob_len = len;
	c->node.reg_addr = (uintptr_t)blob;
	c->node.reg_len = len;
	return c;
}

/* Make c visible to emitters (the table) and to tracers (the registry's
 * list).  Under reg_lock. */
static void publish(struct consumer *c)
{
	c->node.next = hcbtap_registry.head;
	for (unsigned int i = 0;; i++) {
		_Atomic(struct consumer *) *slot = &table[(c->id + i) % TABLE_SLOTS];

		if (!atomic_load_explicit(slot, memory_order_relaxed)) {
			atomic_store_explicit(slot, c, memory_order_release);
			break;
		}
	}
	__atomic_store_n(&hcbtap_registry.head, (uint64_t)(uintptr_t)&c->node, __ATOMIC_RELEASE);
	__atomic_store_n(&hcbtap_registry.nconsumers, hcbtap_registry.nconsumers + 1,
			 __ATOMIC_RELEASE);
}

EXPORT int hcbtap_register(const char *name, const char *const *kwargs, const char *tree,
			   const struct hcbtap_leaf *leaves, unsigned int nleaves,
			   uint32_t *consumer_id)
{
	struct consumer *c;
	uint32_t id;
	void *blob;
	size_t len;
	int err;

	if (!consumer_id || (nleaves && !leaves) || nleaves > HCB_MAX_LEAVES)
		return -EINVAL;
	err = build_blob(name, kwargs, tree, leaves, nleaves, &blob, &len);
	if (err)
		return err;
	pthread_mutex_lock(&reg_lock);
	if (site_id(blob, len, &id)) {
		*consumer_id = id;
		err = 0;
	} else if (hcbtap_registry.nconsumers >= MAX_CONSUMERS) {
		err = -ENOSPC;
	} else {
		((struct hcb_wire_reg *)blob)->consumer_id = id;
		c = new_consumer(blob, len, id, nleaves, &err);
		if (c) {
			publish(c);
			*consumer_id = id;
			blob = NULL;   /* the consumer's now */
		}
	}
	pthread_mutex_unlock(&reg_lock);
	free(blob);
	return err;
}

/* The header, and for a small packet its time and leaves right after it
 * (see HCB_WIRE_INLINE_MAX in hcb_wire.h) */
struct wire_out {
	struct hcb_wire_packet pkt;
	struct hcb_wire_inline in;
	unsigned char payload[HCB_WIRE_INLINE_MAX];
};

/* Copy the leaves after the header if they fit; how many bytes went. */
static uint64_t inline_leaves(struct wire_out *w, const struct consumer *c,
			      const void *const *leaves)
{
	uint64_t off = 0;

	if (c->total_bytes == 0 || c->total_bytes > HCB_WIRE_INLINE_MAX)
		return 0;
	for (uint32_t i = 0; i < c->nleaves; i++) {
		memcpy(w->payload + off, leaves[i], c->leaf_bytes[i]);
		off += c->leaf_bytes[i];
	}
	return off;
}

/* Take device's next seq and fire the probe for it, under the device lock. */
static int64_t fire(struct consumer *c, unsigned int device, uint32_t magic,
		    const void *const *leaves, uint64_t lost_reason)
{
	struct wire_out w;
	struct hcb_wire_packet *pkt = &w.pkt;
	uint64_t inline_bytes = 0;

	mark_device(device);
	pkt->magic = magic;
	pkt->consumer_id = c->id;
	pkt->device = device;
	pkt->reg_addr = (uintptr_t)c->blob;
	pkt->reg_len = c->blob_len;
	if (magic == HCB_OUTFEED_MAGIC) {
		pkt->nleaves = c->nleaves;
		pkt->data_addrs = (uintptr_t)leaves;
		pkt->leaf_bytes = (uintptr_t)c->leaf_bytes;
		pkt->total_bytes = c->total_bytes;
		inline_bytes = inline_leaves(&w, c, leaves);
	} else {
		/* nothing for BPF to copy; see HCBTAP_LOST_MAGIC */
		pkt->nleaves = 0;
		pkt->data_addrs = 0;
		pkt->leaf_bytes = lost_reason;
		pkt->total_bytes = 0;
	}
	pthread_mutex_lock(&device_lock[device]);
	pkt->seq = hcbtap_registry.issued[device];
	/* published before the probe fires: see device_lock */
	__atomic_store_n(&hcbtap_registry.issued[device], pkt->seq + 1, __ATOMIC_SEQ_CST);
	/* under the lock: a device's times grow with its seqs */
	if (inline_bytes)
		w.in.ts_ns = hcb_clock_ns(CLOCK_MONOTONIC);
	/* the probe only sees &w: make sure w is in memory by then */
	__asm__ __volatile__("" : : "m"(w) : "memory");
	/*
	 * sdt.h's one-byte nop.  Linux 6.18 turns a uprobe on a five-byte
	 * nop into a call of a trampoline, 200 ns a tap cheaper, but a
	 * process that forks then has the call without the trampoline in
	 * the child, which dies of it (target_faults.bats' fork test).
	 */
	STAP_PROBE2(hcbtap, packet, pkt, inline_bytes);
	pthread_mutex_unlock(&device_lock[device]);
	return (int64_t)pkt->seq;
}

EXPORT int64_t hcbtap_emit_attached(uint32_t consumer_id, unsigned int device,
				    const void *const *leaves)
{
	struct consumer *c;

	if (device >= HCB_MAX_DEVICES)
		return -EINVAL;
	c = lookup(consumer_id);
	if (!c || consumer_id == HCB_CONSUMER_RESERVED)
		return -ENOENT;
	if (c->nleaves && !leaves)
		return -EINVAL;
	return fire(c, device, HCB_OUTFEED_MAGIC, leaves, 0);
}

EXPORT int64_t hcbtap_emit_lost(uint32_t consumer_id, unsigned int device,
				enum hcbtap_lost_reason reason)
{
	struct consumer *c;

	if (!hcbtap_attached())
		return -ENOTCONN;
	if (device >= HCB_MAX_DEVICES)
		return -EINVAL;
	c = lookup(consumer_id);
	if (!c || consumer_id == HCB_CONSUMER_RESERVED)
		return -ENOENT;
	return fire(c, device, HCBTAP_LOST_MAGIC, NULL, reason);
}

EXPORT int hcbtap_consumer_layout(uint32_t consumer_id, unsigned int *nleaves,
				  const uint64_t **leaf_bytes, uint64_t *total_bytes)
{
	struct consumer *c = lookup(consumer_id);

	if (!c || consumer_id == HCB_CONSUMER_RESERVED)
		return -ENOENT;
	*nleaves = c->nleaves;
	*leaf_bytes = c->leaf_bytes;
	*total_bytes = c->total_bytes;
	return 0;
}

EXPORT int64_t hcbtap_issued(unsigned int device)
{
	if (device >= HCB_MAX_DEVICES)
		return -EINVAL;
	return (int64_t)__atomic_load_n(&hcbtap_registry.issued[device], __ATOMIC_ACQUIRE);
}

/*
 * Ask every hcbtrace session attached to this process for a barrier (the
 * same request `hcbtrace barrier PID` makes, through the session files in
 * the run directory) and wait until each has written every packet issued
 * so far, or has ended.
 */
EXPORT int hcbtap_barrier_wait(int timeout_ms)
{
	struct hcb_barrier b;
	int err, saved = errno;

	if (!hcbtap_attached())
		return 0;
	/* no counts: a session that ended unanswered is not waited for */
	err = hcb_barrier_open(&b, getpid(), NULL);
	if (err)
		return err;
	err = hcb_barrier_wait(&b, timeout_ms >= 0 ? hcb_clock_ns(CLOCK_MONOTONIC) +
			       (uint64_t)timeout_ms * 1000000u : UINT64_MAX, NULL);
	hcb_barrier_free(&b);
	errno = saved;
	return err;
}

static void lock_all(void)
{
	pthread_mutex_lock(&reg_lock);
	for (unsigned int i = 0; i < HCB_MAX_DEVICES; i++)
		pthread_mutex_lock(&device_lock[i]);
}

static void unlock_all(void)
{
	for (unsigned int i = HCB_MAX_DEVICES; i-- > 0;)
		pthread_mutex_unlock(&device_lock[i]);
	pthread_mutex_unlock(&reg_lock);
}

__attribute__((constructor)) static void hcbtap_fork_safety(void)
{
	pthread_atfork(lock_all, unlock_all, unlock_all);
}

/*
 * `hcbtrace run` starts a program with HCBTRACE_SYNC="WFD,RFD": the library
 * says "loaded" on WFD and waits on RFD until the tracer has attached its
 * probes, so not even the first tap is lost.  The variable is removed so that
 * children of the program do not wait again.
 */
__attribute__((constructor)) static void hcbtap_sync_with_tracer(void)
{
	const char *env = getenv("HCBTRACE_SYNC");
	int wfd, rfd, saved = errno;
	char c = 'L';

	if (!env || sscanf(env, "%d,%d", &wfd, &rfd) != 2) {
		errno = saved;
		return;
	}
	unsetenv("HCBTRACE_SYNC");
	if (write(wfd, &c, 1) == 1) {
		/* EOF (tracer gone) or one byte: either way, go on */
		while (read(rfd, &c, 1) < 0 && errno == EINTR)
			;
	}
	close(wfd);
	close(rfd);
	errno = saved;
}
