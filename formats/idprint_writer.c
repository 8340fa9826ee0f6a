/* SPDX-License-Identifier: MIT */
/*
 * idprint_writer.c - the text output of attach and replay: each tap as
 * id_print printed it (formats/text/idprint.h), one write(2) per tap.  Other
 * records print nothing but a flight recorder's trigger (one line); the
 * session record names the devices' platform.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "text/idprint.h"
#include "recfile_impl.h"

/* The fewest digits that read back as v. */
static void shortest(double v, char *buf, size_t size)
{
	for (int p = 1; p <= 17; p++) {
		snprintf(buf, size, "%.*g", p, v);
		if (strtod(buf, NULL) == v)
			return;
	}
}

/* "trigger COND: NAME on DEVICE seq N, leaf L element E: VALUE" (what a
 * name or condition holds made visible: a recording is anyone's). */
static int trigger_line(struct hcb_writer *w, struct hcb_buf *text, const struct hcb_trigger_info *t)
{
	char v[40];
	int err = hcb_buf_puts(text, "trigger ");

	err = err ? err : hcb_buf_put_visible(text, t->condition, strlen(t->condition));
	if (!err && t->seq != HCB_TRIGGER_NO_TAP) {
		err = hcb_buf_puts(text, ": ");
		err = err ? err : hcb_buf_put_visible(text, t->consumer, strlen(t->consumer));
		err = err ? err : hcb_buf_puts(text, " on ");
		err = err ? err : hcb_idprint_device(text, w->have_session ? w->session.platform : "cpu",
						     t->device);
		err = err ? err : hcb_buf_printf(text, " seq %llu", (unsigned long long)t->seq);
		if (!err && t->leaf >= 0)
			err = hcb_buf_printf(text, ", leaf %lld", (long long)t->leaf);
		if (!err && t->element >= 0)
			err = hcb_buf_printf(text, " element %lld", (long long)t->element);
		shortest(t->value, v, sizeof(v));
		err = err ? err : hcb_buf_printf(text, ": %s", v);
	}
	if (!err && t->oversize)
		err = hcb_buf_puts(text, " (a tap larger than the ring was kept alone)");
	return err ? err : hcb_buf_puts(text, "\n");
}

static int text_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct hcb_buf *text = w->state;
	int err;

	if (rec->kind == HCB_REC_TRIGGER) {
		hcb_buf_reset(text);
		err = trigger_line(w, text, &rec->trigger);
		return err ? err : hcb_write_all(w, text->data, text->len);
	}
	if (rec->kind != HCB_REC_TAP)
		return 0;
	hcb_buf_reset(text);
	if (rec->tap.text)
		/* a jax.debug.print: its header, then the line it wrote */
		err = hcb_idprint_text(text, rec->tap.consumer,
				       w->have_session ? w->session.platform : "cpu",
				       rec->tap.device, rec->tap.text, rec->tap.text_len);
	else
		err = hcb_idprint(text, rec->tap.consumer,
				  w->have_session ? w->session.platform : "cpu",
				  rec->tap.device, rec->tap.payload, &w->print);
	if (!err)
		err = hcb_write_all(w, text->data, text->len);
	return err;
}

static int text_close(struct hcb_writer *w)
{
	hcb_buf_free(w->state);
	free(w->state);
	w->state = NULL;
	return 0;
}

int hcb_text_writer_init(struct hcb_writer *w)
{
	w->state = calloc(1, sizeof(struct hcb_buf));
	if (!w->state)
		return -ENOMEM;
	w->write = text_write;
	w->close = text_close;
	return 0;
}
