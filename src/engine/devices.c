/* SPDX-License-Identifier: MIT */
/* devices.c - a session's devices by id (devices.h). */
#include <errno.h>
#include <stdlib.h>

#include "capture_impl.h"
#include "devices.h"

/* The id of slot d, read (not kept): d where the slot is the id, or the
 * probes have not handed d out (which no record of theirs names). */
static uint32_t read_id(const struct hcb_slot *s, uint32_t d)
{
	uint32_t id;

	if (!(s->prov->flags & HCB_PROV_DEVIDS) || d >= HCB_MAX_DEVICES ||
	    hcb_probes_device_id(s->probes, d, &id))
		return d;
	return id;
}

uint32_t hcb_devices_id(struct hcb_slot *s, uint32_t d)
{
	if (d >= HCB_MAX_DEVICES || !(s->prov->flags & HCB_PROV_DEVIDS))
		return d;
	if (!s->dev_id_known[d]) {
		uint32_t id;

		/* kept only once the probes have handed the slot out */
		if (hcb_probes_device_id(s->probes, d, &id))
			return d;
		s->dev_id[d] = id;
		s->dev_id_known[d] = 1;
	}
	return s->dev_id[d];
}

/* Slot d's figures added to f: 0, or -ENOENT if it never sent or lost
 * anything. */
static int add_slot(const struct hcb_slot *s, uint32_t d, struct hcb_capture_dev *f)
{
	const struct hcb_stream_stats *st = s->prov->stats(s->state, d);
	uint64_t dropped = s->acct.dev[d].dropped;

	if (!st && !dropped)
		return -ENOENT;
	f->dropped += dropped;
	if (!st)
		return 0;
	f->taps += st->packets;
	f->bytes += st->bytes;
	f->gaps += hcb_stream_gaps(st);
	for (int k = 0; k < HCB_DECODE_PROBLEMS; k++)
		f->bad += st->problems[k];
	/* seqs past what the probe handled: the accounting's problems */
	f->bad += s->acct.dev[d].lies;
	return 0;
}

/* The row of id among n (unsorted yet), or a new one if there is room;
 * NULL if not. */
static struct hcb_capture_dev *row_of(struct hcb_capture_dev *rows, size_t *n, size_t cap,
				      uint32_t id)
{
	for (size_t i = 0; i < *n; i++)
		if (rows[i].device == id)
			return &rows[i];
	if (*n >= cap)
		return NULL;
	rows[*n] = (struct hcb_capture_dev){ .device = id };
	return &rows[(*n)++];
}

static int by_id(const void *a, const void *b)
{
	uint32_t x = ((const struct hcb_capture_dev *)a)->device;
	uint32_t y = ((const struct hcb_capture_dev *)b)->device;

	return (x > y) - (x < y);
}

size_t hcb_devices_rows(const struct hcb_slots *slots, struct hcb_capture_dev *rows, size_t cap)
{
	size_t n = 0;

	for (unsigned int i = 0; i < slots->n; i++) {
		const struct hcb_slot *s = &slots->at[i];

		for (uint32_t d = 0; d < HCB_MAX_DEVICES; d++) {
			struct hcb_capture_dev f = { 0 }, *r;

			if (add_slot(s, d, &f))
				continue;
			r = row_of(rows, &n, cap, read_id(s, d));
			if (!r)
				continue;
			r->taps += f.taps;
			r->bytes += f.bytes;
			r->gaps += f.gaps;
			r->dropped += f.dropped;
			r->bad += f.bad;
		}
	}
	qsort(rows, n, sizeof(*rows), by_id);
	return n;
}

int hcb_devices_stray(const struct hcb_slots *slots, struct hcb_capture_dev *f)
{
	int any = 0;

	*f = (struct hcb_capture_dev){ .device = HCB_MAX_DEVICES };
	for (unsigned int i = 0; i < slots->n; i++) {
		const struct hcb_slot *s = &slots->at[i];
		const struct hcb_stream_stats *st = s->prov->stats(s->state, HCB_MAX_DEVICES);

		f->bad += s->acct.stray;
		if (!st && !s->acct.stray)
			continue;
		any = 1;
		if (!st)
			continue;
		f->taps += st->packets;
		f->bytes += st->bytes;
		f->gaps += hcb_stream_gaps(st);
		for (int k = 0; k < HCB_DECODE_PROBLEMS; k++)
			f->bad += st->problems[k];
	}
	return any ? 0 : -ENOENT;
}

void hcb_devices_nodev(const struct hcb_slots *slots, struct hcb_capture_nodev *n)
{
	*n = (struct hcb_capture_nodev){ 0 };
	for (unsigned int i = 0; i < slots->n; i++) {
		uint64_t c[HCB_NODEV_COUNTERS];

		hcb_probes_nodev(slots->at[i].probes, c);
		n->unreadable += c[HCB_NODEV_UNREADABLE];
		n->no_memory += c[HCB_NODEV_NO_MEMORY];
		n->unknown += c[HCB_NODEV_UNKNOWN];
		n->over += c[HCB_NODEV_OVER];
	}
}
