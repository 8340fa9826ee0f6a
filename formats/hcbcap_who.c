/* SPDX-License-Identifier: MIT */
/*
 * hcbcap_who.c - a trigger frame's tail (a job's, an exit's) and the
 * .hcbcap "who" frame (formats/HCBCAP.md): who a
 * session's process is and its devices (issue 36), a skippable frame
 * right before the session frame it belongs to, so that a reader that
 * does not know it reads the session as before.
 */
#include <errno.h>
#include <string.h>

#include "core/procid.h"
#include "hcbcap_impl.h"
#include "le.h"

static size_t len_of(const char *s, size_t cap)
{
	const char *nul = memchr(s, '\0', cap);

	return nul ? (size_t)(nul - s) : cap;
}

size_t cap_who_size(const struct hcb_session_info *s)
{
	size_t n;

	if (!s->host[0] && hcb_procid_check(&s->process) != 1 && !s->job[0] && !s->ndevices &&
	    !s->command[0])
		return 0;
	n = WHO_HEAD + len_of(s->host, sizeof(s->host)) + len_of(s->job, sizeof(s->job));
	if (hcb_procid_check(&s->process) == 1)
		n += len_of(s->process.source, sizeof(s->process.source));
	for (uint32_t i = 0; i < s->ndevices && i < HCB_SESSION_DEVICES; i++)
		n += WHO_DEVICE + len_of(s->devices[i].platform, sizeof(s->devices[i].platform));
	/* the command line, where known: its length and its bytes, last */
	if (s->command[0])
		n += 4 + len_of(s->command, sizeof(s->command));
	return n;
}

/* a string's bytes, without its NUL (its length is in the head) */
static unsigned char *put_str(unsigned char *p, const char *s, size_t n)
{
	memcpy(p, s, n);
	return p + n;
}

void cap_who_put(unsigned char *b, const struct hcb_session_info *s)
{
	int known = hcb_procid_check(&s->process) == 1;
	size_t h = len_of(s->host, sizeof(s->host)), j = len_of(s->job, sizeof(s->job));
	size_t k = known ? len_of(s->process.source, sizeof(s->process.source)) : 0;
	uint32_t nd = s->ndevices < HCB_SESSION_DEVICES ? s->ndevices : HCB_SESSION_DEVICES;
	unsigned char *p;

	hcb_put_le32(b, (uint32_t)h);
	hcb_put_le32(b + 4, known ? s->process.index : 0);
	hcb_put_le32(b + 8, known ? s->process.count : 0);
	hcb_put_le32(b + 12, (uint32_t)k);
	hcb_put_le32(b + 16, (uint32_t)j);
	hcb_put_le32(b + 20, nd);
	p = put_str(b + WHO_HEAD, s->host, h);
	p = put_str(p, s->process.source, k);
	p = put_str(p, s->job, j);
	for (uint32_t i = 0; i < nd; i++) {
		const struct hcb_session_device *d = &s->devices[i];
		size_t m = len_of(d->platform, sizeof(d->platform));

		hcb_put_le32(p, d->device);
		hcb_put_le64(p + 4, d->global_id);
		hcb_put_le32(p + 12, (uint32_t)m);
		p = put_str(p + WHO_DEVICE, d->platform, m);
	}
	if (s->command[0]) {
		size_t c = len_of(s->command, sizeof(s->command));

		hcb_put_le32(p, (uint32_t)c);
		put_str(p + 4, s->command, c);
	}
}

/* n bytes at *p within end, as a string of at most max into dst (NUL
 * terminated; room for max + 1) */
static int take_str(const unsigned char **p, const unsigned char *end, uint32_t n, size_t max,
		    char *dst)
{
	if (n > max || (size_t)(end - *p) < n || memchr(*p, '\0', n))
		return -EBADMSG;
	memcpy(dst, *p, n);
	dst[n] = '\0';
	*p += n;
	return 0;
}

/* The command line after the devices: a length, then 1 to
 * HCB_COMMAND_MAX bytes of printable ASCII, and nothing after it. */
static int take_command(const unsigned char **p, const unsigned char *end, char *dst)
{
	uint32_t n;

	if ((size_t)(end - *p) < 4)
		return -EBADMSG;
	n = hcb_get_le32(*p);
	*p += 4;
	if (!n || take_str(p, end, n, HCB_COMMAND_MAX, dst) || *p != end)
		return -EBADMSG;
	for (const char *c = dst; *c; c++)
		if (*c < 0x20 || *c >= 0x7f)
			return -EBADMSG;
	return 0;
}

int cap_who_parse(const unsigned char *b, uint64_t len, struct hcb_session_info *s,
		  struct hcb_session_device *devs)
{
	const unsigned char *p = b + WHO_HEAD, *end = b + len, *q;
	uint32_t nd = hcb_get_le32(b + 20);

	memset(s, 0, sizeof(*s));
	s->process.index = hcb_get_le32(b + 4);
	s->process.count = hcb_get_le32(b + 8);
	if (nd > HCB_SESSION_DEVICES ||
	    take_str(&p, end, hcb_get_le32(b), HCB_HOST_MAX, s->host) ||
	    take_str(&p, end, hcb_get_le32(b + 12), sizeof(s->process.source) - 1, s->process.source) ||
	    take_str(&p, end, hcb_get_le32(b + 16), HCB_JOB_MAX - 1, s->job) ||
	    hcb_procid_check(&s->process) < 0 ||
	    (s->host[0] && !hcb_host_name_ok(s->host, strlen(s->host))))
		return -EBADMSG;
	/* an index or count with no source is none: the writer puts zeros */
	if (!s->process.source[0] && (s->process.index || s->process.count))
		return -EBADMSG;
	for (uint32_t i = 0; i < nd; i++) {
		if ((size_t)(end - p) < WHO_DEVICE)
			return -EBADMSG;
		devs[i].device = hcb_get_le32(p);
		devs[i].global_id = hcb_get_le64(p + 4);
		q = p + WHO_DEVICE;
		if (take_str(&q, end, hcb_get_le32(p + 12), 15, devs[i].platform))
			return -EBADMSG;
		p = q;
		for (uint32_t k = 0; k < i; k++)
			if (devs[k].device == devs[i].device)
				return -EBADMSG;
	}
	if (p != end && take_command(&p, end, s->command))
		return -EBADMSG;
	s->devices = nd ? devs : NULL;
	s->ndevices = nd;
	return 0;
}

size_t cap_trigger_tail_put(unsigned char *b, const struct hcb_trigger_info *t)
{
	size_t h = strnlen(t->by_host, sizeof(t->by_host) - 1);

	hcb_put_le32(b, t->by_pid);
	hcb_put_le64(b + 4, (uint64_t)t->by_process);
	hcb_put_le32(b + 12, t->exited);
	hcb_put_le32(b + 16, (uint32_t)t->exit_status);
	hcb_put_le32(b + 20, (uint32_t)t->exit_signal);
	if (!h)
		return TRIGGER_TAIL;
	hcb_put_le32(b + TRIGGER_TAIL, (uint32_t)h);
	memcpy(b + TRIGGER_TAIL + 4, t->by_host, h);
	return TRIGGER_TAIL + 4 + h;
}

int cap_trigger_tail_get(const unsigned char *b, uint64_t len, struct hcb_trigger_info *t)
{
	uint32_t h;

	t->by_process = -1;
	if (!len)
		return 0;
	if (len < TRIGGER_TAIL || (len > TRIGGER_TAIL && len < TRIGGER_TAIL + 4))
		return -EBADMSG;
	if (len > TRIGGER_TAIL) {
		/* a fleet's: the host whose hcbtrace fired */
		h = hcb_get_le32(b + TRIGGER_TAIL);
		if (len != TRIGGER_TAIL + 4 + (uint64_t)h ||
		    !hcb_host_name_ok((const char *)b + TRIGGER_TAIL + 4, h))
			return -EBADMSG;
		memcpy(t->by_host, b + TRIGGER_TAIL + 4, h);
		t->by_host[h] = '\0';
	}
	t->by_pid = hcb_get_le32(b);
	/* an index means something only with the pid that fired */
	if (t->by_pid)
		t->by_process = (int64_t)hcb_get_le64(b + 4);
	t->exited = hcb_get_le32(b + 12) != 0;
	t->exit_status = (int32_t)hcb_get_le32(b + 16);
	t->exit_signal = (int32_t)hcb_get_le32(b + 20);
	return 0;
}
