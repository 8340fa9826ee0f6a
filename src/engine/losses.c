/* SPDX-License-Identifier: MIT */
/* losses.c - a slot's losses (losses.h). */
#include <errno.h>
#include <stdio.h>

#include "capture_impl.h"
#include "devices.h"
#include "losses.h"
#include "out.h"
#include "publish.h"

/* What the counters say device d of the slot lost so far, by cause. */
static void loss_seen(void *ctx, uint32_t d, struct hcb_loss_seen *out)
{
	struct hcb_slot *s = ctx;
	const struct hcb_stream_stats *st = s->prov->stats(s->state, d);
	struct hcb_dev_stats b = { 0 };

	hcb_probes_dev_stats(s->probes, d, &b);
	out->n[HCB_LOSS_RING] = b.drops;
	out->n[HCB_LOSS_UNREADABLE] = b.read_errors;
	out->n[HCB_LOSS_LAG] = b.lag_drops;
	out->n[HCB_LOSS_NO_MEMORY] = b.no_memory;
	out->n[HCB_LOSS_MALFORMED] = 0;
	for (int i = 0; st && i < HCB_DECODE_PROBLEMS; i++)
		out->n[HCB_LOSS_MALFORMED] += st->problems[i];
	/* what the emitter itself said it lost (a reason it did not name is
	 * no known cause: left to "not delivered") */
	out->n[HCB_LOSS_STAGING] = st ? st->lost[HCB_LOST_NO_STAGING] : 0;
	out->n[HCB_LOSS_DEVICE_COPY] = st ? st->lost[HCB_LOST_DEVICE_ERROR] : 0;
	out->n[HCB_LOSS_NO_RUNTIME] = st ? st->lost[HCB_LOST_NO_RUNTIME] : 0;
}

/* What the probe counted firing on device d of the slot, sent or lost:
 * its own counts, whatever seqs the target gave (hcbtap's handled is the
 * highest seq, the target's word).  A sent packet whose bytes could not
 * all be read counts twice: an upper bound, as the cap needs. */
static uint64_t fired(void *ctx, uint32_t d)
{
	struct hcb_slot *s = ctx;
	struct hcb_dev_stats b = { 0 };

	if (hcb_probes_dev_stats(s->probes, d, &b))
		return 0;
	return b.packets + b.drops + b.read_errors + b.lag_drops + b.no_memory;
}

/* Losses told by a seq past what the probe handled: a decoder problem of
 * device d each (the summary counts them as bad), never drops. */
static void tell_lies(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d,
		      uint64_t lies_before)
{
	const struct hcb_acct_dev *v = &s->acct.dev[d];
	struct hcb_warning w = { .kind = HCB_WARN_DECODE, .problem = HCB_BAD_RECORD,
				 .device = hcb_devices_id(s, d) };
	char detail[192];

	if (v->lies == lies_before)
		return;
	snprintf(detail, sizeof(detail), "device %u: a seq past what the probe handled (through "
		 "seq %llu, %llu more than it counted firing): not counted as lost", w.device,
		 (unsigned long long)hcb_acct_next(&s->acct, d),
		 (unsigned long long)v->lied);
	w.detail = detail;
	hcb_out_warn(l->out, &w);
}

/* Drop records for the losses of device d, whatever --device keeps
 * (losses.h says why). */
static int write_losses(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d,
			const struct hcb_loss *lost, unsigned int n)
{
	hcb_pub_dev(l->pub, s, d);
	for (unsigned int i = 0; i < n; i++) {
		struct hcb_record rec = { .kind = HCB_REC_DROP };
		int err;

		rec.drop.device = hcb_devices_id(s, d);
		rec.drop.count = lost[i].count;
		snprintf(rec.drop.reason, sizeof(rec.drop.reason), "%s", hcb_loss_reason(lost[i].cause));
		err = hcb_out_emit(l->out, &rec);
		if (err)
			return err;
	}
	return 0;
}

int hcb_losses_packet(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d, uint64_t seq)
{
	struct hcb_loss_source src = { loss_seen, s, fired };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	unsigned int n;
	uint64_t lies;

	/* decoders refuse such devices; should one not, the session files
	 * and the accounting have no room for it all the same */
	if (d >= HCB_MAX_DEVICES) {
		s->acct.stray++;
		return -ERANGE;
	}
	lies = s->acct.dev[d].lies;
	n = hcb_acct_packet(&s->acct, d, seq, &src, lost);
	tell_lies(l, s, d, lies);
	return write_losses(l, s, d, lost, n);
}

int hcb_losses_upto(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d, uint64_t upto)
{
	struct hcb_loss_source src = { loss_seen, s, fired };
	struct hcb_loss lost[HCB_LOSS_CAUSES];
	uint64_t lies = d < HCB_MAX_DEVICES ? s->acct.dev[d].lies : 0;
	unsigned int n = hcb_acct_upto(&s->acct, d, upto, &src, lost);

	if (d < HCB_MAX_DEVICES)
		tell_lies(l, s, d, lies);
	return n ? write_losses(l, s, d, lost, n) : 0;
}

void hcb_losses_written(const struct hcb_losses *l, struct hcb_slot *s, uint32_t d)
{
	if (d >= HCB_MAX_DEVICES)
		return;
	hcb_acct_written(&s->acct, d);
	hcb_pub_written(l->pub, s, d);
}

uint64_t hcb_losses_handled(const struct hcb_slot *s, uint32_t d)
{
	struct hcb_dev_stats b = { 0 };

	if (hcb_probes_dev_stats(s->probes, d, &b))
		return 0;
	return b.handled;
}

/* ---- the tail ---- */

/* Every device of the slot: what passed the probe and never arrived is lost. */
static int account_all(const struct hcb_losses *l, struct hcb_slot *s)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		uint64_t h = hcb_losses_handled(s, d);
		int err;

		if (!h)
			continue;
		err = hcb_losses_upto(l, s, d, h);
		if (err)
			return err;
	}
	return 0;
}

/* Where packets are not numbered as the probe counts them, losses are
 * known only as the decoder's problems, per device. */
static int problems_as_losses(const struct hcb_losses *l, struct hcb_slot *s)
{
	for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
		struct hcb_loss_seen seen;
		struct hcb_loss lost = { HCB_LOSS_MALFORMED, 0 };
		int err;

		loss_seen(s, d, &seen);
		lost.count = seen.n[HCB_LOSS_MALFORMED];
		if (!lost.count)
			continue;
		s->acct.dev[d].dropped += lost.count;
		err = write_losses(l, s, d, &lost, 1);
		if (err)
			return err;
	}
	return 0;
}

/* Where the calls of devices past the slots go. */
struct over_out {
	const struct hcb_losses *l;
	uint64_t written;
};

/* The calls of device id lost for want of a slot: a drop record of its
 * own reason, on the device's id. */
static int write_over(void *ctx, uint32_t id, uint64_t lost)
{
	struct over_out *o = ctx;
	struct hcb_record rec = { .kind = HCB_REC_DROP };
	int err;

	if (!lost)
		return 0;
	rec.drop.device = id;
	rec.drop.count = lost;
	snprintf(rec.drop.reason, sizeof(rec.drop.reason), "%s",
		 hcb_loss_reason(HCB_LOSS_TOO_MANY_DEVICES));
	err = hcb_out_emit(o->l->out, &rec);
	if (!err)
		o->written += lost;
	return err;
}

int hcb_losses_tail(const struct hcb_losses *l, struct hcb_slots *slots, uint64_t *unplaced)
{
	struct over_out o = { l, 0 };

	for (unsigned int i = 0; i < slots->n; i++) {
		struct hcb_slot *s = &slots->at[i];
		int err = s->prov->flags & HCB_PROV_SEQ ? account_all(l, s) : problems_as_losses(l, s);

		if (!err && (s->prov->flags & HCB_PROV_DEVIDS))
			err = hcb_probes_over_ids(s->probes, write_over, &o);
		*unplaced += o.written;
		o.written = 0;
		if (err)
			return err;
	}
	return 0;
}

/* One of the devices past the slots, into *(uint32_t *)ctx: the walk
 * stops there. */
static int first_over(void *ctx, uint32_t id, uint64_t lost)
{
	(void)lost;
	*(uint32_t *)ctx = id;
	return -EEXIST;   /* one is enough */
}

/* Slot s's calls of devices past its slots, said once. */
static void tell_over(const struct hcb_losses *l, struct hcb_slot *s)
{
	struct hcb_warning w = { .kind = HCB_WARN_UNPLACED, .device = UINT32_MAX };
	char detail[256];

	hcb_probes_over_ids(s->probes, first_over, &w.device);
	snprintf(detail, sizeof(detail), "more devices than the %u a session holds: the calls of "
		 "device %u and of every other met after the first %u are not recorded, each "
		 "counted lost (\"%s\")", HCB_MAX_DEVICES, w.device, HCB_MAX_DEVICES,
		 hcb_loss_reason(HCB_LOSS_TOO_MANY_DEVICES));
	w.detail = detail;
	hcb_out_warn(l->out, &w);
}

/* Slot s's calls of no device known, said once. */
static void tell_nodev(const struct hcb_losses *l)
{
	struct hcb_warning w = { .kind = HCB_WARN_UNPLACED, .device = UINT32_MAX };

	w.detail = "calls whose device is not known (their runtime gave them none, or it could "
		   "not be read) are not recorded, counted on no device (the summary's "
		   "\"(no device)\" row)";
	hcb_out_warn(l->out, &w);
}

void hcb_losses_watch_nodev(const struct hcb_losses *l, struct hcb_slots *slots)
{
	for (unsigned int i = 0; i < slots->n; i++) {
		struct hcb_slot *s = &slots->at[i];
		uint64_t nodev[HCB_NODEV_COUNTERS];

		if (!(s->prov->flags & HCB_PROV_DEVIDS) || s->nodev_told == 3)
			continue;
		hcb_probes_nodev(s->probes, nodev);
		if (nodev[HCB_NODEV_OVER] && !(s->nodev_told & 1)) {
			s->nodev_told |= 1;
			tell_over(l, s);
		}
		if ((nodev[HCB_NODEV_UNREADABLE] || nodev[HCB_NODEV_NO_MEMORY] ||
		     nodev[HCB_NODEV_UNKNOWN]) && !(s->nodev_told & 2)) {
			s->nodev_told |= 2;
			tell_nodev(l);
		}
	}
}
