/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "recfile_impl.h"
#include "sink.h"

int tui_sink_init(struct tui_sink *s, size_t cap_taps, uint64_t cap_bytes)
{
	int err = tui_model_init(&s->model, cap_taps, cap_bytes);

	if (err)
		return err;
	pthread_mutex_init(&s->lock, NULL);
	s->done = 0;
	s->code = 0;
	return 0;
}

void tui_sink_free(struct tui_sink *s)
{
	tui_model_free(&s->model);
	pthread_mutex_destroy(&s->lock);
}

void tui_sink_lock(struct tui_sink *s)
{
	pthread_mutex_lock(&s->lock);
}

void tui_sink_unlock(struct tui_sink *s)
{
	pthread_mutex_unlock(&s->lock);
}

int tui_sink_add(struct tui_sink *s, const struct hcb_record *rec)
{
	pthread_mutex_lock(&s->lock);
	tui_model_add(&s->model, rec);
	pthread_mutex_unlock(&s->lock);
	return 0;
}

static int sink_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	return tui_sink_add(w->state, rec);
}

static int sink_close(struct hcb_writer *w)
{
	(void)w;
	return 0;
}

int tui_sink_writer(struct tui_sink *s, struct hcb_writer **out)
{
	struct hcb_writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->write = sink_write;
	w->close = sink_close;
	w->state = s;
	w->fd = -1;
	*out = w;
	return 0;
}
