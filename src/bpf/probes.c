/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/capture.skel.h"
#include "core/clock.h"
#include "lag.h"
#include "load.h"
#include "probes.h"

#define MAX_LINKS 8

struct hcb_probes {
	struct hcb_capture_bpf *skel;
	struct bpf_link *links[MAX_LINKS];
	unsigned int nlinks;
	int link_fds[MAX_LINKS];   /* uprobe_multi links, which libbpf 1.1 cannot hold */
	unsigned int nlink_fds;
	unsigned int usdt_ids;     /* USDT spec ids given out (uprobe.c) */
	struct bpf_link *exec_link;
	struct ring_buffer *rb;
	hcb_probes_record_fn fn;
	void *ctx;
	int stop_err;         /* the callback's negative return, which stops the poll */
	unsigned int batch;   /* records taken in this poll */
	size_t batch_bytes;   /* and their bytes */
	int yielded;
	int exec_seen;        /* the target exec'd: later records are not its packets */
	int exec_watch_err;   /* why execs are not watched for, or 0 */
	struct hcb_load load;  /* which programs, and the verifier's logs */
	/* the ring's positions, mapped read-only beside libbpf's own mapping */
	const volatile uint64_t *cons_pos, *prod_pos;
	size_t page;
	struct hcb_lag lag;   /* --max-lag: the backlog the BPF side lets build */
	uint64_t ring_bytes;  /* the ring's size */
	uint64_t done_pos;    /* the ring is read and delivered up to here */
	int done_now;         /* the record being handled delivered what was held */
};

/* libbpf's ring_buffer__poll() returns only when it has caught up with the
 * producer, which a fast target may never let happen: return to the caller
 * after this many records or bytes, so it can see Ctrl-C, -d, a target's
 * exit and a barrier.  Bytes too: 4096 chunks of a large tap are 256 MiB,
 * which a JSONL writer takes seconds to format, and a barrier waited that
 * long to be looked at. */
#define POLL_BATCH 4096
#define POLL_BATCH_BYTES (1u << 20)

/* Where the record of len being handled ends in the ring: libbpf moves
 * the read position past a record once its callback returns. */
static uint64_t record_end(const struct hcb_probes *p, size_t len)
{
	return hcb_probes_ring_read(p) + ((len + BPF_RINGBUF_HDR_SZ + 7) & ~(size_t)7);
}

/* What the reader holds while it handles this record (lag.h): everything
 * read since it last delivered a packet. */
static void hold_until(struct hcb_probes *p, size_t len)
{
	__atomic_store_n(&p->skel->bss->lag_held, record_end(p, len) - p->done_pos,
			 __ATOMIC_RELAXED);
}

static void release_held(struct hcb_probes *p, size_t len)
{
	p->done_now = 0;
	if (!p->lag.max_ns)
		return;   /* nothing held: the BPF side does not look */
	p->done_pos = record_end(p, len);
	__atomic_store_n(&p->skel->bss->lag_held, 0, __ATOMIC_RELAXED);
}

void hcb_probes_delivered(struct hcb_probes *p)
{
	p->done_now = 1;
}

static int on_record(void *ctx, void *data, size_t len)
{
	struct hcb_probes *p = ctx;
	int err;

	if (p->exec_seen)
		return 0;   /* from the new program image: not this session's */
	if (len >= sizeof(uint32_t) && *(const uint32_t *)data == HCB_EV_EXEC) {
		p->exec_seen = 1;
		return 0;
	}
	if (p->lag.max_ns)
		hold_until(p, len);
	err = p->fn(p->ctx, data, len);
	if (p->done_now)
		release_held(p, len);
	if (err < 0) {
		p->stop_err = err;
		return err;
	}
	p->batch_bytes += len;
	if (++p->batch >= POLL_BATCH || p->batch_bytes >= POLL_BATCH_BYTES) {
		/* libbpf has consumed this record already when we bail out */
		p->yielded = 1;
		return -EAGAIN;
	}
	return 0;
}

/* The ring's two position pages, read-only: how far it is written and read. */
static int map_positions(struct hcb_probes *p)
{
	int fd = bpf_map__fd(p->skel->maps.rb);
	void *c, *w;

	p->page = (size_t)sysconf(_SC_PAGESIZE);
	c = mmap(NULL, p->page, PROT_READ, MAP_SHARED, fd, 0);
	if (c == MAP_FAILED)
		return -errno;
	w = mmap(NULL, p->page, PROT_READ, MAP_SHARED, fd, (off_t)p->page);
	if (w == MAP_FAILED) {
		int err = -errno;

		munmap(c, p->page);
		return err;
	}
	p->cons_pos = c;
	p->prod_pos = w;
	return 0;
}

/* The ring buffer made now, not at load: privilege and memory are known
 * before a program is started; the object takes it over at load. */
static int make_ring(struct hcb_probes *p, uint64_t ring_bytes)
{
	int fd, err;

	/* the kernel takes a ring's size in 32 bits: one that does not fit
	 * must not wrap to another size (4 GiB was 0) */
	if (ring_bytes == 0 || ring_bytes > UINT32_MAX)
		return -E2BIG;
	fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, "rb", 0, 0, (uint32_t)ring_bytes, NULL);
	if (fd < 0)
		return -errno;
	p->skel->rodata->hcb_ring_size = ring_bytes;
	err = bpf_map__set_max_entries(p->skel->maps.rb, (uint32_t)ring_bytes);
	if (!err)
		err = bpf_map__reuse_fd(p->skel->maps.rb, fd);
	close(fd);
	return err;
}

int hcb_probes_new(struct hcb_probes **out, uint64_t ring_bytes, hcb_probes_record_fn fn, void *ctx)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct hcb_probes *p;
	int err;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->fn = fn;
	p->ctx = ctx;
	p->load.exec_watch = 1;
	/* older kernels charge BPF memory to RLIMIT_MEMLOCK; harmless on new ones */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);
	p->skel = hcb_capture_bpf__open();
	p->ring_bytes = ring_bytes;
	err = p->skel ? make_ring(p, ring_bytes) : -errno;
	if (err) {
		hcb_probes_close(p);
		return err < 0 ? err : -EINVAL;
	}
	*out = p;
	return 0;
}

/* Without the kernel's BTF the exec watch cannot load, and must not take
 * the rest down with it. */
int hcb_probes_load(struct hcb_probes *p, const char *const *programs,
		    const char *const *sleepable)
{
	int err;

	if (!p->load.exec_watch && !p->exec_watch_err)
		p->exec_watch_err = -ECANCELED;
	if (p->load.exec_watch && access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		p->exec_watch_err = -ENOENT;
		p->load.exec_watch = 0;
	}
	err = hcb_load(p->skel, programs, sleepable, &p->load);
	if (!err) {
		p->rb = ring_buffer__new(bpf_map__fd(p->skel->maps.rb), on_record, p, NULL);
		err = p->rb ? 0 : -errno;
	}
	if (!err)
		err = map_positions(p);
	return err < 0 ? err : (err ? -EINVAL : 0);
}

void hcb_probes_set_verify(struct hcb_probes *p, unsigned int log_level, size_t log_bytes)
{
	p->load.level = log_level;
	p->load.bytes = log_bytes;
	p->load.exec_watch = 0;
}

const char *hcb_probes_log(struct hcb_probes *p, const char *program)
{
	return hcb_load_log(&p->load, p->skel, program);
}

int hcb_probes_no_sleep(const struct hcb_probes *p)
{
	return p->load.no_sleep;
}

struct hcb_capture_bpf *hcb_probes_skel(struct hcb_probes *p)
{
	return p->skel;
}

int hcb_probes_own(struct hcb_probes *p, struct bpf_link *link)
{
	if (p->nlinks == MAX_LINKS) {
		bpf_link__destroy(link);
		return -E2BIG;
	}
	p->links[p->nlinks++] = link;
	return 0;
}

int hcb_probes_own_fd(struct hcb_probes *p, int fd)
{
	if (p->nlink_fds == MAX_LINKS) {
		close(fd);
		return -E2BIG;
	}
	p->link_fds[p->nlink_fds++] = fd;
	return 0;
}

int hcb_probes_multi(const struct hcb_probes *p)
{
	return p->load.multi;
}

int hcb_probes_take_ids(struct hcb_probes *p, unsigned int n, unsigned int max)
{
	unsigned int first = p->usdt_ids;

	if (n > max || first > max - n)
		return -ENOSPC;
	p->usdt_ids += n;
	return (int)first;
}

void hcb_probes_watch_exec(struct hcb_probes *p, pid_t pid)
{
	if (p->exec_watch_err)
		return;
	p->skel->bss->target_tgid = (uint32_t)pid;
	p->exec_link = bpf_program__attach(p->skel->progs.hcb_exec);
	if (!p->exec_link)
		p->exec_watch_err = errno ? -errno : -EINVAL;
}

int hcb_probes_exec_watch(const struct hcb_probes *p)
{
	return p->exec_watch_err;
}

int hcb_probes_exec_seen(const struct hcb_probes *p)
{
	return p->exec_seen || p->skel->bss->exec_lost;
}

int hcb_probes_fd(struct hcb_probes *p)
{
	return ring_buffer__epoll_fd(p->rb);
}

uint64_t hcb_probes_ring_size(const struct hcb_probes *p)
{
	return p->ring_bytes;
}

uint64_t hcb_probes_ring_written(const struct hcb_probes *p)
{
	return __atomic_load_n(p->prod_pos, __ATOMIC_ACQUIRE);
}

uint64_t hcb_probes_ring_read(const struct hcb_probes *p)
{
	return __atomic_load_n(p->cons_pos, __ATOMIC_ACQUIRE);
}

void hcb_probes_set_max_lag(struct hcb_probes *p, uint64_t max_ns)
{
	hcb_lag_init(&p->lag, max_ns);
}

/* What a pass that started at t0, with the ring read up to read0, tells of
 * the reading rate: the BPF side's backlog limit follows it (lag.h). */
static void pass_done(struct hcb_probes *p, uint64_t t0, uint64_t read0)
{
	uint64_t limit, now = hcb_clock_ns(CLOCK_MONOTONIC);
	uint64_t read = hcb_probes_ring_read(p);
	/* the BPF side's clock is CLOCK_MONOTONIC too; 0: never, long ago */
	uint64_t refused = __atomic_load_n(&p->skel->bss->last_refusal_ns, __ATOMIC_RELAXED);
	struct hcb_lag_pass pass = {
		.bytes = read - read0,
		.ns = now - t0,
		.busy = p->yielded,
		.backlog = hcb_probes_ring_written(p) - read,
		.since_refusal_ns = now > refused ? now - refused : 0,
	};

	limit = hcb_lag_pass(&p->lag, &pass);
	__atomic_store_n(&p->skel->data->lag_limit, limit, __ATOMIC_RELAXED);
	/* Caught up: nothing read is being written now.  A decoder may still
	 * keep a packet back (a JAX call waits for its Python side to end),
	 * but that is no backlog; counted as held, it would turn away the very
	 * packets whose records let it go, for good. */
	if (!p->yielded && !pass.backlog) {
		p->done_pos = read;
		__atomic_store_n(&p->skel->bss->lag_held, 0, __ATOMIC_RELAXED);
	}
}

int hcb_probes_poll(struct hcb_probes *p, int timeout_ms)
{
	uint64_t t0 = 0, read0 = 0;
	int n;

	if (p->lag.max_ns) {
		t0 = hcb_clock_ns(CLOCK_MONOTONIC);
		read0 = hcb_probes_ring_read(p);
	}
	p->batch = 0;
	p->batch_bytes = 0;
	p->yielded = 0;
	n = ring_buffer__poll(p->rb, timeout_ms);
	/* the BPF side wakes us only for a backlog: take what came in quietly */
	if (!p->yielded && !p->stop_err && (n >= 0 || n == -EINTR))
		n = ring_buffer__consume(p->rb);
	if (p->lag.max_ns)
		pass_done(p, t0, read0);
	if (p->stop_err)
		return p->stop_err;
	if (p->yielded)
		return (int)p->batch;
	if (n == -EINTR)
		return 0;
	return n;
}

/* Last attached, first detached: providers attach what a call's record
 * needs before the probe that sends it (the thunk and the Python entry
 * before the handler), and each removal waits a grace period, so a busy
 * target's calls in the meantime would go without what they need. */
void hcb_probes_detach(struct hcb_probes *p)
{
	while (p->nlinks)
		bpf_link__destroy(p->links[--p->nlinks]);
	while (p->nlink_fds)
		close(p->link_fds[--p->nlink_fds]);
	bpf_link__destroy(p->exec_link);
	p->exec_link = NULL;
}

int hcb_probes_drain(struct hcb_probes *p)
{
	int n;

	do {
		p->batch = 0;
		p->batch_bytes = 0;
		p->yielded = 0;
		n = ring_buffer__consume(p->rb);
		if (p->stop_err)
			return p->stop_err;
	} while (p->yielded);
	return n < 0 ? n : 0;
}

int hcb_probes_dev_stats(struct hcb_probes *p, uint32_t dev, struct hcb_dev_stats *out)
{
	if (bpf_map__lookup_elem(p->skel->maps.devstats, &dev, sizeof(dev), out, sizeof(*out), 0))
		return -errno;
	return 0;
}

int hcb_probes_device_id(const struct hcb_probes *p, uint32_t dev, uint32_t *id)
{
	/* the slot's id is written before a record can name the slot */
	uint32_t n = __atomic_load_n(&p->skel->bss->dev_nslots, __ATOMIC_ACQUIRE);

	if (dev >= n || dev >= HCB_MAX_DEVICES)
		return -ENOENT;
	*id = __atomic_load_n(&p->skel->bss->dev_ids[dev], __ATOMIC_RELAXED);
	return 0;
}

void hcb_probes_nodev(const struct hcb_probes *p, uint64_t out[HCB_NODEV_COUNTERS])
{
	for (int i = 0; i < HCB_NODEV_COUNTERS; i++)
		out[i] = __atomic_load_n(&p->skel->bss->nodev[i], __ATOMIC_RELAXED);
}

int hcb_probes_over_ids(struct hcb_probes *p, int (*fn)(void *ctx, uint32_t id, uint64_t lost),
			void *ctx)
{
	struct bpf_map *map = p->skel->maps.devover;
	uint32_t key, next;
	uint64_t lost;
	int err, first = 1;

	/* bounded: the map holds at most HCB_DEVOVER_IDS keys, each met once
	 * (the probes only add keys, never take one away) */
	for (unsigned int i = 0; i < HCB_DEVOVER_IDS; i++) {
		if (bpf_map__get_next_key(map, first ? NULL : &key, &next, sizeof(next)))
			return 0;
		first = 0;
		key = next;
		if (bpf_map__lookup_elem(map, &key, sizeof(key), &lost, sizeof(lost), 0))
			continue;
		err = fn(ctx, key, lost);
		if (err < 0)
			return err;
	}
	return 0;
}

void hcb_probes_close(struct hcb_probes *p)
{
	if (!p)
		return;
	ring_buffer__free(p->rb);
	if (p->cons_pos)
		munmap((void *)p->cons_pos, p->page);
	if (p->prod_pos)
		munmap((void *)p->prod_pos, p->page);
	hcb_probes_detach(p);
	hcb_capture_bpf__destroy(p->skel);
	hcb_load_free(&p->load);
	free(p);
}
