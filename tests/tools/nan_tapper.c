/* SPDX-License-Identifier: MIT */
/*
 * nan_tapper.c - a traced program whose values go NaN at a step the test
 * chooses, for the flight recorder's end-to-end tests (tests/bats/flight.bats).
 *
 *   nan_tapper [-n DEVICES] [-k STEP] [-e EVERY] [-s STEPS] [-f FIELD] [-i US]
 *              [--done FILE] [--go FILE] [--progress FILE] [-t f32|f64|bf16]
 *
 * Each step, on each device in turn: a tap "step" (int64 scalar: the step)
 * and a tap "values" (float32[FIELD]: step + i / FIELD), whose element 3 is
 * NaN at step STEP on the last device only, so that the step that goes bad
 * is whole on every device by the time it fires; with -e, again every EVERY
 * steps after STEP (STEP + EVERY, ...).  STEPS 0: until killed.
 * --done FILE: written (the steps taken) after the last step, then the
 * program stays until killed, tapping nothing: what a test waits for.
 * --go FILE: step STEP waits for FILE to exist, so that a test can attach
 * before the values go bad.
 * -t: the values' dtype (default f32), for the probe's own checks of each.
 * --progress FILE: the step being taken, as an int64 at offset 0 of FILE
 * (shared memory, stored before the step's first tap): how far the
 * program ran past a tap, read while it is stopped.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hcbtap.h"

struct opts {
	unsigned int devices;
	long long nan_at;     /* -1: never */
	long long nan_every;  /* 0: once */
	long long steps;
	unsigned long long field;
	unsigned int interval_us;
	const char *done;
	const char *go;
	const char *progress;
	int dtype;            /* HCBTAP_FLOAT32, _FLOAT64 or _BFLOAT16 */
};

static int parse(int argc, char **argv, struct opts *o)
{
	static const struct option longopts[] = {
		{ "devices", required_argument, NULL, 'n' },
		{ "nan-at", required_argument, NULL, 'k' },
		{ "nan-every", required_argument, NULL, 'e' },
		{ "steps", required_argument, NULL, 's' },
		{ "field", required_argument, NULL, 'f' },
		{ "interval-us", required_argument, NULL, 'i' },
		{ "done", required_argument, NULL, 'd' },
		{ "go", required_argument, NULL, 'g' },
		{ "progress", required_argument, NULL, 'p' },
		{ "type", required_argument, NULL, 't' },
		{ 0 },
	};
	int c;

	*o = (struct opts){ .devices = 2, .nan_at = -1, .steps = 100, .field = 1024,
			    .interval_us = 200, .dtype = HCBTAP_FLOAT32 };
	while ((c = getopt_long(argc, argv, "n:k:e:s:f:i:d:g:p:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'n': o->devices = (unsigned int)atoi(optarg); break;
		case 'k': o->nan_at = atoll(optarg); break;
		case 'e': o->nan_every = atoll(optarg); break;
		case 's': o->steps = atoll(optarg); break;
		case 'f': o->field = strtoull(optarg, NULL, 10); break;
		case 'i': o->interval_us = (unsigned int)atoi(optarg); break;
		case 'd': o->done = optarg; break;
		case 'g': o->go = optarg; break;
		case 'p': o->progress = optarg; break;
		case 't':
			o->dtype = !strcmp(optarg, "f64") ? HCBTAP_FLOAT64 :
				   !strcmp(optarg, "bf16") ? HCBTAP_BFLOAT16 :
				   !strcmp(optarg, "f32") ? HCBTAP_FLOAT32 : -1;
			break;
		default: return -1;
		}
	}
	return o->devices && o->devices <= 64 && o->field >= 4 && o->nan_every >= 0 &&
	       o->dtype >= 0 ? 0 : -1;
}

/* --progress FILE: where the step goes, or NULL. */
static volatile int64_t *progress_map(const char *path)
{
	int fd = path ? open(path, O_RDWR | O_CREAT | O_TRUNC, 0644) : -1;
	void *m;

	if (fd < 0 || ftruncate(fd, sizeof(int64_t))) {
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	m = mmap(NULL, sizeof(int64_t), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	return m == MAP_FAILED ? NULL : m;
}

/* Element i of the values, x, as dtype. */
static void put(unsigned char *v, int dtype, uint64_t i, float x)
{
	double d = x;
	uint32_t bits;

	if (dtype == HCBTAP_FLOAT64) {
		memcpy(v + i * 8, &d, 8);
	} else if (dtype == HCBTAP_BFLOAT16) {
		memcpy(&bits, &x, 4);
		v[i * 2] = (unsigned char)(bits >> 16);
		v[i * 2 + 1] = (unsigned char)(bits >> 24);
	} else {
		memcpy(v + i * 4, &x, 4);
	}
}

/* Is step s one whose values go NaN? */
static int nan_step(const struct opts *o, long long s)
{
	if (o->nan_at < 0 || s < o->nan_at)
		return 0;
	return s == o->nan_at || (o->nan_every && (s - o->nan_at) % o->nan_every == 0);
}

int main(int argc, char **argv)
{
	struct opts o;
	struct hcbtap_leaf scalar = { HCBTAP_INT64, 0, { 0 } };
	struct hcbtap_leaf vec = { HCBTAP_FLOAT32, 1, { 0 } };
	uint32_t step_id, values_id;
	volatile int64_t *progress;
	unsigned char *v;
	long long s;

	if (parse(argc, argv, &o)) {
		fprintf(stderr, "usage: nan_tapper [-n DEVICES] [-k STEP] [-e EVERY] [-s STEPS] "
			"[-f FIELD] [-i US] [--done FILE] [--go FILE] [--progress FILE] "
			"[-t f32|f64|bf16]\n");
		return 2;
	}
	vec.dims[0] = o.field;
	vec.dtype = o.dtype;
	progress = progress_map(o.progress);
	if (o.progress && !progress) {
		perror(o.progress);
		return 1;
	}
	v = malloc(o.field * sizeof(double));
	if (!v || hcbtap_register("step", NULL, "*", &scalar, 1, &step_id) ||
	    hcbtap_register("values", NULL, "*", &vec, 1, &values_id))
		return 1;
	for (s = 0; o.steps == 0 || s < o.steps; s++) {
		while (s == o.nan_at && o.go && access(o.go, F_OK))
			usleep(1000);
		if (progress)
			*progress = s;
		for (unsigned int d = 0; d < o.devices; d++) {
			int64_t step = s;
			const void *a[1] = { &step }, *b[1] = { v };

			for (uint64_t i = 0; i < o.field; i++)
				put(v, o.dtype, i, (float)s + (float)i / (float)o.field);
			if (nan_step(&o, s) && d == o.devices - 1)
				put(v, o.dtype, 3, NAN);
			hcbtap_emit(step_id, d, a);
			hcbtap_emit(values_id, d, b);
		}
		if (o.interval_us)
			usleep(o.interval_us);
	}
	if (o.done) {
		FILE *f = fopen(o.done, "w");

		if (f) {
			fprintf(f, "%lld\n", s);
			fclose(f);
		}
		for (;;)
			pause();
	}
	free(v);
	return 0;
}
