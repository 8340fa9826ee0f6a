/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "hcbtap.skel.h"
#include "live.h"
#include "outfeed.h"

struct hcb_live {
	struct hcbtap_bpf *skel;
	struct bpf_link *link;
	struct bpf_link *exec_link;
	struct ring_buffer *rb;
	struct hcb_decoder *dec;
	struct hcb_outfeed *xdec;   /* legacy XLA outfeed leaves, when attached to those */
	int stop_err;   /* the decoder's negative return, which stops the poll */
	unsigned int batch;   /* records taken in this poll */
	int yielded;
	int exec_seen;   /* the target exec'd: later records are not its packets */
	int exec_watch_err;   /* why exec's are not watched for, or 0 */
	/* the ring's positions, mapped read-only beside libbpf's own mapping */
	const volatile uint64_t *cons_pos, *prod_pos;
	size_t page;
};

/* libbpf's ring_buffer__poll() returns only when it has caught up with the
 * producer, which a fast target may never let happen: return to the caller
 * after this many records, so it can see Ctrl-C, -d and a target's exit. */
#define POLL_BATCH 4096

static int print_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static int debug = -1;

	if (debug < 0)
		debug = getenv("HCBTRACE_DEBUG") != NULL;
	if (!debug)
		return 0;
	(void)level;
	return vfprintf(stderr, fmt, ap);
}

void hcb_live_quiet_libbpf(void)
{
	libbpf_set_print(print_libbpf);
}

static int on_record(void *ctx, void *data, size_t len)
{
	struct hcb_live *l = ctx;
	int err;

	if (l->exec_seen)
		return 0;   /* from the new program image: not this session's */
	if (len >= sizeof(uint32_t) && *(const uint32_t *)data == HCB_EV_EXEC) {
		l->exec_seen = 1;
		return 0;
	}
	if (len >= sizeof(uint32_t) && l->xdec &&
	    (*(const uint32_t *)data == HCB_EV_XLEAF || *(const uint32_t *)data == HCB_EV_XDATA))
		err = hcb_outfeed_feed(l->xdec, data, len);
	else
		err = hcb_decoder_feed(l->dec, data, len);

	if (err < 0) {
		l->stop_err = err;
		return err;
	}
	if (++l->batch >= POLL_BATCH) {
		/* libbpf has consumed this record already when we bail out */
		l->yielded = 1;
		return -EAGAIN;
	}
	return 0;
}

int hcb_live_new(struct hcb_live **out, uint64_t ring_bytes, struct hcb_decoder *dec)
{
	struct rlimit unlimited = { RLIM_INFINITY, RLIM_INFINITY };
	struct hcb_live *l;
	int err;

	l = calloc(1, sizeof(*l));
	if (!l)
		return -ENOMEM;
	l->dec = dec;
	/* older kernels charge BPF memory to RLIMIT_MEMLOCK; harmless on new ones */
	setrlimit(RLIMIT_MEMLOCK, &unlimited);

	l->skel = hcbtap_bpf__open();
	if (!l->skel) {
		err = -errno;
		goto fail;
	}
	err = bpf_map__set_max_entries(l->skel->maps.rb, (uint32_t)ring_bytes);
	if (err)
		goto fail;
	/* sleepable, so bpf_copy_from_user() can fault pages in */
	err = bpf_program__set_flags(l->skel->progs.hcbtap_packet, BPF_F_SLEEPABLE);
	if (!err)
		err = bpf_program__set_flags(l->skel->progs.xla_outfeed_leaf, BPF_F_SLEEPABLE);
	if (err)
		goto fail;
	/* the exec detector is a BTF raw tracepoint: without the kernel's BTF
	 * it cannot load, and must not take the rest down with it */
	if (access("/sys/kernel/btf/vmlinux", R_OK) != 0) {
		l->exec_watch_err = -ENOENT;
		bpf_program__set_autoload(l->skel->progs.hcbtap_exec, false);
	}
	err = hcbtap_bpf__load(l->skel);
	if (err)
		goto fail;
	l->rb = ring_buffer__new(bpf_map__fd(l->skel->maps.rb), on_record, l, NULL);
	if (!l->rb) {
		err = -errno;
		goto fail;
	}
	l->page = (size_t)sysconf(_SC_PAGESIZE);
	{
		int fd = bpf_map__fd(l->skel->maps.rb);
		void *c = mmap(NULL, l->page, PROT_READ, MAP_SHARED, fd, 0);
		void *p = mmap(NULL, l->page, PROT_READ, MAP_SHARED, fd, (off_t)l->page);

		if (c == MAP_FAILED || p == MAP_FAILED) {
			err = -errno;
			if (c != MAP_FAILED)
				munmap(c, l->page);
			if (p != MAP_FAILED)
				munmap(p, l->page);
			goto fail;
		}
		l->cons_pos = c;
		l->prod_pos = p;
	}
	*out = l;
	return 0;
fail:
	hcb_live_close(l);
	return err ? err : -EINVAL;
}

/* Watch for pid exec'ing a new program.  A session runs on without it
 * (an exec then shows only as the end of its taps): the reason is kept
 * for hcb_live_exec_watch() to tell. */
static void watch_exec(struct hcb_live *l, pid_t pid)
{
	if (l->exec_watch_err)
		return;
	l->skel->bss->target_tgid = (uint32_t)pid;
	l->exec_link = bpf_program__attach(l->skel->progs.hcbtap_exec);
	if (!l->exec_link)
		l->exec_watch_err = errno ? -errno : -EINVAL;
}

int hcb_live_exec_watch(const struct hcb_live *l)
{
	return l->exec_watch_err;
}

int hcb_live_attach(struct hcb_live *l, pid_t pid, const char *lib_path)
{
	l->link = bpf_program__attach_usdt(l->skel->progs.hcbtap_packet, pid, lib_path,
					   HCB_USDT_PROVIDER, HCB_USDT_PACKET, NULL);
	if (!l->link)
		return errno ? -errno : -EINVAL;
	watch_exec(l, pid);
	return 0;
}

int hcb_live_attach_outfeed(struct hcb_live *l, pid_t pid, const char *xla_path,
			    unsigned int device_offset, struct hcb_outfeed *xdec)
{
	LIBBPF_OPTS(bpf_uprobe_opts, opts, .func_name = HCB_XLA_OUTFEED_SYMBOL);

	l->xdec = xdec;
	l->skel->data->xla_device_offset = device_offset;
	l->link = bpf_program__attach_uprobe_opts(l->skel->progs.xla_outfeed_leaf, pid, xla_path,
						  0, &opts);
	if (!l->link)
		return errno ? -errno : -EINVAL;
	watch_exec(l, pid);
	return 0;
}

int hcb_live_fd(struct hcb_live *l)
{
	return ring_buffer__epoll_fd(l->rb);
}

uint64_t hcb_live_ring_written(struct hcb_live *l)
{
	return __atomic_load_n(l->prod_pos, __ATOMIC_ACQUIRE);
}

uint64_t hcb_live_ring_read(struct hcb_live *l)
{
	return __atomic_load_n(l->cons_pos, __ATOMIC_ACQUIRE);
}

int hcb_live_exec_seen(struct hcb_live *l)
{
	return l->exec_seen || l->skel->bss->exec_lost;
}

int hcb_live_poll(struct hcb_live *l, int timeout_ms)
{
	int n;

	l->batch = 0;
	l->yielded = 0;
	n = ring_buffer__poll(l->rb, timeout_ms);
	/* the BPF side wakes us only for a backlog: take what came in quietly */
	if (!l->yielded && !l->stop_err && (n >= 0 || n == -EINTR))
		n = ring_buffer__consume(l->rb);
	if (l->stop_err)
		return l->stop_err;
	if (l->yielded)
		return (int)l->batch;
	if (n == -EINTR)
		return 0;
	return n;
}

void hcb_live_detach(struct hcb_live *l)
{
	bpf_link__destroy(l->link);
	l->link = NULL;
	bpf_link__destroy(l->exec_link);
	l->exec_link = NULL;
}

int hcb_live_drain(struct hcb_live *l)
{
	int n;

	do {
		l->batch = 0;
		l->yielded = 0;
		n = ring_buffer__consume(l->rb);
		if (l->stop_err)
			return l->stop_err;
	} while (l->yielded);
	return n < 0 ? n : 0;
}

int hcb_live_dev_stats(struct hcb_live *l, uint32_t dev, struct hcb_dev_stats *out)
{
	if (bpf_map__lookup_elem(l->skel->maps.devstats, &dev, sizeof(dev), out, sizeof(*out), 0))
		return -errno;
	return 0;
}

void hcb_live_close(struct hcb_live *l)
{
	if (!l)
		return;
	ring_buffer__free(l->rb);
	if (l->cons_pos)
		munmap((void *)l->cons_pos, l->page);
	if (l->prod_pos)
		munmap((void *)l->prod_pos, l->page);
	bpf_link__destroy(l->link);
	bpf_link__destroy(l->exec_link);
	hcbtap_bpf__destroy(l->skel);
	free(l);
}
