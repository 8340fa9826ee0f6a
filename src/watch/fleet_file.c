/* SPDX-License-Identifier: MIT */
/*
 * fleet_file.c - a fire file's bytes (fleet.h): one JSON line in one
 * fixed form, written by hcb_fleet_format and read back by
 * hcb_fleet_parse, which takes nothing else (a file in a shared
 * directory is anyone's to write).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "fleet.h"

static int host_byte(int ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '.' || ch == '_' || ch == '-';
}

static int text_byte(int ch)
{
	return ch >= 0x20 && ch < 0x7f && ch != '"' && ch != '\\';
}

void hcb_fleet_clean_host(char *dst, size_t size, const char *host)
{
	size_t n = 0;

	if (!host || !host[0])
		host = "localhost";
	for (; host[n] && n < HCB_HOST_MAX && n + 1 < size; n++)
		dst[n] = host_byte((unsigned char)host[n]) ? host[n] : '_';
	if (size)
		dst[n] = '\0';
}

void hcb_fleet_clean_text(char *dst, size_t size, const char *text)
{
	size_t n = 0;

	for (; text[n] && n + 1 < size; n++)
		dst[n] = text_byte((unsigned char)text[n]) ? text[n] : '?';
	if (size)
		dst[n] = '\0';
}

/* 1 if s, of at most max bytes, is 1 or more bytes all ok */
static int all_ok(const char *s, size_t max, int (*ok)(int ch))
{
	size_t n = strnlen(s, max + 1);

	if (n == 0 || n > max)
		return 0;
	for (size_t i = 0; i < n; i++) {
		if (!ok((unsigned char)s[i]))
			return 0;
	}
	return 1;
}

static int fire_ok(const struct hcb_fleet_fire *f)
{
	return all_ok(f->host, HCB_HOST_MAX, host_byte) && f->tracer_pid && f->seq && f->pid &&
	       f->process >= -1 && f->process < (int64_t)HCB_PROCESS_MAX &&
	       all_ok(f->condition, sizeof(f->condition) - 1, text_byte);
}

int hcb_fleet_format(char *buf, size_t size, const struct hcb_fleet_fire *f)
{
	char process[40] = "";
	int n;

	if (!fire_ok(f))
		return -EINVAL;
	if (f->process >= 0)
		snprintf(process, sizeof(process), ",\"process\":%" PRId64, f->process);
	n = snprintf(buf, size, "{\"hcbtrace_fleet\":1,\"host\":\"%s\",\"hcbtrace_pid\":%" PRIu32
		     ",\"seq\":%" PRIu64 ",\"pid\":%" PRIu32 "%s,\"condition\":\"%s\",\"wall_ns\":%"
		     PRIu64 "}\n", f->host, f->tracer_pid, f->seq, f->pid, process, f->condition,
		     f->wall_ns);
	return n < 0 || (size_t)n >= size ? -ENOSPC : n;
}

struct cursor {
	const char *p, *end;
};

static int take(struct cursor *c, const char *lit)
{
	size_t n = strlen(lit);

	if ((size_t)(c->end - c->p) < n || memcmp(c->p, lit, n))
		return -1;
	c->p += n;
	return 0;
}

/* A decimal whole number up to max: no sign, no leading zero. */
static int number(struct cursor *c, uint64_t max, uint64_t *v)
{
	const char *start = c->p;

	*v = 0;
	while (c->p < c->end && *c->p >= '0' && *c->p <= '9') {
		uint64_t d = (uint64_t)(*c->p - '0');

		if (*v > (max - d) / 10)
			return -1;
		*v = *v * 10 + d;
		c->p++;
	}
	if (c->p == start || (*start == '0' && c->p - start > 1))
		return -1;
	return 0;
}

/* A string of 1 to size - 1 bytes, each ok, its quotes taken. */
static int string(struct cursor *c, char *dst, size_t size, int (*ok)(int ch))
{
	size_t n = 0;

	if (take(c, "\""))
		return -1;
	while (c->p < c->end && *c->p != '"') {
		if (n + 1 >= size || !ok((unsigned char)*c->p))
			return -1;
		dst[n++] = *c->p++;
	}
	dst[n] = '\0';
	return n == 0 || take(c, "\"");
}

static int numbers(struct cursor *c, struct hcb_fleet_fire *f)
{
	uint64_t pid, seq, tracer, process;

	if (take(c, ",\"hcbtrace_pid\":") || number(c, UINT32_MAX, &tracer) || !tracer ||
	    take(c, ",\"seq\":") || number(c, UINT64_MAX, &seq) || !seq ||
	    take(c, ",\"pid\":") || number(c, UINT32_MAX, &pid) || !pid)
		return -1;
	f->tracer_pid = (uint32_t)tracer;
	f->seq = seq;
	f->pid = (uint32_t)pid;
	f->process = -1;
	if (take(c, ",\"process\":") == 0) {
		if (number(c, HCB_PROCESS_MAX - 1, &process))
			return -1;
		f->process = (int64_t)process;
	}
	return 0;
}

int hcb_fleet_parse(const char *buf, size_t len, struct hcb_fleet_fire *f)
{
	struct cursor c = { buf, buf + len };

	memset(f, 0, sizeof(*f));
	if (len > HCB_FLEET_FILE_MAX ||
	    take(&c, "{\"hcbtrace_fleet\":1,\"host\":") ||
	    string(&c, f->host, sizeof(f->host), host_byte) || numbers(&c, f) ||
	    take(&c, ",\"condition\":") ||
	    string(&c, f->condition, sizeof(f->condition), text_byte) ||
	    take(&c, ",\"wall_ns\":") || number(&c, UINT64_MAX, &f->wall_ns) ||
	    take(&c, "}\n") || c.p != c.end) {
		memset(f, 0, sizeof(*f));
		return -EBADMSG;
	}
	return 0;
}
