/* SPDX-License-Identifier: MIT */
/*
 * capture.c - the capture engine's session life (capture.h): the slots
 * attached, what their decoders deliver, the polls, the end.  It holds
 * the engine's parts, each with its own state, and calls down into them:
 * the late libraries (late.h), the barriers (barriers.h), which build on
 * a slot's losses (losses.h), which build on the session files
 * (publish.h); every part's records and warnings go out through out.h.
 * None calls back up: what they need of the session they are handed.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "process/target.h"
#include "session/session.h"
#include "barriers.h"
#include "capture_impl.h"
#include "devices.h"
#include "late.h"
#include "losses.h"
#include "nfstop.h"
#include "out.h"
#include "publish.h"
#include "whois.h"

/* What a slot's decoder calls back with: the slot, and its session. */
struct slot_link {
	struct hcb_capture *c;
	struct hcb_slot *s;
};

struct hcb_capture {
	struct hcb_capture_opts o;
	struct hcb_slots slots;
	struct slot_link link[HCB_CAPTURE_SLOTS];   /* slot i's decoder's ctx */
	struct hcb_probes *ring;         /* made by new() for the first slot, not yet used */
	struct hcb_target_info found;    /* what the last attach found, for messages */
	uint64_t mono_to_real;           /* add to CLOCK_MONOTONIC for CLOCK_REALTIME */
	uint64_t written;                /* taps handed to the receiver */
	enum hcb_capture_stop stop;
	/* the parts, each with its own state */
	struct hcb_out out;              /* the receiver and the warner */
	struct hcb_pub pub;              /* the session files */
	struct hcb_losses losses;        /* where the slots' losses go */
	struct hcb_barriers barriers;    /* `hcbtrace barrier` served */
	struct hcb_late late;            /* libraries mapped after the attach */
	struct hcb_whois whois;          /* the session record: who, which devices */
	/* a provider that refused to read on (packet.h: refuse), and why */
	const struct hcb_slot *refused;
	char refusal[384];
};

/* ---- what a provider's decoder delivers ---- */

static int on_packet(void *ctx, const struct hcb_packet *p)
{
	struct slot_link *l = ctx;
	struct hcb_slot *s = l->s;
	struct hcb_capture *c = l->c;
	struct hcb_record rec = { .kind = HCB_REC_TAP };
	uint32_t id;
	int err;

	/* written (or passed over) before the ring's next record is read */
	hcb_probes_delivered(s->probes);
	/* after -c the session stops looking */
	if (c->stop == HCB_STOP_COUNT)
		return 0;
	err = hcb_losses_packet(&c->losses, s, p->device, p->seq);
	/* a device nothing downstream has room for: counted, never written */
	if (err == -ERANGE)
		return 0;
	if (err)
		return err;
	/* what goes out speaks the device's id, not its slot (devices.h) */
	id = hcb_devices_id(s, p->device);
	/* a device seen first: the session record says so before its tap */
	err = hcb_whois_device(&c->whois, &c->slots, s, id, &c->out);
	if (err)
		return err;
	if (c->o.filter && !hcb_filter_match(c->o.filter, id, p->consumer))
		return 0;
	/* the record's tap: its time on the records' clock (two clocks: packet.h) */
	rec.tap = (struct hcb_tap){
		.device = id, .seq = p->seq, .wall_ns = p->mono_ns + c->mono_to_real,
		.pid = p->pid, .tid = p->tid, .consumer = p->consumer, .payload = p->payload,
		.py_callable = p->py_callable, .text = p->text, .text_len = p->text_len,
	};
	err = hcb_out_emit(&c->out, &rec);
	if (err)
		return err;
	c->written++;
	hcb_losses_written(&c->losses, s, p->device);
	if (c->o.max_taps && c->written >= c->o.max_taps)
		c->stop = HCB_STOP_COUNT;
	return 0;
}

/* A registration whose chunks were lost is read from the target itself. */
static int read_target(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct slot_link *l = ctx;

	return hcb_target_read(l->s->ti.pid, addr, buf, len);
}

static void on_decode_problem(void *ctx, enum hcb_decode_problem what, uint32_t device,
			      uint32_t consumer_id, const char *detail)
{
	struct slot_link *l = ctx;
	struct hcb_warning w = { .kind = HCB_WARN_DECODE, .problem = what,
				 .device = hcb_devices_id(l->s, device),
				 .consumer_id = consumer_id, .detail = detail };

	hcb_out_warn(&l->c->out, &w);
}

/* A decoder's device (its slot) by the id its words give it. */
static uint32_t device_id(void *ctx, uint32_t device)
{
	struct slot_link *l = ctx;

	return hcb_devices_id(l->s, device);
}

static void on_copy_times(void *ctx, uint32_t device, uint64_t seq, uint64_t start_ns,
			  uint64_t end_ns)
{
	struct slot_link *l = ctx;

	hcb_out_copy_times(&l->c->out, device, seq, start_ns, end_ns, l->c->mono_to_real);
}

static void on_refuse(void *ctx, const char *why)
{
	struct slot_link *l = ctx;

	if (l->c->refused)
		return;
	l->c->refused = l->s;
	snprintf(l->c->refusal, sizeof(l->c->refusal), "%s", why);
}

static void on_notice(void *ctx, const char *what)
{
	struct slot_link *l = ctx;
	struct hcb_warning w = { .kind = HCB_WARN_NOTICE, .detail = what };

	hcb_out_warn(&l->c->out, &w);
}

static void on_info(void *ctx, const char *what)
{
	struct slot_link *l = ctx;
	struct hcb_warning w = { .kind = HCB_WARN_INFO, .detail = what };

	hcb_out_warn(&l->c->out, &w);
}

static const struct hcb_decoder_ops decoder_ops = {
	.packet = on_packet,
	.read_target = read_target,
	.warn = on_decode_problem,
	.copy_times = on_copy_times,
	.refuse = on_refuse,
	.notice = on_notice,
	.info = on_info,
	.device_id = device_id,
};

/* A ring's record, to its slot's provider (none yet: the first slot's
 * ring is made before its provider is known). */
static int on_ring_record(void *ctx, const void *data, size_t len)
{
	struct hcb_slot *s = ctx;

	return s->prov ? s->prov->feed(s->state, data, len) : 0;
}

/* ---- the session's life ---- */

static int attach_late(void *ctx, const struct hcb_target_info *ti);

int hcb_capture_new(struct hcb_capture **out, const struct hcb_capture_opts *o,
		    struct hcb_receiver rx)
{
	struct hcb_capture *c = calloc(1, sizeof(*c));
	int err;

	if (!c)
		return -ENOMEM;
	c->o = *o;
	for (unsigned int i = 0; i < HCB_CAPTURE_SLOTS; i++)
		c->link[i] = (struct slot_link){ c, &c->slots.at[i] };
	hcb_out_init(&c->out, rx, o->warn, o->device_timing, &c->slots);
	hcb_late_init(&c->late, &c->slots, attach_late, c, &c->out);
	hcb_whois_init(&c->whois, &o->ident);
	hcb_pub_init(&c->pub, &c->slots);
	c->losses = (struct hcb_losses){ &c->out, &c->pub };
	hcb_barriers_init(&c->barriers, &c->slots, &c->losses, &c->pub, &c->out);
	c->mono_to_real = hcb_clock_ns(CLOCK_REALTIME) - hcb_clock_ns(CLOCK_MONOTONIC);
	/* the first slot's ring now: privilege and memory known before a
	 * program is started */
	err = hcb_probes_new(&c->ring, o->ring_bytes, on_ring_record, &c->slots.at[0]);
	if (err) {
		free(c);
		return err;
	}
	*out = c;
	return 0;
}

/* Read after the probe is in place: every packet issued from here on
 * reaches this slot, sent or counted lost.  That is where its accounting
 * and its barriers start. */
static void account_from_now(struct hcb_slot *s)
{
	uint64_t issued[HCB_MAX_DEVICES];

	if ((s->prov->flags & HCB_PROV_ISSUED) && s->ti.counters &&
	    s->prov->issued(&s->ti, issued) == 0) {
		hcb_acct_init(&s->acct, issued, 0);
		return;
	}
	s->ti.counters = 0;   /* a barrier then goes by what passed the probe */
	hcb_acct_init(&s->acct, NULL, !!(s->prov->flags & HCB_PROV_UNORDERED));
}

/* Attach the provider ti found, in the next slot.  0 or -errno. */
/* The kernel has no sleepable uprobe programs: said once, it loses nothing
 * now but what may come to be not in memory. */
static void no_sleep_notice(struct hcb_capture *c)
{
	struct hcb_warning w = {
		.kind = HCB_WARN_NOTICE,
		.detail = "this kernel has no sleepable uprobe programs (Linux 6.0 on): a tap whose "
			  "bytes are in a page not in memory is lost, counted as \"target memory "
			  "unreadable\"",
	};

	hcb_out_warn(&c->out, &w);
}

static int attach_slot(struct hcb_capture *c, const struct hcb_target_info *ti)
{
	struct hcb_slot *s = &c->slots.at[c->slots.n];
	const struct hcb_provider *p = ti->provider;
	int err = 0;

	*s = (struct hcb_slot){ .ti = *ti };
	s->ti.without = c->o.without;
	s->ti.hold_sites = c->o.hold_sites;
	if (c->ring) {
		s->probes = c->ring;
		c->ring = NULL;
	} else {
		err = hcb_probes_new(&s->probes, c->o.ring_bytes, on_ring_record, s);
	}
	if (!err)
		hcb_probes_set_max_lag(s->probes, c->o.max_lag_ns);
	if (!err && p->prepare)
		err = p->prepare(s->probes, &s->ti);
	if (!err)
		err = hcb_probes_load(s->probes, p->programs, p->sleepable);
	if (!err)
		err = p->open(&s->state, s->probes, &s->ti, &decoder_ops, &c->link[c->slots.n]);
	if (err) {
		hcb_probes_close(s->probes);
		*s = (struct hcb_slot){ 0 };
		return err < 0 ? err : -EINVAL;
	}
	s->prov = p;
	if (hcb_probes_no_sleep(s->probes))
		no_sleep_notice(c);
	hcb_probes_watch_exec(s->probes, ti->pid);
	account_from_now(s);
	if ((p->flags & HCB_PROV_ISSUED) && !c->slots.issuer)
		c->slots.issuer = s;
	/* attached after a look found no slot waiting (a libhcbtap loaded
	 * late): it may wait for a library of its own */
	hcb_late_attached(&c->late);
	c->slots.n++;
	return 0;
}

/* A library mapped after the attach (late.h), in a slot of its own. */
static int attach_late(void *ctx, const struct hcb_target_info *ti)
{
	return attach_slot(ctx, ti);
}

static int attached(const struct hcb_capture *c, const struct hcb_provider *p)
{
	for (unsigned int i = 0; i < c->slots.n; i++)
		if (c->slots.at[i].prov == p)
			return 1;
	return 0;
}

/* Every provider that finds pid and is not attached yet.  The number
 * attached, or the first error of an attach. */
static int attach_all(struct hcb_capture *c, pid_t pid)
{
	int n = 0;

	for (size_t i = 0; hcb_providers[i] && c->slots.n < HCB_CAPTURE_SLOTS; i++) {
		struct hcb_target_info ti = { .pid = pid, .provider = hcb_providers[i] };
		int err;

		if (attached(c, ti.provider) || (c->o.providers && !(c->o.providers >> i & 1)) ||
		    ti.provider->find(pid, &ti))
			continue;
		memcpy(ti.comm, c->found.comm, sizeof(ti.comm));
		c->found = ti;
		err = attach_slot(c, &ti);
		if (err)
			return err;
		/* what the provider says of copy times while the target surely runs */
		hcb_out_timing_recheck(&c->out);
		n++;
	}
	return n;
}

int hcb_capture_attach(struct hcb_capture *c, pid_t pid)
{
	/* what there is to attach to, or the most telling reason why not */
	int n, err = hcb_provider_find(pid, c->o.providers, &c->found);

	if (err)
		return err;
	if (access("/sys/bus/event_source/devices/uprobe/type", F_OK) != 0)
		return -ENOSYS;
	n = attach_all(c, pid);
	if (n < 0)
		return n;
	/* who it is: a process gone by now ends the session on its own */
	hcb_whois_read(&c->whois, pid);
	return 0;
}

int hcb_capture_attach_more(struct hcb_capture *c)
{
	if (!c->slots.n)
		return -EINVAL;
	return attach_all(c, c->slots.at[0].ti.pid);
}

const struct hcb_identity *hcb_capture_identity(const struct hcb_capture *c)
{
	return hcb_whois_identity(&c->whois);
}

const char *hcb_capture_device_platform(const struct hcb_capture *c, uint32_t d)
{
	return c->slots.n ? hcb_whois_platform(&c->whois, &c->slots, d) : c->found.platform;
}

const struct hcb_target_info *hcb_capture_target(const struct hcb_capture *c)
{
	return c->slots.n ? &c->slots.at[0].ti : &c->found;
}

int hcb_capture_begin(struct hcb_capture *c)
{
	int err = hcb_whois_begin(&c->whois, &c->slots, &c->out);

	if (hcb_probes_exec_watch(c->slots.at[0].probes)) {
		struct hcb_warning w = { .kind = HCB_WARN_EXEC_UNWATCHED,
					 .err = hcb_probes_exec_watch(c->slots.at[0].probes) };

		hcb_out_warn(&c->out, &w);
	}
	/* every session shows in `hcbtrace list` from the moment its probes
	 * are in place; only those whose target counts what it issued serve
	 * barriers */
	if (!err && !c->o.unpublished)
		hcb_pub_open(&c->pub, c->o.what, c->o.output, c->o.flight_ring, &c->out);
	return err;
}

/* Take what every slot's ring holds, and let time pass for its decoder. */
static int take_records(struct hcb_capture *c)
{
	for (unsigned int i = 0; i < c->slots.n; i++) {
		struct hcb_slot *s = &c->slots.at[i];
		int n = hcb_probes_poll(s->probes, 0);

		if (n >= 0 && s->prov->tick)
			n = s->prov->tick(s->state, hcb_clock_ns(CLOCK_MONOTONIC));
		if (n < 0)
			return n;
		if (c->stop == HCB_STOP_NONE && hcb_probes_exec_seen(s->probes))
			c->stop = HCB_STOP_EXEC;
	}
	return 0;
}

int hcb_capture_poll(struct hcb_capture *c, int timeout_ms)
{
	struct pollfd fds[HCB_CAPTURE_SLOTS + 1];
	unsigned int n = 0;
	int err;

	for (unsigned int i = 0; i < c->slots.n; i++)
		fds[n++] = (struct pollfd){ .fd = hcb_probes_fd(c->slots.at[i].probes), .events = POLLIN };
	fds[n++] = (struct pollfd){ .fd = c->pub.sess ? hcb_sess_wake_fd(c->pub.sess) : -1,
				    .events = POLLIN };
	/* a barrier waiting on packets in flight looks again soon */
	if (hcb_barriers_pending(&c->barriers) && timeout_ms > 1)
		timeout_ms = 1;
	if (poll(fds, n, timeout_ms) < 0 && errno != EINTR)
		return -errno;
	/* a wake-up left in the FIFO would keep poll() from ever sleeping;
	 * the request itself is in the session's status */
	if (c->pub.sess && (fds[n - 1].revents & POLLIN))
		hcb_sess_drain(c->pub.sess);
	err = take_records(c);
	/* the devices this poll met first, in the record */
	if (!err)
		err = hcb_whois_flush(&c->whois, &c->slots, &c->out);
	hcb_losses_watch_nodev(&c->losses, &c->slots);
	hcb_late_look(&c->late);
	hcb_out_timing_check(&c->out);
	if (!err)
		err = hcb_out_release(&c->out, 0);
	if (!err)
		err = hcb_barriers_serve(&c->barriers, c->written, c->stop != HCB_STOP_COUNT);
	/* what this poll took goes out: a file behind by one poll at most */
	if (!err)
		err = hcb_out_flush(&c->out);
	return err;
}

unsigned int hcb_capture_fds(const struct hcb_capture *c, int *fds, unsigned int cap)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < c->slots.n && n < cap; i++)
		fds[n++] = hcb_probes_fd(c->slots.at[i].probes);
	if (c->pub.sess && n < cap)
		fds[n++] = hcb_sess_wake_fd(c->pub.sess);
	return n;
}

enum hcb_capture_stop hcb_capture_stopped(const struct hcb_capture *c)
{
	return c->stop;
}

/*
 * After the detach: a probe that fired just before may still be copying.
 * Everything it reserves is below the ring's written position, so read up
 * to there (and let a packet still being copied finish) before calling
 * anything lost or incomplete.
 */
static int drain_after_detach(struct hcb_slot *s)
{
	uint64_t mark = hcb_probes_ring_written(s->probes);
	int err = hcb_probes_drain(s->probes);

	for (int i = 0; !err && i < 200; i++) {
		if (hcb_probes_ring_read(s->probes) >= mark && !s->prov->pending(s->state))
			break;
		usleep(1000);
		err = hcb_probes_drain(s->probes);
		mark = hcb_probes_ring_written(s->probes);
	}
	return err;
}

/* The tail, rings drained: losses no packet showed, a barrier still owed
 * (if it can be answered), the end record.  Returns the receiver's error. */
static int write_tail(struct hcb_capture *c)
{
	struct hcb_record rec = { .kind = HCB_REC_END };
	struct hcb_capture_dev *rows = calloc(HCB_CAPTURE_DEVICES, sizeof(*rows));
	size_t n;
	int err = 0;

	if (!rows)
		return -ENOMEM;
	/* after -c the session stopped looking: what came later is not lost */
	if (c->stop != HCB_STOP_COUNT)
		err = hcb_losses_tail(&c->losses, &c->slots, &rec.end.drops);
	if (!err)
		err = hcb_barriers_end(&c->barriers, c->written, c->stop != HCB_STOP_COUNT);
	if (err) {
		free(rows);
		return err;
	}
	hcb_out_timing_notice(&c->out);
	n = hcb_devices_rows(&c->slots, rows, HCB_CAPTURE_DEVICES);
	for (size_t i = 0; i < n; i++) {
		rec.end.taps += rows[i].taps;
		rec.end.drops += rows[i].dropped;
	}
	free(rows);
	rec.end.end_ns = hcb_clock_ns(CLOCK_REALTIME);
	return hcb_out_emit(&c->out, &rec);
}

int hcb_capture_end(struct hcb_capture *c)
{
	int err = 0;

	/* detach first, so the target's probes go, then take what was copied */
	for (unsigned int i = 0; i < c->slots.n; i++)
		hcb_probes_detach(c->slots.at[i].probes);
	for (unsigned int i = 0; i < c->slots.n && !err; i++)
		err = drain_after_detach(&c->slots.at[i]);
	/* after an output failure the decoding stopped mid-stream: what it
	 * left pending is not the target's fault, so no warnings about it */
	for (unsigned int i = 0; i < c->slots.n && !c->out.err; i++) {
		int ferr = c->slots.at[i].prov->finish(c->slots.at[i].state);

		if (!err && ferr < 0)
			err = ferr;
	}
	if (!err)
		err = hcb_whois_flush(&c->whois, &c->slots, &c->out);
	if (!err)
		err = write_tail(c);
	hcb_pub_close(&c->pub);
	return err ? err : c->out.err;
}

int hcb_capture_receiver_error(const struct hcb_capture *c)
{
	return c->out.err;
}

const char *hcb_capture_refusal(const struct hcb_capture *c, const struct hcb_target_info **ti)
{
	if (!c->refused)
		return NULL;
	*ti = &c->refused->ti;
	return c->refusal;
}

size_t hcb_capture_devices(const struct hcb_capture *c, struct hcb_capture_dev *rows, size_t cap)
{
	return hcb_devices_rows(&c->slots, rows, cap);
}

int hcb_capture_stray(const struct hcb_capture *c, struct hcb_capture_dev *f)
{
	return hcb_devices_stray(&c->slots, f);
}

void hcb_capture_nodev(const struct hcb_capture *c, struct hcb_capture_nodev *n)
{
	hcb_devices_nodev(&c->slots, n);
}

int hcb_capture_stop_nonfinite(struct hcb_capture *c, const struct hcb_consumer *cons,
			       const struct hcb_devset *devices)
{
	return hcb_nfstop_set(&c->slots, cons, devices);
}

int hcb_capture_nfstop_arm(struct hcb_capture *c, int on)
{
	return hcb_nfstop_arm(&c->slots, on);
}

void hcb_capture_publish_firings(struct hcb_capture *c, uint64_t n)
{
	hcb_pub_firings(&c->pub, n);
}

uint64_t hcb_capture_written(const struct hcb_capture *c)
{
	return c->written;
}

const struct hcb_registry *hcb_capture_consumers(const struct hcb_capture *c, unsigned int i)
{
	return i < c->slots.n ? c->slots.at[i].prov->registry(c->slots.at[i].state) : NULL;
}

void hcb_capture_free(struct hcb_capture *c)
{
	if (!c)
		return;
	hcb_pub_free(&c->pub);
	hcb_out_free(&c->out);
	hcb_probes_close(c->ring);
	for (unsigned int i = 0; i < c->slots.n; i++) {
		hcb_probes_close(c->slots.at[i].probes);
		c->slots.at[i].prov->close(c->slots.at[i].state);
	}
	free(c);
}
