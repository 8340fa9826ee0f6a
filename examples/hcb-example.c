/* SPDX-License-Identifier: MIT */
/*
 * hcb-example - a small accelerator-style job that taps its values.
 *
 * Each of --devices threads plays one device: it fits a linear model by
 * gradient descent and diffuses a heat field (a 1-D stencil), and on every
 * step taps
 *   loss     float32 scalar                      what: loss
 *   power3   ( x, x^2 ) like host_callback's doc  what: x,x^2
 *   params   { b=float32 w=float32[4] }          what: params
 *   status   [ step:int32 converged:bool gnorm:float64 ]
 *   field    float32[--field-size] (1 Mi elements by default)
 * With --truth FILE it also writes every tap it emitted as JSONL, so tests
 * can compare what was sent with what a tracer captured.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/buf.h"
#include "core/clock.h"
#include "core/consumer.h"
#include "hcbtap.h"
#include "jsonl.h"

#define NSAMPLES 64
#define NFEAT 4

enum { C_LOSS, C_POWER3, C_PARAMS, C_STATUS, C_FIELD, NCONSUMERS };

static struct {
	unsigned int devices;
	unsigned long steps;
	unsigned int interval_ms;
	uint64_t field_size;
	const char *truth_path;
	float learning_rate;
	int report_issued;
	long fork_at, exec_at;      /* step of device 0, -1: never */
	int linger;
} opt = { 4, 10, 100, 1u << 20, NULL, 0.05f, 0, -1, -1, 0 };

static uint32_t ids[NCONSUMERS];
static struct hcb_consumer *models[NCONSUMERS];   /* for the truth file */
static FILE *truth;
static pthread_mutex_t truth_lock = PTHREAD_MUTEX_INITIALIZER;
static volatile sig_atomic_t stopping;

static void on_signal(int sig)
{
	(void)sig;
	stopping = 1;
}

static uint64_t now_ns(void)
{
	return hcb_clock_ns(CLOCK_REALTIME);
}

/* Register one site with libhcbtap, and keep the same description as a
 * consumer model for writing the truth file. */
static int add_consumer(int which, const char *name, const char *what, const char *tree,
			const struct hcbtap_leaf *leaves, unsigned int n)
{
	const char *kwargs[] = { "what", what, NULL };
	struct hcb_leaf_spec specs[8];
	struct hcb_consumer_spec spec = { name, kwargs, tree, n, specs };
	size_t len;
	void *blob;
	int err;

	err = hcbtap_register(name, kwargs, tree, leaves, n, &ids[which]);
	if (err)
		return err;
	for (unsigned int i = 0; i < n; i++) {
		specs[i].dtype = leaves[i].dtype;
		specs[i].ndim = leaves[i].ndim;
		memcpy(specs[i].dims, leaves[i].dims, sizeof(specs[i].dims));
	}
	err = hcb_reg_build(&spec, ids[which], &blob, &len);
	if (!err)
		err = hcb_consumer_from_reg(blob, len, &models[which]);
	free(blob);
	return err;
}

static int register_all(void)
{
	struct hcbtap_leaf scalar = { HCBTAP_FLOAT32, 0, { 0 } };
	struct hcbtap_leaf power3[2] = { scalar, scalar };
	struct hcbtap_leaf params[2] = { scalar, { HCBTAP_FLOAT32, 1, { NFEAT } } };
	struct hcbtap_leaf status[3] = {
		{ HCBTAP_INT32, 0, { 0 } }, { HCBTAP_BOOL, 0, { 0 } }, { HCBTAP_FLOAT64, 0, { 0 } },
	};
	struct hcbtap_leaf field = { HCBTAP_FLOAT32, 1, { opt.field_size } };
	int err;

	if ((err = add_consumer(C_LOSS, "loss", "loss", "*", &scalar, 1)) ||
	    (err = add_consumer(C_POWER3, "power3", "x,x^2", "( * * )", power3, 2)) ||
	    (err = add_consumer(C_PARAMS, "params", "params", "{ b=* w=* }", params, 2)) ||
	    (err = add_consumer(C_STATUS, "status", "status", "[ * * * ]", status, 3)) ||
	    (err = add_consumer(C_FIELD, "field", "field", "*", &field, 1)))
		return err;
	return 0;
}

/* Pack the leaves back to back, as the tracer reassembles them. */
static void write_truth(int which, unsigned int device, int64_t seq, const void *const *leaves)
{
	const struct hcb_consumer *c = models[which];
	struct hcb_buf line = HCB_BUF_INIT;
	unsigned char *payload = malloc(c->total_bytes ? c->total_bytes : 1);
	size_t off = 0;

	if (!payload) {
		fprintf(stderr, "hcb-example: out of memory writing the truth file\n");
		exit(1);
	}
	for (unsigned int i = 0; i < c->nleaves; i++) {
		memcpy(payload + off, leaves[i], c->leaves[i].nbytes);
		off += c->leaves[i].nbytes;
	}
	if (hcb_jsonl_tap(&line, c, device, seq, now_ns(), payload)) {
		fprintf(stderr, "hcb-example: out of memory writing the truth file\n");
		exit(1);
	}
	pthread_mutex_lock(&truth_lock);
	if (fwrite(line.data, 1, line.len, truth) != line.len) {
		fprintf(stderr, "hcb-example: writing %s: %s\n", opt.truth_path, strerror(errno));
		exit(1);
	}
	pthread_mutex_unlock(&truth_lock);
	hcb_buf_free(&line);
	free(payload);
}

static void tap(int which, unsigned int device, const void *const *leaves)
{
	int64_t seq = hcbtap_emit(ids[which], device, leaves);

	if (seq < 0 && seq != -ENOTCONN) {
		fprintf(stderr, "hcb-example: tap %d: %s\n", which, strerror((int)-seq));
		exit(1);
	}
	if (truth)
		write_truth(which, device, seq, leaves);
}

static uint32_t rng_next(uint64_t *s)
{
	*s = *s * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(*s >> 33);
}

static float rng_unit(uint64_t *s)
{
	return (float)rng_next(s) / 2147483648.0f - 1.0f;
}

/*
 * --fork-at: a child taps on device 0 too, as a forked worker of a traced
 * program would.  A tracer attached to the parent must not see its taps,
 * and neither process may hang or lose its own.
 */
static void fork_child(const float *loss, const float *xx, const float *x2)
{
	pid_t pid = fork();
	int status;

	if (pid == 0) {
		for (int i = 0; i < 5; i++) {
			tap(C_LOSS, 0, (const void *[]){ loss });
			tap(C_POWER3, 0, (const void *[]){ xx, x2 });
		}
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status)) {
		fprintf(stderr, "hcb-example: the forked child failed\n");
		exit(1);
	}
	fprintf(stderr, "hcb-example: forked child %d tapped and exited\n", (int)pid);
}

/* --exec-at: the process becomes a new, smaller run of this program. */
static void exec_again(void)
{
	char *argv[] = { "hcb-example", "-n", "1", "-s", "3", "-i", "10", "--field-size", "16", NULL };

	fprintf(stderr, "hcb-example: exec'ing a new image\n");
	execv("/proc/self/exe", argv);
	fprintf(stderr, "hcb-example: exec: %s\n", strerror(errno));
	exit(1);
}

/* Device dev's regression problem: samples x, targets y of hidden weights. */
static void make_problem(unsigned int dev, float x[NSAMPLES][NFEAT], float y[NSAMPLES])
{
	uint64_t rng = 0x9e3779b97f4a7c15ull ^ (dev + 1) * 0x100000001b3ull;
	float truew[NFEAT];

	for (int j = 0; j < NFEAT; j++)
		truew[j] = rng_unit(&rng) * 2;
	for (int i = 0; i < NSAMPLES; i++) {
		y[i] = 0.5f + dev;
		for (int j = 0; j < NFEAT; j++) {
			x[i][j] = rng_unit(&rng);
			y[i] += truew[j] * x[i][j];
		}
	}
}

/* One gradient descent step on w, b; the loss before it, the gradient's norm. */
static void descend(float x[NSAMPLES][NFEAT], const float y[NSAMPLES], float w[NFEAT], float *b,
		    float *loss, double *gnorm)
{
	const float lr = opt.learning_rate;
	float gw[NFEAT] = { 0 }, gb = 0;

	*loss = 0;
	*gnorm = 0;
	for (int i = 0; i < NSAMPLES; i++) {
		float err = *b - y[i];

		for (int j = 0; j < NFEAT; j++)
			err += w[j] * x[i][j];
		*loss += err * err / NSAMPLES;
		gb += 2 * err / NSAMPLES;
		for (int j = 0; j < NFEAT; j++)
			gw[j] += 2 * err * x[i][j] / NSAMPLES;
	}
	*b -= lr * gb;
	*gnorm += (double)gb * gb;
	for (int j = 0; j < NFEAT; j++) {
		w[j] -= lr * gw[j];
		*gnorm += (double)gw[j] * gw[j];
	}
	*gnorm = sqrt(*gnorm);
}

/* One step of heat diffusing along the rod: field into next. */
static void diffuse(const float *field, float *next)
{
	for (uint64_t i = 0; i < opt.field_size; i++) {
		float l = field[i ? i - 1 : i], r = field[i + 1 < opt.field_size ? i + 1 : i];

		next[i] = field[i] + 0.25f * (l - 2 * field[i] + r);
	}
}

static void *device_main(void *arg)
{
	unsigned int dev = (unsigned int)(uintptr_t)arg;
	float x[NSAMPLES][NFEAT], y[NSAMPLES], w[NFEAT] = { 0 }, b = 0;
	float *field = calloc(opt.field_size, sizeof(float));
	float *next = calloc(opt.field_size, sizeof(float));

	if (!field || !next) {
		fprintf(stderr, "hcb-example: out of memory for a field of %llu elements\n",
			(unsigned long long)opt.field_size);
		exit(1);
	}
	make_problem(dev, x, y);
	/* a hot spot per device in a cold rod */
	for (uint64_t i = 0; i < opt.field_size; i++)
		field[i] = (i % 1024 == dev) ? 100.0f : 0.0f;

	/* --exec-at counts the steps taken with a tracer attached, so that a
	 * test attaching by pid sees the exec however long its attach took */
	unsigned long traced_steps = 0;

	for (unsigned long step = 0; !stopping && (opt.steps == 0 || step < opt.steps); step++) {
		float loss, xx, x2, *t;
		double gnorm;
		int32_t istep = (int32_t)step;
		bool converged;

		descend(x, y, w, &b, &loss, &gnorm);
		converged = gnorm < 1e-3;
		diffuse(field, next);
		t = field;
		field = next;
		next = t;
		xx = (float)(step % 7) + 1.0f + (float)dev * 0.5f;
		x2 = xx * xx;

		tap(C_LOSS, dev, (const void *[]){ &loss });
		tap(C_POWER3, dev, (const void *[]){ &xx, &x2 });
		tap(C_PARAMS, dev, (const void *[]){ &b, w });
		tap(C_STATUS, dev, (const void *[]){ &istep, &converged, &gnorm });
		tap(C_FIELD, dev, (const void *[]){ field });

		if (dev == 0 && (long)step == opt.fork_at)
			fork_child(&loss, &xx, &x2);
		traced_steps += hcbtap_attached() != 0;
		if (dev == 0 && opt.exec_at >= 0 && traced_steps == (unsigned long)opt.exec_at + 1)
			exec_again();

		if (opt.interval_ms)
			usleep(opt.interval_ms * 1000u);
	}
	free(field);
	free(next);
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"Usage: hcb-example [OPTIONS]\n\n"
		"A small multi-device numeric job that taps its values through libhcbtap.\n\n"
		"Options:\n"
		"  -n, --devices N        device threads (default 4, at most %u)\n"
		"  -s, --steps N          steps per device, 0 = until killed (default 10)\n"
		"  -i, --interval-ms MS   pause after each step (default 100)\n"
		"      --field-size N     elements of the large 'field' tap (default 1048576)\n"
		"      --learning-rate X  gradient descent step (default 0.05): another value\n"
		"                         makes the taps drift from a recording of the default\n"
		"  -t, --truth FILE       also write every tap emitted as JSONL to FILE\n"
		"      --linger           after the last step, stay (tapping nothing) until\n"
		"                         stopped, like a service after its work\n"
		"      --report-issued    at exit, print how many taps each device issued\n"
		"                         (libhcbtap's own counters) to stderr\n"
		"      --fork-at STEP     device 0 forks a child that taps, at STEP\n"
		"      --exec-at STEP     device 0 execs a new run of this program after\n"
		"                         STEP+1 steps taken with a tracer attached\n"
		"  -h, --help             show this help\n", HCB_MAX_DEVICES);
}

static int parse_ulong(const char *s, const char *what, unsigned long max, unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(s, &end, 10);
	if (errno || end == s || *end || s[0] == '-' || *out > max) {
		fprintf(stderr, "hcb-example: invalid %s '%s' (0..%lu)\n", what, s, max);
		return -1;
	}
	return 0;
}

/* --learning-rate X: 0, or 2 (said) */
static int parse_rate(const char *arg)
{
	char *end;

	errno = 0;
	opt.learning_rate = strtof(arg, &end);
	if (errno || end == arg || *end || !(opt.learning_rate > 0) || opt.learning_rate > 1) {
		fprintf(stderr, "hcb-example: invalid learning rate '%s' (0..1)\n", arg);
		return 2;
	}
	return 0;
}

/* One option: 0 to go on, else 1 + the exit code (2 a usage error, said;
 * 0 after --help). */
static int parse_opt(int c, const char *arg)
{
	unsigned long v;

	switch (c) {
	case 'n':
		if (parse_ulong(arg, "device count", HCB_MAX_DEVICES, &v) || v == 0)
			return 1 + 2;
		opt.devices = (unsigned int)v;
		return 0;
	case 's':
		if (parse_ulong(arg, "step count", ~0ul, &v))
			return 1 + 2;
		opt.steps = v;
		return 0;
	case 'i':
		if (parse_ulong(arg, "interval", 3600000, &v))
			return 1 + 2;
		opt.interval_ms = (unsigned int)v;
		return 0;
	case 'F':
		if (parse_ulong(arg, "field size", 1ul << 28, &v) || v == 0)
			return 1 + 2;
		opt.field_size = v;
		return 0;
	case 't':
		opt.truth_path = arg;
		return 0;
	case 'L':
		return parse_rate(arg) ? 1 + 2 : 0;
	case 'R':
		opt.report_issued = 1;
		return 0;
	case 'G':
		opt.linger = 1;
		return 0;
	case 'K':
	case 'E':
		if (parse_ulong(arg, "step", ~0ul >> 1, &v))
			return 1 + 2;
		*(c == 'K' ? &opt.fork_at : &opt.exec_at) = (long)v;
		return 0;
	case 'h':
		usage(stdout);
		return 1 + 0;
	default:
		usage(stderr);
		return 1 + 2;
	}
}

/* The options: -1 to go on, else the exit code. */
static int parse_args(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "devices", required_argument, NULL, 'n' },
		{ "steps", required_argument, NULL, 's' },
		{ "interval-ms", required_argument, NULL, 'i' },
		{ "field-size", required_argument, NULL, 'F' },
		{ "truth", required_argument, NULL, 't' },
		{ "learning-rate", required_argument, NULL, 'L' },
		{ "report-issued", no_argument, NULL, 'R' },
		{ "linger", no_argument, NULL, 'G' },
		{ "fork-at", required_argument, NULL, 'K' },
		{ "exec-at", required_argument, NULL, 'E' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	int c, r;

	while ((c = getopt_long(argc, argv, "n:s:i:t:h", longopts, NULL)) != -1)
		if ((r = parse_opt(c, optarg)))
			return r - 1;
	if (optind < argc) {
		fprintf(stderr, "hcb-example: unexpected argument '%s'\n", argv[optind]);
		return 2;
	}
	return -1;
}

/* The device threads, each to its last step; --linger after them.  0 or 1. */
static int run_devices(void)
{
	pthread_t threads[HCB_MAX_DEVICES];

	for (unsigned int d = 0; d < opt.devices; d++)
		hcbtap_declare_device(d);
	for (unsigned int d = 0; d < opt.devices; d++)
		if (pthread_create(&threads[d], NULL, device_main, (void *)(uintptr_t)d)) {
			fprintf(stderr, "hcb-example: cannot start device thread %u\n", d);
			return 1;
		}
	for (unsigned int d = 0; d < opt.devices; d++)
		pthread_join(threads[d], NULL);
	if (opt.linger && !stopping) {
		fprintf(stderr, "hcb-example: %lu steps done on %u devices; idling until stopped\n",
			opt.steps, opt.devices);
		while (!stopping)
			usleep(50000);
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa = { .sa_handler = on_signal };
	int err;

	err = parse_args(argc, argv);
	if (err >= 0)
		return err;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	if (opt.truth_path) {
		truth = fopen(opt.truth_path, "we");
		if (!truth) {
			fprintf(stderr, "hcb-example: cannot create '%s': %s\n", opt.truth_path,
				strerror(errno));
			return 1;
		}
	}
	err = register_all();
	if (err) {
		fprintf(stderr, "hcb-example: registering taps: %s\n", strerror(-err));
		return 1;
	}
	if (run_devices())
		return 1;
	if (truth && fclose(truth)) {
		fprintf(stderr, "hcb-example: writing %s: %s\n", opt.truth_path, strerror(errno));
		return 1;
	}
	for (int i = 0; i < NCONSUMERS; i++)
		hcb_consumer_free(models[i]);
	for (unsigned int d = 0; opt.report_issued && d < opt.devices; d++)
		fprintf(stderr, "hcb-example: issued cpu:%u %lld\n", d, (long long)hcbtap_issued(d));
	return 0;
}
