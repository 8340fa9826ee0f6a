/* SPDX-License-Identifier: MIT */
/*
 * idprint_writer.c - the text output of attach and replay: each tap as
 * id_print printed it (formats/text/idprint.h), one write(2) per tap.  Other
 * records print nothing but a flight recorder's trigger (one line) and,
 * for a process of a job of several, who it is (one line, again when that
 * changes); the session record names the devices' platforms.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/procid.h"
#include "text/idprint.h"
#include "recfile_impl.h"

struct text_state {
	struct hcb_buf line;
	struct hcb_session_info shown;   /* who the last header said */
	int have_shown;
};

/* The platform naming device in what w read last. */
static const char *platform_of(const struct hcb_writer *w, uint32_t device)
{
	return hcb_session_platform(w->have_session ? &w->session : NULL, device);
}

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
		err = err ? err : hcb_idprint_device(text, platform_of(w, t->device), t->device);
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
	/* a fleet's: another host's; its name is that hcbtrace's to give */
	if (!err && t->by_host[0]) {
		err = hcb_buf_puts(text, ": fired by host ");
		err = err ? err : hcb_buf_put_visible(text, t->by_host, strlen(t->by_host));
	}
	if (!err && t->by_pid)
		err = hcb_buf_printf(text, t->by_host[0] ? " pid %u" : ": fired by pid %u",
				     t->by_pid);
	if (!err && t->by_pid && t->by_process >= 0)
		err = hcb_buf_printf(text, " (process %lld)", (long long)t->by_process);
	if (!err && t->exited)
		err = t->exit_signal ? hcb_buf_printf(text, ": killed by signal %d", t->exit_signal) :
		      hcb_buf_printf(text, ": exit status %d", t->exit_status);
	return err ? err : hcb_buf_puts(text, "\n");
}

/* "# process 1 of 4 (slurm), host node07, pid 4242, job 1234": who the
 * process is, where its job has several (the host and job are the
 * target's to name: made visible). */
static int who_line(struct hcb_buf *text, const struct hcb_session_info *s)
{
	int err = hcb_buf_printf(text, "# process %u of %u (", s->process.index, s->process.count);

	err = err ? err : hcb_buf_put_visible(text, s->process.source, strlen(s->process.source));
	err = err ? err : hcb_buf_putc(text, ')');
	if (!err && s->host[0]) {
		err = hcb_buf_puts(text, ", host ");
		err = err ? err : hcb_buf_put_visible(text, s->host, strlen(s->host));
	}
	if (!err && s->pid > 0)
		err = hcb_buf_printf(text, ", pid %d", (int)s->pid);
	if (!err && s->job[0]) {
		err = hcb_buf_puts(text, ", job ");
		err = err ? err : hcb_buf_put_visible(text, s->job, strlen(s->job));
	}
	return err ? err : hcb_buf_putc(text, '\n');
}

/* "# pid 4242: python train.py": a process of no job, among others. */
static int pid_line(struct hcb_buf *text, const struct hcb_session_info *s)
{
	int err = hcb_buf_printf(text, "# pid %d", (int)s->pid);

	if (!err && s->command[0]) {
		err = hcb_buf_puts(text, ": ");
		err = err ? err : hcb_buf_put_visible(text, s->command, strlen(s->command));
	}
	return err ? err : hcb_buf_putc(text, '\n');
}

/* On a stream several writers share, a record after another writer's says
 * first whose it is (hcb_writer_share_stream). */
static int whose(struct hcb_writer *w, struct text_state *st)
{
	int err;

	if (!w->stream_last || *w->stream_last == w || !w->have_session)
		return 0;
	*w->stream_last = w;
	hcb_buf_reset(&st->line);
	err = hcb_session_in_job(&w->session) ? who_line(&st->line, &w->session) :
	      pid_line(&st->line, &w->session);
	return err ? err : hcb_write_all(w, st->line.data, st->line.len);
}

/* A session record: its header where it says something new of who (on a
 * shared stream, the first record after another writer's says it). */
static int session_header(struct hcb_writer *w, struct text_state *st,
			  const struct hcb_session_info *s)
{
	int err;

	if (w->stream_last || !hcb_session_in_job(s) ||
	    (st->have_shown && hcb_session_same_who(&st->shown, s) && st->shown.pid == s->pid))
		return 0;
	st->shown = *s;
	st->have_shown = 1;
	hcb_buf_reset(&st->line);
	err = who_line(&st->line, s);
	return err ? err : hcb_write_all(w, st->line.data, st->line.len);
}

static int text_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct text_state *st = w->state;
	struct hcb_buf *text = &st->line;
	int err;

	if (rec->kind == HCB_REC_SESSION)
		return session_header(w, st, &rec->session);
	if (rec->kind != HCB_REC_TRIGGER && rec->kind != HCB_REC_TAP)
		return 0;
	err = whose(w, st);
	if (err)
		return err;
	if (rec->kind == HCB_REC_TRIGGER) {
		hcb_buf_reset(text);
		err = trigger_line(w, text, &rec->trigger);
		return err ? err : hcb_write_all(w, text->data, text->len);
	}
	hcb_buf_reset(text);
	if (rec->tap.text)
		/* a jax.debug.print: its header, then the line it wrote */
		err = hcb_idprint_text(text, rec->tap.consumer, platform_of(w, rec->tap.device),
				       rec->tap.device, rec->tap.text, rec->tap.text_len);
	else
		err = hcb_idprint(text, rec->tap.consumer, platform_of(w, rec->tap.device),
				  rec->tap.device, rec->tap.payload, &w->print);
	if (!err)
		err = hcb_write_all(w, text->data, text->len);
	return err;
}

static int text_close(struct hcb_writer *w)
{
	struct text_state *st = w->state;

	hcb_buf_free(&st->line);
	free(w->state);
	w->state = NULL;
	return 0;
}

int hcb_text_writer_init(struct hcb_writer *w)
{
	w->state = calloc(1, sizeof(struct text_state));
	if (!w->state)
		return -ENOMEM;
	w->write = text_write;
	w->close = text_close;
	return 0;
}
