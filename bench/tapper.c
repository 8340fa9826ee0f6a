/* SPDX-License-Identifier: MIT */
/*
 * tapper - a target program for benchmarks and tests: taps one uint8[N]
 * leaf as fast as it can (or at a given rate) and says how it went.
 *
 * Emission mode: --threads T threads, thread i tapping device i, each for
 * --seconds S (or exactly --count N taps), then one JSON line on stdout:
 *   {"bytes":64,"threads":1,...,"issued":[n0,...],"detached":[m0,...],
 *    "taps_per_s":...,"ns_per_tap":...}
 * "issued" counts hcbtap_emit() calls that returned a sequence number (a
 * tracer was attached), "detached" those that returned -ENOTCONN.
 * "ns_per_tap" is what a tap cost the emitting thread: thread CPU time per
 * tap when unthrottled; with --rate, the time spent inside hcbtap_emit().
 *
 * --detached-cost: ns per hcbtap_emit() with no tracer attached, next to an
 * empty call of an out-of-line function with the same arguments and an
 * empty loop, best of 5 rounds; one JSON line.
 *
 * Links libhcbtap only.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "hcbtap.h"
#include "size_arg.h"

#define MAX_THREADS 256

static struct {
	uint64_t bytes;
	unsigned int threads;
	double seconds;
	uint64_t count;          /* per thread, with counted (0 taps is fine) */
	int counted;             /* --count given: count taps, not --seconds */
	double rate;             /* per thread, taps/s; 0: unthrottled */
	double wait_attached;    /* seconds to wait for a tracer first; 0: do not */
	int go_fd;               /* >= 0: then wait for a byte (or EOF) on this fd */
	uint64_t iterations;     /* --detached-cost */
	int detached_cost;
} opt = { 64, 1, 1.0, 0, 0, 0, 0, -1, 200000000ull, 0 };

static uint32_t consumer_id;
static volatile sig_atomic_t stopping;
static pthread_barrier_t start_line;

struct worker {
	pthread_t thread;
	unsigned int device;
	unsigned char *payload;
	uint64_t issued, detached, errors;
	int64_t first_error;
	uint64_t cpu_ns;         /* thread CPU time over the tapping loop */
	uint64_t emit_ns;        /* with --rate: wall time inside hcbtap_emit() */
	uint64_t wall_ns;
};

static void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

static void die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("tapper: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

static uint64_t clock_ns(clockid_t id)
{
	return hcb_clock_ns(id);
}

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static void sleep_until(uint64_t t)
{
	struct timespec ts = { (time_t)(t / 1000000000u), (long)(t % 1000000000u) };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stopping)
		;
}

static void count_result(struct worker *w, int64_t r)
{
	if (r >= 0)
		w->issued++;
	else if (r == -ENOTCONN)
		w->detached++;
	else if (!w->errors++)
		w->first_error = r;
}

/* Unthrottled: nothing but taps, and a look at the clock every 8 of them. */
static void tap_flat_out(struct worker *w, const void *const *leaves, uint64_t deadline)
{
	for (uint64_t i = 0; !stopping; i++) {
		if (opt.counted ? i >= opt.count : ((i & 7) == 0 && clock_ns(CLOCK_MONOTONIC) >= deadline))
			break;
		count_result(w, hcbtap_emit(consumer_id, w->device, leaves));
	}
}

/* Throttled: tap i is due at start + i / rate.  Long waits sleep, short ones
 * spin; a thread that fell more than 10 ms behind starts a new schedule
 * instead of bursting to catch up. */
static void tap_at_rate(struct worker *w, const void *const *leaves, uint64_t start,
			uint64_t deadline)
{
	double period = 1e9 / opt.rate;
	uint64_t due = start, k = 0;   /* k: taps since the schedule started */

	for (uint64_t i = 0; !stopping; i++, k++) {
		uint64_t now = clock_ns(CLOCK_MONOTONIC), after;
		int64_t r;

		if (opt.counted ? i >= opt.count : now >= deadline)
			break;
		if (now < due) {
			if (due - now > 200000)
				sleep_until(due - 100000);
			while ((now = clock_ns(CLOCK_MONOTONIC)) < due)
				;
		} else if (now - due > 10000000) {
			start = now;
			k = 0;
		}
		r = hcbtap_emit(consumer_id, w->device, leaves);
		after = clock_ns(CLOCK_MONOTONIC);
		w->emit_ns += after - now;
		count_result(w, r);
		due = start + (uint64_t)((double)(k + 1) * period);
	}
}

/* What timing n taps with a clock_gettime() pair adds, so that --rate's
 * ns_per_tap is the tap alone. */
static uint64_t clock_cost_ns(uint64_t n)
{
	enum { N = 100000 };
	static double per_call = -1;

	if (per_call < 0) {
		uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

		for (int i = 0; i < N; i++)
			clock_ns(CLOCK_MONOTONIC);
		per_call = (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (N + 1);
	}
	return (uint64_t)(per_call * (double)n);
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const void *leaves[1] = { w->payload };
	uint64_t start, cpu0;

	pthread_barrier_wait(&start_line);
	start = clock_ns(CLOCK_MONOTONIC);
	cpu0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
	if (opt.rate > 0)
		tap_at_rate(w, leaves, start, start + (uint64_t)(opt.seconds * 1e9));
	else
		tap_flat_out(w, leaves, start + (uint64_t)(opt.seconds * 1e9));
	w->cpu_ns = clock_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	w->wall_ns = clock_ns(CLOCK_MONOTONIC) - start;
	return NULL;
}

static void wait_for_tracer(void)
{
	uint64_t deadline = clock_ns(CLOCK_MONOTONIC) + (uint64_t)(opt.wait_attached * 1e9);
	struct timespec ms = { 0, 1000000 };

	while (!hcbtap_attached()) {
		if (stopping || clock_ns(CLOCK_MONOTONIC) >= deadline)
			die("no tracer attached within %g s", opt.wait_attached);
		nanosleep(&ms, NULL);
	}
}

static int emit_mode(void)
{
	static struct worker workers[MAX_THREADS];
	uint64_t issued = 0, detached = 0, errors = 0, busy_ns = 0, wall_ns = 0;
	int64_t first_error = 0;
	double elapsed;
	int err;

	if ((err = pthread_barrier_init(&start_line, NULL, opt.threads + 1)))
		die("pthread_barrier_init: %s", strerror(err));
	for (unsigned int i = 0; i < opt.threads; i++) {
		struct worker *w = &workers[i];

		w->device = i;
		w->payload = aligned_alloc(64, (opt.bytes + 63) / 64 * 64);
		if (!w->payload)
			die("out of memory for a %llu byte payload", (unsigned long long)opt.bytes);
		/* touched, so BPF reads resident pages */
		for (uint64_t b = 0; b < opt.bytes; b++)
			w->payload[b] = (unsigned char)(b * 31 + i);
		if (hcbtap_declare_device(i))
			die("cannot declare device %u", i);
		if ((err = pthread_create(&w->thread, NULL, worker_main, w)))
			die("pthread_create: %s", strerror(err));
	}
	if (opt.wait_attached > 0)
		wait_for_tracer();
	if (opt.go_fd >= 0) {
		char c;

		while (read(opt.go_fd, &c, 1) < 0 && errno == EINTR && !stopping)
			;
		close(opt.go_fd);
	}
	pthread_barrier_wait(&start_line);
	for (unsigned int i = 0; i < opt.threads; i++) {
		struct worker *w = &workers[i];

		pthread_join(w->thread, NULL);
		issued += w->issued;
		detached += w->detached;
		if (w->errors && !errors)
			first_error = w->first_error;
		errors += w->errors;
		if (opt.rate > 0) {
			uint64_t clocks = clock_cost_ns(w->issued + w->detached);

			busy_ns += w->emit_ns > clocks ? w->emit_ns - clocks : 0;
		} else {
			busy_ns += w->cpu_ns;
		}
		if (w->wall_ns > wall_ns)
			wall_ns = w->wall_ns;
	}
	elapsed = (double)wall_ns / 1e9;

	printf("{\"bytes\":%llu,\"threads\":%u,\"rate\":%.0f,", (unsigned long long)opt.bytes,
	       opt.threads, opt.rate);
	if (opt.counted)
		printf("\"count\":%llu,", (unsigned long long)opt.count);
	else
		printf("\"seconds\":%g,", opt.seconds);
	printf("\"elapsed_s\":%.6f,\"issued\":[", elapsed);
	for (unsigned int i = 0; i < opt.threads; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)workers[i].issued);
	printf("],\"detached\":[");
	for (unsigned int i = 0; i < opt.threads; i++)
		printf("%s%llu", i ? "," : "", (unsigned long long)workers[i].detached);
	printf("],\"total_issued\":%llu,\"total_detached\":%llu,\"errors\":%llu,"
	       "\"taps_per_s\":%.1f,\"ns_per_tap\":%.2f,\"ns_per_tap_measure\":\"%s\"}\n",
	       (unsigned long long)issued, (unsigned long long)detached,
	       (unsigned long long)errors, elapsed > 0 ? (double)(issued + detached) / elapsed : 0.0,
	       issued + detached ? (double)busy_ns / (double)(issued + detached) : 0.0,
	       opt.rate > 0 ? "wall time in hcbtap_emit" : "thread cpu time");
	if (fflush(stdout) || ferror(stdout))
		die("writing to standard output: %s", strerror(errno));
	if (errors)
		die("%llu taps failed; the first with %s", (unsigned long long)errors,
		    strerror((int)-first_error));
	return 0;
}

/* ---- --detached-cost ---------------------------------------------------- */

/* An out-of-line function with hcbtap_emit()'s signature and result: the
 * cheapest thing a tap site could call.  The asm hides the result and the
 * arguments from the optimizer, noipa keeps it from looking inside. */
#if defined(__clang__)
#define OPAQUE __attribute__((noinline, used))
#else
#define OPAQUE __attribute__((noipa, used))
#endif

OPAQUE int64_t empty_call(uint32_t id, unsigned int device, const void *const *leaves)
{
	int64_t r = -ENOTCONN;

	__asm__ __volatile__("" : "+r"(r) : "r"(id), "r"(device), "r"(leaves));
	return r;
}

/* Each loop does n iterations of its body and a compiler barrier (so the
 * loops cannot be merged, vectorized away or hoisted), summing the results
 * into a volatile sink. */
static volatile int64_t sink;

OPAQUE void loop_empty(uint64_t n, const void *const *leaves)
{
	int64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		__asm__ __volatile__("" : "+r"(acc) : "r"(leaves) : "memory");
		acc += -ENOTCONN;
	}
	sink = acc;
}

OPAQUE void loop_call(uint64_t n, const void *const *leaves)
{
	int64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		__asm__ __volatile__("" : "+r"(acc) : "r"(leaves) : "memory");
		acc += empty_call(consumer_id, 0, leaves);
	}
	sink = acc;
}

OPAQUE void loop_tap(uint64_t n, const void *const *leaves)
{
	int64_t acc = 0;

	for (uint64_t i = 0; i < n; i++) {
		__asm__ __volatile__("" : "+r"(acc) : "r"(leaves) : "memory");
		acc += hcbtap_emit(consumer_id, 0, leaves);
	}
	sink = acc;
}

static double time_loop(void (*loop)(uint64_t, const void *const *), uint64_t n,
			const void *const *leaves)
{
	uint64_t t0 = clock_ns(CLOCK_MONOTONIC);

	loop(n, leaves);
	return (double)(clock_ns(CLOCK_MONOTONIC) - t0) / (double)n;
}

static int detached_cost_mode(void)
{
	enum { ROUNDS = 5 };
	const void *leaves[1];
	unsigned char *payload = calloc(1, opt.bytes ? opt.bytes : 1);
	uint64_t n = opt.iterations / ROUNDS;
	double best_empty = 1e9, best_call = 1e9, best_tap = 1e9;

	if (!payload)
		die("out of memory");
	if (n == 0)
		n = 1;
	leaves[0] = payload;
	if (hcbtap_attached())
		die("a tracer is attached: --detached-cost measures taps with none");
	/* warm up, and prove the taps really were detached */
	loop_tap(1000, leaves);
	if (sink != -ENOTCONN * 1000)
		die("hcbtap_emit() did not return -ENOTCONN with no tracer attached");
	for (int r = 0; r < ROUNDS; r++) {
		double e = time_loop(loop_empty, n, leaves);
		double c = time_loop(loop_call, n, leaves);
		double t = time_loop(loop_tap, n, leaves);

		if (e < best_empty)
			best_empty = e;
		if (c < best_call)
			best_call = c;
		if (t < best_tap)
			best_tap = t;
	}
	if (sink != -ENOTCONN * (int64_t)n)
		die("a tracer attached during the measurement");
	printf("{\"iterations\":%llu,\"rounds\":%d,\"tap_detached_ns\":%.3f,"
	       "\"call_baseline_ns\":%.3f,\"loop_ns\":%.3f}\n",
	       (unsigned long long)(n * ROUNDS), ROUNDS, best_tap, best_call, best_empty);
	free(payload);
	if (fflush(stdout) || ferror(stdout))
		die("writing to standard output: %s", strerror(errno));
	return 0;
}

/* ---- options ------------------------------------------------------------ */

static void usage(FILE *f)
{
	fputs("Usage: tapper [OPTION]...\n"
	      "       tapper --detached-cost [--iterations N]\n"
	      "\n"
	      "Tap one uint8[BYTES] leaf from THREADS threads (thread i is device i), then\n"
	      "print one JSON line with per-device counts, the rate and the ns per tap.\n"
	      "\n"
	      "  -b, --bytes N          payload bytes per tap (default 64); K, M suffixes\n"
	      "                         mean KiB, MiB\n"
	      "  -t, --threads T        tapping threads (default 1, at most 256)\n"
	      "  -s, --seconds S        tap for S seconds (default 1)\n"
	      "  -n, --count N          tap exactly N times per thread instead\n"
	      "  -r, --rate R           at most R taps/s per thread (default: flat out)\n"
	      "  -w, --wait-attached S  first wait up to S seconds for a tracer\n"
	      "      --go-fd FD         then wait for a byte (or end of file) on FD: the\n"
	      "                         tracer's word that its probe is fully attached\n"
	      "      --detached-cost    ns per detached tap vs an empty call\n"
	      "      --iterations N     iterations for --detached-cost (default 200M)\n"
	      "  -h, --help             this help\n", f);
}

static uint64_t parse_size(const char *name, const char *s)
{
	uint64_t v;

	if (parse_size_arg(s, &v)) {
		fprintf(stderr, "tapper: invalid %s '%s'\n", name, s);
		exit(2);
	}
	return v;
}

static double parse_double(const char *name, const char *s)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end || !(v >= 0) || v > 1e12) {
		fprintf(stderr, "tapper: invalid %s '%s'\n", name, s);
		exit(2);
	}
	return v;
}

enum { OPT_DETACHED_COST = 256, OPT_ITERATIONS, OPT_GO_FD };

/* One option: 0 to go on, else 1 + the exit code (2 a usage error, said;
 * 0 after --help). */
static int parse_opt(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'b':
		opt.bytes = parse_size("byte count", arg);
		return 0;
	case 't':
		v = parse_size("thread count", arg);
		if (v < 1 || v > MAX_THREADS) {
			fprintf(stderr, "tapper: invalid thread count '%s': expected 1 to %d\n",
				arg, MAX_THREADS);
			return 1 + 2;
		}
		opt.threads = (unsigned int)v;
		return 0;
	case 's':
		opt.seconds = parse_double("duration", arg);
		return 0;
	case 'n':
		opt.count = parse_size("count", arg);
		opt.counted = 1;
		return 0;
	case 'r':
		opt.rate = parse_double("rate", arg);
		return 0;
	case 'w':
		opt.wait_attached = parse_double("wait", arg);
		return 0;
	case OPT_GO_FD:
		v = parse_size("file descriptor", arg);
		if (v > INT_MAX) {
			fprintf(stderr, "tapper: invalid file descriptor '%s'\n", arg);
			return 1 + 2;
		}
		opt.go_fd = (int)v;
		return 0;
	case OPT_DETACHED_COST:
		opt.detached_cost = 1;
		return 0;
	case OPT_ITERATIONS:
		opt.iterations = parse_size("iteration count", arg);
		return 0;
	case 'h':
		usage(stdout);
		return 1 + 0;
	default:
		usage(stderr);
		return 1 + 2;
	}
}

int main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "bytes", required_argument, NULL, 'b' },
		{ "threads", required_argument, NULL, 't' },
		{ "seconds", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "rate", required_argument, NULL, 'r' },
		{ "wait-attached", required_argument, NULL, 'w' },
		{ "go-fd", required_argument, NULL, OPT_GO_FD },
		{ "detached-cost", no_argument, NULL, OPT_DETACHED_COST },
		{ "iterations", required_argument, NULL, OPT_ITERATIONS },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct hcbtap_leaf leaf = { HCBTAP_UINT8, 1, { 0 } };
	struct sigaction sa = { .sa_handler = on_signal };
	int c, err;

	while ((c = getopt_long(argc, argv, "b:t:s:n:r:w:h", longopts, NULL)) != -1)
		if ((err = parse_opt(c, optarg)))
			return err - 1;
	if (optind < argc) {
		fprintf(stderr, "tapper: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return 2;
	}

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* sleeps of the rate limiter end on time */
	prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

	leaf.dims[0] = opt.bytes;
	err = hcbtap_register("tapper", (const char *const[]){ "what", "bench", NULL }, "*",
			      &leaf, 1, &consumer_id);
	if (err)
		die("cannot register the tap site: %s", strerror(-err));
	return opt.detached_cost ? detached_cost_mode() : emit_mode();
}
