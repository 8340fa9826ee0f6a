/* SPDX-License-Identifier: MIT */
/*
 * idprint_writer.c - the text output of attach and replay: each tap as
 * id_print printed it (formats/idprint.h), one write(2) per tap.  Other
 * records print nothing; the session record names the devices' platform.
 */
#include <errno.h>
#include <stdlib.h>

#include "idprint.h"
#include "recfile_impl.h"

static int text_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct hcb_buf *text = w->state;
	int err;

	if (rec->kind != HCB_REC_TAP)
		return 0;
	hcb_buf_reset(text);
	err = hcb_idprint(text, rec->tap.consumer, w->have_session ? w->session.platform : "cpu",
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
