/* SPDX-License-Identifier: MIT */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"

static pthread_mutex_t last_lock = PTHREAD_MUTEX_INITIALIZER;
static struct hcb_refusal last;
static int have_last;

void hcb_verdict_refused(const struct hcb_refusal *r)
{
	pthread_mutex_lock(&last_lock);
	last = *r;
	have_last = 1;
	pthread_mutex_unlock(&last_lock);
}

int hcb_verdict_last(struct hcb_refusal *out)
{
	int err = -ENOENT;

	pthread_mutex_lock(&last_lock);
	if (have_last) {
		*out = last;
		err = 0;
	}
	pthread_mutex_unlock(&last_lock);
	return err;
}

void hcb_verdict_keep(char *out, size_t cap, const char *log)
{
	size_t len = strlen(log);
	const char *from = log;

	if (!cap)
		return;
	if (len >= cap) {
		/* the end is what says why: a line cut at its start is left out */
		const char *nl;

		from = log + len - (cap - 1);
		nl = strchr(from, '\n');
		if (nl && nl[1])
			from = nl + 1;
	}
	snprintf(out, cap, "%s", from);
}

/* The verifier's figures, which follow its error at level 4 (BPF_LOG_STATS). */
static int is_figure(const char *line, size_t len)
{
	static const char *const starts[] = { "verification time ", "stack depth ", "processed " };

	for (size_t i = 0; i < sizeof(starts) / sizeof(starts[0]); i++)
		if (len >= strlen(starts[i]) && !strncmp(line, starts[i], strlen(starts[i])))
			return 1;
	return 0;
}

/* The line before end (exclusive) in log: *len its length, NULL at the start. */
static const char *line_before(const char *log, const char *end, size_t *len)
{
	const char *start;

	while (end > log && end[-1] == '\n')
		end--;
	if (end == log)
		return NULL;
	start = end;
	while (start > log && start[-1] != '\n')
		start--;
	*len = (size_t)(end - start);
	return start;
}

void hcb_verdict_reason(const char *log, char *out, size_t cap)
{
	const char *end = log + strlen(log), *line;
	size_t len = 0;

	out[0] = 0;
	while ((line = line_before(log, end, &len))) {
		if (!is_figure(line, len)) {
			snprintf(out, cap, "%.*s", (int)len, line);
			return;
		}
		end = line;
	}
}

/* The line of log that starts with prefix, after the prefix; NULL if none. */
static const char *line_of(const char *log, const char *prefix, size_t *len)
{
	const char *end = log + strlen(log), *line;
	size_t plen = strlen(prefix);

	while ((line = line_before(log, end, len))) {
		if (*len >= plen && !strncmp(line, prefix, plen)) {
			*len -= plen;
			return line + plen;
		}
		end = line;
	}
	return NULL;
}

void hcb_verdict_stack(const char *log, char *out, size_t cap)
{
	size_t len;
	const char *s = line_of(log, "stack depth ", &len);

	snprintf(out, cap, "%.*s", s ? (int)len : 0, s ? s : "");
}

long hcb_verdict_insns(const char *log)
{
	size_t len;
	const char *s = line_of(log, "processed ", &len);

	return s ? strtol(s, NULL, 10) : -1;
}

int hcb_verdict_whole_end(const char *log)
{
	size_t len;
	const char *line = line_before(log, log + strlen(log), &len);

	return line && len > 10 && !strncmp(line, "processed ", 10);
}
