/* SPDX-License-Identifier: MIT */
/* namepat.c - a recording's name from a pattern (namepat.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "namepat.h"

#define PART_MAX 255u      /* NAME_MAX: a part of a path */
#define VAR_MAX 64u        /* %q{VAR}: a variable's name, at most */

/* The name being made: its bytes, and which came from the target. */
struct made {
	char *out;
	size_t n, cap;
	unsigned char theirs[4096];   /* bit per byte: from a value (first 32 Ki bytes) */
};

static int add(struct made *m, const char *s, size_t n, int from_target)
{
	if (n >= m->cap - m->n)
		return -ENAMETOOLONG;
	for (size_t i = 0; i < n; i++) {
		size_t at = m->n + i;

		if (from_target && at / 8 < sizeof(m->theirs))
			m->theirs[at / 8] |= (unsigned char)(1u << (at % 8));
	}
	memcpy(m->out + m->n, s, n);
	m->n += n;
	m->out[m->n] = '\0';
	return 0;
}

/* A value the target gave, checked before it goes in a name. */
static int add_value(struct made *m, const char *s, size_t n, const char *what, char *why,
		     size_t wcap)
{
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '/' || c < 0x20 || c == 0x7f) {
			snprintf(why, wcap, "%s holds a %s, which no part of a file name may", what,
				 c == '/' ? "'/'" : "control character");
			return -EPERM;
		}
	}
	if (n > PART_MAX) {
		snprintf(why, wcap, "%s is longer than a file name may be", what);
		return -ENAMETOOLONG;
	}
	return add(m, s, n, 1);
}

static int is_theirs(const struct made *m, size_t at)
{
	return at / 8 < sizeof(m->theirs) && (m->theirs[at / 8] >> (at % 8) & 1);
}

/* Every part of the path: at most PART_MAX bytes, and no "." or ".."
 * that a value made. */
static int check_parts(const struct made *m, char *why, size_t wcap)
{
	size_t start = 0;

	for (size_t i = 0; i <= m->n; i++) {
		size_t len = i - start;
		int dots = (len == 1 && m->out[start] == '.') ||
			   (len == 2 && m->out[start] == '.' && m->out[start + 1] == '.');

		if (i < m->n && m->out[i] != '/')
			continue;
		if (len > PART_MAX) {
			snprintf(why, wcap, "a part of the name is longer than %u bytes", PART_MAX);
			return -ENAMETOOLONG;
		}
		if (dots && (is_theirs(m, start) || is_theirs(m, i - 1))) {
			snprintf(why, wcap, "the target's values make a part of the name \"%.*s\"",
				 (int)len, m->out + start);
			return -EPERM;
		}
		start = i + 1;
	}
	return 0;
}

/* %q{VAR}: p at the 'q'; *used: the pattern's bytes it took. */
static int env_value(struct made *m, const char *p, const struct hcb_namepat_vals *v,
		     size_t *used, char *why, size_t wcap)
{
	const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
	char name[VAR_MAX + 1], what[VAR_MAX + 16];
	size_t n = close ? (size_t)(close - p - 2) : 0, len = 0;
	const char *val = NULL;
	int err;

	for (size_t i = 0; close && i < n; i++)
		if (!(p[2 + i] == '_' || (p[2 + i] >= 'A' && p[2 + i] <= 'Z') ||
		      (p[2 + i] >= 'a' && p[2 + i] <= 'z') || (i && p[2 + i] >= '0' && p[2 + i] <= '9')))
			close = NULL;
	if (!close || !n || n > VAR_MAX) {
		snprintf(why, wcap, "%%q takes the name of a variable in braces: %%q{VAR}");
		return -EINVAL;
	}
	memcpy(name, p + 2, n);
	name[n] = '\0';
	*used = n + 3;
	err = v->env ? v->env(v->ctx, name, &val, &len) : -ENOENT;
	if (err == -ENOENT)
		return 0;   /* not set: nothing, as Nsight Systems does */
	if (err) {
		snprintf(why, wcap, "the environment of process %d, for %%q{%s}, was not read: %s",
			 (int)v->pid, name, strerror(-err));
		return -EIO;
	}
	snprintf(what, sizeof(what), "%s", name);
	return add_value(m, val, len, what, why, wcap);
}

/* One pattern: p at the character after '%'. */
static int one(struct made *m, const char *p, const struct hcb_namepat_vals *v, size_t *used,
	       char *why, size_t wcap)
{
	char num[32];

	*used = 1;
	switch (*p) {
	case '%':
		return add(m, "%", 1, 0);
	case 'p':
		snprintf(num, sizeof(num), "%d", (int)v->pid);
		return add(m, num, strlen(num), 0);
	case 'r':
		if (v->has_index)
			snprintf(num, sizeof(num), "%u", v->index);
		else
			snprintf(num, sizeof(num), "pid%d", (int)v->pid);
		return add(m, num, strlen(num), 0);
	case 'h':
		if (!v->host || !v->host[0])
			return add(m, "unknown-host", 12, 0);
		return add_value(m, v->host, strlen(v->host), "the host's name", why, wcap);
	case 'q':
		return env_value(m, p, v, used, why, wcap);
	default:
		snprintf(why, wcap, "'%%%c' is no pattern (%%h, %%p, %%r, %%q{VAR}, %%%%)",
			 *p ? *p : ' ');
		return -EINVAL;
	}
}

int hcb_namepat_has(const char *s)
{
	for (const char *p = strchr(s, '%'); p; p = strchr(p + 2, '%'))
		if (p[1] && strchr("%hprq", p[1]))
			return 1;
		else if (!p[1])
			return 0;
	return 0;
}

int hcb_namepat_expand(const char *pattern, const struct hcb_namepat_vals *v, char *out,
		       size_t cap, char *why, size_t wcap)
{
	struct made m = { .out = out, .cap = cap };
	int err = 0;

	snprintf(why, wcap, "%s", "");
	if (!cap)
		return -ENAMETOOLONG;
	out[0] = '\0';
	for (const char *p = pattern; !err && *p;) {
		const char *pct = strchr(p, '%');
		size_t lit = pct ? (size_t)(pct - p) : strlen(p), used;

		err = add(&m, p, lit, 0);
		p += lit;
		if (err || !*p)
			break;
		err = one(&m, p + 1, v, &used, why, wcap);
		p += 1 + used;
	}
	if (err == -ENAMETOOLONG && !why[0])
		snprintf(why, wcap, "the name is longer than %zu bytes", cap - 1);
	return err ? err : check_parts(&m, why, wcap);
}
