/* SPDX-License-Identifier: MIT */
/*
 * capture_bench.h - what the files of bench/capture_bench share: its
 * options, one run of the tapper under the capture engine, the results per
 * size.  capture_bench.c: options and main; bench_common.c: the options'
 * values, messages, the CPU; bench_measure.c: the runs, the
 * memcpy baseline, the detached tap; bench_report.c: the table and JSON.
 */
#ifndef HCB_CAPTURE_BENCH_H
#define HCB_CAPTURE_BENCH_H

#include <signal.h>
#include <stdint.h>

#define MAX_SIZES 16

struct bench_opts {
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
};

extern struct bench_opts opt;
extern volatile sig_atomic_t exiting;

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

struct detached {
	double tap_ns, call_ns, loop_ns;
};

/* "capture_bench: MSG" on stderr */
void note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
uint64_t clock_ns(void);
int pin_to(int cpu);
void size_label(uint64_t bytes, char *buf, size_t size);

/* bench_measure.c */
int measure_size(struct size_result *sr);
double memcpy_MB_per_s(uint64_t bytes, unsigned char *ring, uint64_t ring_bytes);
int measure_detached(struct detached *d);

/* bench_report.c */
double run_taps_per_s(const struct run *r);
void print_table(const struct size_result *res, const struct detached *d);
int print_json(const struct size_result *res, const struct detached *d);

#endif
