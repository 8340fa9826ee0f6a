/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "decode.h"
#include "idprint.h"
#include "live.h"
#include "outfeed.h"
#include "recfile.h"
#include "target.h"
#include "trace_impl.h"

volatile sig_atomic_t trace_exiting;

static void on_signal(int sig)
{
	(void)sig;
	trace_exiting = 1;
}

void trace_install_signals(void)
{
	struct sigaction sa = { .sa_handler = on_signal };   /* no SA_RESTART: poll wakes */

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed stdout shows up as EPIPE on write, reported as an error */
	signal(SIGPIPE, SIG_IGN);
}

void trace_opts_init(struct trace_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ring_bytes = 64ull << 20;
	o->print = (struct hcb_print_opts)HCB_PRINT_OPTS_IDPRINT;
}

int trace_opt(const struct cli_cmd *cmd, struct trace_opts *o, int c, const char *arg)
{
	unsigned long long v;
	char *end;
	int code = filter_opt(cmd, &o->filter, c, arg);

	if (code == 1)
		code = print_flag(cmd, &o->print, c, arg);
	if (code != 1)
		return code;
	switch (c) {
	case 'c':
		if (cli_parse_u64(cmd, "count", arg, ~0ull, &v))
			return EXIT_USAGE;
		if (v == 0)
			return cli_usage_err(cmd, "invalid count '0': expected at least 1");
		o->count = v;
		return 0;
	case 'd':
		errno = 0;
		o->duration = strtod(arg, &end);
		if (errno || end == arg || *end || !(o->duration > 0) || o->duration > 1e9)
			return cli_usage_err(cmd, "invalid duration '%s': expected seconds, such as 10 or 0.5", arg);
		return 0;
	case 'f':
		if (!strcmp(arg, "text"))
			o->format = FORMAT_TEXT;
		else if (!strcmp(arg, "jsonl"))
			o->format = FORMAT_JSONL;
		else
			return cli_usage_err(cmd, "unknown format '%s': expected text or jsonl", arg);
		return 0;
	case 'b':
		if (cli_parse_u64(cmd, "buffer size", arg, 4096, &v))
			return EXIT_USAGE;
		if (v == 0 || (v & (v - 1)))
			return cli_usage_err(cmd, "invalid buffer size '%s': expected a power of two from 1 to 4096 (MiB)", arg);
		o->ring_bytes = v << 20;
		return 0;
	case 'q':
		o->quiet = 1;
		return 0;
	default:
		return 1;
	}
}

uint64_t trace_clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

int trace_write_record(struct trace *t, const struct hcb_record *rec)
{
	int err = t->write_err ? t->write_err : hcb_writer_write(t->w, rec);

	if (err && err != -ENOMEM)
		t->write_err = err;
	return err;
}

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	struct trace *t = ctx;
	struct hcb_record rec = { .kind = HCB_REC_TAP, .tap = *p };
	int err;

	if (t->done)
		return 0;
	err = trace_account(t, p->device, p->seq);
	if (err)
		return err;
	if (!filter_match(&t->o->filter, p))
		return 0;
	rec.tap.ts_ns = p->ts_ns + t->mono_to_real;
	err = trace_write_record(t, &rec);
	if (err)
		return err;
	t->printed++;
	trace_count_written(t, p->device);
	if (t->o->count && t->printed >= t->o->count)
		t->done = 1;
	return 0;
}

static int read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct trace *t = ctx;

	return hcb_target_read(t->pid, addr, buf, len);
}

static void on_warn(void *ctx, enum hcb_decode_problem what, uint32_t device,
		    uint32_t consumer_id, const char *detail)
{
	struct trace *t = ctx;

	(void)device;
	(void)consumer_id;
	/* a broken stream must not flood the terminal: the summary counts all */
	if (++t->warnings[what] <= 3)
		cli_warn("%s", detail);
	else if (t->warnings[what] == 4)
		cli_warn("more '%s' problems; the summary counts them", hcb_decode_problem_name(what));
}

static const struct hcb_decoder_ops decoder_ops = {
	.packet = on_packet,
	.read_target = read_target,
	.warn = on_warn,
};

const struct hcb_decoder_ops *trace_decoder_ops(void)
{
	return &decoder_ops;
}

const struct hcb_stream_stats *trace_stream_stats(struct trace *t, uint32_t d)
{
	return t->xdec ? hcb_outfeed_stats(t->xdec, d) : hcb_decoder_stats(t->dec, d);
}

int trace_new(struct trace **out, const struct trace_opts *o)
{
	struct trace *t = calloc(1, sizeof(*t));
	int err;

	if (!t) {
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	t->o = o;
	strcpy(t->platform, "cpu");
	if (o->output) {
		t->wname = o->output;
		err = hcb_writer_open(&t->w, o->output, HCB_FMT_UNKNOWN);
		if (err) {
			free(t);
			if (err == -EPROTONOSUPPORT)
				cli_err("'%s': unknown recording format: name it .jsonl or .hcbcap", o->output);
			else
				cli_err("cannot create '%s': %s", o->output, strerror(-err));
			return err == -EPROTONOSUPPORT ? EXIT_USAGE : EXIT_FAIL;
		}
	} else {
		t->wname = "standard output";
		err = hcb_writer_open_fd(&t->w, STDOUT_FILENO,
					 o->format == FORMAT_JSONL ? HCB_FMT_JSONL : HCB_FMT_TEXT);
		if (err) {
			free(t);
			cli_err("out of memory");
			return EXIT_FAIL;
		}
		hcb_writer_set_print_opts(t->w, &o->print);
	}
	t->mono_to_real = trace_clock_ns(CLOCK_REALTIME) - trace_clock_ns(CLOCK_MONOTONIC);
	err = hcb_decoder_new(&t->dec, &decoder_ops, t);
	if (err) {
		trace_free(t);
		cli_err("out of memory");
		return EXIT_FAIL;
	}
	hcb_live_quiet_libbpf();
	err = hcb_live_new(&t->live, o->ring_bytes, t->dec);
	if (err) {
		trace_free(t);
		if (err == -EPERM || err == -EACCES) {
			cli_err("not enough privilege to load BPF programs: run as root, or with "
				"CAP_BPF, CAP_PERFMON and CAP_SYS_ADMIN (plus CAP_SYS_PTRACE for "
				"other users' processes)");
			return EXIT_SYSTEM;
		}
		if (err == -ENOSYS || err == -EOPNOTSUPP) {
			cli_err("this kernel cannot run BPF programs (bpf(): %s): hcbtrace needs "
				"a kernel with CONFIG_BPF_SYSCALL and uprobes", strerror(-err));
			return EXIT_SYSTEM;
		}
		if (err == -ENOMEM || err == -E2BIG) {
			cli_err("cannot create a %llu MiB ring buffer (%s): try a smaller --buffer-size",
				(unsigned long long)(o->ring_bytes >> 20), strerror(-err));
			return EXIT_SYSTEM;
		}
		cli_err("cannot load the BPF program: %s (set HCBTRACE_DEBUG=1 for libbpf's log)",
			strerror(-err));
		return EXIT_SYSTEM;
	}
	*out = t;
	return EXIT_OK;
}

int trace_attach(struct trace *t, pid_t pid)
{
	struct hcb_wire_registry root;
	char lib[4096];
	uint64_t base;
	int err;

	t->pid = pid;
	if (hcb_target_comm(pid, t->comm, sizeof(t->comm)) || !t->comm[0])
		snprintf(t->comm, sizeof(t->comm), "?");
	err = hcb_target_find_lib(pid, lib, sizeof(lib), &base);
	if (err == -ESRCH) {
		cli_err("no process with pid %d", (int)pid);
		return EXIT_TARGET;
	}
	if (err == -EACCES || err == -EPERM) {
		cli_err("cannot read the memory map of process %d: not enough privilege "
			"(run as root, or as its owner with CAP_SYS_ADMIN and CAP_BPF)", (int)pid);
		return EXIT_SYSTEM;
	}
	if (err == -ENOENT) {
		int code = trace_attach_outfeed(t, pid);

		if (code >= 0)
			return code;
		cli_err("process %d (%s) has no libhcbtap loaded: nothing to attach to; "
			"programs emit taps by linking libhcbtap (see hcbtap.h)", (int)pid, t->comm);
		return EXIT_TARGET;
	}
	if (err) {
		cli_err("cannot inspect process %d: %s", (int)pid, strerror(-err));
		return EXIT_TARGET;
	}
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) != 0) {
		cli_err("this kernel has no uprobes (/sys/bus/event_source/devices/uprobe is "
			"missing): hcbtrace needs CONFIG_UPROBE_EVENTS");
		return EXIT_SYSTEM;
	}
	err = hcb_live_attach(t->live, pid, lib);
	if (err) {
		if (err == -EPERM || err == -EACCES) {
			cli_err("not enough privilege to attach to process %d: run as root, or with "
				"CAP_SYS_ADMIN and CAP_BPF (plus CAP_SYS_PTRACE for other users' processes)",
				(int)pid);
			return EXIT_SYSTEM;
		}
		if (err == -ESRCH) {
			cli_err("process %d exited before hcbtrace could attach", (int)pid);
			return EXIT_TARGET;
		}
		cli_err("cannot attach to the hcbtap:packet probe of %s in process %d: %s",
			lib, (int)pid, strerror(-err));
		return EXIT_TARGET;
	}
	/* the platform only names devices; an old or odd registry keeps "cpu" */
	if (hcb_target_read_registry(pid, lib, base, &root, NULL) == 0 && root.platform[0])
		snprintf(t->platform, sizeof(t->platform), "%s", root.platform);
	/*
	 * Read after the probe is in place: every packet issued from here on
	 * reaches this session, sent or counted lost.  That is where its
	 * accounting and its barriers start.
	 */
	if (hcb_target_registry_addr(lib, base, &t->reg_addr) == 0) {
		uint64_t issued[HCB_MAX_DEVICES];

		if (hcb_target_read_issued(pid, t->reg_addr, issued) == 0) {
			for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++)
				t->acct[d].base = issued[d];
		} else {
			t->reg_addr = 0;
		}
	}
	return EXIT_OK;
}

static int proc_alive(void *ctx)
{
	return hcb_target_alive(*(pid_t *)ctx);
}

/* What this session knows of one device. */
struct device_figures {
	uint64_t taps, bytes, gaps;
	uint64_t dropped;     /* packets known lost: what its drop records add up to */
	uint64_t bad;         /* malformed or incomplete (decoder problems) */
};

/* 0 and *f for a device that sent or lost anything, -ENOENT otherwise. */
static int device_figures(struct trace *t, uint32_t d, struct device_figures *f)
{
	const struct hcb_stream_stats *s = trace_stream_stats(t, d);

	if (!s && !t->acct[d].dropped)
		return -ENOENT;
	*f = (struct device_figures){ .dropped = t->acct[d].dropped };
	if (s) {
		f->taps = s->packets;
		f->bytes = s->bytes;
		f->gaps = hcb_stream_gaps(s);
		for (int i = 0; i < HCB_DECODE_PROBLEMS; i++)
			f->bad += s->problems[i];
	}
	return 0;
}

static void summary(struct trace *t, const char *why)
{
	uint64_t taps = 0, bytes = 0, lost = 0, devices = 0;
	struct hcb_buf line = HCB_BUF_INIT;
	struct device_figures f;

	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		if (device_figures(t, d, &f))
			continue;
		devices++;
		taps += f.taps;
		bytes += f.bytes;
		lost += f.dropped;
		hcb_idprint_device(&line, t->platform, d);
		fprintf(stderr, "  %-10s %10llu taps %14llu bytes %8llu dropped %8llu gaps %8llu bad\n",
			hcb_buf_str(&line), (unsigned long long)f.taps, (unsigned long long)f.bytes,
			(unsigned long long)f.dropped, (unsigned long long)f.gaps,
			(unsigned long long)f.bad);
		hcb_buf_reset(&line);
	}
	fprintf(stderr, "hcbtrace: %s: %llu taps (%llu bytes) from %llu device%s of process %d (%s), "
		"%llu written, %llu lost\n", why, (unsigned long long)taps, (unsigned long long)bytes,
		(unsigned long long)devices, devices == 1 ? "" : "s", (int)t->pid, t->comm,
		(unsigned long long)t->printed, (unsigned long long)lost);
	hcb_buf_free(&line);
}

/* A legacy outfeed session knows losses only as broken packets, per device. */
static int write_outfeed_losses(struct trace *t)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		const struct hcb_stream_stats *s = hcb_outfeed_stats(t->xdec, d);
		struct hcb_record rec = { .kind = HCB_REC_DROP };
		uint64_t n = 0;
		int err;

		for (int i = 0; s && i < HCB_DECODE_PROBLEMS; i++)
			n += s->problems[i];
		if (!n)
			continue;
		t->acct[d].dropped += n;
		rec.drop.device = d;
		rec.drop.count = n;
		snprintf(rec.drop.reason, sizeof(rec.drop.reason),
			 "outfeed leaves lost or malformed (see the warnings)");
		err = trace_write_record(t, &rec);
		if (err)
			return err;
	}
	return 0;
}

/* The tail of the recording: the losses no later packet revealed, a barrier
 * still owed if it can be answered, and the end. */
static void write_tail(struct trace *t)
{
	struct hcb_record rec = { .kind = HCB_REC_END };
	struct device_figures f;

	/* after -c the session stopped looking: what came later is not lost */
	if (!t->done && !t->xdec && (trace_account_all(t) || trace_serve_barrier_final(t)))
		return;
	if (!t->done && t->xdec && write_outfeed_losses(t))
		return;
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		if (device_figures(t, d, &f))
			continue;
		rec.end.taps += f.taps;
		rec.end.drops += f.dropped;
	}
	rec.end.end_ns = trace_clock_ns(CLOCK_REALTIME);
	trace_write_record(t, &rec);
}

/* Wait up to timeout_ms for records or a barrier request, and take them. */
static int poll_once(struct trace *t, int timeout_ms)
{
	struct pollfd fds[2] = {
		{ .fd = hcb_live_fd(t->live), .events = POLLIN },
		{ .fd = t->sess ? hcb_sess_wake_fd(t->sess) : -1, .events = POLLIN },
	};
	int n;

	if (poll(fds, 2, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	n = hcb_live_poll(t->live, 0);
	if (n < 0)
		return n;
	/* a legacy packet ends with the next header, or when its device goes
	 * quiet: its leaves come back to back */
	if (t->xdec) {
		n = hcb_outfeed_flush_idle(t->xdec, trace_clock_ns(CLOCK_MONOTONIC), 20000000);
		if (n < 0)
			return n;
	}
	return trace_serve_barrier(t);
}

/*
 * After the detach: a probe that fired just before may still be copying.
 * Everything it reserves is below the ring's written position, so read up
 * to there (and let a packet still being copied finish) before calling
 * anything lost or incomplete.
 */
static int drain_after_detach(struct trace *t)
{
	uint64_t mark = hcb_live_ring_written(t->live);
	int err = hcb_live_drain(t->live);

	for (int i = 0; !err && i < 200; i++) {
		if (hcb_live_ring_read(t->live) >= mark && !hcb_decoder_pending(t->dec))
			break;
		usleep(1000);
		err = hcb_live_drain(t->live);
		mark = hcb_live_ring_written(t->live);
	}
	return err;
}

/* Said once: a part of the session that this kernel cannot give it. */
static void warn_exec_unwatched(struct trace *t)
{
	int err = hcb_live_exec_watch(t->live);

	if (!err)
		return;
	cli_warn("cannot watch process %d for exec'ing a new program (%s): such an exec will "
		 "show only as the end of its taps", (int)t->pid,
		 err == -ENOENT ? "the kernel has no BTF at /sys/kernel/btf/vmlinux" : strerror(-err));
}

int trace_run(struct trace *t, int (*alive)(void *ctx), void *ctx)
{
	uint64_t deadline = 0;
	const char *why = "interrupted";
	int err = 0, code = EXIT_OK;

	if (!alive) {
		alive = proc_alive;
		ctx = &t->pid;
	}
	if (t->o->duration > 0)
		deadline = trace_clock_ns(CLOCK_MONOTONIC) + (uint64_t)(t->o->duration * 1e9);
	{
		struct hcb_record rec = { .kind = HCB_REC_SESSION };

		rec.session.version = 1;
		rec.session.pid = t->pid;
		snprintf(rec.session.provider, sizeof(rec.session.provider), "hcbtap");
		snprintf(rec.session.platform, sizeof(rec.session.platform), "%s", t->platform);
		rec.session.start_ns = trace_clock_ns(CLOCK_REALTIME);
		err = trace_write_record(t, &rec);
	}
	warn_exec_unwatched(t);
	/* every session shows in `hcbtrace list`, from the moment its probes
	 * are in place; a barrier needs libhcbtap's counters, and refuses a
	 * target without them before it looks for sessions */
	if (!err)
		trace_publish(t);
	while (!err && !trace_exiting && !t->done) {
		/* a barrier waiting on packets in flight looks again soon */
		err = poll_once(t, trace_barrier_pending(t) ? 1 : 100);
		if (err < 0)
			break;
		err = 0;
		if (hcb_live_exec_seen(t->live)) {
			why = "target exec'd a new program (attach again to trace it)";
			break;
		}
		if (deadline && trace_clock_ns(CLOCK_MONOTONIC) >= deadline) {
			why = "duration reached";
			break;
		}
		if (!alive(ctx)) {
			why = "target exited";
			break;
		}
	}
	if (t->done)
		why = "count reached";
	/* detach first, so the target's semaphore drops, then take what was copied */
	hcb_live_detach(t->live);
	if (!err)
		err = drain_after_detach(t);
	/* after an output failure the decoding stopped mid-stream: what it
	 * left pending is not the target's fault, so no warnings about it */
	if (!t->write_err) {
		hcb_decoder_finish(t->dec);
		if (t->xdec) {
			int xerr = hcb_outfeed_finish(t->xdec);

			if (!err && xerr < 0)
				err = xerr;
		}
	}
	if (!err)
		write_tail(t);
	if (!t->write_err) {
		int cerr = hcb_writer_close(t->w);

		t->w = NULL;
		if (cerr)
			t->write_err = cerr;
	}
	trace_unpublish(t);
	if (err == -ENOMEM) {
		cli_err("out of memory");
		why = "failed";
		code = EXIT_FAIL;
	} else if (t->write_err) {
		cli_err("writing to %s: %s", t->wname, strerror(-t->write_err));
		why = "output failed";
		code = EXIT_FAIL;
	} else if (err < 0) {
		cli_err("reading the ring buffer: %s", strerror(-err));
		why = "failed";
		code = EXIT_FAIL;
	}
	if (!t->o->quiet) {
		filter_warn_unmatched(&t->o->filter, t->xdec ? hcb_outfeed_registry(t->xdec) :
				      hcb_decoder_registry(t->dec));
		summary(t, why);
	}
	return code;
}

int trace_exec_seen(struct trace *t)
{
	return hcb_live_exec_seen(t->live);
}

void trace_free(struct trace *t)
{
	if (!t)
		return;
	hcb_sess_close(t->sess);
	hcb_live_close(t->live);
	hcb_outfeed_free(t->xdec);
	hcb_decoder_free(t->dec);
	hcb_writer_close(t->w);
	free(t);
}
