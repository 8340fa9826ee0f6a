/* SPDX-License-Identifier: MIT */
/*
 * libFuzzer target: ring records through the whole user side of a live
 * session, past where fuzz_records stops: the hcbtap decoder (as
 * prov_hcbtap feeds it), the capture engine's consumer of its packets
 * (src/engine/capture.c), the accounting, the barriers and the session
 * files (losses.c, acct.c, barriers.c, publish.c, the real session.c in a
 * private run directory), the queue of taps for device copy times (out.c,
 * orderq.c) and a JSONL writer.  A device number past the tables crashed
 * there once.
 *
 * What BPF and /proc would give is stubbed here from the input: the probe's
 * per-device counters (handled, drops) and the target's issued counters.
 * Input: 1 byte of flags (bit 0: copy times on, bit 1: -c 5, bit 2: the
 * records' devices are slots of the probes, whose ids are hostile ones:
 * jax's 2048, 2^31 - 1, 2^32 - 1, and 300 devices past the slots, each
 * with calls lost), then records as fuzz_records takes them (a 2-byte
 * length, then the record).
 */
#include <assert.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/probes.h"
#include "engine/capture.h"
#include "process/identity.h"
#include "process/target.h"
#include "providers/hcbtap/decode.h"
#include "providers/hcbtap/events.h"
#include "providers/provider.h"
#include "recfile.h"

/* ---- the probes, the ring and the target, from the input ---- */

struct hcb_probes {
	hcb_probes_record_fn fn;
	void *ctx;
};

static const uint8_t *in_data;
static size_t in_size;
static uint64_t counter[8];   /* handled and drops of devices 0..3, from the input */
static int slots;             /* the records' devices are slots (flags bit 2) */

int hcb_probes_new(struct hcb_probes **out, uint64_t ring_bytes, hcb_probes_record_fn fn, void *ctx)
{
	struct hcb_probes *p = calloc(1, sizeof(*p));

	(void)ring_bytes;
	if (!p)
		return -ENOMEM;
	p->fn = fn;
	p->ctx = ctx;
	*out = p;
	return 0;
}

/* A few records a poll, so that holds and barriers see polls between them. */
int hcb_probes_poll(struct hcb_probes *p, int timeout_ms)
{
	(void)timeout_ms;
	for (int i = 0; i < 4 && in_size >= 2; i++) {
		size_t n = (size_t)in_data[0] | (size_t)in_data[1] << 8;
		int err;

		in_data += 2;
		in_size -= 2;
		if (n > in_size)
			n = in_size;
		err = p->fn(p->ctx, in_data, n);
		in_data += n;
		in_size -= n;
		if (err < 0)
			return err;
	}
	return 0;
}

int hcb_probes_dev_stats(struct hcb_probes *p, uint32_t dev, struct hcb_dev_stats *out)
{
	(void)p;
	/* the BPF side's array has HCB_MAX_DEVICES entries and no more */
	if (dev >= HCB_MAX_DEVICES)
		return -ENOENT;
	memset(out, 0, sizeof(*out));
	if (dev < 4) {
		out->handled = counter[dev];
		out->drops = counter[4 + dev];
	}
	return 0;
}

/* The id of slot dev: odd ones, as a target may give (ring.h). */
int hcb_probes_device_id(const struct hcb_probes *p, uint32_t dev, uint32_t *id)
{
	static const uint32_t odd[4] = { 2048, 0x7fffffffu, 0xffffffffu, 0 };

	(void)p;
	if (dev >= HCB_MAX_DEVICES)
		return -ENOENT;
	*id = dev < 4 ? odd[dev] : 0xffffffffu - dev;
	return 0;
}

void hcb_probes_nodev(const struct hcb_probes *p, uint64_t out[HCB_NODEV_COUNTERS])
{
	(void)p;
	memset(out, 0, HCB_NODEV_COUNTERS * sizeof(out[0]));
	if (slots) {
		out[HCB_NODEV_UNREADABLE] = counter[0];
		out[HCB_NODEV_OVER] = 300 * 2 + counter[1];
	}
}

/* 300 devices past the slots, two calls of each lost. */
int hcb_probes_over_ids(struct hcb_probes *p, int (*fn)(void *ctx, uint32_t id, uint64_t lost),
			void *ctx)
{
	(void)p;
	for (uint32_t i = 0; slots && i < 300; i++) {
		int err = fn(ctx, 0x80000000u + i * 7919u, 2);

		if (err < 0)
			return err;
	}
	return 0;
}

int hcb_probes_drain(struct hcb_probes *p) { return hcb_probes_poll(p, 0); }
int hcb_probes_load(struct hcb_probes *p, const char *const *programs,
		    const char *const *sleepable) { (void)p; (void)programs; (void)sleepable; return 0; }
void hcb_probes_close(struct hcb_probes *p) { free(p); }
void hcb_probes_delivered(struct hcb_probes *p) { (void)p; }
void hcb_probes_detach(struct hcb_probes *p) { (void)p; }
int hcb_probes_exec_seen(const struct hcb_probes *p) { (void)p; return 0; }
int hcb_probes_no_sleep(const struct hcb_probes *p) { (void)p; return 0; }
int hcb_probes_exec_watch(const struct hcb_probes *p) { (void)p; return 0; }
int hcb_probes_fd(struct hcb_probes *p) { (void)p; return -1; }
uint64_t hcb_probes_ring_read(const struct hcb_probes *p) { (void)p; return 0; }
uint64_t hcb_probes_ring_written(const struct hcb_probes *p) { (void)p; return 0; }
uint64_t hcb_probes_ring_size(const struct hcb_probes *p) { (void)p; return 64u << 20; }
void hcb_probes_set_max_lag(struct hcb_probes *p, uint64_t max_ns) { (void)p; (void)max_ns; }
void hcb_probes_watch_exec(struct hcb_probes *p, pid_t pid) { (void)p; (void)pid; }

int hcb_target_read(pid_t pid, uint64_t addr, void *buf, size_t len)
{
	(void)pid;
	(void)addr;
	(void)buf;
	(void)len;
	return -ESRCH;   /* the target is gone */
}

/* Who the target is (process/identity.h): a process of a job, so that the
 * session records written again as devices come carry all of it. */
int hcb_ident_read(pid_t pid, const struct hcb_ident_flags *flags, struct hcb_identity *id)
{
	(void)pid;
	(void)flags;
	*id = (struct hcb_identity){ .host = "fuzz", .job = "job-1",
				     .process = { .index = 1, .count = 2, .source = "slurm" } };
	return 0;
}

int hcb_ident_recheck_jax(pid_t pid, struct hcb_identity *id)
{
	(void)pid;
	(void)id;
	return 0;
}

/* ---- a provider: the real hcbtap decoder, fed as prov_hcbtap feeds it ---- */

struct fstate {
	struct hcb_hcbtap *dec;
	const struct hcb_decoder_ops *ops;
	void *ctx;
};

static int f_find(pid_t pid, struct hcb_target_info *ti)
{
	(void)pid;
	snprintf(ti->platform, sizeof(ti->platform), "cpu");
	return slots ? -ENOENT : 0;
}

static int f_find_slots(pid_t pid, struct hcb_target_info *ti)
{
	(void)pid;
	snprintf(ti->platform, sizeof(ti->platform), "TFRT_CPU_%%u");
	return slots ? 0 : -ENOENT;
}

static int f_open(void **state, struct hcb_probes *probes, struct hcb_target_info *ti,
		  const struct hcb_decoder_ops *ops, void *ctx)
{
	struct fstate *st = calloc(1, sizeof(*st));

	(void)probes;
	if (!st || hcb_hcbtap_new(&st->dec, ops, ctx)) {
		free(st);
		return -ENOMEM;
	}
	st->ops = ops;
	st->ctx = ctx;
	ti->counters = 1;
	*state = st;
	return 0;
}

static int f_feed(void *state, const void *rec, size_t len)
{
	struct fstate *st = state;
	struct hcb_ev_copy e;

	/* the ring's records are 8-aligned, the fuzzer's are not: a copy */
	if (len >= sizeof(e))
		memcpy(&e, rec, sizeof(e));
	if (len < sizeof(e) || e.type != HCB_EV_COPY)
		return hcb_hcbtap_feed(st->dec, rec, len);
	st->ops->copy_times(st->ctx, e.device, e.seq, e.start_ns, e.end_ns);
	return 0;
}

static int f_tick(void *state, uint64_t now) { return hcb_hcbtap_tick(((struct fstate *)state)->dec, now); }
static unsigned int f_pending(const void *state) { (void)state; return 0; }
static int f_finish(void *state) { return hcb_hcbtap_finish(((struct fstate *)state)->dec); }
static int f_timing(void *state, char *why, size_t size) { (void)state; (void)why; (void)size; return 1; }

static int f_issued(const struct hcb_target_info *ti, uint64_t *out)
{
	(void)ti;
	memset(out, 0, HCB_MAX_DEVICES * sizeof(*out));
	memcpy(out, counter, 4 * sizeof(*out));
	return 0;
}

static const struct hcb_stream_stats *f_stats(const void *state, uint32_t device)
{
	const struct hcb_hcbtap *dec = ((const struct fstate *)state)->dec;

	return device == HCB_MAX_DEVICES ? hcb_hcbtap_stray(dec) : hcb_hcbtap_stats(dec, device);
}

static struct hcb_registry *f_registry(void *state) { return hcb_hcbtap_registry(((struct fstate *)state)->dec); }

static void f_close(void *state)
{
	struct fstate *st = state;

	hcb_hcbtap_free(st->dec);
	free(st);
}

static const struct hcb_provider fuzz_prov = {
	.name = "hcbtap", .flags = HCB_PROV_ISSUED | HCB_PROV_SEQ, .find = f_find, .open = f_open,
	.feed = f_feed, .tick = f_tick, .pending = f_pending, .finish = f_finish,
	.timing = f_timing, .issued = f_issued, .stats = f_stats, .registry = f_registry,
	.close = f_close,
};

/* The same decoder's records, their devices the probes' slots (provider.h:
 * HCB_PROV_DEVIDS), as jax's callbacks' are. */
static const struct hcb_provider fuzz_prov_slots = {
	.name = "slots", .flags = HCB_PROV_SEQ | HCB_PROV_DEVIDS, .find = f_find_slots,
	.open = f_open, .feed = f_feed, .tick = f_tick, .pending = f_pending,
	.finish = f_finish, .timing = f_timing, .stats = f_stats, .registry = f_registry,
	.close = f_close,
};

const struct hcb_provider *const hcb_providers[] = { &fuzz_prov, &fuzz_prov_slots, NULL };

int hcb_provider_find(pid_t pid, unsigned int only, struct hcb_target_info *ti)
{
	(void)only;
	memset(ti, 0, sizeof(*ti));
	ti->pid = pid;
	ti->provider = slots ? &fuzz_prov_slots : &fuzz_prov;
	return 0;
}

/* ---- the session ---- */

static char rundir[] = "/tmp/hcb-fuzz-capture-XXXXXX";

/* The run directory and the session files and wake FIFOs the sessions
 * left in it: gone when the fuzzer exits (a FIFO left behind is a trap
 * for whatever looks there next). */
static void remove_rundir(void)
{
	DIR *d = opendir(rundir);
	struct dirent *e;

	while (d && (e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(d), e->d_name, 0);
	if (d)
		closedir(d);
	rmdir(rundir);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	assert(mkdtemp(rundir));
	atexit(remove_rundir);
	setenv("HCBTRACE_RUNDIR", rundir, 1);
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct hcb_capture_opts o = { .ring_bytes = 1u << 20, .what = "fuzz" };
	static struct hcb_capture_dev rows[HCB_CAPTURE_DEVICES];
	struct hcb_capture *c;
	struct hcb_writer *w;
	int fd, err;

	if (size < 1 + sizeof(counter))
		return 0;
	o.device_timing = data[0] & 1;
	o.max_taps = data[0] & 2 ? 5 : 0;
	slots = !!(data[0] & 4);
	memcpy(counter, data + 1, sizeof(counter));
	in_data = data + 1 + sizeof(counter);
	in_size = size - 1 - sizeof(counter);
	fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	assert(fd >= 0);
	assert(hcb_writer_open_fd(&w, fd, HCB_FMT_JSONL) == 0);
	assert(hcb_capture_new(&c, &o, hcb_writer_receiver(w)) == 0);
	err = hcb_capture_attach(c, getpid());
	if (!err) {
		assert(hcb_capture_begin(c) == 0);
		while (in_size >= 2 && !err)
			err = hcb_capture_poll(c, 0);
		assert(err == 0 || err == -ENOMEM);
		err = hcb_capture_end(c);
		assert(err == 0 || err == -ENOMEM);
		struct hcb_capture_nodev nd;
		struct hcb_capture_dev f;
		size_t n = hcb_capture_devices(c, rows, HCB_CAPTURE_DEVICES);

		/* one row an id, ascending */
		for (size_t i = 1; i < n; i++)
			assert(rows[i - 1].device < rows[i].device);
		hcb_capture_stray(c, &f);
		hcb_capture_nodev(c, &nd);
	}
	hcb_capture_free(c);
	hcb_writer_close(w);
	close(fd);
	return 0;
}
