/* SPDX-License-Identifier: MIT */
/* bench_report.c - capture_bench's results: the table, or one JSON object. */
#include <errno.h>
#include <stdio.h>

#include <jansson.h>

#include "capture_bench.h"

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

double run_taps_per_s(const struct run *r)
{
	return r->elapsed_s > 0 ? (double)r->captured / r->elapsed_s : 0;
}

static double run_MB_per_s(const struct run *r)
{
	return r->elapsed_s > 0 ? (double)r->captured_bytes / r->elapsed_s / 1e6 : 0;
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

void print_table(const struct size_result *res, const struct detached *d)
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

int print_json(const struct size_result *res, const struct detached *d)
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

