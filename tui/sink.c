/* SPDX-License-Identifier: MIT */
#include <errno.h>
#include <stdlib.h>

#include "sink.h"

/* The rest of a sink whose model init returned err. */
static int sink_init(struct tui_sink *s, int err)
{
	if (err)
		return err;
	pthread_mutex_init(&s->lock, NULL);
	s->done = 0;
	s->code = 0;
	return 0;
}

int tui_sink_init(struct tui_sink *s, size_t cap_taps, uint64_t cap_bytes)
{
	return sink_init(s, tui_model_init(&s->model, cap_taps, cap_bytes));
}

int tui_sink_init_indexed(struct tui_sink *s, const struct tui_fetch_ops *ops, void *ctx)
{
	return sink_init(s, tui_model_init_indexed(&s->model, ops, ctx));
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

static int receive_record(void *ctx, const struct hcb_record *rec)
{
	return tui_sink_add(ctx, rec);
}

static const struct hcb_receiver_ops sink_receiver_ops = {
	.record = receive_record,
};

struct hcb_receiver tui_sink_receiver(struct tui_sink *s)
{
	return (struct hcb_receiver){ &sink_receiver_ops, s };
}

static int receive_proc_record(void *ctx, const struct hcb_record *rec)
{
	struct tui_sink_proc *p = ctx;

	pthread_mutex_lock(&p->sink->lock);
	p->sink->model.cur_proc = p->proc;
	tui_model_add(&p->sink->model, rec);
	pthread_mutex_unlock(&p->sink->lock);
	return 0;
}

static const struct hcb_receiver_ops proc_receiver_ops = {
	.record = receive_proc_record,
};

struct hcb_receiver tui_sink_receiver_of(struct tui_sink_proc *p)
{
	return (struct hcb_receiver){ &proc_receiver_ops, p };
}
