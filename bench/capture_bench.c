/* SPDX-License-Identifier: MIT */
/*
 * capture_bench - how fast hcbtrace's capture path takes taps out of a
 * running program, next to what memcpy does on the same machine.
 *
 * For each payload size it starts bench/tapper (pinned to one CPU) as a
 * child, attaches hcbtrace's own capture engine (src/engine/capture.h, as attach
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
#include <getopt.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "engine/capture_loop.h"
#include "capture_bench.h"
#include "size_arg.h"

static void on_signal(int sig)
{
	(void)sig;
	exiting = 1;
}

/* ---- options -------------------------------------------------------------- */

enum { OPT_SIZES = 256, OPT_TAPPER_CPU, OPT_READER_CPU, OPT_ITERATIONS, OPT_DRAIN };

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
		note("invalid %s '%s'", name, s);
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
		note("invalid %s '%s': expected a number above 0, at most %g", name, s, max);
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
			note("invalid --sizes '%s': up to %d sizes from 1 B to 64 MiB", arg,
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

/* The options with a count: 0, or 2 (a usage error, said). */
static int parse_count(int c, const char *arg)
{
	uint64_t v;

	switch (c) {
	case 'n':
		if (parse_u64("step count", arg, &v) || v > 20) {
			note("--steps: expected 0 to 20");
			return 2;
		}
		opt.steps = (unsigned int)v;
		return 0;
	case 't':
		if (parse_u64("thread count", arg, &v) || v < 1 || v > 256) {
			note("--threads: expected 1 to 256");
			return 2;
		}
		opt.threads = (unsigned int)v;
		return 0;
	case 'b':
		if (parse_u64("buffer size", arg, &v) || !v || (v & (v - 1)) || v > 4096) {
			note("--buffer-size: expected a power of two from 1 to 4096 (MiB)");
			return 2;
		}
		opt.ring_bytes = v << 20;
		return 0;
	case OPT_DRAIN:
		if (parse_u64("drain interval", arg, &v) || v > 10000) {
			note("--drain-every: expected 0 to 10000 (ms)");
			return 2;
		}
		opt.drain_ms = (unsigned int)v;
		return 0;
	case OPT_ITERATIONS:
		if (parse_u64("iteration count", arg, &v) || !v)
			return 2;
		opt.detached_iterations = v;
		return 0;
	default: /* --tapper-cpu, --reader-cpu */
		if (parse_u64("CPU", arg, &v) || v >= CPU_SETSIZE)
			return 2;
		*(c == OPT_TAPPER_CPU ? &opt.tapper_cpu : &opt.reader_cpu) = (int)v;
		return 0;
	}
}

/* One option: 0, or 2 (a usage error, said). */
static int parse_opt(int c, const char *arg)
{
	switch (c) {
	case 'j':
		opt.json = 1;
		return 0;
	case 'T':
		opt.tapper = arg;
		return 0;
	case 's':
		return parse_seconds("duration", arg, &opt.seconds) ? 2 : 0;
	case 'S':
		return parse_seconds("search duration", arg, &opt.search_seconds) ? 2 : 0;
	case 'r':
		return parse_positive("rate", arg, 1e9, &opt.fixed_rate) ? 2 : 0;
	case OPT_SIZES:
		return parse_sizes(arg) ? 2 : 0;
	case 'n':
	case 't':
	case 'b':
	case OPT_TAPPER_CPU:
	case OPT_READER_CPU:
	case OPT_ITERATIONS:
	case OPT_DRAIN:
		return parse_count(c, arg);
	case 'v':
		opt.verbose = 1;
		return 0;
	case 'h':
		usage(stdout);
		exit(0);
	default:
		usage(stderr);
		return 2;
	}
}

static int parse_args(int argc, char **argv)
{
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
	int c, err;

	while ((c = getopt_long(argc, argv, "jT:s:S:n:r:t:b:vh", longopts, NULL)) != -1)
		if ((err = parse_opt(c, optarg)))
			return err;
	if (optind < argc) {
		note("unexpected argument '%s'", argv[optind]);
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

/* Every size, then memcpy at the same sizes, then the detached tap.  0 or 1. */
static int measure(struct size_result *res, struct detached *det)
{
	unsigned char *ring;

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
		note("interrupted");
		return 1;
	}
	if (!opt.json || opt.verbose)
		note("memcpy baseline");
	ring = aligned_alloc(4096, 64u << 20);
	if (!ring) {
		note("out of memory for the memcpy baseline");
		return 1;
	}
	memset(ring, 0, 64u << 20);
	for (unsigned int i = 0; i < opt.nsizes; i++)
		res[i].memcpy_MB_s = memcpy_MB_per_s(res[i].bytes, ring, 64u << 20);
	free(ring);
	if (!opt.json || opt.verbose)
		note("detached tap cost");
	return measure_detached(det) ? 1 : 0;
}

/* The options, the tapper, root, the signals, libbpf's log, the CPU.  0 or an exit code. */
static int set_up(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	if ((err = parse_args(argc, argv)))
		return err;
	if (!opt.tapper && !(opt.tapper = tapper_next_to_me())) {
		note("cannot find the tapper: give --tapper PATH");
		return 2;
	}
	if (access(opt.tapper, X_OK)) {
		note("cannot run the tapper '%s': %s", opt.tapper, strerror(errno));
		return 1;
	}
	if (geteuid() != 0) {
		note("must be run as root (BPF programs and uprobes); try: sudo %s", argv[0]);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	/* libbpf's own messages only with HCBTRACE_DEBUG, as in hcbtrace */
	hcb_capture_libbpf_log(getenv("HCBTRACE_DEBUG") ? stderr : NULL);
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2 && opt.tapper_cpu != opt.reader_cpu) {
		note("only one CPU online: the tapper and the reader share CPU 0");
		opt.tapper_cpu = opt.reader_cpu = 0;
	}
	if ((err = pin_to(opt.reader_cpu))) {
		note("cannot pin to CPU %d: %s", opt.reader_cpu, strerror(-err));
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct size_result res[MAX_SIZES] = { 0 };
	struct detached det = { 0 };
	uint64_t t0 = clock_ns();
	int err;

	if ((err = set_up(argc, argv)))
		return err;
	if (measure(res, &det))
		return 1;
	if (opt.json)
		err = print_json(res, &det);
	else
		print_table(res, &det);
	if (err || fflush(stdout) || ferror(stdout)) {
		note("writing to standard output: %s", strerror(errno ? errno : EIO));
		return 1;
	}
	if (!opt.json || opt.verbose)
		note("done in %.1f s", (double)(clock_ns() - t0) / 1e9);
	return 0;
}
