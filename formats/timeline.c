/* SPDX-License-Identifier: MIT */
/*
 * timeline.c - a recording as a timeline for Perfetto's UI and
 * chrome://tracing: the Chrome Trace Event format's JSON object form,
 * write only (formats/TIMELINE.md).  A process per device, a thread per
 * consumer on it, named by metadata events the first time they appear; an
 * instant event per tap with its kwargs and a summary of its values, a
 * counter per leaf; drops and barriers as instant markers.
 *
 * Streaming: each record's events go out in one write(2) as the record
 * comes; only the names given to devices and consumers so far are kept.
 * A device's pid and a consumer's tid are numbered from 1 in one sequence,
 * in the order they first appear: any u32 device id (jax's 2048, a hostile
 * 2^32 - 1) has a pid within Perfetto's 32 bits, and no tid is a pid.
 * The object is closed (the event list, then displayTimeUnit and
 * otherData) when the writer is.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/dtype.h"
#include "core/grow.h"
#include "core/leafstats.h"
#include "core/procid.h"
#include "text/idprint.h"
#include "text/leafpath.h"
#include "jsonl.h"
#include "recfile_impl.h"

#define LEAVES_MAX 16u           /* leaves summed up and counted per tap */

struct track {                   /* a device (a process), or a consumer on one (a thread) */
	uint64_t key;                /* device << 32 | consumer id (0 for the device:
				      * no consumer has id 0) */
	uint32_t id;                 /* its pid or tid; 0: an empty slot */
};

struct timeline {
	struct hcb_buf out;          /* the events of one record */
	int started;                 /* the object's head is written */
	int events;                  /* an event is written: the next needs a comma */
	uint64_t t0, last_ns;        /* ts 0; the time of the last record that had one */
	int have_t0;
	struct track *tracks;        /* devices and consumers named already: open
				      * addressing, a power of two */
	size_t ntracks, nslots;
	uint32_t nthreads;           /* of them, consumers on a device */
	uint32_t first_pid;          /* the first device's, 0: none yet */
	uint64_t taps, drops, barriers;
	struct hcb_end_info end;
	int have_end;
};

/* ---- event text ---- */

/* Microseconds since t0, exactly (ns has three decimals). */
static int put_ts(struct timeline *tl, uint64_t ns)
{
	uint64_t d = ns >= tl->t0 ? ns - tl->t0 : tl->t0 - ns;

	return hcb_buf_printf(&tl->out, "%s%llu.%03u", ns >= tl->t0 ? "" : "-",
			      (unsigned long long)(d / 1000), (unsigned int)(d % 1000));
}

/* The start of an event, up to its args: {"name":..,"cat":..,"ph":..,"ts":..,"pid":..,"tid":.. */
static int event_head(struct timeline *tl, const char *name, const char *cat, const char *ph,
		      uint64_t ns, uint32_t pid, uint32_t tid)
{
	struct hcb_buf *b = &tl->out;
	int err = hcb_buf_puts(b, tl->events++ ? ",\n{\"name\":" : "\n{\"name\":");

	err = err ? err : hcb_json_string(b, name);
	err = err ? err : hcb_buf_printf(b, ",\"cat\":\"%s\",\"ph\":\"%s\",\"ts\":", cat, ph);
	err = err ? err : put_ts(tl, ns);
	return err ? err : hcb_buf_printf(b, ",\"pid\":%u,\"tid\":%u", pid, tid);
}

/* A metadata event naming (or ordering) a process or thread. */
static int meta(struct timeline *tl, const char *what, uint32_t pid, uint32_t tid, const char *name,
		uint64_t sort)
{
	int err = event_head(tl, what, "__metadata", "M", tl->t0, pid, tid);

	if (!err && name) {
		err = hcb_buf_puts(&tl->out, ",\"args\":{\"name\":");
		err = err ? err : hcb_json_string(&tl->out, name);
		return err ? err : hcb_buf_puts(&tl->out, "}}");
	}
	return err ? err : hcb_buf_printf(&tl->out, ",\"args\":{\"sort_index\":%llu}}",
					  (unsigned long long)sort);
}

static uint64_t slot_hash(uint64_t key)
{
	key ^= key >> 33;
	key *= 0xff51afd7ed558ccdull;
	return key ^ (key >> 33);
}

static int tracks_grow(struct timeline *tl)
{
	size_t n = tl->nslots ? tl->nslots * 2 : 64;
	struct track *t = calloc(n, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < tl->nslots; i++) {
		size_t s;

		if (!tl->tracks[i].id)
			continue;
		for (s = slot_hash(tl->tracks[i].key) & (n - 1); t[s].id; s = (s + 1) & (n - 1))
			;
		t[s] = tl->tracks[i];
	}
	free(tl->tracks);
	tl->tracks = t;
	tl->nslots = n;
	return 0;
}

/* The entry of key: 1 and *id if it is named already; else 0, a new one
 * made with the next id, into *id.  -ENOMEM. */
static int entry(struct timeline *tl, uint64_t key, uint32_t *id)
{
	size_t s;

	if (tl->ntracks * 2 >= tl->nslots && tracks_grow(tl))
		return -ENOMEM;
	for (s = slot_hash(key) & (tl->nslots - 1); tl->tracks[s].id; s = (s + 1) & (tl->nslots - 1))
		if (tl->tracks[s].key == key) {
			*id = tl->tracks[s].id;
			return 1;
		}
	/* pids and tids from 1 (Perfetto takes pid 0 for the kernel's idle
	 * task), far below 2^32: each is a record's, or several's */
	*id = (uint32_t)tl->ntracks + 1;
	tl->tracks[s] = (struct track){ key, *id };
	tl->ntracks++;
	return 0;
}

/* The process of a device, named the first time it is met: its pid. */
static int device_seen(struct hcb_writer *w, struct timeline *tl, uint32_t device, uint32_t *pid)
{
	struct hcb_buf name = HCB_BUF_INIT;
	int err = entry(tl, (uint64_t)device << 32, pid);

	if (err)
		return err < 0 ? err : 0;
	if (!tl->first_pid)
		tl->first_pid = *pid;
	err = hcb_idprint_device(&name, hcb_session_platform(w->have_session ? &w->session : NULL,
							     device), device);
	err = err ? err : meta(tl, "process_name", *pid, *pid, hcb_buf_str(&name), 0);
	err = err ? err : meta(tl, "process_sort_index", *pid, *pid, NULL, device);
	hcb_buf_free(&name);
	return err;
}

/* The thread of consumer c on device (whose pid is pid), named the first
 * time it is met. */
static int track_of(struct timeline *tl, uint32_t device, uint32_t pid,
		    const struct hcb_consumer *c, uint32_t *tid)
{
	/* ids are nonzero: the key is never a device's */
	char fallback[32];
	int err = entry(tl, (uint64_t)device << 32 | c->id, tid);

	if (err)
		return err < 0 ? err : 0;
	tl->nthreads++;
	snprintf(fallback, sizeof(fallback), "consumer %u", c->id);
	err = meta(tl, "thread_name", pid, *tid, c->name && *c->name ? c->name : fallback, 0);
	return err ? err : meta(tl, "thread_sort_index", pid, *tid, NULL, tl->nthreads);
}

/* ---- a tap ---- */

/* The leaf's one number as JSON: the element in its own dtype's shortest
 * digits (a bool as 0 or 1, a complex by its real part). */
static int scalar_number(struct hcb_buf *b, const struct hcb_leaf_shape *l, const unsigned char *p)
{
	if (l->dtype == HCB_DT_BOOL)
		return hcb_buf_puts(b, *p ? "1" : "0");
	if (hcb_dtype_is_complex(l->dtype))
		return hcb_json_element(b, l->dtype == HCB_DT_COMPLEX64 ? HCB_DT_FLOAT32 : HCB_DT_FLOAT64, p);
	return hcb_json_element(b, l->dtype, p);
}

static int shape_json(struct hcb_buf *b, const struct hcb_leaf_shape *l)
{
	int err = hcb_buf_putc(b, '[');

	for (unsigned int i = 0; i < l->ndim && !err; i++)
		err = hcb_buf_printf(b, "%s%llu", i ? "," : "", (unsigned long long)l->dims[i]);
	return err ? err : hcb_buf_putc(b, ']');
}

/* One leaf of args.leaves, and its words in the summary. */
static int leaf_json(struct hcb_buf *b, struct hcb_buf *sum, const struct hcb_leaf_shape *l,
		     const unsigned char *p, const char *path)
{
	struct hcb_leaf_figures f;
	int err = hcb_buf_puts(b, "{\"path\":");

	err = err ? err : hcb_json_string(b, path);
	err = err ? err : hcb_buf_printf(b, ",\"dtype\":\"%s\",\"shape\":", hcb_dtype_name(l->dtype));
	err = err ? err : shape_json(b, l);
	err = err ? err : hcb_buf_printf(sum, "%s%s%s", sum->len ? " " : "", path, *path ? "=" : "");
	if (!err && l->nelems == 1) {
		size_t at = b->len + strlen(",\"value\":");

		err = hcb_buf_puts(b, ",\"value\":");
		err = err ? err : hcb_json_element(b, l->dtype, p);
		/* the same digits in the summary, unquoted */
		err = err ? err : hcb_buf_add(sum, b->data + at + (b->data[at] == '"'),
					      b->len - at - 2 * (b->data[at] == '"'));
		return err ? err : hcb_buf_putc(b, '}');
	}
	hcb_leaf_figures(l, p, &f);
	err = err ? err : hcb_buf_printf(b, ",\"elements\":%llu", (unsigned long long)f.n);
	for (int s = HCB_STAT_MEAN; s <= HCB_STAT_MAX && !err; s++) {
		err = hcb_buf_printf(b, ",\"%s\":", hcb_stat_name((enum hcb_stat)s));
		err = err ? err : hcb_json_element(b, HCB_DT_FLOAT64, &f.v[s]);
	}
	if (!err && f.nan)
		err = hcb_buf_printf(b, ",\"nan\":%llu", (unsigned long long)f.nan);
	err = err ? err : hcb_buf_printf(sum, "%s", hcb_dtype_name(l->dtype));
	err = err ? err : shape_json(sum, l);
	err = err ? err : hcb_buf_printf(sum, " mean %.6g", f.v[HCB_STAT_MEAN]);
	return err ? err : hcb_buf_putc(b, '}');
}

static int kwargs_json(struct hcb_buf *b, const struct hcb_consumer *c)
{
	int err = hcb_buf_putc(b, '{');

	for (unsigned int i = 0; i < c->nkwargs && !err; i++) {
		err = i ? hcb_buf_putc(b, ',') : 0;
		err = err ? err : hcb_json_string(b, c->kwargs[i].key);
		err = err ? err : hcb_buf_putc(b, ':');
		err = err ? err : hcb_json_string(b, c->kwargs[i].value);
	}
	return err ? err : hcb_buf_putc(b, '}');
}

/* The instant event of tap t on thread tid, its args the tap's. */
static int tap_instant(struct timeline *tl, const struct hcb_tap *t, uint32_t pid, uint32_t tid,
		       char **paths)
{
	const struct hcb_consumer *c = t->consumer;
	struct hcb_buf leaves = HCB_BUF_INIT, sum = HCB_BUF_INIT;
	const unsigned char *p = t->payload;
	char name[32];
	int err = 0;

	for (unsigned int i = 0; i < c->nleaves && i < LEAVES_MAX && !err; i++) {
		err = (i ? hcb_buf_putc(&leaves, ',') : 0);
		err = err ? err : leaf_json(&leaves, &sum, &c->leaves[i], p, paths[i]);
		p += c->leaves[i].nbytes;
	}
	if (!err && c->nleaves > LEAVES_MAX)
		err = hcb_buf_printf(&sum, " ... (%u leaves)", c->nleaves);
	snprintf(name, sizeof(name), "consumer %u", c->id);
	err = err ? err : event_head(tl, c->name && *c->name ? c->name : name, "tap", "i", t->wall_ns,
				     pid, tid);
	err = err ? err : hcb_buf_puts(&tl->out, ",\"s\":\"t\",\"args\":{\"seq\":");
	err = err ? err : (t->seq == UINT64_MAX ? hcb_buf_puts(&tl->out, "null") :
			   hcb_buf_printf(&tl->out, "%llu", (unsigned long long)t->seq));
	err = err ? err : hcb_buf_printf(&tl->out, ",\"consumer\":%u,\"kwargs\":", c->id);
	err = err ? err : kwargs_json(&tl->out, c);
	err = err ? err : hcb_buf_puts(&tl->out, ",\"tree\":");
	err = err ? err : hcb_json_string(&tl->out, c->tree ? c->tree : "");
	err = err ? err : hcb_buf_puts(&tl->out, ",\"summary\":");
	err = err ? err : hcb_json_string(&tl->out, hcb_buf_str(&sum));
	err = err ? err : hcb_buf_printf(&tl->out, ",\"leaves\":[%s]}}", hcb_buf_str(&leaves));
	hcb_buf_free(&leaves);
	hcb_buf_free(&sum);
	return err;
}

/* A counter event per leaf with a finite value: "loss", "params.w". */
static int tap_counters(struct timeline *tl, const struct hcb_tap *t, uint32_t pid, uint32_t tid,
			char **paths)
{
	const struct hcb_consumer *c = t->consumer;
	const unsigned char *p = t->payload;
	struct hcb_buf name = HCB_BUF_INIT;
	int err = 0;

	for (unsigned int i = 0; i < c->nleaves && i < LEAVES_MAX && !err; i++) {
		const struct hcb_leaf_shape *l = &c->leaves[i];
		const unsigned char *lp = p;
		double v = hcb_leaf_value(l, lp, HCB_STAT_MEAN);

		p += l->nbytes;
		if (!isfinite(v))
			continue;   /* JSON has no NaN: a gap in the counter */
		hcb_buf_reset(&name);
		err = c->name && *c->name ? hcb_buf_puts(&name, c->name) : hcb_buf_printf(&name, "consumer %u", c->id);
		if (!err && *paths[i])
			err = hcb_buf_printf(&name, "%s%s", paths[i][0] == '[' ? "" : ".", paths[i]);
		err = err ? err : event_head(tl, hcb_buf_str(&name), "value", "C", t->wall_ns, pid, tid);
		err = err ? err : hcb_buf_printf(&tl->out, ",\"args\":{\"%s\":", l->nelems == 1 ? "value" : "mean");
		err = err ? err : (l->nelems == 1 ? scalar_number(&tl->out, l, lp) :
				   hcb_json_element(&tl->out, HCB_DT_FLOAT64, &v));
		err = err ? err : hcb_buf_puts(&tl->out, "}}");
	}
	hcb_buf_free(&name);
	return err;
}

static int tap_events(struct hcb_writer *w, struct timeline *tl, const struct hcb_tap *t)
{
	const struct hcb_consumer *c = t->consumer;
	char **paths = NULL;
	uint32_t pid, tid;
	int err;

	if (!c || (c->total_bytes && !t->payload))
		return -EINVAL;
	if (!tl->have_t0) {
		tl->t0 = t->wall_ns;
		tl->have_t0 = 1;
	}
	tl->last_ns = t->wall_ns;
	tl->taps++;
	err = device_seen(w, tl, t->device, &pid);
	err = err ? err : track_of(tl, t->device, pid, c, &tid);
	err = err ? err : hcb_leaf_paths(c->tree, c->nleaves, &paths);
	err = err ? err : tap_instant(tl, t, pid, tid, paths);
	err = err ? err : tap_counters(tl, t, pid, tid, paths);
	hcb_leaf_paths_free(paths, c->nleaves);
	return err;
}

/* ---- the writer ---- */

static int marker(struct hcb_writer *w, struct timeline *tl, const struct hcb_record *rec)
{
	uint32_t pid;
	int err;

	if (rec->kind == HCB_REC_DROP) {
		tl->drops += rec->drop.count;
		err = device_seen(w, tl, rec->drop.device, &pid);
		/* a drop has no time: it sits where the lost taps were, after the last record that had one */
		err = err ? err : event_head(tl, "drop", "drop", "i", tl->last_ns, pid, pid);
		err = err ? err : hcb_buf_printf(&tl->out, ",\"s\":\"p\",\"args\":{\"count\":%llu,\"reason\":",
						 (unsigned long long)rec->drop.count);
		err = err ? err : hcb_json_string(&tl->out, rec->drop.reason);
		return err ? err : hcb_buf_puts(&tl->out, "}}");
	}
	tl->barriers++;
	tl->last_ns = rec->barrier.wall_ns;
	pid = tl->first_pid ? tl->first_pid : 1;
	err = event_head(tl, "barrier", "barrier", "i", rec->barrier.wall_ns, pid, pid);
	return err ? err : hcb_buf_printf(&tl->out, ",\"s\":\"g\",\"args\":{\"taps\":%llu}}",
					  (unsigned long long)rec->barrier.taps);
}

static int timeline_write(struct hcb_writer *w, const struct hcb_record *rec)
{
	struct timeline *tl = w->state;
	int err = 0;

	hcb_buf_reset(&tl->out);
	if (!tl->started)
		err = hcb_buf_puts(&tl->out, "{\"traceEvents\":[");
	switch (rec->kind) {
	case HCB_REC_SESSION:
		if (!tl->have_t0) {
			tl->t0 = tl->last_ns = rec->session.start_ns;
			tl->have_t0 = 1;
		}
		break;
	case HCB_REC_TAP:
		err = err ? err : tap_events(w, tl, &rec->tap);
		break;
	case HCB_REC_DROP:
	case HCB_REC_BARRIER:
		err = err ? err : marker(w, tl, rec);
		break;
	case HCB_REC_END:
		tl->end = rec->end;
		tl->have_end = 1;
		break;
	case HCB_REC_TRIGGER:
		/* the tap that fired is on the timeline already */
		break;
	}
	if (!err && tl->out.len)
		err = hcb_write_all(w, tl->out.data, tl->out.len);
	if (!err)
		tl->started = 1;
	if (tl->out.cap > (1u << 20))
		hcb_buf_free(&tl->out);   /* a huge tap's events are not worth keeping room for */
	return err;
}

/* The end of the event list, and what the recording says of itself. */
static int timeline_close(struct hcb_writer *w)
{
	struct timeline *tl = w->state;
	struct hcb_buf *b = &tl->out;
	int err;

	hcb_buf_reset(b);
	err = hcb_buf_puts(b, tl->started ? "\n],\n" : "{\"traceEvents\":[],\n");
	err = err ? err : hcb_buf_printf(b, "\"displayTimeUnit\":\"ns\",\"otherData\":{\"source\":\"hcbtrace "
					 "%s\",\"t0_ns\":%llu,\"taps\":%llu,\"drops\":%llu,\"barriers\":%llu",
					 HCB_VERSION, (unsigned long long)tl->t0, (unsigned long long)tl->taps,
					 (unsigned long long)tl->drops, (unsigned long long)tl->barriers);
	if (!err && w->have_session) {
		err = hcb_buf_printf(b, ",\"pid\":%d,\"provider\":", (int)w->session.pid);
		err = err ? err : hcb_json_string(b, w->session.provider);
		err = err ? err : hcb_buf_puts(b, ",\"platform\":");
		err = err ? err : hcb_json_string(b, w->session.platform);
	}
	if (!err && tl->have_end)
		err = hcb_buf_printf(b, ",\"end_ns\":%llu", (unsigned long long)tl->end.end_ns);
	err = err ? err : hcb_buf_puts(b, "}}\n");
	err = err ? err : hcb_write_all(w, b->data, b->len);
	hcb_buf_free(b);
	free(tl->tracks);
	free(tl);
	w->state = NULL;
	return err;
}

int hcb_timeline_writer_init(struct hcb_writer *w)
{
	w->state = calloc(1, sizeof(struct timeline));
	if (!w->state)
		return -ENOMEM;
	w->write = timeline_write;
	w->close = timeline_close;
	return 0;
}
