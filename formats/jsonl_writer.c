/* SPDX-License-Identifier: MIT */
/* jsonl_writer.c - records to a JSONL file, one write(2) per line. */
#include <errno.h>
#include <stdlib.h>

#include "jsonl.h"
#include "recfile_impl.h"

/* A jax.debug.print's text (len bytes, UTF-8) after a tap line's arrays:
 * "text" is the line's last member, so the line's "}\n" is put back
 * after it.  A NUL in the text ends it here, as JSON strings are read. */
static int add_text(struct hcb_buf *out, const char *text, uint32_t len)
{
	struct hcb_buf t = HCB_BUF_INIT;
	int err;

	if (out->len < 2)
		return -EINVAL;
	out->len -= 2;
	err = hcb_buf_add(&t, text, len);
	if (!err)
		err = hcb_buf_puts(out, ",\"text\":");
	if (!err)
		err = hcb_json_string(out, hcb_buf_str(&t));
	hcb_buf_free(&t);
	return err ? err : hcb_buf_puts(out, "}\n");
}

/* Formats one record as its line; shared with the JSONL text sink. */
int hcb_jsonl_record(struct hcb_buf *out, const struct hcb_record *rec)
{
	switch (rec->kind) {
	case HCB_REC_SESSION:
		return hcb_jsonl_session_info(out, &rec->session);
	case HCB_REC_TAP: {
		int err = hcb_jsonl_tap_copy(out, rec->tap.consumer, rec->tap.device,
					     rec->tap.seq == UINT64_MAX ? -1 : (int64_t)rec->tap.seq,
					     rec->tap.wall_ns, rec->tap.copy_start_ns,
					     rec->tap.copy_end_ns, rec->tap.payload);

		return err || !rec->tap.text ? err : add_text(out, rec->tap.text, rec->tap.text_len);
	}
	case HCB_REC_DROP:
		return hcb_jsonl_drop(out, rec->drop.device, rec->drop.count, rec->drop.reason);
	case HCB_REC_BARRIER:
		return hcb_jsonl_barrier(out, rec->barrier.wall_ns, rec->barrier.taps);
	case HCB_REC_END:
		return hcb_jsonl_end(out, rec->end.taps, rec->end.drops, rec->end.end_ns);
	case HCB_REC_TRIGGER:
		return hcb_jsonl_trigger(out, &rec->trigger);
	}
	return -EINVAL;
}

static int jsonl_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct hcb_buf *line = w->state;
	int err;

	hcb_buf_reset(line);
	err = hcb_jsonl_record(line, rec);
	if (!err)
		err = hcb_write_all(w, line->data, line->len);
	/* a huge tap's line is not worth keeping around */
	if (line->cap > (16u << 20))
		hcb_buf_free(line);
	return err;
}

static int jsonl_close(struct hcb_writer *w)
{
	hcb_buf_free(w->state);
	free(w->state);
	w->state = NULL;
	return 0;
}

int hcb_jsonl_writer_init(struct hcb_writer *w)
{
	w->state = calloc(1, sizeof(struct hcb_buf));
	if (!w->state)
		return -ENOMEM;
	w->write = jsonl_write;
	w->close = jsonl_close;
	return 0;
}
