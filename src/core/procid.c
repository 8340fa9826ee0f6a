/* SPDX-License-Identifier: MIT */
/* procid.c - who a session's process is, checked (procid.h). */
#include <errno.h>
#include <string.h>

#include "procid.h"
#include "utf8.h"

int hcb_procid_check(const struct hcb_process_id *p)
{
	size_t n = strnlen(p->source, sizeof(p->source));

	if (n == 0)
		return 0;
	if (n == sizeof(p->source))
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (p->source[i] < 0x21 || p->source[i] > 0x7e)
			return -EINVAL;
	if (p->count > HCB_PROCESS_MAX || (p->count && p->index >= p->count) ||
	    p->index >= HCB_PROCESS_MAX)
		return -EINVAL;
	return 1;
}

int hcb_job_name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= HCB_JOB_MAX)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (s[i] < 0x21 || s[i] > 0x7e)
			return 0;
	return 1;
}

int hcb_host_name_ok(const char *s, size_t n)
{
	/* text, so that JSON keeps it byte for byte (it writes what is no
	 * UTF-8 as U+FFFD, three bytes a byte) */
	return n > 0 && n <= HCB_HOST_MAX && !memchr(s, '\0', n) && hcb_utf8_valid(s, n);
}

int hcb_procid_number(const char *s, size_t n, uint32_t max, uint32_t *v)
{
	uint64_t x = 0;

	/* ten digits are past any bound a job has */
	if (n == 0 || n > 9 || (n > 1 && s[0] == '0'))
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		x = x * 10 + (uint64_t)(s[i] - '0');
	}
	if (x > max)
		return -EINVAL;
	*v = (uint32_t)x;
	return 0;
}

const char *hcb_session_platform(const struct hcb_session_info *s, uint32_t device)
{
	if (!s)
		return "cpu";
	for (uint32_t i = 0; s->devices && i < s->ndevices; i++)
		if (s->devices[i].device == device && s->devices[i].platform[0])
			return s->devices[i].platform;
	return s->platform[0] ? s->platform : "cpu";
}

int hcb_session_in_job(const struct hcb_session_info *s)
{
	return hcb_procid_check(&s->process) == 1 && s->process.count > 1;
}

int hcb_session_same_who(const struct hcb_session_info *a, const struct hcb_session_info *b)
{
	return !strcmp(a->host, b->host) && !strcmp(a->job, b->job) &&
	       !strcmp(a->process.source, b->process.source) &&
	       (!a->process.source[0] || (a->process.index == b->process.index &&
					  a->process.count == b->process.count));
}
