/* SPDX-License-Identifier: MIT */
/* whois.c - the session record and who its process is (whois.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/clock.h"
#include "capture_impl.h"
#include "out.h"
#include "whois.h"

void hcb_whois_init(struct hcb_whois *w, const struct hcb_ident_flags *flags)
{
	memset(w, 0, sizeof(*w));
	if (!flags)
		return;
	w->flags = *flags;
	if (flags->job) {
		snprintf(w->flag_job, sizeof(w->flag_job), "%s", flags->job);
		w->flags.job = w->flag_job;
	}
}

int hcb_whois_read(struct hcb_whois *w, pid_t pid)
{
	w->pid = pid;
	return hcb_ident_read(pid, &w->flags, &w->id);
}

const struct hcb_identity *hcb_whois_identity(const struct hcb_whois *w)
{
	return &w->id;
}

/* The command line as a session record says it: printable ASCII (the
 * formats keep it byte for byte), "" where it was not read ("?"). */
static void session_command(char *dst, size_t size, const char *comm)
{
	size_t n = 0;

	if (strcmp(comm, "?"))
		for (; comm[n] && n + 1 < size; n++)
			dst[n] = comm[n] >= 0x20 && comm[n] < 0x7f ? comm[n] : '?';
	dst[n] = '\0';
}

/* The record as it stands: its providers (joined by '+'), the platform of
 * the one whose target names its devices, who the process is, the
 * devices so far. */
static void make_record(const struct hcb_whois *w, const struct hcb_slots *slots,
			struct hcb_record *rec)
{
	const struct hcb_slot *named = hcb_slots_main(slots);
	struct hcb_session_info *s = &rec->session;
	size_t n = 0;

	memset(rec, 0, sizeof(*rec));
	rec->kind = HCB_REC_SESSION;
	s->version = 1;
	s->pid = slots->at[0].ti.pid;
	for (unsigned int i = 0; i < slots->n && n < sizeof(s->provider); i++)
		n += (size_t)snprintf(s->provider + n, sizeof(s->provider) - n, "%s%s",
				      i ? "+" : "", slots->at[i].prov->name);
	snprintf(s->platform, sizeof(s->platform), "%s", named->ti.platform);
	s->start_ns = w->start_ns;
	memcpy(s->host, w->id.host, sizeof(s->host));
	s->process = w->id.process;
	memcpy(s->job, w->id.job, sizeof(s->job));
	session_command(s->command, sizeof(s->command), slots->at[0].ti.comm);
	s->devices = w->devs;
	s->ndevices = w->ndevs;
}

static int emit(struct hcb_whois *w, const struct hcb_slots *slots, struct hcb_out *out)
{
	struct hcb_record rec;

	make_record(w, slots, &rec);
	return hcb_out_emit(out, &rec);
}

int hcb_whois_begin(struct hcb_whois *w, const struct hcb_slots *slots, struct hcb_out *out)
{
	w->start_ns = hcb_clock_ns(CLOCK_REALTIME);
	w->begun = 1;
	w->dirty = 0;
	return emit(w, slots, out);
}

static unsigned int bucket(uint32_t d)
{
	return (d * 2654435761u) >> 23 & (HCB_WHOIS_HASH - 1);
}

/* devs' index of device d, or -1 (and the bucket where it would go) */
static int find(const struct hcb_whois *w, uint32_t d, unsigned int *at)
{
	unsigned int b = bucket(d);

	for (unsigned int i = 0; i < HCB_WHOIS_HASH; i++, b = (b + 1) & (HCB_WHOIS_HASH - 1)) {
		if (!w->hash[b]) {
			*at = b;
			return -1;
		}
		if (w->devs[w->hash[b] - 1].device == d)
			return w->hash[b] - 1;
	}
	*at = HCB_WHOIS_HASH;
	return -1;
}

/* A notice, once: the table is full, later devices are named as the
 * session's platform names them. */
static void full(struct hcb_whois *w, struct hcb_out *out)
{
	static const char what[] = "more devices than a session record lists (256): the later "
				   "ones are named by the session's platform, without a global id";
	struct hcb_warning warn = { .kind = HCB_WARN_NOTICE, .detail = what };

	if (!w->full_told)
		hcb_out_warn(out, &warn);
	w->full_told = 1;
}

int hcb_whois_device(struct hcb_whois *w, const struct hcb_slots *slots, const struct hcb_slot *s,
		     uint32_t d, struct hcb_out *out)
{
	struct hcb_session_device *e;
	unsigned int at;

	if (w->have_last && w->last == d)
		return 0;
	w->last = d;
	w->have_last = 1;
	if (find(w, d, &at) >= 0)
		return 0;
	if (w->ndevs == HCB_SESSION_DEVICES || at == HCB_WHOIS_HASH) {
		full(w, out);
		return 0;
	}
	e = &w->devs[w->ndevs];
	e->device = d;
	e->global_id = s->ti.global_ids ? d : HCB_GLOBAL_NONE;
	snprintf(e->platform, sizeof(e->platform), "%s", s->ti.platform);
	w->ndevs++;
	w->hash[at] = (uint16_t)w->ndevs;
	w->dirty = 1;
	/* by its first callback, jax has said all it will of the job: who
	 * the process is goes out before that callback's tap */
	if (!w->jax_asked && w->pid) {
		struct hcb_warning warn = { .kind = HCB_WARN_NOTICE, .detail = w->id.why };

		w->jax_asked = 1;
		if (hcb_ident_recheck_jax(w->pid, &w->id)) {
			if (w->id.why[0])
				hcb_out_warn(out, &warn);
			return hcb_whois_flush(w, slots, out);
		}
	}
	/* a device the session's platform does not name: before its tap */
	if (strcmp(e->platform, hcb_slots_main(slots)->ti.platform))
		return hcb_whois_flush(w, slots, out);
	return 0;
}

int hcb_whois_flush(struct hcb_whois *w, const struct hcb_slots *slots, struct hcb_out *out)
{
	if (!w->dirty || !w->begun)
		return 0;
	w->dirty = 0;
	return emit(w, slots, out);
}

const char *hcb_whois_platform(const struct hcb_whois *w, const struct hcb_slots *slots,
			       uint32_t d)
{
	unsigned int at;
	int i = find(w, d, &at);

	return i >= 0 ? w->devs[i].platform : hcb_slots_main(slots)->ti.platform;
}
