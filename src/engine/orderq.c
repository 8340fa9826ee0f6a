/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/wire.h"
#include "orderq.h"

struct queued {
	struct hcb_record rec;
	unsigned char *payload;          /* the tap's own copy */
	uint64_t since_ns;
	struct queued *next;             /* in arrival order */
	struct queued *dnext;            /* the next queued tap of its device */
};

struct hcb_orderq {
	struct hcb_orderq_limits lim;
	hcb_orderq_deliver_fn fn;
	void *ctx;
	struct queued *head, *tail;
	struct queued *dhead[HCB_MAX_DEVICES], *dtail[HCB_MAX_DEVICES];
	size_t n;
	uint64_t bytes;
};

struct hcb_orderq *hcb_orderq_new(const struct hcb_orderq_limits *lim, hcb_orderq_deliver_fn fn,
				  void *ctx)
{
	struct hcb_orderq *q = calloc(1, sizeof(*q));

	if (!q)
		return NULL;
	q->lim = *lim;
	q->fn = fn;
	q->ctx = ctx;
	return q;
}

void hcb_orderq_free(struct hcb_orderq *q)
{
	while (q && q->head) {
		struct queued *e = q->head;

		q->head = e->next;
		free(e->payload);
		free(e);
	}
	free(q);
}

int hcb_orderq_put(struct hcb_orderq *q, const struct hcb_record *rec, uint64_t now_ns)
{
	struct queued *e = calloc(1, sizeof(*e));
	uint64_t n = rec->kind == HCB_REC_TAP ? rec->tap.consumer->total_bytes : 0;
	/* a print's text after the payload */
	uint64_t tn = rec->kind == HCB_REC_TAP && rec->tap.text ? rec->tap.text_len : 0;
	uint32_t d = rec->kind == HCB_REC_TAP ? rec->tap.device : 0;

	if (!e || (n + tn && !(e->payload = malloc(n + tn)))) {
		free(e);
		return -ENOMEM;
	}
	e->rec = *rec;
	e->since_ns = now_ns;
	if (n) {
		memcpy(e->payload, rec->tap.payload, n);
		e->rec.tap.payload = e->payload;
	}
	if (rec->kind == HCB_REC_TAP && rec->tap.text) {
		memcpy(e->payload + n, rec->tap.text, tn);
		e->rec.tap.text = (const char *)e->payload + n;
	}
	*(q->tail ? &q->tail->next : &q->head) = e;
	q->tail = e;
	if (rec->kind == HCB_REC_TAP && d < HCB_MAX_DEVICES) {
		*(q->dtail[d] ? &q->dtail[d]->dnext : &q->dhead[d]) = e;
		q->dtail[d] = e;
	}
	q->n++;
	q->bytes += n;
	return 0;
}

/* Deliver the oldest queued record and let it go. */
static int pop(struct hcb_orderq *q)
{
	struct queued *e = q->head;
	int err;

	q->head = e->next;
	if (!q->head)
		q->tail = NULL;
	if (e->rec.kind == HCB_REC_TAP && e->rec.tap.device < HCB_MAX_DEVICES) {
		uint32_t d = e->rec.tap.device;

		q->dhead[d] = e->dnext;
		if (!q->dhead[d])
			q->dtail[d] = NULL;
	}
	if (e->rec.kind == HCB_REC_TAP)
		q->bytes -= e->rec.tap.consumer->total_bytes;
	q->n--;
	err = q->fn(q->ctx, &e->rec);
	free(e->payload);
	free(e);
	return err;
}

int hcb_orderq_flush(struct hcb_orderq *q, uint64_t now_ns, int all)
{
	int err = 0;

	while (q && q->head && !err) {
		const struct queued *e = q->head;

		if (!all && e->rec.kind == HCB_REC_TAP && !e->rec.tap.copy_end_ns &&
		    now_ns - e->since_ns < q->lim.wait_ns && q->n < q->lim.max_records &&
		    q->bytes < q->lim.max_bytes)
			break;
		err = pop(q);
	}
	return err;
}

int hcb_orderq_set_times(struct hcb_orderq *q, uint32_t device, uint64_t seq, uint64_t start_ns,
			 uint64_t end_ns)
{
	if (!q || device >= HCB_MAX_DEVICES)
		return 0;
	/* a device's taps are queued in seq order, their times come in it too */
	for (struct queued *e = q->dhead[device]; e; e = e->dnext)
		if (e->rec.tap.seq == seq) {
			e->rec.tap.copy_start_ns = start_ns;
			e->rec.tap.copy_end_ns = end_ns;
			return 1;
		}
	return 0;
}

size_t hcb_orderq_len(const struct hcb_orderq *q)
{
	return q ? q->n : 0;
}
