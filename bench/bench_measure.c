/* SPDX-License-Identifier: MIT */
/*
 * bench_measure.c - capture_bench's measurements: the tapper as a child
 * under hcbtrace's own capture engine (flat out, then the zero-drop rate
 * search), memcpy at the same sizes, and the detached tap.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "engine/capture.h"
#include "engine/capture_loop.h"
#include "words.h"
#include "capture_bench.h"

/* ---- the tapper as a child ------------------------------------------------ */

struct child {
	pid_t pid;
	int out_fd;              /* its stdout */
	int go_fd;               /* its fd 3 (--go-fd 3), or -1 */
	int status;
	int reaped;
};

/* Start argv pinned to the tapper's CPU, its stdout into ch->out_fd; with
 * go, also a pipe from ch->go_fd to the child's fd 3. */
static int start_tapper(struct child *ch, char *const argv[], int go)
{
	int fds[2], gofds[2] = { -1, -1 }, err;

	ch->pid = -1;
	ch->out_fd = ch->go_fd = -1;
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	if (go && pipe2(gofds, O_CLOEXEC)) {
		err = -errno;
		goto fail;
	}
	fflush(NULL);
	ch->pid = fork();
	if (ch->pid < 0) {
		err = -errno;
		goto fail;
	}
	if (ch->pid == 0) {
		if (pin_to(opt.tapper_cpu) || dup2(fds[1], STDOUT_FILENO) < 0 ||
		    (go && dup2(gofds[0], 3) < 0))
			_exit(127);
		execv(argv[0], argv);
		fprintf(stderr, "capture_bench: cannot run %s: %s\n", argv[0], strerror(errno));
		_exit(127);
	}
	close(fds[1]);
	ch->out_fd = fds[0];
	if (go) {
		close(gofds[0]);
		ch->go_fd = gofds[1];
	}
	ch->reaped = 0;
	return 0;
fail:
	close(fds[0]);
	close(fds[1]);
	if (gofds[0] >= 0) {
		close(gofds[0]);
		close(gofds[1]);
	}
	return err;
}

/* Tell the tapper to start. */
static void go(struct child *ch)
{
	if (ch->go_fd >= 0) {
		if (write(ch->go_fd, "g", 1) != 1)
			note("cannot signal the tapper: %s", strerror(errno));
		close(ch->go_fd);
		ch->go_fd = -1;
	}
}

static int child_exited(struct child *ch)
{
	if (!ch->reaped && waitpid(ch->pid, &ch->status, WNOHANG) == ch->pid)
		ch->reaped = 1;
	return ch->reaped;
}

static void stop_child(struct child *ch)
{
	if (ch->pid > 0 && !ch->reaped) {
		kill(ch->pid, SIGKILL);
		waitpid(ch->pid, &ch->status, 0);
		ch->reaped = 1;
	}
	if (ch->out_fd >= 0)
		close(ch->out_fd);
	if (ch->go_fd >= 0)
		close(ch->go_fd);
	ch->out_fd = ch->go_fd = -1;
}

static int read_all(int fd, char *buf, size_t size)
{
	size_t len = 0;

	while (len + 1 < size) {
		ssize_t n = read(fd, buf + len, size - 1 - len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0)
			break;
		len += (size_t)n;
	}
	buf[len] = 0;
	return (int)len;
}

/* ---- counting what the session delivers ------------------------------------ */

struct counter {
	uint64_t packets, bytes, corrupt, dropped;
};

/* tapper fills byte b of device d's payload with b * 31 + d */
static int count_tap(struct counter *c, const struct hcb_tap *p)
{
	uint64_t n = p->consumer->total_bytes;

	c->packets++;
	c->bytes += n;
	if (n && (p->payload[0] != (unsigned char)p->device ||
		  p->payload[n - 1] != (unsigned char)((n - 1) * 31 + p->device)))
		c->corrupt++;
	return 0;
}

/* The bench is the capture engine's receiver, as a recording would be. */
static int receive_record(void *ctx, const struct hcb_record *rec)
{
	struct counter *c = ctx;

	if (rec->kind == HCB_REC_TAP)
		return count_tap(c, &rec->tap);
	if (rec->kind == HCB_REC_DROP)
		c->dropped += rec->drop.count;
	return 0;
}

static void receive_warning(void *ctx, const struct hcb_warning *w)
{
	(void)ctx;
	if (opt.verbose && w->kind == HCB_WARN_DECODE)
		note("decoder: %s: %s", hcb_decode_problem_name(w->problem), w->detail ? w->detail : "");
}

static const struct hcb_receiver_ops counting_ops = {
	.record = receive_record,
};

static int parse_tapper_json(const char *text, struct run *r)
{
	json_error_t jerr;
	json_t *root = json_loads(text, 0, &jerr);
	json_int_t issued = -1, detached = -1, errors = -1;
	double elapsed = -1, ns = -1;
	int err = 0;

	if (!root || json_unpack_ex(root, &jerr, 0, "{s:I, s:I, s:I, s:F, s:F}",
				    "total_issued", &issued, "total_detached", &detached,
				    "errors", &errors, "elapsed_s", &elapsed, "ns_per_tap", &ns)) {
		note("the tapper's output is not what was expected (%s): '%.200s'", jerr.text, text);
		err = -EBADMSG;
	} else {
		r->issued = (uint64_t)issued;
		r->detached = (uint64_t)detached;
		r->elapsed_s = elapsed;
		r->ns_per_tap = ns;
		if (errors) {
			note("the tapper reported %lld failed taps", (long long)errors);
			err = -EIO;
		}
	}
	json_decref(root);
	return err;
}

/* Attach the session to the tapper once its loader has mapped libhcbtap. */
static int attach_when_mapped(struct hcb_capture *cap, struct child *ch)
{
	uint64_t deadline = clock_ns() + 5000000000ull;
	int err;

	while ((err = hcb_capture_attach(cap, ch->pid)) == -ENOENT) {
		struct timespec ms = { 0, 1000000 };

		if (child_exited(ch) || exiting || clock_ns() > deadline)
			break;
		nanosleep(&ms, NULL);
	}
	if (err)
		note("cannot attach to %s (pid %d): %s", opt.tapper, (int)ch->pid, strerror(-err));
	return err;
}

static int child_running(void *ctx)
{
	return !child_exited(ctx);
}

/* Take taps until the tapper exits, as hcbtrace does (or on a timer). */
static int capture_until_exit(struct hcb_capture *cap, struct child *ch)
{
	struct hcb_run_opts ro = { .poll_ms = 50, .drain_every_ms = opt.drain_ms,
				   .alive = child_running, .ctx = ch, .stop = &exiting };
	int err;

	switch (hcb_capture_run(cap, &ro, &err)) {
	case HCB_RUN_FAILED:
		note("reading the ring buffer: %s", strerror(-err));
		return err;
	case HCB_RUN_STOPPED:
		return -EINTR;
	default:
		return 0;
	}
}

/* What the session knows, and the tapper's own figures, into r. */
static int tally(struct hcb_capture *cap, struct child *ch, const struct counter *count, struct run *r)
{
	static struct hcb_capture_dev rows[HCB_CAPTURE_DEVICES];
	char out[65536];
	size_t n;
	int err;

	if (!WIFEXITED(ch->status) || WEXITSTATUS(ch->status) != 0) {
		note("%s failed (%s %d)", opt.tapper, WIFEXITED(ch->status) ? "exit status" : "signal",
			WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : WTERMSIG(ch->status));
		return -EIO;
	}
	err = read_all(ch->out_fd, out, sizeof(out));
	if (err < 0) {
		note("reading the tapper's output: %s", strerror(-err));
		return err;
	}
	err = parse_tapper_json(out, r);
	if (err)
		return err;
	n = hcb_capture_devices(cap, rows, HCB_CAPTURE_DEVICES);
	for (size_t i = 0; i < n; i++) {
		const struct hcb_capture_dev *f = &rows[i];

		r->problems += f->bad;
		if (opt.verbose)
			note("device %u: %llu taps, %llu dropped, %llu missing from the sequence",
			     f->device, (unsigned long long)f->taps, (unsigned long long)f->dropped,
			     (unsigned long long)f->gaps);
	}
	r->captured = count->packets;
	r->captured_bytes = count->bytes;
	r->corrupt = count->corrupt;
	r->dropped = count->dropped;
	r->clean = !r->dropped && !r->problems && !r->corrupt && r->captured == r->issued &&
		   r->issued > 0;
	return 0;
}

static int run_tapper(uint64_t bytes, double rate, double seconds, struct run *r)
{
	char a_bytes[32], a_threads[16], a_seconds[32], a_rate[32];
	char *argv[] = { (char *)opt.tapper, "--bytes", a_bytes, "--threads", a_threads,
			 "--seconds", a_seconds, "--rate", a_rate, "--wait-attached", "10",
			 "--go-fd", "3", NULL };
	struct hcb_capture_opts co = { .ring_bytes = opt.ring_bytes, .unpublished = 1,
				       .warn = { receive_warning, NULL } };
	struct counter count = { 0 };
	struct child ch = { .pid = -1, .out_fd = -1, .go_fd = -1 };
	struct hcb_capture *cap = NULL;
	int err;

	memset(r, 0, sizeof(*r));
	r->bytes = bytes;
	r->rate = rate;
	snprintf(a_bytes, sizeof(a_bytes), "%llu", (unsigned long long)bytes);
	snprintf(a_threads, sizeof(a_threads), "%u", opt.threads);
	snprintf(a_seconds, sizeof(a_seconds), "%g", seconds);
	snprintf(a_rate, sizeof(a_rate), "%.0f", rate);

	err = hcb_capture_new(&cap, &co, (struct hcb_receiver){ &counting_ops, &count });
	if (err) {
		cli_load_err(err, opt.ring_bytes);
		return err;
	}
	err = start_tapper(&ch, argv, 1);
	if (err)
		note("cannot start %s: %s", opt.tapper, strerror(-err));
	if (!err)
		err = attach_when_mapped(cap, &ch);
	if (!err)
		err = hcb_capture_begin(cap);
	if (err)
		goto out;
	/* Not before: the kernel sets the semaphore when it plants the probe,
	 * which is some milliseconds before the BPF program is linked to it,
	 * and taps in between are lost without a trace. */
	go(&ch);
	err = capture_until_exit(cap, &ch);
	/* the probe runs in the target: everything it copied is in the ring */
	if (!err)
		err = hcb_capture_end(cap);
	if (!err)
		err = tally(cap, &ch, &count, r);
	if (!err && opt.verbose)
		note("%llu B at %s%.0f/s: issued %llu, captured %llu, dropped %llu, bad %llu, "
		     "corrupt %llu, %.0f ns/tap", (unsigned long long)bytes,
		     rate > 0 ? "" : "flat out, ~", rate > 0 ? rate : (double)r->issued / r->elapsed_s,
		     (unsigned long long)r->issued, (unsigned long long)r->captured,
		     (unsigned long long)r->dropped, (unsigned long long)r->problems,
		     (unsigned long long)r->corrupt, r->ns_per_tap);
out:
	stop_child(&ch);
	hcb_capture_free(cap);
	return err;
}

/* Flat out first; if that lost taps, bisect the per-thread rate between
 * nothing and what the flat-out run issued, starting just under what it
 * captured. */
int measure_size(struct size_result *sr)
{
	double lo = 0, hi, mid;
	int err;

	err = run_tapper(sr->bytes, opt.fixed_rate, opt.seconds, &sr->flat);
	if (err)
		return err;
	sr->runs = 1;
	if (sr->flat.clean || opt.fixed_rate > 0) {
		sr->best = sr->flat;
		sr->have_best = sr->flat.clean;
		return 0;
	}
	hi = (double)sr->flat.issued / sr->flat.elapsed_s / opt.threads;
	mid = 0.9 * run_taps_per_s(&sr->flat) / opt.threads;
	if (!(mid > 0) || mid >= hi)
		mid = hi / 2;
	for (unsigned int step = 0; step < opt.steps && !exiting; step++) {
		struct run r;

		if (mid < 1)
			mid = 1;
		err = run_tapper(sr->bytes, mid, opt.search_seconds, &r);
		if (err)
			return err;
		sr->runs++;
		if (r.clean) {
			lo = mid;
			if (!sr->have_best || run_taps_per_s(&r) > run_taps_per_s(&sr->best))
				sr->best = r;
			sr->have_best = 1;
		} else {
			hi = mid;
		}
		mid = (lo + hi) / 2;
	}
	return 0;
}

/* ---- memcpy baseline ------------------------------------------------------ */

/* memcpy of one payload-sized source (hot, like the tapper's buffer) into a
 * 64 MiB destination walked like a ring buffer, best of 3 rounds of ~0.25 s. */
double memcpy_MB_per_s(uint64_t bytes, unsigned char *ring, uint64_t ring_bytes)
{
	unsigned char *src = aligned_alloc(64, (bytes + 63) / 64 * 64);
	uint64_t batch = bytes >= (1u << 20) ? 1 : (1u << 20) / bytes;
	double best = 0;

	if (!src)
		return 0;
	memset(src, 0x5a, bytes);
	for (int round = 0; round < 3; round++) {
		uint64_t t0 = clock_ns(), t, copied = 0, off = 0;

		do {
			for (uint64_t i = 0; i < batch; i++) {
				if (off + bytes > ring_bytes)
					off = 0;
				memcpy(ring + off, src, bytes);
				__asm__ __volatile__("" : : "r"(ring) : "memory");
				off += (bytes + 7) & ~7ull;
			}
			copied += batch * bytes;
			t = clock_ns();
		} while (t - t0 < 250000000ull);
		if ((double)copied / (double)(t - t0) * 1e3 > best)
			best = (double)copied / (double)(t - t0) * 1e3;
	}
	free(src);
	return best;
}

/* ---- the detached tap ----------------------------------------------------- */


int measure_detached(struct detached *d)
{
	char iters[32];
	char *argv[] = { (char *)opt.tapper, "--detached-cost", "--iterations", iters, NULL };
	struct child ch = { .pid = -1, .out_fd = -1, .go_fd = -1 };
	char out[4096];
	json_error_t jerr;
	json_t *root;
	int err, n;

	snprintf(iters, sizeof(iters), "%llu", (unsigned long long)opt.detached_iterations);
	err = start_tapper(&ch, argv, 0);
	if (err) {
		note("cannot start %s: %s", opt.tapper, strerror(-err));
		return err;
	}
	n = read_all(ch.out_fd, out, sizeof(out));
	waitpid(ch.pid, &ch.status, 0);
	ch.reaped = 1;
	stop_child(&ch);
	if (n < 0 || !WIFEXITED(ch.status) || WEXITSTATUS(ch.status)) {
		note("%s --detached-cost failed", opt.tapper);
		return -EIO;
	}
	root = json_loads(out, 0, &jerr);
	if (!root || json_unpack_ex(root, &jerr, 0, "{s:F, s:F, s:F}", "tap_detached_ns",
				    &d->tap_ns, "call_baseline_ns", &d->call_ns, "loop_ns",
				    &d->loop_ns)) {
		note("unexpected output from %s --detached-cost (%s): '%.200s'", opt.tapper,
			jerr.text, out);
		json_decref(root);
		return -EBADMSG;
	}
	json_decref(root);
	return 0;
}
