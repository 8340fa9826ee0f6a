/* SPDX-License-Identifier: MIT */
/*
 * capture_bench - how fast hcbtrace's capture path takes taps out of a
 * running program, next to what memcpy does on the same machine.
 *
 * For each payload size it starts bench/tapper (pinned to one CPU) as a
 * child, attaches hcbtrace's own capture engine (src/capture.h, as attach
 * and record use it) from this process (pinned to another CPU) once the
 * child has libhcbtap mapped, lets the tapper tap for a while, then ends
 * the session (detach, drain, the losses no packet showed) and counts what
 * it delivered.  The first run is flat out; if it lost anything, a binary
 * search over the tapper's --rate finds the highest rate that loses nothing.
 * Then memcpy at the same sizes, and the cost of a detached tap.
 *
 * Root only (BPF + uprobes).  `bench/run` builds and runs it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>
#include <jansson.h>

#include "capture.h"
#include "clock.h"
#include "size_arg.h"

#define MAX_SIZES 16

static struct {
	int json;
	int verbose;
	const char *tapper;
	double seconds;          /* the flat-out run */
	double search_seconds;   /* each run of the rate search */
	unsigned int steps;      /* runs of the rate search */
	unsigned int threads;
	uint64_t ring_bytes;
	int tapper_cpu, reader_cpu;
	uint64_t sizes[MAX_SIZES];
	unsigned int nsizes;
	uint64_t detached_iterations;
	double fixed_rate;       /* --rate: one run per size at this rate, no search */
	unsigned int drain_ms;   /* --drain-every: no epoll, drain on a timer */
} opt = {
	.seconds = 2.0,
	.search_seconds = 1.0,
	.steps = 5,
	.threads = 1,
	.ring_bytes = 64ull << 20,
	.tapper_cpu = 0,
	.reader_cpu = 1,
	.sizes = { 64, 4096, 65536, 1048576 },
	.nsizes = 4,
	.detached_iterations = 200000000ull,
};

static volatile sig_atomic_t exiting;

/* One run of the tapper under the tracer. */
struct run {
	uint64_t bytes;
	double rate;             /* per thread; 0: flat out */
	/* from the tapper */
	uint64_t issued, detached;
	double elapsed_s, ns_per_tap;
	/* from this side */
	uint64_t captured, captured_bytes, corrupt;
	uint64_t dropped;        /* losses the session recorded (its drop records) */
	uint64_t problems;       /* malformed or incomplete packets */
	int clean;               /* nothing lost, every issued tap captured */
};

struct size_result {
	uint64_t bytes;
	struct run flat;         /* the first, unthrottled run */
	struct run best;         /* the highest-rate run without loss */
	int have_best;
	unsigned int runs;
	double memcpy_MB_s;
};

static void msg(const char *prefix, const char *fmt, va_list ap)
{
	fflush(stdout);
	fprintf(stderr, "capture_bench: %s", prefix);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void err_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void err_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg("", fmt, ap);
	va_end(ap);
}

static void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	msg("", fmt, ap);
	va_end(ap);
}

static uint64_t clock_ns(void)
{
	return hcb_clock_ns(CLOCK_MONOTONIC);
}

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

static int pin_to(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

static void size_label(uint64_t bytes, char *buf, size_t size)
{
	if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
		snprintf(buf, size, "%lluMiB", (unsigned long long)(bytes >> 20));
	else if (bytes >= 1024 && bytes % 1024 == 0)
		snprintf(buf, size, "%lluKiB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, size, "%lluB", (unsigned long long)bytes);
}

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
static int count_tap(struct counter *c, const struct hcb_packet *p)
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
	.warn = receive_warning,
};

/* libbpf's own messages only with HCBTRACE_DEBUG, as in hcbtrace */
static int quiet_libbpf(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	(void)level;
	return getenv("HCBTRACE_DEBUG") ? vfprintf(stderr, fmt, ap) : 0;
}

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
		err_msg("the tapper's output is not what was expected (%s): '%.200s'", jerr.text, text);
		err = -EBADMSG;
	} else {
		r->issued = (uint64_t)issued;
		r->detached = (uint64_t)detached;
		r->elapsed_s = elapsed;
		r->ns_per_tap = ns;
		if (errors) {
			err_msg("the tapper reported %lld failed taps", (long long)errors);
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
		err_msg("cannot attach to %s (pid %d): %s", opt.tapper, (int)ch->pid, strerror(-err));
	return err;
}

/* Take taps until the tapper exits, as hcbtrace does (or on a timer). */
static int capture_until_exit(struct hcb_capture *cap, struct child *ch)
{
	while (!child_exited(ch)) {
		int err;

		if (opt.drain_ms) {
			/* a consumer that is behind is never woken: no wakeup costs */
			struct timespec ts = { opt.drain_ms / 1000, (opt.drain_ms % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			err = hcb_capture_poll(cap, 0);
		} else {
			err = hcb_capture_poll(cap, 50);
		}
		if (err < 0) {
			err_msg("reading the ring buffer: %s", strerror(-err));
			return err;
		}
		if (exiting)
			return -EINTR;
	}
	return 0;
}

/* What the session knows, and the tapper's own figures, into r. */
static int tally(struct hcb_capture *cap, struct child *ch, const struct counter *count, struct run *r)
{
	char out[65536];
	int err;

	if (!WIFEXITED(ch->status) || WEXITSTATUS(ch->status) != 0) {
		err_msg("%s failed (%s %d)", opt.tapper, WIFEXITED(ch->status) ? "exit status" : "signal",
			WIFEXITED(ch->status) ? WEXITSTATUS(ch->status) : WTERMSIG(ch->status));
		return -EIO;
	}
	err = read_all(ch->out_fd, out, sizeof(out));
	if (err < 0) {
		err_msg("reading the tapper's output: %s", strerror(-err));
		return err;
	}
	err = parse_tapper_json(out, r);
	if (err)
		return err;
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_capture_dev f;

		if (hcb_capture_device(cap, d, &f))
			continue;
		r->problems += f.bad;
		if (opt.verbose)
			note("device %u: %llu taps, %llu dropped, %llu missing from the sequence", d,
			     (unsigned long long)f.taps, (unsigned long long)f.dropped,
			     (unsigned long long)f.gaps);
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
	struct hcb_capture_opts co = { .ring_bytes = opt.ring_bytes, .unpublished = 1 };
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
		if (err == -EPERM || err == -EACCES)
			err_msg("not enough privilege to load BPF programs: run as root");
		else
			err_msg("cannot load the BPF program: %s (set HCBTRACE_DEBUG=1 for "
				"libbpf's log)", strerror(-err));
		return err;
	}
	err = start_tapper(&ch, argv, 1);
	if (err)
		err_msg("cannot start %s: %s", opt.tapper, strerror(-err));
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

static uint64_t run_drops(const struct run *r)
{
	/* malformed packets are among the session's drop records already */
	return r->dropped + r->corrupt;
}

/* issued but never delivered, whether or not anything counted it */
static uint64_t run_lost(const struct run *r)
{
	return r->issued > r->captured ? r->issued - r->captured : 0;
}

static uint64_t run_worst(const struct run *r)
{
	return run_drops(r) > run_lost(r) ? run_drops(r) : run_lost(r);
}

static double run_taps_per_s(const struct run *r)
{
	return r->elapsed_s > 0 ? (double)r->captured / r->elapsed_s : 0;
}

static double run_MB_per_s(const struct run *r)
{
	return r->elapsed_s > 0 ? (double)r->captured_bytes / r->elapsed_s / 1e6 : 0;
}

/* Flat out first; if that lost taps, bisect the per-thread rate between
 * nothing and what the flat-out run issued, starting just under what it
 * captured. */
static int measure_size(struct size_result *sr)
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
static double memcpy_MB_per_s(uint64_t bytes, unsigned char *ring, uint64_t ring_bytes)
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

struct detached {
	double tap_ns, call_ns, loop_ns;
};

static int measure_detached(struct detached *d)
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
		err_msg("cannot start %s: %s", opt.tapper, strerror(-err));
		return err;
	}
	n = read_all(ch.out_fd, out, sizeof(out));
	waitpid(ch.pid, &ch.status, 0);
	ch.reaped = 1;
	stop_child(&ch);
	if (n < 0 || !WIFEXITED(ch.status) || WEXITSTATUS(ch.status)) {
		err_msg("%s --detached-cost failed", opt.tapper);
		return -EIO;
	}
	root = json_loads(out, 0, &jerr);
	if (!root || json_unpack_ex(root, &jerr, 0, "{s:F, s:F, s:F}", "tap_detached_ns",
				    &d->tap_ns, "call_baseline_ns", &d->call_ns, "loop_ns",
				    &d->loop_ns)) {
		err_msg("unexpected output from %s --detached-cost (%s): '%.200s'", opt.tapper,
			jerr.text, out);
		json_decref(root);
		return -EBADMSG;
	}
	json_decref(root);
	return 0;
}

/* ---- output --------------------------------------------------------------- */

static void fmt_rate(double rate, char *buf, size_t size)
{
	if (rate <= 0)
		snprintf(buf, size, "none");
	else if (rate >= 1e6)
		snprintf(buf, size, "%.2fM/s", rate / 1e6);
	else if (rate >= 1e3)
		snprintf(buf, size, "%.1fk/s", rate / 1e3);
	else
		snprintf(buf, size, "%.0f/s", rate);
}

static void print_row(const struct size_result *sr, const struct run *r)
{
	char label[32], limit[32];
	double mb = run_MB_per_s(r);

	size_label(sr->bytes, label, sizeof(label));
	fmt_rate(r->rate, limit, sizeof(limit));
	printf("%-7s %-9s %10llu %10llu %8llu %8llu %11.0f %9.1f %10.2f %11.1f %6.3f\n", label,
	       limit, (unsigned long long)r->issued, (unsigned long long)r->captured,
	       (unsigned long long)run_drops(r), (unsigned long long)run_lost(r),
	       run_taps_per_s(r), mb, r->ns_per_tap / 1e3,
	       sr->memcpy_MB_s, sr->memcpy_MB_s > 0 ? mb / sr->memcpy_MB_s : 0);
}

static void print_table(const struct size_result *res, const struct detached *d)
{
	static const char *head =
		"payload limit/thr     issued   captured  dropped     lost  captured/s  MB/s cap"
		"  us/tap att  memcpy MB/s  ratio\n";

	char reader[64] = "waits in epoll";

	if (opt.drain_ms)
		snprintf(reader, sizeof(reader), "drains every %u ms", opt.drain_ms);
	printf("capture benchmark: tapper on CPU %d, reader on CPU %d (%s), %u tapping thread%s, "
	       "%llu MiB ring\n\n", opt.tapper_cpu, opt.reader_cpu, reader, opt.threads,
	       opt.threads == 1 ? "" : "s", (unsigned long long)(opt.ring_bytes >> 20));
	printf("Flat out (%g s per size):\n%s", opt.seconds, head);
	for (unsigned int i = 0; i < opt.nsizes; i++)
		print_row(&res[i], &res[i].flat);
	printf("\nHighest rate captured with 0 drops (flat out if it lost nothing, else the "
	       "best of a %u-run rate search of %g s runs):\n%s", opt.steps, opt.search_seconds,
	       head);
	for (unsigned int i = 0; i < opt.nsizes; i++) {
		char label[32];

		if (res[i].have_best) {
			print_row(&res[i], &res[i].best);
			continue;
		}
		size_label(res[i].bytes, label, sizeof(label));
		printf("%-7s no run without drops (%u runs)\n", label, res[i].runs);
	}
	printf("\ndropped: the losses the session recorded (its drop records: ring buffer full, "
	       "target memory\n  unreadable, malformed, not delivered) and corrupt payloads\nlost: issued - captured, counted or not\n"
	       "MB = 10^6 payload bytes; captured/s and MB/s over the tapper's run time\n"
	       "us/tap att: what a tap cost the tapper while attached (thread CPU time flat out, "
	       "time inside\n  hcbtap_emit() when rate-limited)\n"
	       "memcpy: one payload-sized hot source into a 64 MiB destination walked like a "
	       "ring, on the reader's CPU\nratio = captured MB/s / memcpy MB/s\n\n");
	printf("Detached tap (no tracer): %.3f ns per hcbtap_emit(); empty out-of-line call: "
	       "%.3f ns; empty loop iteration: %.3f ns\n", d->tap_ns, d->call_ns, d->loop_ns);
}

static int print_json(const struct size_result *res, const struct detached *d)
{
	json_t *o = json_object();
	uint64_t drops = 0, flat_drops = 0;
	int err;

	if (!o)
		return -ENOMEM;
	for (unsigned int i = 0; i < opt.nsizes; i++) {
		const struct size_result *sr = &res[i];
		const struct run *b = sr->have_best ? &sr->best : &sr->flat;
		char label[32], key[96];

#define SET(fmt, value)                                                 \
		do {                                                    \
			snprintf(key, sizeof(key), fmt, label);         \
			json_object_set_new(o, key, (value));           \
		} while (0)
		size_label(sr->bytes, label, sizeof(label));
		SET("capture_%s_taps_per_s", json_real(run_taps_per_s(b)));
		SET("capture_%s_MB_per_s", json_real(run_MB_per_s(b)));
		SET("memcpy_%s_MB_per_s", json_real(sr->memcpy_MB_s));
		SET("ratio_%s", json_real(sr->memcpy_MB_s > 0 ? run_MB_per_s(b) / sr->memcpy_MB_s : 0));
		SET("tap_attached_%s_ns", json_real(b->ns_per_tap));
		SET("issued_%s", json_integer((json_int_t)b->issued));
		SET("captured_%s", json_integer((json_int_t)b->captured));
		SET("drops_%s", json_integer((json_int_t)run_worst(b)));
		SET("zero_drop_found_%s", json_boolean(sr->have_best));
		SET("rate_limit_%s", json_real(b->rate));
		SET("flat_out_%s_issued_per_s",
		    json_real(sr->flat.elapsed_s > 0 ? (double)sr->flat.issued / sr->flat.elapsed_s : 0));
		SET("flat_out_%s_taps_per_s", json_real(run_taps_per_s(&sr->flat)));
		SET("flat_out_%s_drops", json_integer((json_int_t)run_worst(&sr->flat)));
		SET("flat_out_%s_tap_ns", json_real(sr->flat.ns_per_tap));
		SET("runs_%s", json_integer(sr->runs));
#undef SET
		drops += run_worst(b);
		flat_drops += run_worst(&sr->flat);
	}
	json_object_set_new(o, "tap_detached_ns", json_real(d->tap_ns));
	json_object_set_new(o, "call_baseline_ns", json_real(d->call_ns));
	json_object_set_new(o, "loop_ns", json_real(d->loop_ns));
	json_object_set_new(o, "drops", json_integer((json_int_t)drops));
	json_object_set_new(o, "flat_out_drops", json_integer((json_int_t)flat_drops));
	json_object_set_new(o, "threads", json_integer(opt.threads));
	json_object_set_new(o, "tapper_cpu", json_integer(opt.tapper_cpu));
	json_object_set_new(o, "reader_cpu", json_integer(opt.reader_cpu));
	json_object_set_new(o, "ring_MiB", json_integer((json_int_t)(opt.ring_bytes >> 20)));
	json_object_set_new(o, "drain_every_ms", json_integer(opt.drain_ms));
	err = json_dumpf(o, stdout, JSON_COMPACT | JSON_REAL_PRECISION(6)) ? -EIO : 0;
	if (!err && fputc('\n', stdout) == EOF)
		err = -EIO;
	json_decref(o);
	return err;
}

/* ---- options -------------------------------------------------------------- */

static void usage(FILE *f)
{
	fputs("Usage: capture_bench [OPTION]...\n"
	      "\n"
	      "Measure hcbtrace's capture path against bench/tapper, memcpy at the same\n"
	      "sizes, and the cost of a detached tap.  Needs root.\n"
	      "\n"
	      "  -j, --json             print one JSON object instead of the table\n"
	      "  -T, --tapper PATH      the tapper program (default: next to this one)\n"
	      "  -s, --seconds S        the flat-out run per size (default 2)\n"
	      "  -S, --search-seconds S each run of the zero-drop rate search (default 1)\n"
	      "  -n, --steps N          runs of the rate search (default 5)\n"
	      "  -r, --rate R           no search: one run per size at R taps/s per thread\n"
	      "      --drain-every MS   read the ring every MS ms instead of waiting in\n"
	      "                         epoll as hcbtrace does (shows what wakeups cost)\n"
	      "  -t, --threads T        tapping threads, device = thread (default 1)\n"
	      "  -b, --buffer-size MIB  ring buffer size, a power of two (default 64)\n"
	      "      --sizes LIST       payload sizes, comma separated, K/M suffixes\n"
	      "                         (default 64,4K,64K,1M)\n"
	      "      --tapper-cpu N     CPU for the tapper (default 0)\n"
	      "      --reader-cpu N     CPU for the reader and memcpy (default 1)\n"
	      "      --iterations N     iterations of the detached-tap measurement (200M)\n"
	      "  -v, --verbose          every run on stderr\n"
	      "  -h, --help             this help\n", f);
}

static int parse_u64(const char *name, const char *s, uint64_t *out)
{
	if (parse_size_arg(s, out)) {
		err_msg("invalid %s '%s'", name, s);
		return -EINVAL;
	}
	return 0;
}

static int parse_positive(const char *name, const char *s, double max, double *out)
{
	char *end;

	errno = 0;
	*out = strtod(s, &end);
	if (errno || end == s || *end || !(*out > 0) || *out > max) {
		err_msg("invalid %s '%s': expected a number above 0, at most %g", name, s, max);
		return -EINVAL;
	}
	return 0;
}

static int parse_seconds(const char *name, const char *s, double *out)
{
	return parse_positive(name, s, 3600, out);
}

static int parse_sizes(const char *arg)
{
	char *copy = strdup(arg), *save = NULL, *tok;
	int err = 0;

	if (!copy)
		return -ENOMEM;
	opt.nsizes = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (opt.nsizes == MAX_SIZES || (err = parse_u64("size", tok, &v)) ||
		    v == 0 || v > (64u << 20)) {
			err_msg("invalid --sizes '%s': up to %d sizes from 1 B to 64 MiB", arg,
				MAX_SIZES);
			err = -EINVAL;
			break;
		}
		opt.sizes[opt.nsizes++] = v;
	}
	if (!err && !opt.nsizes)
		err = -EINVAL;
	free(copy);
	return err;
}

static int parse_args(int argc, char **argv)
{
	enum { OPT_SIZES = 256, OPT_TAPPER_CPU, OPT_READER_CPU, OPT_ITERATIONS, OPT_DRAIN };
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "tapper", required_argument, NULL, 'T' },
		{ "seconds", required_argument, NULL, 's' },
		{ "search-seconds", required_argument, NULL, 'S' },
		{ "steps", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "threads", required_argument, NULL, 't' },
		{ "buffer-size", required_argument, NULL, 'b' },
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "tapper-cpu", required_argument, NULL, OPT_TAPPER_CPU },
		{ "reader-cpu", required_argument, NULL, OPT_READER_CPU },
		{ "iterations", required_argument, NULL, OPT_ITERATIONS },
		{ "drain-every", required_argument, NULL, OPT_DRAIN },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "jT:s:S:n:r:t:b:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'j':
			opt.json = 1;
			break;
		case 'T':
			opt.tapper = optarg;
			break;
		case 's':
			if (parse_seconds("duration", optarg, &opt.seconds))
				return 2;
			break;
		case 'S':
			if (parse_seconds("search duration", optarg, &opt.search_seconds))
				return 2;
			break;
		case 'n':
			if (parse_u64("step count", optarg, &v) || v > 20) {
				err_msg("--steps: expected 0 to 20");
				return 2;
			}
			opt.steps = (unsigned int)v;
			break;
		case 'r':
			if (parse_positive("rate", optarg, 1e9, &opt.fixed_rate))
				return 2;
			break;
		case 't':
			if (parse_u64("thread count", optarg, &v) || v < 1 || v > 256) {
				err_msg("--threads: expected 1 to 256");
				return 2;
			}
			opt.threads = (unsigned int)v;
			break;
		case 'b':
			if (parse_u64("buffer size", optarg, &v) || !v || (v & (v - 1)) || v > 4096) {
				err_msg("--buffer-size: expected a power of two from 1 to 4096 (MiB)");
				return 2;
			}
			opt.ring_bytes = v << 20;
			break;
		case OPT_SIZES:
			if (parse_sizes(optarg))
				return 2;
			break;
		case OPT_TAPPER_CPU:
		case OPT_READER_CPU:
			if (parse_u64("CPU", optarg, &v) || v >= CPU_SETSIZE)
				return 2;
			*(c == OPT_TAPPER_CPU ? &opt.tapper_cpu : &opt.reader_cpu) = (int)v;
			break;
		case OPT_ITERATIONS:
			if (parse_u64("iteration count", optarg, &v) || !v)
				return 2;
			opt.detached_iterations = v;
			break;
		case OPT_DRAIN:
			if (parse_u64("drain interval", optarg, &v) || v > 10000) {
				err_msg("--drain-every: expected 0 to 10000 (ms)");
				return 2;
			}
			opt.drain_ms = (unsigned int)v;
			break;
		case 'v':
			opt.verbose = 1;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind < argc) {
		err_msg("unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return 0;
}

static char *tapper_next_to_me(void)
{
	static char path[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 16);
	char *slash;

	if (n <= 0)
		return NULL;
	path[n] = 0;
	slash = strrchr(path, '/');
	if (!slash)
		return NULL;
	strcpy(slash + 1, "tapper");
	return path;
}

int main(int argc, char **argv)
{
	struct size_result res[MAX_SIZES] = { 0 };
	struct sigaction sa = { .sa_handler = on_signal };
	struct detached det = { 0 };
	unsigned char *ring;
	uint64_t t0 = clock_ns();
	int err;

	if ((err = parse_args(argc, argv)))
		return err;
	if (!opt.tapper && !(opt.tapper = tapper_next_to_me())) {
		err_msg("cannot find the tapper: give --tapper PATH");
		return 2;
	}
	if (access(opt.tapper, X_OK)) {
		err_msg("cannot run the tapper '%s': %s", opt.tapper, strerror(errno));
		return 1;
	}
	if (geteuid() != 0) {
		err_msg("must be run as root (BPF programs and uprobes); try: sudo %s", argv[0]);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	libbpf_set_print(quiet_libbpf);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 && opt.tapper_cpu != opt.reader_cpu) {
		note("only one CPU online: the tapper and the reader share CPU 0");
		opt.tapper_cpu = opt.reader_cpu = 0;
	}
	if ((err = pin_to(opt.reader_cpu))) {
		err_msg("cannot pin to CPU %d: %s", opt.reader_cpu, strerror(-err));
		return 1;
	}

	for (unsigned int i = 0; i < opt.nsizes && !exiting; i++) {
		char label[32];

		res[i].bytes = opt.sizes[i];
		size_label(res[i].bytes, label, sizeof(label));
		if (!opt.json || opt.verbose)
			note("capturing %s payloads", label);
		if (measure_size(&res[i]))
			return 1;
	}
	if (exiting) {
		err_msg("interrupted");
		return 1;
	}
	if (!opt.json || opt.verbose)
		note("memcpy baseline");
	ring = aligned_alloc(4096, 64u << 20);
	if (!ring) {
		err_msg("out of memory for the memcpy baseline");
		return 1;
	}
	memset(ring, 0, 64u << 20);
	for (unsigned int i = 0; i < opt.nsizes; i++)
		res[i].memcpy_MB_s = memcpy_MB_per_s(res[i].bytes, ring, 64u << 20);
	free(ring);
	if (!opt.json || opt.verbose)
		note("detached tap cost");
	if (measure_detached(&det))
		return 1;

	if (opt.json)
		err = print_json(res, &det);
	else
		print_table(res, &det);
	if (err || fflush(stdout) || ferror(stdout)) {
		err_msg("writing to standard output: %s", strerror(errno ? errno : EIO));
		return 1;
	}
	if (!opt.json || opt.verbose)
		note("done in %.1f s", (double)(clock_ns() - t0) / 1e9);
	return 0;
}
