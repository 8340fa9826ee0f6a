/* SPDX-License-Identifier: MIT */
/*
 * jsonl_session.c - the session record in JSONL (formats/JSONL.md,
 * "session"): the session's start, and who its process is (host,
 * process, job) and its devices (issue 36), each member absent where not
 * known.  Read back checked as written (core/procid.h).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "core/procid.h"
#include "json/jsonparse.h"
#include "jsonl.h"
#include "jsonl_fields.h"

static int put_process(struct hcb_buf *out, const struct hcb_process_id *p)
{
	int err = hcb_buf_printf(out, ",\"process\":{\"index\":%u,", p->index);

	if (!err && p->count)
		err = hcb_buf_printf(out, "\"count\":%u,", p->count);
	err = err ? err : hcb_buf_puts(out, "\"source\":");
	err = err ? err : hcb_json_string(out, p->source);
	return err ? err : hcb_buf_putc(out, '}');
}

static int put_devices(struct hcb_buf *out, const struct hcb_session_info *s)
{
	int err = hcb_buf_puts(out, ",\"devices\":[");

	for (uint32_t i = 0; i < s->ndevices && !err; i++) {
		const struct hcb_session_device *d = &s->devices[i];

		err = hcb_buf_printf(out, "%s{\"device\":%u", i ? "," : "", d->device);
		if (!err && d->global_id != HCB_GLOBAL_NONE)
			err = hcb_buf_printf(out, ",\"global_id\":%llu", (unsigned long long)d->global_id);
		/* none of its own: the session's names it */
		if (!err && d->platform[0]) {
			err = hcb_buf_puts(out, ",\"platform\":");
			err = err ? err : hcb_json_string(out, d->platform);
		}
		err = err ? err : hcb_buf_putc(out, '}');
	}
	return err ? err : hcb_buf_putc(out, ']');
}

int hcb_jsonl_session_info(struct hcb_buf *out, const struct hcb_session_info *s)
{
	int err = hcb_buf_printf(out, "{\"type\":\"session\",\"version\":%d,", HCB_JSONL_VERSION);

	/* pid 0: not known, as in a recording without one */
	if (!err && s->pid > 0)
		err = hcb_buf_printf(out, "\"pid\":%d,", (int)s->pid);
	err = err ? err : hcb_buf_puts(out, "\"provider\":");
	err = err ? err : hcb_json_string(out, s->provider);
	err = err ? err : hcb_buf_puts(out, ",\"platform\":");
	err = err ? err : hcb_json_string(out, s->platform);
	if (!err && s->host[0]) {
		err = hcb_buf_puts(out, ",\"host\":");
		err = err ? err : hcb_json_string(out, s->host);
	}
	if (!err && hcb_procid_check(&s->process) == 1)
		err = put_process(out, &s->process);
	if (!err && s->job[0]) {
		err = hcb_buf_puts(out, ",\"job\":");
		err = err ? err : hcb_json_string(out, s->job);
	}
	if (!err && s->ndevices)
		err = put_devices(out, s);
	if (!err && s->command[0]) {
		err = hcb_buf_puts(out, ",\"command\":");
		err = err ? err : hcb_json_string(out, s->command);
	}
	return err ? err : hcb_buf_printf(out, ",\"start_ns\":%llu,\"hcbtrace\":\"%s\"}\n",
					  (unsigned long long)s->start_ns, HCB_VERSION);
}

int hcb_jsonl_session(struct hcb_buf *out, pid_t pid, const char *provider,
		      const char *platform, uint64_t start_ns)
{
	struct hcb_session_info s = { .version = 1, .pid = pid, .start_ns = start_ns };

	snprintf(s.provider, sizeof(s.provider), "%s", provider);
	snprintf(s.platform, sizeof(s.platform), "%s", platform);
	return hcb_jsonl_session_info(out, &s);
}

/* Member key of object obj, if there and not null: its node, else
 * UINT32_MAX. */
static uint32_t member(const struct jdoc *d, uint32_t obj, const char *key)
{
	uint32_t i = jget(d, obj, key);

	return i != UINT32_MAX && d->nodes[i].kind == J_NULL ? UINT32_MAX : i;
}

/* A string member of 1 to max bytes, no NUL, into dst; absent: untouched. */
static int text(struct hcb_reader *r, const struct jdoc *d, uint32_t obj, const char *key,
		char *dst, size_t max)
{
	uint32_t i = member(d, obj, key);

	if (i == UINT32_MAX)
		return 0;
	if (d->nodes[i].kind != J_STR || !d->nodes[i].slen || d->nodes[i].slen > max ||
	    strlen(jstr(d, i)) != d->nodes[i].slen)
		return JSONL_BAD(r, "session: '%s' is not a string of 1 to %zu bytes", key, max);
	memcpy(dst, jstr(d, i), d->nodes[i].slen + 1);
	return 0;
}

/* "command": printable ASCII, as the engine writes it (record.h) */
static int command(struct hcb_reader *r, const struct jdoc *d, char *dst)
{
	if (text(r, d, 0, "command", dst, HCB_COMMAND_MAX))
		return r->err;
	for (const char *c = dst; *c; c++)
		if (*c < 0x20 || *c >= 0x7f)
			return JSONL_BAD(r, "session: 'command' holds a byte that is not printable ASCII");
	return 0;
}

static int read_process(struct hcb_reader *r, const struct jdoc *d, struct hcb_process_id *p)
{
	uint32_t o = member(d, 0, "process"), i;
	uint64_t v;

	if (o == UINT32_MAX)
		return 0;
	if (d->nodes[o].kind != J_OBJ)
		return JSONL_BAD(r, "session: 'process' is not an object");
	i = member(d, o, "index");
	if (i == UINT32_MAX || jwhole(d, i, HCB_PROCESS_MAX - 1, &v))
		return JSONL_BAD(r, "session: 'process' has no 'index' from 0 to %u",
				 HCB_PROCESS_MAX - 1);
	p->index = (uint32_t)v;
	i = member(d, o, "count");
	if (i != UINT32_MAX && (jwhole(d, i, HCB_PROCESS_MAX, &v) || v <= p->index))
		return JSONL_BAD(r, "session: 'process' 'count' is not above its index, up to %u",
				 HCB_PROCESS_MAX);
	p->count = i == UINT32_MAX ? 0 : (uint32_t)v;
	if (member(d, o, "source") == UINT32_MAX ||
	    text(r, d, o, "source", p->source, sizeof(p->source) - 1))
		return r->err ? r->err : JSONL_BAD(r, "session: 'process' has no 'source'");
	if (hcb_procid_check(p) != 1)
		return JSONL_BAD(r, "session: 'process' 'source' is not printable");
	return 0;
}

/* One device of "devices": device, global_id (absent: not known),
 * platform (absent: the session's). */
static int read_device(struct hcb_reader *r, const struct jdoc *d, uint32_t o,
		       struct hcb_session_device *dev)
{
	uint32_t i = member(d, o, "device");
	uint64_t v;

	if (d->nodes[o].kind != J_OBJ || i == UINT32_MAX || jwhole(d, i, UINT32_MAX, &v))
		return JSONL_BAD(r, "session: a device of 'devices' has no 'device' number");
	memset(dev, 0, sizeof(*dev));
	dev->device = (uint32_t)v;
	dev->global_id = HCB_GLOBAL_NONE;
	i = member(d, o, "global_id");
	if (i != UINT32_MAX && jwhole(d, i, HCB_GLOBAL_NONE - 1, &dev->global_id))
		return JSONL_BAD(r, "session: device %u's 'global_id' is not a whole number", dev->device);
	return text(r, d, o, "platform", dev->platform, sizeof(dev->platform) - 1);
}

static int read_devices(struct hcb_reader *r, const struct jdoc *d,
			struct hcb_session_device *devs, uint32_t *n)
{
	uint32_t a = member(d, 0, "devices"), c;

	*n = 0;
	if (a == UINT32_MAX)
		return 0;
	if (d->nodes[a].kind != J_ARR || d->nodes[a].count > HCB_SESSION_DEVICES)
		return JSONL_BAD(r, "session: 'devices' is not a list of at most %u", HCB_SESSION_DEVICES);
	c = jfirst(a);
	for (uint32_t k = 0; k < d->nodes[a].count; k++, c = d->nodes[c].end) {
		if (read_device(r, d, c, &devs[k]))
			return r->err;
		for (uint32_t j = 0; j < k; j++)
			if (devs[j].device == devs[k].device)
				return JSONL_BAD(r, "session: device %u is in 'devices' twice",
						 devs[k].device);
	}
	*n = d->nodes[a].count;
	return 0;
}

int hcb_jsonl_read_session(struct hcb_reader *r, struct hcb_record *rec)
{
	struct jsonl_reader *st = r->state;
	struct hcb_session_info *s = &rec->session;
	const struct jdoc *d = &st->doc;
	uint64_t v;

	rec->kind = HCB_REC_SESSION;
	if (hcb_jsonl_get_u64(r, 0, "version", UINT32_MAX, &v, 0))
		return r->err;
	if (v != HCB_JSONL_VERSION)
		return hcb_reader_fail(r, -EPROTO, hcb_jsonl_where(r),
				       "recording format version %llu; this hcbtrace reads version %d",
				       (unsigned long long)v, HCB_JSONL_VERSION);
	s->version = (int)v;
	strcpy(s->platform, "cpu");
	s->command[0] = '\0';
	v = 0;   /* no pid: not known (a recording made by hand, or elsewhere) */
	if (hcb_jsonl_get_u64(r, 0, "pid", INT32_MAX, &v, 1))
		return r->err;
	s->pid = (int32_t)v;
	v = 0;
	if (hcb_jsonl_get_u64(r, 0, "start_ns", UINT64_MAX, &v, 1) ||
	    hcb_jsonl_copy_str(r, 0, "provider", s->provider, sizeof(s->provider), 1) ||
	    hcb_jsonl_copy_str(r, 0, "platform", s->platform, sizeof(s->platform), 1))
		return r->err;
	s->start_ns = v;
	/* a JSON string is UTF-8: a host's name as procid.h has it */
	if (text(r, d, 0, "host", s->host, HCB_HOST_MAX) || read_process(r, d, &s->process) ||
	    text(r, d, 0, "job", s->job, HCB_JOB_MAX - 1) ||
	    read_devices(r, d, st->devices, &s->ndevices) ||
	    command(r, d, s->command))
		return r->err;
	s->devices = s->ndevices ? st->devices : NULL;
	return 1;
}
