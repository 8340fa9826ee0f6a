/* SPDX-License-Identifier: MIT */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/buf.h"
#include "core/grow.h"
#include "core/procid.h"
#include "watch/nonfinite.h"
#include "cache.h"
#include "model.h"

int tui_model_init(struct tui_model *m, size_t cap_taps, uint64_t cap_bytes)
{
	memset(m, 0, sizeof(*m));
	m->ring_cap = cap_taps ? cap_taps : TUI_RING_TAPS;
	m->ring_bytes_max = cap_bytes ? cap_bytes : TUI_RING_BYTES;
	m->ring = calloc(m->ring_cap, sizeof(*m->ring));
	if (!m->ring)
		return -ENOMEM;
	strcpy(m->platform, "cpu");
	return 0;
}

void tui_model_free(struct tui_model *m)
{
	for (uint64_t i = m->first; m->ring && !m->indexed && i < m->received; i++)
		free(m->ring[i % m->ring_cap].payload);
	free(m->ring);
	free(m->index);
	free(m->nfmarks);
	tui_cache_free(m->cache);
	for (unsigned int i = 0; i < m->ncons; i++) {
		hcb_consumer_free(m->cons[i].c);
		free(m->cons[i].name);
		free(m->cons[i].label);
		free(m->cons[i].kwtext);
	}
	free(m->cons);
	for (unsigned int i = 0; i < m->nprocs; i++) {
		free(m->procs[i].tag);
		free(m->procs[i].who);
	}
	free(m->procs);
	free(m->streams);
	free(m->devdrops);
	memset(m, 0, sizeof(*m));
}

/* The slot of device in the drops' table: its own, or where it goes. */
static size_t drops_slot(const struct tui_devdrops *t, size_t cap, uint32_t device)
{
	size_t s = (size_t)((device * UINT64_C(0x9e3779b97f4a7c15)) >> 32) & (cap - 1);

	while (t[s].used && t[s].device != device)
		s = (s + 1) & (cap - 1);
	return s;
}

static int drops_grow(struct tui_model *m)
{
	size_t cap = m->devdrops_cap ? m->devdrops_cap * 2 : 64;
	struct tui_devdrops *t = calloc(cap, sizeof(*t));

	if (!t)
		return -ENOMEM;
	for (size_t i = 0; i < m->devdrops_cap; i++)
		if (m->devdrops[i].used)
			t[drops_slot(t, cap, m->devdrops[i].device)] = m->devdrops[i];
	free(m->devdrops);
	m->devdrops = t;
	m->devdrops_cap = cap;
	return 0;
}

/* A drop record's count, on its device where the table has room (a
 * recording of more devices than that keeps them in the total alone). */
static void add_drops(struct tui_model *m, uint32_t device, uint64_t count)
{
	size_t s;

	m->dropped += count;
	/* at most half full, grown while under the bound (no memory: the
	 * total has it) */
	if (m->ndevdrops * 2 >= m->devdrops_cap && m->ndevdrops < TUI_DROP_DEVICES &&
	    drops_grow(m))
		return;
	if (!m->devdrops_cap)
		return;
	s = drops_slot(m->devdrops, m->devdrops_cap, device);
	if (!m->devdrops[s].used) {
		if (m->ndevdrops >= TUI_DROP_DEVICES)
			return;
		m->devdrops[s] = (struct tui_devdrops){ .device = device, .used = 1 };
		m->ndevdrops++;
	}
	m->devdrops[s].count += count;
}

uint64_t tui_model_drops(const struct tui_model *m, uint32_t device)
{
	size_t s;

	if (!m->devdrops_cap)
		return 0;
	s = drops_slot(m->devdrops, m->devdrops_cap, device);
	return m->devdrops[s].used ? m->devdrops[s].count : 0;
}

/* The model's own copy of c, so that it outlives the decoder or reader. */
static int consumer_index(struct tui_model *m, const struct hcb_consumer *c, unsigned int *out)
{
	struct hcb_buf label = HCB_BUF_INIT, kw = HCB_BUF_INIT;
	struct tui_consumer *tc;

	/* the latest first: taps of one consumer come in runs */
	for (unsigned int i = m->ncons; i-- > 0;) {
		if (m->cons[i].c->id == c->id && m->cons[i].proc == m->cur_proc) {
			*out = i;
			return 0;
		}
	}
	/* several processes: a stream's key has 20 bits of consumer */
	if (m->nprocs > 1 && m->ncons >= TUI_MULTI_CONSUMERS)
		return -ENOMEM;
	if (hcb_grow(&m->cons, &m->cons_cap, (size_t)m->ncons + 1, sizeof(*m->cons)))
		return -ENOMEM;
	tc = &m->cons[m->ncons];
	memset(tc, 0, sizeof(*tc));
	tc->proc = m->cur_proc;
	if (m->nprocs > 1 && m->cur_proc < m->nprocs) {
		tc->ptag = m->procs[m->cur_proc].tag;
		tc->who = m->procs[m->cur_proc].who;
	}
	if (hcb_consumer_dup(c, &tc->c))
		return -ENOMEM;
	/* the target's words, shown on the screen and never acted on by it */
	for (unsigned int k = 0; k < c->nkwargs; k++) {
		hcb_buf_puts(&kw, k ? " " : "");
		hcb_buf_put_visible(&kw, c->kwargs[k].key, strlen(c->kwargs[k].key));
		hcb_buf_puts(&kw, ": ");
		hcb_buf_put_visible(&kw, c->kwargs[k].value, strlen(c->kwargs[k].value));
	}
	hcb_buf_put_visible(&label, c->name, strlen(c->name));
	tc->name = strdup(hcb_buf_str(&label));
	hcb_buf_printf(&label, " %s", hcb_buf_str(&kw));
	tc->label = strdup(hcb_buf_str(&label));
	tc->kwtext = strdup(hcb_buf_str(&kw));
	hcb_buf_free(&label);
	hcb_buf_free(&kw);
	if (!tc->name || !tc->label || !tc->kwtext) {
		free(tc->name);
		free(tc->label);
		free(tc->kwtext);
		hcb_consumer_free(tc->c);
		return -ENOMEM;
	}
	*out = m->ncons++;
	return 0;
}

/* Who a process is, as replay's header says it (formats/idprint_writer.c):
 * "process 1 of 2 (jax), host node07, pid 4242, job train" in a job, else
 * "pid 4242: python train.py"; and its column's tag. */
static int process_words(struct tui_process *p, unsigned int proc, const struct hcb_session_info *s,
			 const char *fallback)
{
	struct hcb_buf b = HCB_BUF_INIT;
	char tag[24];
	int err = 0;

	if (!s) {
		snprintf(tag, sizeof(tag), "#%u", proc + 1);
		err = hcb_buf_put_visible(&b, fallback ? fallback : tag, strlen(fallback ? fallback : tag));
	} else if (hcb_session_in_job(s)) {
		snprintf(tag, sizeof(tag), "p%u", s->process.index);
		err = hcb_buf_printf(&b, "process %u of %u (", s->process.index, s->process.count);
		err = err ? err : hcb_buf_put_visible(&b, s->process.source, strlen(s->process.source));
		err = err ? err : hcb_buf_putc(&b, ')');
		if (!err && s->host[0]) {
			err = hcb_buf_puts(&b, ", host ");
			err = err ? err : hcb_buf_put_visible(&b, s->host, strlen(s->host));
		}
		if (!err && s->pid > 0)
			err = hcb_buf_printf(&b, ", pid %d", (int)s->pid);
		if (!err && s->job[0]) {
			err = hcb_buf_puts(&b, ", job ");
			err = err ? err : hcb_buf_put_visible(&b, s->job, strlen(s->job));
		}
	} else {
		snprintf(tag, sizeof(tag), "%d", (int)s->pid);
		err = hcb_buf_printf(&b, "pid %d", (int)s->pid);
		if (!err && s->command[0]) {
			err = hcb_buf_puts(&b, ": ");
			err = err ? err : hcb_buf_put_visible(&b, s->command, strlen(s->command));
		}
	}
	p->tag = err ? NULL : strdup(tag);
	p->who = err ? NULL : strdup(hcb_buf_str(&b));
	hcb_buf_free(&b);
	if (p->tag && p->who)
		return 0;
	free(p->tag);
	free(p->who);
	p->tag = p->who = NULL;
	return -ENOMEM;
}

const char *tui_model_platform(const struct tui_model *m, unsigned int cons)
{
	unsigned int proc = cons < m->ncons ? m->cons[cons].proc : 0;

	if (m->nprocs > 1 && proc < m->nprocs && m->procs[proc].platform[0])
		return m->procs[proc].platform;
	return m->platform;
}

int tui_model_process(struct tui_model *m, unsigned int proc, const struct hcb_session_info *who,
		      const char *fallback)
{
	int err;

	if (proc >= TUI_PROCESSES)
		return -E2BIG;
	if (proc < m->nprocs && m->procs[proc].who) {
		m->cur_proc = proc;
		return 0;
	}
	if (hcb_grow(&m->procs, &m->procs_cap, (size_t)proc + 1, sizeof(*m->procs)))
		return -ENOMEM;
	for (; m->nprocs <= proc; m->nprocs++)
		memset(&m->procs[m->nprocs], 0, sizeof(*m->procs));
	err = process_words(&m->procs[proc], proc, who, fallback);
	if (!err && who)
		snprintf(m->procs[proc].platform, sizeof(m->procs[proc].platform), "%s", who->platform);
	if (!err)
		m->cur_proc = proc;
	return err;
}

static int stream_index(struct tui_model *m, uint32_t device, unsigned int cons, unsigned int *out)
{
	struct tui_stream *s;

	for (unsigned int i = 0; i < m->nstreams; i++) {
		if (m->streams[i].device == device && m->streams[i].cons == cons) {
			*out = i;
			return 0;
		}
	}
	if (hcb_grow(&m->streams, &m->streams_cap, (size_t)m->nstreams + 1, sizeof(*m->streams)))
		return -ENOMEM;
	s = &m->streams[m->nstreams];
	memset(s, 0, sizeof(*s));
	s->device = device;
	s->cons = cons;
	s->key = tui_key_of(device, cons, m->cons[cons].proc, m->nprocs > 1);
	s->rate = NAN;
	*out = m->nstreams++;
	return 0;
}

static void evict_oldest(struct tui_model *m)
{
	struct tui_tap *t = &m->ring[m->first % m->ring_cap];

	m->ring_bytes -= t->len;
	free(t->payload);
	t->payload = NULL;
	m->first++;
	m->evicted++;
}

static int add_tap(struct tui_model *m, const struct hcb_tap *p)
{
	size_t len = p->consumer ? (size_t)p->consumer->total_bytes : 0;
	size_t tlen = p->text ? p->text_len : 0;      /* kept after the payload */
	uint64_t index = m->received;
	unsigned int cons, si;
	struct tui_stream *s;
	unsigned char *copy = NULL;
	struct hcb_leaf_figures st;
	struct hcb_nonfinite_at at;

	if (!p->consumer || consumer_index(m, p->consumer, &cons) ||
	    stream_index(m, p->device, cons, &si) || (len + tlen && !(copy = malloc(len + tlen)))) {
		m->lost++;
		return -ENOMEM;
	}
	if (len)
		memcpy(copy, p->payload, len);
	if (tlen)
		memcpy(copy + len, p->text, tlen);
	hcb_tap_figures(m->cons[cons].c, copy, &st);
	s = &m->streams[si];
	if (!s->count)
		s->first_ts = p->wall_ns;
	s->count++;
	s->bytes += len;
	s->last_ts = p->wall_ns;
	s->last_index = index;
	for (unsigned int k = 0; k < TUI_STATS; k++)
		s->hist[k][(s->hist_start + s->hist_len) % TUI_HIST] = st.v[k];
	if (s->hist_len < TUI_HIST)
		s->hist_len++;
	else
		s->hist_start = (s->hist_start + 1) % TUI_HIST;

	/* room for one more: by count, then by bytes (the newest always stays) */
	while (index - m->first >= m->ring_cap)
		evict_oldest(m);
	while (m->first < index && m->ring_bytes + len > m->ring_bytes_max)
		evict_oldest(m);
	m->ring[index % m->ring_cap] = (struct tui_tap){
		.index = index, .seq = p->seq, .wall_ns = p->wall_ns, .device = p->device,
		.cons = cons, .stream = si, .value = st.v[HCB_STAT_MEAN],
		.nonfinite = hcb_tap_nonfinite(m->cons[cons].c, copy, &at), .payload = copy, .len = len,
		.copy_start_ns = p->copy_start_ns, .copy_end_ns = p->copy_end_ns,
		.text = p->text ? (const char *)copy + len : NULL, .text_len = (uint32_t)tlen };
	m->ring_bytes += len;
	m->received++;
	return 0;
}

int tui_model_add(struct tui_model *m, const struct hcb_record *rec)
{
	switch (rec->kind) {
	case HCB_REC_SESSION:
		m->pid = rec->session.pid;
		if (rec->session.platform[0])
			snprintf(m->platform, sizeof(m->platform), "%s", rec->session.platform);
		/* each process's own: a job's may differ */
		if (rec->session.platform[0] && m->cur_proc < m->nprocs)
			snprintf(m->procs[m->cur_proc].platform, sizeof(m->procs[0].platform), "%s",
				 rec->session.platform);
		return 0;
	case HCB_REC_TAP:
		return add_tap(m, &rec->tap);
	case HCB_REC_DROP:
		add_drops(m, rec->drop.device, rec->drop.count);
		return 0;
	case HCB_REC_BARRIER:
		m->barriers++;
		return 0;
	case HCB_REC_END:
		m->ended = 1;
		return 0;
	case HCB_REC_TRIGGER:
		/* why a flight recording stops where it does: no tap to show */
		return 0;
	}
	return 0;
}

const struct tui_tap *tui_model_tap(const struct tui_model *m, uint64_t i)
{
	if (m->indexed || i < m->first || i >= m->received)
		return NULL;
	return &m->ring[i % m->ring_cap];
}

/* ---- a recording, indexed ---- */

int tui_model_index(struct tui_model *m, const struct hcb_record *rec, uint64_t off)
{
	const struct hcb_tap *p = &rec->tap;
	unsigned int cons, si;
	struct tui_stream *s;

	if (!p->consumer || consumer_index(m, p->consumer, &cons) ||
	    stream_index(m, p->device, cons, &si) ||
	    hcb_grow(&m->index, &m->index_cap, (size_t)m->received + 1, sizeof(*m->index))) {
		m->lost++;
		return -ENOMEM;
	}
	if (si >= TUI_INDEX_STREAMS || off >= TUI_INDEX_OFFSET_MAX) {
		m->lost++;
		return -E2BIG;
	}
	s = &m->streams[si];
	if (!s->count)
		s->first_ts = p->wall_ns;
	s->count++;
	s->bytes += p->consumer->total_bytes;
	s->last_ts = p->wall_ns;
	s->last_index = m->received;
	s->recent[(s->hist_start + s->hist_len) % TUI_HIST] = m->received;
	if (s->hist_len < TUI_HIST)
		s->hist_len++;
	else
		s->hist_start = (s->hist_start + 1) % TUI_HIST;
	m->index[m->received++] = off << 16 | si;
	return 0;
}

int tui_model_tap_where(const struct tui_model *m, uint64_t i, uint32_t *device, unsigned int *cons)
{
	const struct tui_tap *t;

	if (m->indexed) {
		const struct tui_stream *s;

		if (i >= m->received)
			return -ENOENT;
		s = &m->streams[m->index[i] & TUI_INDEX_STREAMS];
		*device = s->device;
		*cons = s->cons;
		return 0;
	}
	t = tui_model_tap(m, i);
	if (!t)
		return -ENOENT;
	*device = t->device;
	*cons = t->cons;
	return 0;
}

void tui_model_tick(struct tui_model *m, uint64_t now_ns)
{
	for (unsigned int i = 0; i < m->nstreams; i++) {
		struct tui_stream *s = &m->streams[i];

		if (!s->rate_ns) {
			s->rate_ns = now_ns;
			s->rate_count = s->count;
			continue;
		}
		if (now_ns < s->rate_ns + 1000000000ull)
			continue;
		s->rate = (double)(s->count - s->rate_count) * 1e9 / (double)(now_ns - s->rate_ns);
		s->rate_ns = now_ns;
		s->rate_count = s->count;
	}
}

double tui_rate_of(uint64_t count, uint64_t first, uint64_t last)
{
	if (count < 2 || last <= first || (last - first) / (count - 1) < 1000)
		return NAN;
	return (double)(count - 1) * 1e9 / (double)(last - first);
}

void tui_model_rates_from_ts(struct tui_model *m)
{
	for (unsigned int i = 0; i < m->nstreams; i++) {
		struct tui_stream *s = &m->streams[i];

		s->rate = tui_rate_of(s->count, s->first_ts, s->last_ts);
	}
}

unsigned int tui_stream_history(const struct tui_stream *s, enum hcb_stat stat, double *out)
{
	if ((unsigned int)stat >= TUI_STATS)
		stat = HCB_STAT_MEAN;
	for (unsigned int i = 0; i < s->hist_len; i++)
		out[i] = s->hist[stat][(s->hist_start + i) % TUI_HIST];
	return s->hist_len;
}

/* ---- matching ---- */

int tui_filter_parse(struct tui_filter *f, const char *text)
{
	const char *p = text;
	char *end;
	unsigned long long v;

	while (isspace((unsigned char)*p))
		p++;
	memset(f, 0, sizeof(*f));
	f->device = -1;
	if (!*p)
		return 0;
	if (*p == '@') {
		snprintf(f->proc, sizeof(f->proc), "%s", p + 1);
		for (size_t n = strlen(f->proc); n && isspace((unsigned char)f->proc[n - 1]); n--)
			f->proc[n - 1] = '\0';
		if (!f->proc[0])
			return -EINVAL;
		f->active = 1;
		return 0;
	}
	if (isdigit((unsigned char)*p)) {
		errno = 0;
		v = strtoull(p, &end, 10);
		while (isspace((unsigned char)*end))
			end++;
		if (!*end) {
			if (v > UINT32_MAX || errno)
				return -EINVAL;
			f->active = 1;
			f->device = (int64_t)v;
			return 0;
		}
	}
	snprintf(f->name, sizeof(f->name), "%s", p);
	/* trailing blanks are not part of a name */
	for (size_t n = strlen(f->name); n && isspace((unsigned char)f->name[n - 1]); n--)
		f->name[n - 1] = '\0';
	f->active = 1;
	return 0;
}

int tui_filter_match(const struct tui_filter *f, const struct tui_consumer *c, uint32_t device)
{
	if (!f->active)
		return 1;
	if (f->device >= 0)
		return device == (uint32_t)f->device;
	if (f->proc[0])
		return c->ptag && !strcmp(c->ptag, f->proc);
	return strstr(c->c->name, f->name) != NULL;
}

int tui_search_match(const struct tui_consumer *c, const char *needle)
{
	return needle && *needle && strcasestr(c->label, needle) != NULL;
}

/* ---- snapshot ---- */

static int by_key(const void *a, const void *b)
{
	uint64_t ka = tui_stream_key(a), kb = tui_stream_key(b);

	return ka < kb ? -1 : ka > kb;
}

int tui_snapshot_take(struct tui_snapshot *s, const struct tui_model *m)
{
	if (hcb_grow(&s->streams, &s->cap, m->nstreams, sizeof(*s->streams)))
		return -ENOMEM;
	s->nstreams = m->nstreams;
	if (m->nstreams) {
		memcpy(s->streams, m->streams, m->nstreams * sizeof(*s->streams));
		qsort(s->streams, s->nstreams, sizeof(*s->streams), by_key);
	}
	s->limit = m->received;
	s->received = m->received + m->lost;
	s->evicted = m->evicted;
	s->lost = m->lost;
	s->dropped = m->dropped;
	s->ended = m->ended;
	s->indexed = m->indexed;
	s->indexing = m->indexing;
	s->damaged = m->damaged;
	s->percent = m->index_size ? (int)(m->index_pos * 100 / m->index_size) : 0;
	s->rate = NAN;
	for (unsigned int i = 0; i < s->nstreams; i++) {
		s->streams[i].dropped = tui_model_drops(m, s->streams[i].device);
		if (!isnan(s->streams[i].rate))
			s->rate = (isnan(s->rate) ? 0 : s->rate) + s->streams[i].rate;
	}
	return 0;
}

void tui_snapshot_free(struct tui_snapshot *s)
{
	free(s->streams);
	memset(s, 0, sizeof(*s));
}
